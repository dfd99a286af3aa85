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
