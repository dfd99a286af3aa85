"""rigid and floquet against the command line on the same model, read_events, the viewer's
markers, and the check that saltation and mujoco share one MuJoCo library."""
import json
import re

import mujoco
import numpy as np
import pytest

import saltation
from conftest import ROOT, scene
from saltation import _linking


def test_rigid_is_the_cli_rigid(cli, scene_file, tmp_path):
    out = tmp_path / "rigid.jsonl"
    cli("rigid", scene_file, "--keyframe", "throw", "--duration", "1", "--out", out, "--quiet")
    m = mujoco.MjModel.from_xml_path(str(scene_file))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    events = saltation.rigid(m, d, duration=1.0)
    header, *cpp = [json.loads(line) for line in out.read_text().splitlines()]
    assert header["kind"] == "header" and header["source"] == "rigid"
    assert len(cpp) >= 3
    assert [ev.to_dict() for ev in events] == cpp


def test_floquet_is_the_cli_floquet(cli, tmp_path):
    out = tmp_path / "floquet.json"
    model = ROOT / "models" / "rimless_wheel.xml"
    cli("floquet", model, "--keyframe", "start", "--out", out)
    cpp = json.loads(out.read_text())
    m = mujoco.MjModel.from_xml_path(str(model))
    fl = saltation.floquet(m, keyframe="start")
    assert fl.converged and fl.verdict == cpp["verdict"]
    assert fl.period == cpp["period"]
    chain = np.array([complex(re, im) for re, im in cpp["multipliers"]])
    np.testing.assert_array_equal(fl.multipliers, chain)
    np.testing.assert_array_equal(fl.monodromy, np.array(cpp["monodromy"]))
    assert abs(abs(fl.multipliers[fl.trivial]) - 1) < 1e-5
    assert fl.consistent and cpp["consistent"] and fl.check_failures == cpp["check_failures"] == []
    assert fl.trivial_multiplier == cpp["constrained_spectrum"]["trivial"]
    assert abs(fl.trivial_multiplier - 1) < 1e-7 and fl.symmetries == cpp["symmetries"] == []
    np.testing.assert_array_equal(fl.other_multipliers,
                                  [complex(re, im) for re, im in cpp["constrained_spectrum"]["rest"]])
    assert fl.events and fl.events[0].kind in ("touchdown", "liftoff")


def test_read_events(cli, scene_file, tmp_path):
    out = tmp_path / "record.jsonl"
    cli("record", scene_file, "--keyframe", "throw", "--duration", "1", "--out", out, "--quiet")
    df = saltation.read_events(out)
    lines = out.read_text().splitlines()
    assert len(df) == len(lines) - 1  # the header is df.attrs["header"]
    m = mujoco.MjModel.from_xml_path(str(scene_file))
    assert df.attrs["header"]["state_labels"] == saltation.state_labels(m)
    assert list(df.time) == sorted(df.time)
    row = df[df.kind == "touchdown"].iloc[0]
    nx = 2 * 12
    assert isinstance(row.xi, np.ndarray) and row.xi.shape == (nx, nx)
    # the same doubles as the Hook's own record of the event (both decode the compact form)
    hook_xi = saltation.Event.from_json(lines[1 + df.index[df.kind == "touchdown"][0]]).xi
    assert np.array_equal(row.xi, hook_xi) and row.xi.tobytes() == hook_xi.tobytes()
    (tmp_path / "bad.jsonl").write_text(lines[0] + "\n{not json\n")
    with pytest.raises(ValueError, match="bad.jsonl:2: column 2: expected a key"):
        saltation.read_events(tmp_path / "bad.jsonl")
    with pytest.raises(FileNotFoundError):
        saltation.read_events(tmp_path / "missing.jsonl")


def test_draw_markers_into_a_user_scene():
    m = mujoco.MjModel.from_xml_string(scene())
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    hook = saltation.Hook(m)
    while not any(ev.kind == "touchdown" for ev in hook.events):
        hook.step(d)
    scn = mujoco.MjvScene(m, maxgeom=50)
    n = saltation.draw_markers(scn, hook, d.time)
    touchdown = [ev for ev in hook.events if ev.kind == "touchdown"][-1]
    assert n >= 1 and scn.ngeom == n
    centres = [np.array(scn.geoms[i].pos) for i in range(scn.ngeom)]
    assert any(np.allclose(c, touchdown.point, atol=1e-6) for c in centres)
    assert saltation.draw_markers(scn, hook, d.time + 5.0) == 0  # faded


