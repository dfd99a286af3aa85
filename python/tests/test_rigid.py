"""saltation.rigid: a penetrating start (projected and reported, or refused), a failure part-way
(the events before it kept on the exception), bad arguments."""
import mujoco
import numpy as np
import pytest

import saltation

# a ball resting 2 mm into the floor, and a slider that touches nothing with a negative stiffness:
# it grows as e^(1414 t) until the state is not finite (t ≈ 0.26 s), after the second ball's
# touchdown (0.3 m drop: t = √(2·0.25/9.81) = 0.2258 s)
MODEL = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="resting" pos="0 0 0.048"><freejoint/><geom name="resting" size="0.05"/></body>
    <body name="falling" pos="1 0 0.3"><freejoint/><geom name="falling" size="0.05"/></body>
    <body name="slider" pos="0 2 1">
      <joint name="x" type="slide" axis="1 0 0" stiffness="{stiffness}" springref="-1e-3"/>
      <geom size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"""


def model(stiffness=0):
    return mujoco.MjModel.from_xml_string(MODEL.format(stiffness=stiffness))


def test_a_penetrating_start_is_projected_and_reported():
    m = model()
    d = mujoco.MjData(m)
    q0 = d.qpos.copy()
    events = saltation.rigid(m, d, duration=0.3)
    assert isinstance(events, saltation.RigidEvents)
    moved = events.start_projection
    assert [label for label, _ in moved["contacts"]] == ["floor/resting"]
    assert moved["contacts"][0][1] == pytest.approx(0.002, abs=1e-12)
    assert moved["base_only"]
    assert moved["dq_norm"] == pytest.approx(0.002, abs=1e-9)
    np.testing.assert_array_equal(d.qpos, q0)  # data is not changed
    touchdowns = [e for e in events if e.kind == "touchdown"]
    assert len(touchdowns) == 1 and touchdowns[0].time == pytest.approx(np.sqrt(2 * 0.25 / 9.81), abs=1e-9)


def test_a_start_that_does_not_penetrate_moves_nothing():
    m = model()
    d = mujoco.MjData(m)
    d.qpos[2] = 0.05
    events = saltation.rigid(m, d, duration=0.01)
    assert events.start_projection["contacts"] == []
    assert events.start_projection["dq_norm"] == 0


def test_strict_and_the_limit_refuse_a_penetrating_start():
    m = model()
    with pytest.raises(saltation.NumericalError, match="penetrat"):
        saltation.rigid(m, mujoco.MjData(m), duration=0.1, start="strict")
    with pytest.raises(saltation.NumericalError, match="penetrat"):
        saltation.rigid(m, mujoco.MjData(m), duration=0.1, start_limit=0.001)
    with pytest.raises(saltation.ConfigError, match="'project' or 'strict'"):
        saltation.rigid(m, mujoco.MjData(m), duration=0.1, start="lift")
    with pytest.raises(saltation.ConfigError, match="start_limit"):
        saltation.rigid(m, mujoco.MjData(m), duration=0.1, start_limit=0)


def test_a_failure_part_way_keeps_the_events_before_it():
    m = model(stiffness=-2e6)
    with pytest.raises(saltation.NumericalError, match="not finite") as failure:
        saltation.rigid(m, mujoco.MjData(m), duration=2)
    events = failure.value.events
    assert [e.kind for e in events] == ["touchdown"]
    assert events[0].time == pytest.approx(np.sqrt(2 * 0.25 / 9.81), abs=1e-9)
    assert "the rigid model failed at t = 0.2" in str(failure.value)
    assert events[0].time < failure.value.time == pytest.approx(0.26, abs=0.02)


# a ball dropped 0.1 m with restitution 0.5: touchdowns at t_n = t₁(1 + 2 Σ_{k<n} 0.5^k),
# t₁ = √(0.2/9.81), until its impact speed is below the plastic threshold (0.01 m/s): 9 in 0.5 s
BOUNCING = """
<mujoco>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.15"><freejoint/><geom name="ball" size="0.05"/></body>
  </worldbody>
</mujoco>
"""


def touchdown_time(n):
    return np.sqrt(0.2 / 9.81) * (1 + 2 * sum(0.5 ** k for k in range(1, n)))


def test_events_past_max_events_raise_naming_the_limit_and_the_time():
    """More than max_events events within 0.1 s raise: the 7th touchdown is the 4th of the window
    the 4th opened (before, the run advanced one event per call and the limit never fired). The
    exception's events end with the one the run stopped at, the 7th (before, it was left out)."""
    m = mujoco.MjModel.from_xml_string(BOUNCING)
    events = saltation.rigid(m, mujoco.MjData(m), duration=0.5)
    assert [e.time for e in events] == pytest.approx([touchdown_time(n) for n in range(1, 10)], abs=1e-13)
    with pytest.raises(saltation.NumericalError, match=r"more than 3 events within 0.1 s of simulated time "
                       r"\(the limit max_events = 3\): event 4 of the window at t = 0.423890927") as failure:
        saltation.rigid(m, mujoco.MjData(m), duration=0.5, max_events=3)
    assert [e.time for e in failure.value.events] == pytest.approx([touchdown_time(n) for n in range(1, 8)],
                                                                  abs=1e-13)
    assert failure.value.time == failure.value.events[-1].time
    for bad in (0, -3):
        with pytest.raises(saltation.ConfigError, match="max_events must be at least 1"):
            saltation.rigid(m, mujoco.MjData(m), duration=0.5, max_events=bad)
    with pytest.raises(saltation.ConfigError, match="max_events must be a whole number"):
        saltation.rigid(m, mujoco.MjData(m), duration=0.5, max_events=2.5)


def test_a_max_events_beyond_a_cpp_int_is_a_config_error():
    """A limit too large for the simulator's int is our ConfigError, not pybind11's TypeError."""
    m = mujoco.MjModel.from_xml_string(BOUNCING)
    for bad in (2**31, np.int64(2**40), -2**31 - 1, 10**30):
        with pytest.raises(saltation.ConfigError, match="max_events must be between 1 and 2147483647"):
            saltation.rigid(m, mujoco.MjData(m), duration=0.5, max_events=bad)
    assert len(saltation.rigid(m, mujoco.MjData(m), duration=0.5, max_events=np.int64(2**31 - 1))) == 9
