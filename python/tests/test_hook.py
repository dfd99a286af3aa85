"""saltation.Hook on the official bindings' objects: the C++ hook's records bit for bit, closed
forms, propagation, errors."""
import json

import mujoco
import numpy as np
import pytest

import saltation
from conftest import scene

G = 9.81


def run_hook(m, duration, keyframe=None, **options):
    d = mujoco.MjData(m)
    if keyframe is not None:
        mujoco.mj_resetDataKeyframe(m, d, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, keyframe))
    mujoco.mj_forward(m, d)
    hook = saltation.Hook(m, **options)
    t_end = d.time + duration
    while d.time < t_end:
        hook.step(d)
    return hook, d


def test_records_are_the_cli_records_bit_for_bit(cli, scene_file, tmp_path):
    out = tmp_path / "record.jsonl"
    cli("record", scene_file, "--keyframe", "throw", "--duration", "1.5", "--out", out, "--quiet")
    header, *cpp = [json.loads(line) for line in out.read_text().splitlines()]
    m = mujoco.MjModel.from_xml_path(str(scene_file))
    assert header["kind"] == "header" and header["state_labels"] == saltation.state_labels(m)
    hook, _ = run_hook(m, 1.5, keyframe="throw")
    py = [ev.to_dict() for ev in hook.events]
    assert len(cpp) >= 8
    assert py == cpp  # every number equal (shortest round-trip text; matrices as the same bits)
    kinds = {ev.kind for ev in hook.events}
    assert {"touchdown", "simultaneous"} <= kinds


def vertical_drop(height, restitution, timestep=0.0005):
    return f"""
<mujoco>
  <option gravity="0 0 -9.81" timestep="{timestep}"/>
  <custom><numeric name="saltation_restitution" data="{restitution}"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1"/>
    <body name="ball" pos="0 0 {0.1 + height!r}">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>"""


