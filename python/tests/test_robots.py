"""Real robots (models/robots.md) through the command line, as a user runs them: a standing
quadruped is quiet, Go1 dropped 5 cm lands on its feet (plastic: the landing annihilates the feet's
normal velocity, in the impact and in Xi), and rigid starts from Go1's penetrating home keyframe.
Skipped when scripts/bootstrap could not install the robot models."""
import json
import math
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from saltation._events import _decode_record

FEET = {"FL", "FR", "RL", "RR"}


def robot(name):
    r = subprocess.run([str(ROOT / "scripts" / "robot"), name], capture_output=True, text=True)
    if r.returncode == 1:
        pytest.skip(f"robot models not installed ({r.stderr.strip()})")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture
def go1_drop(tmp_path):
    """Go1 in its home pose, 5 cm above touching (home has the feet 18.8 mm in the floor)."""
    path = robot("go1")
    home = "0 0 {z} 1 0 0 0 0 0.9 -1.8 0 0.9 -1.8 0 0.9 -1.8 0 0.9 -1.8"
    scene = tmp_path / "go1_drop.xml"
    scene.write_text(f'<mujoco><include file="{path}"/><keyframe>'
                     f'<key name="drop" qpos="{home.format(z=0.27 + 0.0188 + 0.05)}"/></keyframe></mujoco>')
    return scene


