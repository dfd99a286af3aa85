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
