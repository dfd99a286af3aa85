"""The exact rigid simulator, periodic orbits and the names of Ξ's rows, from Python."""
import numbers
from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._events import Event


def state_labels(model):
    """Row and column names of Ξ, Φ and DΔ for a mujoco.MjModel: "q:<dof>", "v:<dof>", "act:<actuator>"
    (free joints: <joint>.x .y .z .rx .ry .rz; ball joints: <joint>.rx .ry .rz)."""
    return _core.state_labels(model)


class RigidEvents(list):
    """The events of saltation.rigid, in time order (a list of saltation.Event). start_projection
    says what the projection of a penetrating start moved: {"contacts": [(label, depth_m), ...]
    deepest first (empty: the start did not penetrate), "dq_norm": ‖Δq‖, "base_only": only the
    free joints moved}. final_forces: the normal force λ_n (N) the rigid model's contact law gives
    each contact of the mode the run ended in, at its final state: [(label, λ_n), ...] in the
    mode's order (empty: in flight; None on the events a failed run's error carries)."""
    start_projection: dict
    final_forces: list


def rigid(model, data, duration, restitution=None, step=1e-3, grazing=0.01, start="project", start_limit=0.03,
          controller=None, mocap=None, max_events=10000):
    """The events of the exact rigid hybrid model from data's state over duration seconds: a
    RigidEvents list of saltation.Event. data is not changed.

    controller: None (data's ctrl held constant), a path to a control table (CSV ``time,ACTUATOR,…``,
    linear between rows; actuators it does not list hold data's ctrl — README, "Controls"), or a
    callable ``f(t, qpos, qvel) -> ctrl`` (numpy arrays in, nu numbers out) evaluated wherever the
    rigid flow is (RK4 stages, the event's F⁻ and F⁺), so events and Ξ are those of the controlled
    system. It must be continuous in t and the state; its exceptions propagate.

    mocap: None (the mocap bodies stay where the model has them), a path to a mocap table (CSV
    ``time,BODY.x,BODY.y,BODY.z,…``, a cubic spline through the rows — README, "Moving surfaces"),
    or a callable ``f(t) -> (pos, vel)`` giving every mocap body's world position and velocity
    (two nmocap × 3 arrays): strikes on the moving surfaces get ∂g/∂t, impacts are relative to the
    surface and Ξ has the time terms.

    A start that penetrates is projected onto the contact manifold (start="project", as the
    command line; refused deeper than start_limit m) or refused (start="strict"): what moved is in
    the result's start_projection. A failure part-way raises NumericalError with the events found
    before it in the exception's `events` (the last of them the event the run stopped at, when it
    stopped right after one: the one past max_events, one after which a capsule rocks too stiffly
    for the step) and its time in `time` (the command line writes them before the failure record).

    max_events: more than this many events within 0.1 s of simulated time (Zeno bouncing,
    chattering, events repeating at one instant) raise NumericalError naming the limit and the
    time reached, with the events up to the one past the limit (the last) attached."""
    if isinstance(max_events, bool) or not isinstance(max_events, numbers.Integral):
        raise _core.ConfigError(f"max_events must be a whole number, not {max_events!r}")
    r = _core.rigid(model, data, float(duration), restitution, float(step), float(grazing), str(start),
                    float(start_limit), controller, mocap, int(max_events))
    events = RigidEvents(Event.from_json(j) for j in r["events"])
    events.start_projection = r["start_projection"]
    events.final_forces = r["final_forces"]
    if r["error"] is not None:
        error = _core.NumericalError(r["error"])
        error.events = events
        error.time = r["failure_time"]
        raise error
    return events


@dataclass
class Floquet:
    """A periodic orbit of the rigid model and its Floquet multipliers."""
    converged: bool
    period: float
    multipliers: np.ndarray            # from the Φ/Ξ chain, largest modulus first (complex)
    shooting_multipliers: np.ndarray   # from finite differences of one period (complex)
    constrained_multipliers: np.ndarray
    constrained_shooting_multipliers: np.ndarray
    trivial: int                       # index of the trivial multiplier in `multipliers`
    agreement: float                   # max |λ_chain − λ_shooting|
    verdict: str                       # "stable", "neutrally stable" or "unstable"
    iterations: int
    newton_iterations: int
    residual: float
    section: str
    monodromy: np.ndarray
    shooting: np.ndarray
    cyclic: list = field(default_factory=list)
    symmetries: list = field(default_factory=list)   # cyclic coordinates that are exact symmetries
    trivial_multiplier: float = 1.0    # on the flow direction (constrained chain), never averaged
    symmetry_multipliers: list = field(default_factory=list)  # one per exact symmetry
    other_multipliers: np.ndarray = None   # the constrained chain's others (complex)
    cross_checked: bool = False        # repeated at half the integrator step
    check_multipliers: np.ndarray = None   # the others at half the step
    consistent: bool = True            # trivial/symmetry multipliers 1 and the half step agrees
    check_failures: list = field(default_factory=list)
    events: list = field(default_factory=list)  # one period's events (saltation.Event)
    section_events: int = 1            # section events in one period (a hop's foot and stop strikes: 2)


def floquet(model, keyframe=None, data=None, section="touchdown", step=1e-3, max_iterations=400,
            tolerance=1e-9):
    """The periodic orbit through a keyframe's state (or data's, or qpos0) on the exact rigid model,
    by iterating the return map at each `section` event, and its multipliers."""
    r = _core.floquet(model, data, keyframe or "", section, float(step), int(max_iterations), float(tolerance))
    r["events"] = [Event.from_json(j) for j in r["events"]]
    for key in ("multipliers", "shooting_multipliers", "constrained_multipliers",
                "constrained_shooting_multipliers", "other_multipliers", "check_multipliers"):
        r[key] = np.asarray(r[key], dtype=complex)
    r["monodromy"] = np.asarray(r["monodromy"])
    r["shooting"] = np.asarray(r["shooting"])
    return Floquet(**r)