def records(path):
    """The log's records after its header, vectors and matrices decoded (docs/log-format.md)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines and lines[0]["kind"] == "header", lines[:1]
    return [_decode_record(rec) for rec in lines[1:]]


def finite(value):
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(finite(v) for v in value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    return True


def test_standing_quadruped_is_quiet(cli, tmp_path):
    """models/quadruped.xml (Go1-like, legs held by joint springs) standing from its keyframe: no
    record at all in 2 s, one line of notes. (The packaged robots drive torque motors with a
    keyframe ctrl of zero or of joint angles: none of them stands by itself; models/robots.md.)"""
    out = tmp_path / "stand.jsonl"
    r = cli("record", ROOT / "models" / "quadruped.xml", "--keyframe", "stand", "--duration", "2", "--out", out,
            "--quiet")
    assert records(out) == []
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "9 geom pairs not tracked exactly" in notes[0], notes


def test_go1_drop_lands_on_its_feet(cli, go1_drop, tmp_path):
    out = tmp_path / "go1.jsonl"
    r = cli("record", go1_drop, "--keyframe", "drop", "--duration", "0.5", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    # the four feet land together: one touchdown per foot, or one on a foot with its simultaneous
    # group of four (the hook reports the group once)
    first = next(rec for rec in recs if rec["kind"] in ("touchdown", "graze"))
    assert first["geom2"] in FEET and first["geom1"] == "floor", first["geom2"]
    at_once = [rec for rec in recs if abs(rec["time"] - first["time"]) < 1e-3]
    feet = {rec["geom2"] for rec in at_once if rec["kind"] in ("touchdown", "graze")}
    groups = [rec for rec in at_once if rec["kind"] == "simultaneous"]
    assert feet == FEET or (groups and groups[0]["size"] == 4), (feet, groups)
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) <= 1, notes


def test_go1_drop_rigid_plastic_landing(cli, go1_drop, tmp_path):
    out = tmp_path / "go1_rigid.jsonl"
    cli("rigid", go1_drop, "--keyframe", "drop", "--duration", "0.2", "--out", out, "--quiet")
    recs = records(out)
    assert recs and all(finite(rec) for rec in recs)
    first = recs[0]
    assert first["kind"] == "touchdown" and {first["geom1"], first["geom2"]} & FEET, first
    nv = 18
    assert first["impact"]["candidates"] == ["floor/FL", "floor/FR", "floor/RL", "floor/RR"], first["impact"]
    xi = np.array(first["xi"])
    jn = np.array(first["grad_g"])[:nv]
    v_plus = np.array(first["f_plus"])[:nv]
    assert abs(jn @ v_plus) <= 1e-13 * np.linalg.norm(jn) * np.linalg.norm(first["f_minus"][:nv])
    # plastic: every perturbation of the velocity before lands with zero normal velocity after
    # (measured: J_n v⁺ 1e-15, ‖J_n Ξ_vv‖ 2.3e-16)
    assert np.linalg.norm(jn @ xi[nv:2 * nv, nv:2 * nv]) <= 1e-13 * np.linalg.norm(jn)


def test_go1_rigid_from_its_penetrating_home(cli, tmp_path):
    out = tmp_path / "go1_home.jsonl"
    r = cli("rigid", robot("go1"), "--keyframe", "home", "--duration", "0.2", "--out", out, "--quiet")
    assert "summary:" in r.stdout


def test_go2_rigid_from_home_runs_through_its_self_contacts(cli, tmp_path):
    """Go2 raw (the package's scene_flat.xml, motors at 0) from home collapses: its hip capsules
    meet its calf boxes. The rigid model stopped at 0.228 s (MuJoCo's capsule-box listed the FL hip
    capsule's one point on its calf box twice, then once: "has no contact point within the
    detection margin"), then at 0.254 s (the calf box's floor contact culled by MuJoCo's midphase
    at the compiled body margin: "appeared penetrating"). Measured: FL hip/calf touchdown at
    0.228152 s, 178 touchdowns in 0.5 s, 3.7 s of CPU; to 1 s, 673 (models/robots.md)."""
    out = tmp_path / "go2_home.jsonl"
    r = cli("rigid", robot("go2"), "--keyframe", "home", "--duration", "0.5", "--out", out, "--quiet")
    assert "summary:" in r.stdout
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    hip_calf = [rec for rec in recs if rec["geom1"] == "body:FL_hip#2" and rec["geom2"] == "body:FL_calf#3"]
    assert hip_calf and abs(hip_calf[0]["time"] - 0.228152) < 1e-6, [rec["time"] for rec in hip_calf]
    assert max(rec["time"] for rec in recs) > 0.45


# --- Unitree G1 (models/robots/g1.xml: the mjlab wheel's G1 on 29 position servos) -------------
G1_NV = 35


def is_foot(geom):
    return "foot" in geom and geom.endswith("_collision")


def test_g1_stands_on_its_servos(cli, tmp_path):
    """From `home` (mjlab's pose settled on the servos, ctrl = the pose) G1 stands 2 s: no touchdown
    or liftoff after 0.1 s, nothing non-finite, fewer than 5 note lines."""
    out = tmp_path / "g1.jsonl"
    r = cli("record", robot("g1"), "--keyframe", "home", "--duration", "2", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    late = [(rec["kind"], rec["time"], rec.get("geom2")) for rec in recs
            if rec["kind"] in ("touchdown", "liftoff") and rec["time"] > 0.1]
    assert late == [], late[:5]
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) < 5, notes


def test_g1_drop_lands_on_its_feet(cli, tmp_path):
    """Dropped 5 cm: the first contacts are foot geoms on the floor, landing as one touchdown per
    foot or as one simultaneous group."""
    out = tmp_path / "g1_drop.jsonl"
    r = cli("record", robot("g1"), "--keyframe", "drop", "--duration", "0.3", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    first = next(rec for rec in recs if rec["kind"] in ("touchdown", "graze"))
    assert first["geom1"] == "floor" and is_foot(first["geom2"]), first
    at_once = [rec for rec in recs if abs(rec["time"] - first["time"]) < 1e-3]
    feet = {rec["geom2"].split("_")[0] for rec in at_once if rec["kind"] in ("touchdown", "graze")}
    groups = [rec for rec in at_once if rec["kind"] == "simultaneous"]
    assert feet == {"left", "right"} or groups, (feet, groups)
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) < 5, notes


def test_g1_drop_rigid_plastic_landing(cli, tmp_path):
    out = tmp_path / "g1_rigid.jsonl"
    # RK4 at 1e-4 s: the servos' damping on G1's light ankle and wrist joints is unstable at the
    # default 1e-3 s (the legs slam the floor at 0.011 s, 4.8 m/s)
    cli("rigid", robot("g1"), "--keyframe", "drop", "--duration", "0.15", "--step", "1e-4", "--out", out, "--quiet")
    recs = records(out)
    assert recs and all(finite(rec) for rec in recs)
    first = recs[0]
    assert first["kind"] == "touchdown" and is_foot(first["geom2"]), first
    assert abs(first["time"] - 0.092) < 1e-3, first["time"]  # free fall of 5 cm less the servos' sag
    # measured: ‖J_n Ξ_vv‖ / ‖J_n‖ 4.1e-16
    xi = np.array(first["xi"])
    jn = np.array(first["grad_g"])[:G1_NV]
    assert np.linalg.norm(jn @ xi[G1_NV:2 * G1_NV, G1_NV:2 * G1_NV]) <= 1e-9 * np.linalg.norm(jn)


def test_g1_rigid_from_home(cli, tmp_path):
    """`rigid` from home (feet 0.41 mm in the floor) projects the start out of the floor, says how
    far (measured |dq| 0.00694), and stands 0.05 s with its 28 foot contacts held, no event."""
    out = tmp_path / "g1_home.jsonl"
    r = cli("rigid", robot("g1"), "--keyframe", "home", "--duration", "0.05", "--step", "1e-4", "--out", out)
    line = next(x for x in r.stdout.splitlines() if x.startswith("start projected"))
    assert "28 contacts" in line and "0.4095 mm" in line, line
    dq = float(line.split("|dq| ")[1].split(",")[0])
    assert 0 < dq < 0.01, line
    assert records(out) == []
    assert "28 contacts active at the end" in r.stdout


# --- Franka Panda with a free cube (models/robots/panda_cube.xml) --------------------------------
PANDA_NV = 15  # 7 arm joints, 2 fingers, the cube's free joint


def test_panda_holds_home_with_the_cube_at_rest(cli, tmp_path):
    out = tmp_path / "panda.jsonl"
    r = cli("record", robot("panda_cube"), "--keyframe", "home", "--duration", "1", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    late = [(rec["kind"], rec["time"]) for rec in recs if rec["kind"] in ("touchdown", "liftoff") and rec["time"] > 0.1]
    assert late == [], late[:5]
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) < 5, notes


def test_panda_cube_drop_rigid_plastic_landing(cli, tmp_path):
    out = tmp_path / "panda_rigid.jsonl"
    cli("rigid", robot("panda_cube"), "--keyframe", "drop", "--duration", "0.15", "--out", out, "--quiet")
    recs = records(out)
    assert recs and all(finite(rec) for rec in recs)
    first = recs[0]
    assert first["kind"] == "touchdown" and {first["geom1"], first["geom2"]} == {"floor", "cube"}, first
    xi = np.array(first["xi"])
    jn = np.array(first["grad_g"])[:PANDA_NV]
    assert np.linalg.norm(jn @ xi[PANDA_NV:2 * PANDA_NV, PANDA_NV:2 * PANDA_NV]) <= 1e-9 * np.linalg.norm(jn)


# --- Go1 and Go2 on position servos (models/robots/go1_stand.xml, go2_stand.xml: the packaged robot
# + 12 servos of ours) ----------------------------------------------------------------------------
GO_NV = 18
SERVO_QUADRUPEDS = ["go1_stand", "go2_stand"]


@pytest.mark.parametrize("name", SERVO_QUADRUPEDS)
def test_quadruped_stands_on_its_servos(cli, tmp_path, name):
    """From `stand` (the home pose settled on the servos, ctrl = the pose) it stands 2 s: no
    touchdown or liftoff after 0.1 s (measured: no record at all), nothing non-finite, fewer than 5
    note lines. (Fails with the servo targets at 0.)"""
    out = tmp_path / "stand.jsonl"
    r = cli("record", robot(name), "--keyframe", "stand", "--duration", "2", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    late = [(rec["kind"], rec["time"], rec.get("geom2")) for rec in recs
            if rec["kind"] in ("touchdown", "liftoff") and rec["time"] > 0.1]
    assert late == [], late[:5]
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) < 5, notes


@pytest.mark.parametrize("name", SERVO_QUADRUPEDS)
def test_quadruped_servo_drop_lands_on_its_feet(cli, tmp_path, name):
    """Dropped 5 cm on its servos, the four feet land one touchdown per foot before anything else
    touches (measured Go1: RL 0.0614 s, RR 0.0615, FL 0.0641, FR 0.0643, the settled pose pitches
    0.24 deg, and Go1's lower calf geoms, 2 cm above its soft feet that sink 19.7 mm, touch at
    0.088 s; Go2: RR 0.0768, RL 0.0780, FR 0.0822, FL 0.0832)."""
    out = tmp_path / "drop.jsonl"
    r = cli("record", robot(name), "--keyframe", "drop", "--duration", "0.5", "--out", out, "--quiet")
    recs = records(out)
    assert all(finite(rec) for rec in recs)
    landing = [rec for rec in recs if rec["kind"] in ("touchdown", "graze", "simultaneous")][:4]
    assert [rec["kind"] for rec in landing] == ["touchdown"] * 4, landing
    assert all(rec["geom1"] == "floor" for rec in landing), landing
    assert {rec["geom2"] for rec in landing} == FEET, landing
    notes = [line for line in r.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) < 5, notes


@pytest.mark.parametrize("name", SERVO_QUADRUPEDS)
def test_quadruped_servo_drop_rigid_plastic_landing(cli, tmp_path, name):
    out = tmp_path / "rigid.jsonl"
    cli("rigid", robot(name), "--keyframe", "drop", "--duration", "0.2", "--out", out, "--quiet")
    recs = records(out)
    assert recs and all(finite(rec) for rec in recs)
    first = recs[0]
    assert first["kind"] == "touchdown" and {first["geom1"], first["geom2"]} & FEET, first
    xi = np.array(first["xi"])
    jn = np.array(first["grad_g"])[:GO_NV]
    # measured: RL lands first (Go1 0.0616 s, Go2 0.0752 s), ‖J_n Ξ_vv‖ / ‖J_n‖ 3.8e-16 (both)
    assert np.linalg.norm(jn @ xi[GO_NV:2 * GO_NV, GO_NV:2 * GO_NV]) <= 1e-9 * np.linalg.norm(jn)


@pytest.mark.parametrize("name,contacts,depth", [("go1_stand", 8, "20.71 mm"), ("go2_stand", 4, "4.981 mm")])
def test_quadruped_servo_rigid_from_stand(cli, tmp_path, name, contacts, depth):
    """`rigid` from `stand` projects the start out of the floor and says how far (Go1: its feet and
    lower calf geoms, the package's soft feet sink 19.7 mm in MuJoCo; Go2: its feet)."""
    out = tmp_path / "stand_rigid.jsonl"
    r = cli("rigid", robot(name), "--keyframe", "stand", "--duration", "0.1", "--out", out)
    line = next(x for x in r.stdout.splitlines() if x.startswith("start projected"))
    assert f"{contacts} contacts" in line and f"deepest floor/RL {depth}" in line and "|dq| " in line, line
    assert all(finite(rec) for rec in records(out))
