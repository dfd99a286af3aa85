"""Controls in Python: saltation.rigid(controller=...) — a callable of (t, qpos, qvel) or a control
table path — and Hook(controller=...), a per-step controller. The model: a 2 kg ball on a vertical
slide joint under a motor, dropped from 0.5 m (radius 0.05, restitution 0.5); with u = 30 t the
touchdown is the root of 0.45 − 4.905 t² + 2.5 t³ (tests/control_test.cc), 0.332344374917 s, and
Ξ[v, z] = (1 + e)·a/v⁻ with a = −9.81 + 15 t, v⁻ = −9.81 t + 7.5 t²."""
import mujoco
import numpy as np
import pytest

import saltation
from conftest import ROOT

MODELS = ROOT / "tests" / "models"


def ramp_touchdown():
    t = np.sqrt(0.9 / 9.81)
    for _ in range(50):
        t -= (0.45 - 4.905 * t**2 + 2.5 * t**3) / (-9.81 * t + 7.5 * t**2)
    return t


@pytest.fixture
def model_data():
    m = mujoco.MjModel.from_xml_path(str(MODELS / "motor_slide_ball.xml"))
    d = mujoco.MjData(m)
    d.qpos[0] = 0.5
    return m, d


def test_rigid_follows_a_callable_controller(model_data):
    m, d = model_data
    calls = []

    def ramp(t, qpos, qvel):
        calls.append(t)
        assert qpos.shape == (1,) and qvel.shape == (1,)
        return [30.0 * t, 0.0]

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
    with pytest.raises(saltation.ConfigError, match="controller returned 3 controls; the model has 2 actuators"):
        saltation.rigid(m, d, 0.4, controller=lambda t, q, v: [0.0, 1.0, 2.0])
    with pytest.raises(saltation.ConfigError, match="controller must return 2 numbers"):
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





def test_rigid_moves_mocap_bodies_from_a_callable_or_a_table(tmp_path):
    """A ball from 0.4 m rising at 0.5 m/s struck by a paddle whose top face moves as
    A sin ωt (A = 0.05, ω = 6π): the strike is the first root of
    0.4 + 0.5t − 4.905t² − 0.05 − A sin ωt, and Ξ[v, z] = −(1 + e)(G + p̈)/(v⁻ − ṗ)."""
    m = mujoco.MjModel.from_xml_path(str(MODELS / "paddle.xml"))
    d = mujoco.MjData(m)
    d.qpos[0], d.qvel[0] = 0.4, 0.5
    A, w, e = 0.05, 6 * np.pi, 0.6

    def paddle(t):
        return np.array([[0, 0, A * np.sin(w * t) - 0.02]]), np.array([[0, 0, A * w * np.cos(w * t)]])

    def gap(t):
        return 0.4 + 0.5 * t - 4.905 * t * t - 0.05 - A * np.sin(w * t)
    lo, hi = 0.0, 0.0
    while gap(hi) > 0:
        lo, hi = hi, hi + 1e-4
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
    te = lo
    vm = 0.5 - 9.81 * te
    xi21 = -(1 + e) * (9.81 - A * w * w * np.sin(w * te)) / (vm - A * w * np.cos(w * te))
    strike = [ev for ev in saltation.rigid(m, d, 0.45, mocap=paddle) if ev.kind == "touchdown"][0]
    assert abs(strike.time - te) < 1e-12
    assert strike.xi[1, 0] == pytest.approx(xi21, rel=1e-9)
    table = tmp_path / "paddle.csv"
    times = np.arange(1001) * 1e-3
    table.write_text("time,paddle.z\n" + "".join(f"{float(t)!r},{float(A * np.sin(w * t) - 0.02)!r}\n" for t in times))
    from_table = [ev for ev in saltation.rigid(m, d, 0.45, mocap=table) if ev.kind == "touchdown"][0]
    assert abs(from_table.time - te) < 1e-12
    assert from_table.xi[1, 0] == pytest.approx(xi21, rel=4e-6)
    still = [ev for ev in saltation.rigid(m, d, 0.45) if ev.kind == "touchdown"][0]
    assert abs(still.time - te) > 1e-3
    with pytest.raises(saltation.ConfigError, match="mocap returned pos 2 × 3"):
        saltation.rigid(m, d, 0.45, mocap=lambda t: (np.zeros((2, 3)), np.zeros((2, 3))))
    with pytest.raises(saltation.ConfigError, match="mocap must return \\(pos, vel\\)"):
        saltation.rigid(m, d, 0.45, mocap=lambda t: np.zeros(3))
