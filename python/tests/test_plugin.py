"""The engine plugin saltation.events inside mujoco, stepped by plain mujoco.mj_step: loaded by
`import mujoco` itself, physics untouched, the Hook's records and the documented sensor values,
MuJoCo's own evaluations not taken for steps, clear config errors, markers in a scene."""
import json
import subprocess
import sys

import mujoco
import numpy as np
import pytest

import saltation
from conftest import scene


def sensor(m, d):
    i = [k for k in range(m.nsensor) if m.sensor_type[k] == mujoco.mjtSensor.mjSENS_PLUGIN][0]
    return d.sensordata[m.sensor_adr[i]:m.sensor_adr[i] + m.sensor_dim[i]].copy()


def start(m):
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    return d


def test_import_mujoco_alone_loads_the_plugin(tmp_path):
    """A fresh interpreter that never imports saltation loads a model using the plugin (MuJoCo's
    mujoco.plugins entry point), and plugin_library() names a loadable file."""
    (tmp_path / "m.xml").write_text(scene(plugin=True))
    code = ("import mujoco, sys; m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m); "
            "[mujoco.mj_step(m, d) for _ in range(600)]; print(d.sensordata[0])")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.xml")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout) >= 1
    mujoco.mj_loadPluginLibrary(saltation.plugin_library())  # loading it again is harmless
    assert saltation.plugin_library().endswith("libsaltation_events.so")


def test_physics_is_untouched():
    with_plugin = mujoco.MjModel.from_xml_string(scene(plugin=True))
    without = mujoco.MjModel.from_xml_string(scene())
    dw, dn = start(with_plugin), start(without)
    for _ in range(2500):
        mujoco.mj_step(with_plugin, dw)
        mujoco.mj_step(without, dn)
        assert np.array_equal(dw.qpos, dn.qpos) and np.array_equal(dw.qvel, dn.qvel)


def test_plugin_gives_the_hooks_records_and_the_documented_sensor(tmp_path):
    log = tmp_path / "events.jsonl"
    m = mujoco.MjModel.from_xml_string(scene(plugin=True, config=f'<config key="log" value="{log}"/>'))
    mh = mujoco.MjModel.from_xml_string(scene(plugin=True))  # the hook's data must not log too
    d, dh = start(m), start(mh)
    hook = saltation.Hook(mh)
    for _ in range(2500):
        mujoco.mj_step(m, d)
        hook.step(dh)
    mujoco.mj_forward(m, d)  # the plugin sees the last step at the next evaluation
    header, *records = [json.loads(line) for line in log.read_text().splitlines()]
    assert header["kind"] == "header" and header["source"] == "plugin"
    events = hook.events
    assert len(records) >= 8
    assert records == [ev.to_dict() for ev in events]
    s = sensor(m, d)
    with_xi = [ev for ev in events if ev.kind in ("touchdown", "liftoff", "slip", "graze")]
    last = with_xi[-1]
    assert s[0] == len(with_xi)
    assert s[1] == last.time
    assert s[2] == last.xi_norm
    assert s[3] == last.transversality_rel
    assert s[4] == (1.0 if last.grazing else 0.0)
    assert s[5] == hook.active_contacts
    assert s[6] == len(events) - len(with_xi)
    assert s[7] == 0


def test_transition_fd_and_forward_between_steps_are_not_steps(tmp_path):
    logs = [tmp_path / "plain.jsonl", tmp_path / "probed.jsonl"]
    plain, probed = (mujoco.MjModel.from_xml_string(scene(plugin=True, config=f'<config key="log" value="{p}"/>'))
                     for p in logs)
    dp, dq = start(plain), start(probed)
    n, ns = 2 * probed.nv + probed.na, probed.nsensordata
    A, C = np.zeros((n, n)), np.zeros((ns, n))
    for k in range(1200):
        mujoco.mj_step(plain, dp)
        if k % 4 == 0:
            mujoco.mj_forward(probed, dq)
        if k % 5 == 0:  # with sensor derivatives: the plugin is evaluated at perturbed states
            mujoco.mjd_transitionFD(probed, dq, 1e-6, True, A, None, C, None)
        mujoco.mj_step(probed, dq)
    mujoco.mj_forward(plain, dp)
    mujoco.mj_forward(probed, dq)
    a, b = (p.read_text().splitlines() for p in logs)
    assert len(a) >= 4 and a == b
    np.testing.assert_array_equal(sensor(probed, dq), sensor(plain, dp))
    assert sensor(probed, dq)[7] == 0


@pytest.mark.parametrize("config, message", [
    ('<config key="grazing" value="abc"/>', "saltation.events: config 'grazing' must be a number, not 'abc'"),
    ('<config key="restitution" value="2"/>', "config 'restitution' must be in \\[0, 1\\] or 'auto', not '2'"),
    ('<config key="propagation" value="all"/>', "config 'propagation' must be events, rigid, compliant or both"),
    ('<config key="log" value="/nonexistent/x.jsonl"/>', "cannot open log '/nonexistent/x.jsonl'"),
])
def test_bad_config_is_a_clear_load_error(config, message):
    with pytest.raises(ValueError, match=message):
        mujoco.MjModel.from_xml_string(scene(plugin=True, config=config))


def test_visualize_draws_markers_in_a_scene():
    m = mujoco.MjModel.from_xml_string(scene(plugin=True))
    d = start(m)
    scn = mujoco.MjvScene(m, maxgeom=1000)
    opt, cam = mujoco.MjvOption(), mujoco.MjvCamera()

    def decor_spheres():
        mujoco.mjv_updateScene(m, d, opt, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scn)
        return sum(1 for i in range(scn.ngeom)
                   if scn.geoms[i].category == mujoco.mjtCatBit.mjCAT_DECOR
                   and scn.geoms[i].type == mujoco.mjtGeom.mjGEOM_SPHERE)

    assert decor_spheres() == 0
    while sensor(m, d)[0] < 1:
        mujoco.mj_step(m, d)
    assert decor_spheres() >= 1