def test_a_mujoco_other_than_the_one_built_against_is_refused():
    built = saltation._core.built_mujoco_version
    assert _linking.mismatch(built, built, built, {"/x/libmujoco.so.4.0.1"}) is None
    msg = _linking.mismatch(built, built, "3.3.7", {"/x/libmujoco.so.4.0.1"})
    assert f"built against MuJoCo {built} but the mujoco package is 3.3.7" in msg
    msg = _linking.mismatch(built, "4.0.0", built, {"/x/libmujoco.so.4.0.0"})
    assert "its module loads MuJoCo 4.0.0" in msg
    msg = _linking.mismatch(built, built, built, {"/a/libmujoco.so.4.0.1", "/b/libmujoco.so.4.0.1"})
    assert "two MuJoCo libraries are loaded" in msg
    # and in this process: one library, the one mujoco loaded
    libraries = _linking.loaded_mujoco_libraries()
    assert len(libraries) == 1
    assert saltation._core.linked_mujoco_library() in libraries
    assert saltation.mujoco_version == mujoco.__version__ == built


def test_pyproject_pins_the_mujoco_of_MUJOCO_VERSION():
    """MUJOCO_VERSION names the MuJoCo release; pyproject.toml's pins (build and run) must say the same."""
    version = (ROOT / "MUJOCO_VERSION").read_text().strip()
    pyproject = (ROOT / "pyproject.toml").read_text()
    pins = re.findall(r'"mujoco==([0-9.]+)"', pyproject)
    assert pins and set(pins) == {version}, f"pyproject.toml pins mujoco {pins}, MUJOCO_VERSION says {version}"


def test_floquet_hopper_gait_converges_and_checks_out():
    """A gait with an energy source (models/hopper_gait.xml): the orbit holds two touchdowns (foot,
    leg stop), converges, and chain, shooting and the half step agree (measured: 5e-8, 7e-8)."""
    m = mujoco.MjModel.from_xml_path(str(ROOT / "models" / "hopper_gait.xml"))
    fl = saltation.floquet(m, keyframe="start")
    assert fl.converged and fl.consistent and fl.cross_checked and fl.check_failures == []
    assert fl.section_events == 2 and [ev.kind for ev in fl.events] == ["touchdown", "touchdown"]
    assert abs(fl.period - 0.649032504) < 1e-8
    assert abs(fl.trivial_multiplier - 1) < 1e-8
    assert fl.agreement < 2e-7
    np.testing.assert_allclose(fl.other_multipliers.real, [0.959001197, -0.519871027, 0.207579611], atol=1e-6)
    np.testing.assert_allclose(fl.check_multipliers, fl.other_multipliers, atol=2e-7)
    assert fl.verdict == "stable"


def test_floquet_biped_gait_converges_checks_out_and_falls_over():
    """A biped with an energy source (models/biped_gait.xml: the right leg pumped with its stop,
    the left shorter and passive): three touchdowns and a liftoff per period, the orbit converges,
    chain, shooting and the half step agree (measured: 5.2e-7, 2.6e-7), and the pitch makes it
    unstable (8.03)."""
    m = mujoco.MjModel.from_xml_path(str(ROOT / "models" / "biped_gait.xml"))
    fl = saltation.floquet(m, keyframe="start")
    assert fl.converged and fl.consistent and fl.cross_checked and fl.check_failures == []
    assert fl.section_events == 3
    assert sorted(ev.kind for ev in fl.events) == ["liftoff", "touchdown", "touchdown", "touchdown"]
    assert abs(fl.period - 0.570743458) < 1e-8
    assert abs(fl.trivial_multiplier - 1) < 1e-8
    assert fl.agreement < 1e-6
    np.testing.assert_allclose(fl.other_multipliers.real[:4], [8.031843701, 1.0, -0.645159291, 0.390577764], atol=1e-6)
    np.testing.assert_allclose(fl.check_multipliers, fl.other_multipliers, atol=5e-7)
    assert fl.verdict == "unstable"


def test_floquet_without_a_gait_says_what_it_looked_for():
    """The passive hopper (models/hopper.xml) loses its energy at every impact: no orbit, and the
    message says which section was not reached again and why."""
    m = mujoco.MjModel.from_xml_path(str(ROOT / "models" / "hopper.xml"))
    with pytest.raises(saltation.NumericalError) as e:
        saltation.floquet(m, keyframe="start")
    assert "to return to the Poincaré section" in str(e.value)
    assert "No periodic orbit passes through this state" in str(e.value)
