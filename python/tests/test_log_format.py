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
     'base "dreset"'),
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


def _touchdown_with(**fields):
    """The example's header and its touchdown (record 0) with `fields` replaced (None: removed)."""
    header, record, *rest = EXAMPLE.read_text().splitlines()
    r = json.loads(record)
    for key, value in fields.items():
        if value is None:
            r.pop(key)
        else:
            r[key] = value
    return "\n".join([header, json.dumps(r), *rest]) + "\n"


# a bad field of each kind in record 0 (line 2): each ValueError names the line, the record and
# the field; before, read_events returned these as written ("yes" came back as "yes")
@pytest.mark.parametrize("fields, message", [
    ({"input_jump": "yes"}, '"input_jump" must be true or false, not a string'),
    ({"proxy": 1}, '"proxy" must be true or false, not a number'),
    ({"grazing": None, "proxy": None, "input_jump": "true"}, '"input_jump" must be true or false'),
    ({"restitution": "0.6"}, '"restitution" must be a number \\(or null\\), not a string'),
    ({"rank_after": 1.5}, '"rank_after" must be a non-negative integer, not 1.5'),
    ({"geom1": 3}, '"geom1" must be a string, not a number'),
    ({"mode_after": [1]}, '"mode_after" must be an array of strings'),
    ({"feature": "corner"}, '"feature" is "corner", not a feature name'),
    ({"kind": "bounce"}, 'unknown kind "bounce"'),
    ({"input-jump": True}, 'unknown field "input-jump"'),
    ({"grad_g": [0.0] * 11}, '"grad_g" must be an array of 12 numbers, not one of 11'),
    ({"point": [0, 0, "z"]}, '"point" must hold numbers \\(or null\\), not a string'),
    ({"impact": {"rank": -1}}, '"impact.rank" must be a non-negative integer, not -1'),
    ({"dreset": {"shape": [2, 2], "base": "identity", "mask": "AA==", "data": ""}, "xi": None},
     '"dreset" is 2 × 2, not ndx × ndx = 12 × 12'),
    ({"xi": [[1.0] * 12] * 12}, "a matrix must be an object"),
])
def test_every_field_is_type_checked(tmp_path, fields, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(_touchdown_with(**fields))
    with pytest.raises(ValueError, match=f"bad.jsonl:2: record 0: .*{message}"):
        saltation.read_events(path)


def test_a_truncated_log_or_a_non_finite_time_is_refused(tmp_path):
    text = EXAMPLE.read_text()
    path = tmp_path / "cut.jsonl"
    path.write_text(text[:text.index('"dreset":', text.index("\n")) + 30])  # cut inside record 0's matrix
    with pytest.raises(ValueError, match="cut.jsonl:2: column"):
        saltation.read_events(path)
    # Python's json reads NaN; a log never holds it (a non-finite number is null, time is finite)
    path.write_text(_touchdown_with().replace('"time": 0.4364389927466057', '"time": NaN', 1))
    with pytest.raises(ValueError, match="cut.jsonl:2: column [0-9]+: "):
        saltation.read_events(path)


CSV_HEADER = ("time,kind,group,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,proxy,"
              "input_jump,min_gap,size,order_spread,accumulation_time,ratio,normal_velocity_minus,"
              "normal_velocity_plus,dg_dt,dreset_dt_norm,error")


@pytest.mark.parametrize("row, message", [
    ("0.5,touchdown,,floor,ball,0.6,-3,0.9,19,yes,false,false,,,,,,,,,,", "'grazing' must be true or false, not 'yes'"),
    ("0.5,touchdown,,floor,ball,0.6,-3,0.9,19,false,false,,,,,,,,,,,", "'input_jump' must be true or false, not ''"),
    ("0.5,touchdown,,floor,ball,0.6,abc,0.9,19,false,false,false,,,,,,,,,,", "'transversality' must be a finite number"),
    ("0.5,touchdown,,floor,ball,inf,-3,0.9,19,false,false,false,,,,,,,,,,", "'restitution' must be a finite number"),
    (",touchdown,,floor,ball,0.6,-3,0.9,19,false,false,false,,,,,,,,,,", "'time' must be a finite number, not ''"),
    ("0.5,touchdown,1.5,floor,ball,0.6,-3,0.9,19,false,false,false,,,,,,,,,,", "'group' must be a non-negative integer"),
    ("0.5,bounce,,floor,ball,0.6,-3,0.9,19,false,false,false,,,,,,,,,,", "unknown kind 'bounce'"),
    ("0.5,touchdown,,floor,ball,0.6,-3,0.9,19,false", "10 cells, not 22 \\(a truncated file\\?\\)"),
    ("0.5,touchdown,,floor,ball,0.6,-3,0.9,19,false,false,false,,,,,,,,,,boom", "'error' belongs to a failure row"),
])
def test_the_csv_is_type_checked_too(tmp_path, row, message):
    path = tmp_path / "bad.csv"
    path.write_text(f"{CSV_HEADER}\n0.25,chatter,,floor,ball,,,,,false,false,false,,,,,,,,,,\n{row}\n")
    with pytest.raises(ValueError, match=f"bad.csv:3: record 1: {message}"):
        saltation.read_events(path)
    path.write_text(CSV_HEADER.replace(",input_jump", "") + "\n")  # the CSV of before: no input_jump column
    with pytest.raises(ValueError, match="bad.csv:1: the CSV header is not saltation's"):
        saltation.read_events(path)


def test_a_csv_may_start_with_blank_lines(tmp_path):
    # read_events finds the CSV past leading blank lines; its header is the first row that is not blank
    path = tmp_path / "blank.csv"
    path.write_text(f"\n\n{CSV_HEADER}\n0.25,chatter,,floor,ball,,,,,false,false,true,,,,,,,,,,\n")
    df = saltation.read_events(path)
    assert list(df.kind) == ["chatter"] and list(df.input_jump) == [True] and df.time.iloc[0] == 0.25
    path.write_text(f"\n{CSV_HEADER.replace(',input_jump', '')}\n")
    with pytest.raises(ValueError, match="blank.csv:2: the CSV header is not saltation's"):
        saltation.read_events(path)


def test_an_event_reads_every_field_the_reader_knows():
    # one list of a record's fields (the C++ reader's): a field a record does not carry reads None, a
    # flag False, a name no record has raises
    from saltation import _core
    ev = saltation.Event({"time": 0.5, "kind": "touchdown"})
    # every field the reader knows reads on a record without it (a hand-kept list in Event lacked some)
    for name in set(_core.record_fields) - {"time", "kind"}:
        expected = False if name in ("grazing", "proxy", "input_jump") else None
        assert getattr(ev, name) is expected, name
    assert {"feature", "feature_before", "feature_after", "error", "input_jump", "dg_dt"} <= set(_core.record_fields)
    # and every field the C++ writer put in a real log is one of them, read back as written
    for line in EXAMPLE.read_text().splitlines()[1:]:
        record = json.loads(line)
        event = saltation.Event(record)
        for name, value in record.items():
            assert name in _core.record_fields, name
            if not isinstance(value, (dict, list)):
                assert getattr(event, name) == value, name
    assert ev.feature is None and ev.feature_before is None and ev.error is None and ev.xi is None
    assert ev.grazing is False and ev.proxy is False and ev.input_jump is False
    assert saltation.Event({"time": 0.5, "kind": "feature", "feature_before": "face"}).feature_before == "face"
    with pytest.raises(AttributeError, match="no field 'colour'"):
        ev.colour


# a ball resting on a plane, pulled up at 0.02 s by a motor whose control steps from 0 to twice the
# weight between two steps: a release at an input jump (the C++ tests' scene)
PULLED_BALL = ROOT / "tests" / "models" / "pulled_ball.xml"


def test_csv_and_json_say_the_same_of_every_flag(cli, tmp_path):
    model = PULLED_BALL
    ctrl = tmp_path / "ctrl.csv"
    ctrl.write_text("time,lift\n0,0\n0.0195,0\n0.0196,1.962\n1,1.962\n")
    jsonl, table = tmp_path / "pulled.jsonl", tmp_path / "pulled.csv"
    cli("record", model, "--duration", "0.05", "--ctrl", ctrl, "--out", jsonl, "--csv", table, "--quiet")
    df, dc = saltation.read_events(jsonl), saltation.read_events(table)
    assert dc.attrs["header"] is None and df.attrs["header"]["model"] == str(model)
    assert list(df.kind) == list(dc.kind) and list(df.time) == list(dc.time)
    for flag in ("grazing", "proxy", "input_jump"):
        assert df[flag].dtype == bool and dc[flag].dtype == bool, flag
        assert list(df[flag]) == list(dc[flag]), flag
    jumps = df[df.input_jump]
    assert list(jumps.kind) == ["liftoff"] and abs(jumps.time.iloc[0] - 0.02) < 1e-12
    assert not jumps.proxy.iloc[0] and np.array_equal(jumps.xi.iloc[0], np.eye(12))
    # pandas reads the CSV as it is: the same flags
    raw = pd.read_csv(table)
    assert list(raw.input_jump) == list(dc.input_jump)


def test_report_refuses_a_bad_log_and_writes_nothing(tmp_path):
    from saltation import report
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_touchdown_with(input_jump="yes"))
    out = tmp_path / "r.html"
    assert report.main([str(bad), "--out", str(out)]) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]
    table = tmp_path / "log.csv"
    table.write_text(EXAMPLE.with_suffix(".csv").read_text())
    assert report.main([str(table), "--out", str(out)]) == 1
    assert not out.exists()


def test_check_event_log_lets_other_threads_run():
    # the C++ parse runs with the GIL released: a counting thread advances while it parses (with
    # the GIL held it could not, past the interpreter's switch interval at either end)
    import threading
    import time
    from saltation import _core
    lines = EXAMPLE.read_text().splitlines()
    for copies in (20000, 80000, 320000):  # about 4, 16, 64 MB: grown until the parse is long enough to tell
        text = lines[0] + "\n" + (lines[-1] + "\n") * copies
        stamps, stop = [], threading.Event()
        counter = threading.Thread(
            target=lambda: [(stamps.append(time.perf_counter()), time.sleep(0.001)) for _ in iter(stop.is_set, True)])
        counter.start()
        time.sleep(0.05)
        t0 = time.perf_counter()
        _core.check_event_log(text, "big.jsonl")
        t1 = time.perf_counter()
        stop.set()
        counter.join()
        if t1 - t0 > 0.3:
            break
    assert t1 - t0 > 0.3, "the log parsed too fast to tell"
    assert any(t0 + 0.05 < s < t1 - 0.05 for s in stamps)
