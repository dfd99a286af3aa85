"""Controls in Python: saltation.rigid(controller=...) — a callable of (t, qpos, qvel) or a control
table path — and Hook(controller=...), a per-step controller. The model: a 2 kg ball on a vertical
slide joint under a motor, dropped from 0.5 m (radius 0.05, restitution 0.5); with u = 30 t the
touchdown is the root of 0.45 − 4.905 t² + 2.5 t³ (tests/control_test.cc), 0.332344374917 s, and
Ξ[v, z] = (1 + e)·a/v⁻ with a = −9.81 + 15 t, v⁻ = −9.81 t + 7.5 t²."""
import mujoco
import numpy as np
import pytest

import saltation

XML = """<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="ball">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="2" condim="1"/>
    </body>
  </worldbody>
  <actuator><motor name="lift" joint="z"/></actuator>
</mujoco>"""


def ramp_touchdown():
    t = np.sqrt(0.9 / 9.81)
    for _ in range(50):
        t -= (0.45 - 4.905 * t**2 + 2.5 * t**3) / (-9.81 * t + 7.5 * t**2)
    return t


@pytest.fixture
def model_data():
    m = mujoco.MjModel.from_xml_string(XML)
    d = mujoco.MjData(m)
    d.qpos[0] = 0.5
    return m, d


def test_rigid_follows_a_callable_controller(model_data):
    m, d = model_data
    calls = []

    def ramp(t, qpos, qvel):
        calls.append(t)
        assert qpos.shape == (1,) and qvel.shape == (1,)
        return [30.0 * t]

    events = saltation.rigid(m, d, 0.4, controller=ramp)
    td = [e for e in events if e.kind == "touchdown"][0]
    t = ramp_touchdown()
    assert abs(td.time - t) < 1e-11
    a, v = -9.81 + 15 * t, -9.81 * t + 7.5 * t**2
    assert td.xi[1, 0] == pytest.approx(1.5 * a / v, rel=1e-12)
    assert len(calls) > 100  # every RK4 stage
    # held (the default) is the free fall
    free = [e for e in saltation.rigid(m, d, 0.4) if e.kind == "touchdown"][0]
    assert abs(free.time - np.sqrt(0.9 / 9.81)) < 1e-11


def test_rigid_follows_a_control_table(model_data, tmp_path):
    m, d = model_data
    table = tmp_path / "ramp.csv"
    table.write_text("time,lift\n0,0\n1,30\n")
    events = saltation.rigid(m, d, 0.4, controller=table)
    assert abs([e for e in events if e.kind == "touchdown"][0].time - ramp_touchdown()) < 1e-11
    table.write_text("time,lift\n0,0\n1\n")
    with pytest.raises(saltation.ConfigError, match="line 3: 1 values where the header has 2"):
        saltation.rigid(m, d, 0.4, controller=str(table))


def test_bad_controllers_raise(model_data):
    m, d = model_data
    with pytest.raises(saltation.ConfigError, match="controller returned 2 controls; the model has 1 actuators"):
        saltation.rigid(m, d, 0.4, controller=lambda t, q, v: [0.0, 1.0])
    with pytest.raises(saltation.ConfigError, match="controller must return 1 numbers"):
        saltation.rigid(m, d, 0.4, controller=lambda t, q, v: "up")
    with pytest.raises(saltation.ConfigError, match="controller must be None, a control table path or a callable"):
        saltation.rigid(m, d, 0.4, controller=3)

    def broken(t, q, v):
        raise ValueError("sensor offline")

    with pytest.raises(ValueError, match="sensor offline"):
        saltation.rigid(m, d, 0.4, controller=broken)
    with pytest.raises(saltation.ConfigError, match="controller must be None or a callable"):
        saltation.Hook(m, controller="ramp.csv")


def test_hook_calls_its_controller_before_each_step(model_data):
    m, d = model_data
    steps = []

    def ramp(model, data):
        steps.append(data.time)
        data.ctrl[0] = 30.0 * data.time

    hook = saltation.Hook(m, controller=ramp)
    while d.time < 0.4:
        hook.step(d)
    assert len(steps) == 400 and steps[0] == 0.0
    td = [e for e in hook.events if e.kind == "touchdown"][0]
    # MuJoCo holds each step's control and its contact is soft: within 2 ms of the rigid touchdown
    assert abs(td.time - ramp_touchdown()) < 2e-3
    assert abs(td.time - np.sqrt(0.9 / 9.81)) > 0.02  # far from the uncontrolled fall
