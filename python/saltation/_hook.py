"""saltation.Hook: the C++ engine hook on mujoco.MjModel / mujoco.MjData."""
import json
import numbers
import os

import numpy

from . import _core
from ._core import ConfigError
from ._events import Event
from ._files import write_atomically


class Hook:
    """Call ``hook.step(d)`` instead of ``mujoco.mj_step(m, d)``: MuJoCo advances exactly as
    with mj_step (bit for bit) and the hook reports every contact event of the rigid hybrid model
    with its saltation matrix Ξ (one step late: the crossing inside a step is known after the next).

    model: the mujoco.MjModel (the hook steps its own copy: later edits of model are not seen).
    propagation: "events", "rigid" (Φ of the rigid model), "compliant" (Φ of MuJoCo's step by
    mjd_transitionFD) or "both". restitution: None (the MJCF's <custom> fields), a number in
    [0, 1] for every contact, or "auto" (measured per geom pair on MuJoCo's own contact).
    grazing: grazing measure (transversality_rel, unit-free) below which an event is grazing. xi_on_demand: Ξ is
    completed when an event is read. covariance: propagate P through Ξ (P₀ = initial_covariance·I,
    Q = process_noise·dt·I per step). controller: None, or a per-step controller ``f(model, data)``
    that sets ``data.ctrl`` from data's state; step calls it before each step (MuJoCo holds the
    controls over the step; the events' Ξ use them). worker_thread: the bookkeeping on a thread of
    the hook's own (step pays a bare MuJoCo step and two ``mj_getState`` captures; the worker
    replays the step with the hook's widened gaps and checks it reaches the same state; events,
    Φ and the mode are the same bit for bit, and reading them waits for the worker; an error of the worker is raised by a
    later step or read).
    """

    def __init__(self, model, propagation="events", restitution=None, grazing=0.01, xi_on_demand=False,
                 covariance=False, process_noise=0.0, initial_covariance=0.0, controller=None,
                 worker_thread=False):
        if controller is not None and not callable(controller):
            raise ConfigError(f"controller must be None or a callable f(model, data), not {controller!r}")
        if propagation not in ("events", "rigid", "compliant", "both"):
            raise ConfigError(f"propagation must be events, rigid, compliant or both, not {propagation!r}")
        if not (restitution is None or restitution == "auto" or
                (isinstance(restitution, numbers.Real) and not isinstance(restitution, bool))):
            raise ConfigError(f"restitution must be None, a number in [0, 1] or 'auto', not {restitution!r}")
        for name, flag in (("xi_on_demand", xi_on_demand), ("covariance", covariance),
                           ("worker_thread", worker_thread)):
            if not isinstance(flag, (bool, numpy.bool_)):
                raise ConfigError(f"{name} must be True or False, not {flag!r}")
        self._hook = _core._Hook(model, propagation, restitution, float(grazing), bool(xi_on_demand),
                                 bool(covariance), float(process_noise), float(initial_covariance),
                                 bool(worker_thread))
        self._model = model
        self.controller = controller
        self._events = []

    def step(self, data):
        """One mujoco.mj_step(m, data) and the bookkeeping; data must belong to the hook's model. The
        hook's controller, if any, sets data.ctrl first."""
        if self.controller is not None:
            self.controller(self._model, data)
        self._hook.step(data)

    def reset(self, data):
        """Starts the bookkeeping afresh at data's state (after mujoco.mj_resetData, say)."""
        self._hook.reset(data)
        self._events = []

    @property
    def events(self):
        """Every record so far (list of saltation.Event, in the order found)."""
        n = self._hook.num_events()
        if n < len(self._events):  # the hook restarted
            self._events = []
        while len(self._events) < n:
            self._events.append(Event.from_json(self._hook.event_json(len(self._events))))
        return list(self._events)

    def header(self, model=""):
        """The log header record of this hook (a dict, docs/log-format.md): versions, the model's
        sizes, timestep, integrator, state_labels (Ξ's rows), units and the options in effect.
        model: the model's path, to name it in the header."""
        return json.loads(self._hook.header_json(os.fspath(model)))

    def write_log(self, path, model=""):
        """Writes the header and every record so far as a JSON Lines log (the format of
        saltation record --out, read back by saltation.read_events), through a temporary file and
        a rename."""
        lines = [self._hook.header_json(os.fspath(model))]
        lines += [self._hook.event_json(i) for i in range(self._hook.num_events())]
        write_atomically(path, "\n".join(lines) + "\n")

    @property
    def worker_thread(self):
        """Whether the bookkeeping runs on the hook's worker thread."""
        return self._hook.worker_thread

    @property
    def untracked_pairs(self):
        """Geom-type pairs whose near-contacts MuJoCo cannot report exactly (seen once they touch)."""
        return list(self._hook.untracked_pairs)

    @property
    def active_contacts(self):
        """Contacts in the rigid model's mode now."""
        return self._hook.active_contacts

    @property
    def phi_rigid(self):
        """Φ of the rigid hybrid model from the start to phi_time (ndarray ndx × ndx; empty
        without rigid propagation). May overflow for long runs: see phi_rigid_scaled."""
        return self._hook.phi_rigid(True)

    @property
    def phi_rigid_scaled(self):
        """(matrix, log_scale) with Φ_rigid = matrix · exp(log_scale), kept apart against overflow."""
        return self._hook.phi_rigid(False), self._hook.phi_rigid_log_scale

    @property
    def phi_compliant(self):
        """Φ of MuJoCo's own step (product of mjd_transitionFD); empty without compliant propagation."""
        return self._hook.phi_compliant(True)

    @property
    def phi_compliant_scaled(self):
        return self._hook.phi_compliant(False), self._hook.phi_compliant_log_scale

    @property
    def phi_time(self):
        """The time Φ has reached (one step behind the simulation)."""
        return self._hook.phi_time

    @property
    def covariance(self):
        """P propagated through Ξ (empty unless covariance=True)."""
        return self._hook.covariance

    @property
    def covariance_dreset(self):
        """P propagated through DΔ alone at events, for contrast."""
        return self._hook.covariance_dreset

    def markers(self, time, fade=1.0):
        """The marker spheres of events no older than fade s at time: [(pos, radius, rgba)]."""
        return self._hook.markers(float(time), float(fade))
