"""docs/log-format.md: the documented example loads in pandas; the header names Ξ's rows by
MuJoCo's joints; the compact matrices decode bit for bit; malformed logs raise ValueError."""
import base64
import json
import math

import mujoco
import numpy as np
import pandas as pd
import pytest

import saltation
from conftest import ROOT
from saltation._events import decode_matrix

EXAMPLE = ROOT / "docs" / "examples" / "ball_drop.jsonl"


def test_the_documented_example_loads_in_pandas():
    df = saltation.read_events(EXAMPLE)
    h = df.attrs["header"]
    assert h["schema"] == "saltation.events/2" and h["model"] == "models/ball_drop.xml"
    m = mujoco.MjModel.from_xml_path(str(ROOT / h["model"]))
    assert h["state_labels"] == saltation.state_labels(m)
    assert (h["nq"], h["nv"], h["na"], h["timestep"]) == (m.nq, m.nv, m.na, m.opt.timestep)
    assert len(h["state_labels"]) == 2 * m.nv + m.na == len(h["state_units"])
    assert {"time", "xi", "dreset", "transversality"} <= set(h["units"])
    assert list(df.kind) == ["touchdown", "restitution"]
    td = df.iloc[0]
    assert td.xi.shape == td.dreset.shape == (12, 12)
    # the README's example: ∂z⁺/∂vz⁻ of Ξ; its DΔ block is −e on the normal velocity
    assert h["state_labels"][2] == "q:ball.z"
    assert math.isclose(td.dreset[8, 8], -0.6, abs_tol=1e-12)
    assert not isinstance(df.iloc[1].xi, np.ndarray)  # a restitution record has no Ξ
    csv = pd.read_csv(EXAMPLE.with_suffix(".csv"))
    assert list(csv.kind) == list(df.kind) and list(csv.time) == list(df.time)
    assert csv.grazing.dtype == bool and csv.proxy.dtype == bool
    assert math.isnan(csv.min_gap[0])           # does not apply: an empty cell, not 0
    assert math.isnan(csv.transversality[1])    # a restitution record has no Ξ
    assert csv.restitution[0] == 0.6


def _encode(a, base):
    """docs/log-format.md's encoding, written out independently of the library."""
    differs = a.view(np.uint64) != base.view(np.uint64)
    mask = np.packbits(differs.reshape(-1), bitorder="little").tobytes()
    data = a.reshape(-1)[differs.reshape(-1)].astype("<f8").tobytes()
    return {"shape": list(a.shape), "base": "zero" if not base.any() else "identity",
            "mask": base64.b64encode(mask).decode(), "data": base64.b64encode(data).decode()}


def test_compact_matrices_decode_bit_for_bit():
    rng = np.random.default_rng(16)
    a = rng.standard_normal((7, 5))
    a[0, 0], a[1, 1], a[2, 2], a[3, 3] = -0.0, np.nan, 5e-324, 0.0
    decoded = decode_matrix(_encode(a, np.zeros_like(a)))
    assert decoded.tobytes() == a.tobytes()
    b = np.eye(6)
    b[5, 0] = 1 / 3
    assert decode_matrix(_encode(b, np.eye(6))).tobytes() == b.tobytes()


def test_the_libraries_xi_decodes_to_the_hooks_doubles(tmp_path, cli, scene_file):
    # the CLI's log and the Python Hook on the same start: the same doubles in Ξ and DΔ
    out = tmp_path / "record.jsonl"
    cli("record", scene_file, "--keyframe", "throw", "--duration", "1", "--out", out, "--quiet")
    df = saltation.read_events(out)
    m = mujoco.MjModel.from_xml_path(str(scene_file))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    hook = saltation.Hook(m)
    while d.time < 1.0:
        hook.step(d)
    events = [ev for ev in hook.events if ev.time <= df.time.max()]
    assert [ev.kind for ev in events] == list(df.kind)
    for ev, (_, row) in zip(events, df.iterrows()):
        if ev.xi is not None:
            assert ev.xi.tobytes() == row.xi.tobytes() and ev.dreset.tobytes() == row.dreset.tobytes()
    assert list(df.time) == sorted(df.time)
    members = df[df.kind.isin(["touchdown", "graze"]) & df.group.notna()] if "group" in df else df.iloc[:0]
    for _, g in df[df.kind == "simultaneous"].iterrows():
        assert (members.group == g.group).any(), f"group {g.group} has no member carrying its id"