def test_vertical_drop_closed_form():
    """theory §9: a ball dropped onto a plane with restitution e. Ξ in (z, v) at the event:
    [[−e, 0], [−(1 + e) g / v⁻, −e]]; DΔ = diag(1, −e); the touchdown near sqrt(2h/g)."""
    h, e = 0.3, 0.6
    m = mujoco.MjModel.from_xml_string(vertical_drop(h, e))
    hook, _ = run_hook(m, 0.3)
    td = [ev for ev in hook.events if ev.kind == "touchdown"][0]
    v = td.f_minus[0]  # F⁻ = (v⁻, −g)
    assert td.f_minus[1] == pytest.approx(-G, rel=1e-12)
    expected = np.array([[-e, 0.0], [-(1 + e) * G / v, -e]])
    np.testing.assert_allclose(td.xi, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(td.dreset, np.diag([1.0, -e]), rtol=0, atol=1e-12)
    assert td.restitution == e
    assert td.time == pytest.approx(np.sqrt(2 * h / G), abs=2 * m.opt.timestep)
    assert td.body1 == "world" and td.body2 == "ball"
    assert saltation.state_labels(m) == ["q:z", "v:z"]


TWO_BLOCKS = """
<mujoco>
  <option gravity="0 0 0"/>
  <custom><numeric name="saltation_restitution" data="{e}"/></custom>
  <worldbody>
    <body name="a">
      <joint name="xa" type="slide" axis="1 0 0"/>
      <geom name="a" type="sphere" size="0.1" mass="2" condim="1"/>
    </body>
    <body name="b" pos="0.5 0 0">
      <joint name="xb" type="slide" axis="-1 0 0"/>
      <geom name="b" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>"""


def test_two_blocks_impact_closed_form():
    """theory §9 item 1: masses 2 and 1 on a line, J = −[1 1] (the second axis points along −x).
    The velocity block of DΔ is I − (1 + e) M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁻¹J, and v⁺ = that · v⁻."""
    e = 0.7
    m = mujoco.MjModel.from_xml_string(TWO_BLOCKS.format(e=e))
    d = mujoco.MjData(m)
    d.qvel[:] = [1.0, 0.5]  # closing at 1.5 m/s
    events = saltation.rigid(m, d, duration=0.5)
    td = events[0]
    assert td.kind == "touchdown"
    assert td.time == pytest.approx(0.3 / 1.5, abs=1e-12)  # gap 0.3 closing at 1.5 m/s
    M = np.diag([2.0, 1.0])
    J = np.array([[-1.0, -1.0]])
    Minv = np.linalg.inv(M)
    block = np.eye(2) - (1 + e) * Minv @ J.T @ np.linalg.inv(J @ Minv @ J.T) @ J
    np.testing.assert_allclose(td.dreset[2:, 2:], block, rtol=0, atol=1e-12)
    np.testing.assert_allclose(td.f_plus[:2], block @ np.array([1.0, 0.5]), rtol=0, atol=1e-12)
    assert d.time == 0  # data untouched


def test_state_labels_name_every_row():
    m = mujoco.MjModel.from_xml_string("""
<mujoco>
  <worldbody>
    <body name="torso"><freejoint name="root"/><geom size="0.1"/>
      <body name="arm" pos="0.2 0 0"><joint name="shoulder" type="ball"/><geom size="0.05"/>
        <body name="hand" pos="0.2 0 0"><joint name="wrist" type="hinge"/><joint type="slide"/><geom size="0.02"/></body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general name="squeeze" joint="wrist" dyntype="filter" dynprm="0.1"/>
    <motor name="plain" joint="wrist"/>
  </actuator>
</mujoco>""")
    dofs = ["root.x", "root.y", "root.z", "root.rx", "root.ry", "root.rz", "shoulder.rx", "shoulder.ry",
            "shoulder.rz", "wrist", "hand.joint"]
    labels = saltation.state_labels(m)
    assert labels == [f"q:{x}" for x in dofs] + [f"v:{x}" for x in dofs] + ["act:squeeze"]
    assert len(labels) == 2 * m.nv + m.na


def test_propagation_and_covariance_are_numpy():
    m = mujoco.MjModel.from_xml_string(vertical_drop(0.2, 0.5, timestep=0.001))
    hook, _ = run_hook(m, 0.4, propagation="both", covariance=True, initial_covariance=1e-4)
    n = 2 * m.nv + m.na
    for a in (hook.phi_rigid, hook.phi_compliant, hook.covariance, hook.covariance_dreset):
        assert isinstance(a, np.ndarray) and a.shape == (n, n) and np.all(np.isfinite(a))
    matrix, log_scale = hook.phi_rigid_scaled
    np.testing.assert_allclose(matrix * np.exp(log_scale), hook.phi_rigid, rtol=1e-15)
    assert 0 < hook.phi_time <= 0.4


def test_xi_on_demand_gives_the_eager_records():
    m = mujoco.MjModel.from_xml_string(scene())
    eager, _ = run_hook(m, 1.0, keyframe="throw")
    lazy, _ = run_hook(m, 1.0, keyframe="throw", xi_on_demand=True)
    assert [e.to_dict() for e in lazy.events] == [e.to_dict() for e in eager.events]


def test_worker_thread_gives_the_same_records_and_phi():
    m = mujoco.MjModel.from_xml_string(scene())
    sync, d_sync = run_hook(m, 1.0, keyframe="throw", propagation="both", covariance=True, initial_covariance=1e-4)
    worker, d_worker = run_hook(m, 1.0, keyframe="throw", propagation="both", covariance=True, initial_covariance=1e-4,
                                worker_thread=True)
    assert worker.worker_thread and not sync.worker_thread
    assert len(sync.events) >= 2
    assert [e.to_dict() for e in worker.events] == [e.to_dict() for e in sync.events]
    assert np.array_equal(worker.phi_rigid, sync.phi_rigid) and np.array_equal(worker.covariance, sync.covariance)
    assert np.array_equal(d_worker.qpos, d_sync.qpos)


def _mujoco_error_handler():
    """the address in MuJoCo's global mju_user_error (the library the mujoco module loaded)"""
    import ctypes
    import glob
    import os
    (library,) = glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco.so.*"))
    return ctypes.c_void_p.in_dll(ctypes.CDLL(library), "mju_user_error").value


def test_a_worker_hook_keeps_mujoco_errors_throwing_while_it_lives():
    # the worker thread calls MuJoCo between the module's calls: MuJoCo's default handler (print
    # and exit the interpreter) must not be in place then; without a worker the host's handler
    # is back after every call
    import gc
    m = mujoco.MjModel.from_xml_string(scene())
    d = mujoco.MjData(m)
    host = _mujoco_error_handler()
    plain = saltation.Hook(m)
    plain.step(d)
    assert _mujoco_error_handler() == host
    worker = saltation.Hook(m, worker_thread=True)
    for _ in range(20):
        worker.step(d)
    assert _mujoco_error_handler() != host
    del worker
    gc.collect()
    assert _mujoco_error_handler() == host


def test_bad_arguments_are_clear_errors():
    m = mujoco.MjModel.from_xml_string(scene())
    with pytest.raises(saltation.ConfigError, match="restitution must be None, a number in \\[0, 1\\] or 'auto'"):
        saltation.Hook(m, restitution="sometimes")
    with pytest.raises(saltation.ConfigError, match="restitution override must be in \\[0, 1\\]"):
        saltation.Hook(m, restitution=1.5)
    with pytest.raises(saltation.ConfigError, match="propagation must be events, rigid, compliant or both"):
        saltation.Hook(m, propagation="all")
    with pytest.raises(saltation.ConfigError, match="grazing threshold must be non-negative"):
        saltation.Hook(m, grazing=-1)
    with pytest.raises(TypeError, match="expected mujoco.MjModel"):
        saltation.Hook("robot.xml")
    other = mujoco.MjModel.from_xml_string(vertical_drop(0.1, 0.5))
    with pytest.raises(ValueError, match="belongs to another model"):
        saltation.Hook(m).step(mujoco.MjData(other))
    with pytest.raises(saltation.ConfigError, match="duration must be non-negative"):
        saltation.rigid(m, mujoco.MjData(m), duration=-1)
    with pytest.raises(saltation.ConfigError, match="restitution 'auto' needs MuJoCo's contacts"):
        saltation.rigid(m, mujoco.MjData(m), duration=1, restitution="auto")
    with pytest.raises(saltation.ConfigError, match="model has no keyframe 'nope'"):
        saltation.floquet(m, keyframe="nope")
    assert issubclass(saltation.ConfigError, saltation.Error)


def test_a_mujoco_error_is_an_exception_not_an_abort():
    """A state the rigid model cannot take (a NaN coordinate) is a NumericalError; MuJoCo's own
    mju_error inside our call (an arena too small for mjd_transitionFD) raises saltation.MujocoError
    and MuJoCo's Python handler is back afterwards; the interpreter lives on."""
    m = mujoco.MjModel.from_xml_string(scene())
    d = mujoco.MjData(m)
    d.qpos[3] = np.nan
    with pytest.raises(saltation.NumericalError):
        saltation.rigid(m, d, duration=0.1)
    # a chain of 40 hinges (nv 40) whose arena (16 KiB) holds MuJoCo's own steps but not the
    # (2nv)² Jacobian of mjd_transitionFD; bodies without geoms, so the hook's private copies get
    # no contact room beyond the user's arena (AddBandArena adds room per geom)
    chain = "".join('<body pos="0 0 0.1"><joint type="hinge" axis="0 1 0"/>'
                    '<inertial pos="0 0 0" mass="0.1" diaginertia="1e-3 1e-3 1e-3"/>' for _ in range(40))
    tiny = mujoco.MjModel.from_xml_string(
        '<mujoco><size memory="16K"/><worldbody><geom name="floor" type="plane" size="1 1 .1"/>'
        f'<body pos="0 0 0.5">{chain}{"</body>" * 40}</body></worldbody></mujoco>')
    bare = mujoco.MjData(tiny)
    for _ in range(3):
        mujoco.mj_step(tiny, bare)  # MuJoCo alone steps it
    hook = saltation.Hook(tiny, propagation="compliant")
    dd = mujoco.MjData(tiny)
    with pytest.raises(saltation.MujocoError, match="MuJoCo error: mj_stackAlloc: out of memory"):
        for _ in range(3):
            hook.step(dd)  # mjd_transitionFD (from the second step on) needs more than 16 KiB
    assert saltation.Hook(m) is not None  # the interpreter lives on
    n = 2 * tiny.nv + tiny.na
    with pytest.raises(mujoco.FatalError, match="mj_stackAlloc: out of memory"):  # mujoco's own handler is back
        mujoco.mjd_transitionFD(tiny, dd, 1e-6, False, np.zeros((n, n)), None, None, None)


def test_a_diverging_simulation_is_a_numerical_error_naming_its_time():
    """MuJoCo resets a diverging state inside mj_step; hook.step says so instead of going on from
    the reset state, naming the time before the step."""
    m = mujoco.MjModel.from_xml_string("""
<mujoco>
  <option timestep="0.01" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="ball" pos="0 0 0.5">
      <joint name="z" type="slide" axis="0 0 1" stiffness="1e7" springref="0.5"/>
      <geom name="ball" size="0.1" mass="0.001"/>
    </body>
  </worldbody>
</mujoco>""")
    d = mujoco.MjData(m)
    hook = saltation.Hook(m)
    with pytest.raises(saltation.NumericalError, match="became unstable at t = 0.010000 s \\(bad acceleration\\)"):
        for _ in range(10):
            hook.step(d)


def test_hook_flags_must_be_booleans():
    # a string (or a number) for a flag was taken by its truth: "no" turned the worker thread on
    model = mujoco.MjModel.from_xml_string(scene())
    for flag in ("xi_on_demand", "covariance", "worker_thread"):
        with pytest.raises(saltation.ConfigError, match=flag + " must be True or False"):
            saltation.Hook(model, **{flag: "no"})
    assert saltation.Hook(model, worker_thread=np.bool_(True)).worker_thread