@pytest.mark.parametrize("text, message", [
    ("", "no header"),
    ('{"time":0,"kind":"touchdown"}\n', "first record is not the header"),
    ("{header}\n{header}\n", "a second header"),
    ('{header}\n{"time":2,"kind":"chatter"}\n{"time":1,"kind":"chatter"}\n', "out of time order"),
    ('{header}\n{"time":1,"kind":"chatter","dreset":{"shape":[12,12],"base":"zero","mask":"!!","data":""}}\n',
     "not base64"),
    ('{header}\n{"time":1,"kind":"chatter","dreset":{"shape":[1,1],"base":"zero","mask":"AA==","data":""}}\n',
     "not ndx"),
    ('{header}\n{"time":1,"kind":"chatter","xi":{"shape":[12,12],"base":"dreset","mask":"","data":""}}\n',
     "base 'dreset'"),
])
def test_malformed_logs_raise_value_error(tmp_path, text, message):
    header = EXAMPLE.read_text().splitlines()[0]
    path = tmp_path / "bad.jsonl"
    path.write_text(text.replace("{header}", header))
    with pytest.raises(ValueError, match=message):
        saltation.read_events(path)


def test_the_python_hooks_log_round_trips(tmp_path):
    # Hook.write_log: the library's header and records; read back, the labels are MuJoCo's
    # joint names and every Ξ the Hook's own doubles
    m = mujoco.MjModel.from_xml_path(str(ROOT / "tests" / "models" / "humanoid" / "humanoid.xml"))
    d = mujoco.MjData(m)
    hook = saltation.Hook(m)
    while d.time < 0.6:
        hook.step(d)
    path = tmp_path / "humanoid.jsonl"
    hook.write_log(path, model="humanoid.xml")
    df = saltation.read_events(path)
    h = df.attrs["header"]
    assert h["source"] == "python" and h["model"] == "humanoid.xml" and h == hook.header("humanoid.xml")
    joints = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    hinges = [j for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
    assert [h["state_labels"][m.jnt_dofadr[j]] for j in hinges] == [f"q:{joints[j]}" for j in hinges]
    assert [h["state_labels"][m.nv + m.jnt_dofadr[j]] for j in hinges] == [f"v:{joints[j]}" for j in hinges]
    events = hook.events
    assert len(df) == len(events) >= 5 and list(df.time) == sorted(df.time)
    for ev, (_, row) in zip(events, df.iterrows()):
        assert ev.kind == row.kind and ev.time == row.time
        if ev.xi is not None:
            assert ev.xi.tobytes() == row.xi.tobytes()


def test_moving_surface_fields_read_as_numbers_and_arrays(tmp_path):
    # a record of a model with a prescribed surface motion carries dg_dt and dreset_dt
    # (docs/log-format.md); the values here are the example's touchdown with them added
    header, record, *rest = EXAMPLE.read_text().splitlines()
    r = json.loads(record)
    r["dg_dt"] = -0.25
    r["dreset_dt"] = [0.0] * 8 + [1.5] + [0.0] * 3
    path = tmp_path / "moving.jsonl"
    path.write_text("\n".join([header, json.dumps(r), *rest]) + "\n")
    df = saltation.read_events(path)
    td = df.iloc[0]
    assert td.dg_dt == -0.25
    assert isinstance(td.dreset_dt, np.ndarray) and td.dreset_dt.shape == (12,) and td.dreset_dt[8] == 1.5
    ev = saltation.Event.from_json(json.dumps(r))
    assert ev.dg_dt == -0.25 and isinstance(ev.dreset_dt, np.ndarray)
    assert saltation.Event.from_json(record).dg_dt is None  # a model without the motion has neither
    csv = pd.read_csv(EXAMPLE.with_suffix(".csv"))
    assert list(csv.columns[-3:]) == ["dg_dt", "dreset_dt_norm", "error"]
    assert csv.dg_dt.isna().all()
