"""Event records: what the JSON Lines logs hold (the CLI's, the engine plugin's), as Python objects.

One schema for the Hook, the rigid simulator, floquet and read_events (docs/log-format.md): the
C++ library writes each record as JSON — numbers as the shortest text that reads back bit for
bit, matrices in the compact form {"shape", "base", "mask", "data"} (base64 of the IEEE doubles
that differ from the base) — and this module reads it back to the same doubles.
"""
import base64
import binascii
import json
import math

import numpy as np

SCHEMA = "saltation.events/2"

# fields holding vectors or matrices: numpy arrays in Event and in read_events' DataFrame
ARRAY_FIELDS = ("point", "f_minus", "f_plus", "grad_g", "dt_dx", "dreset_dt", "xi", "dreset", "bracket",
                "composite_first", "composite_reverse")
# matrix fields, in the order they are decoded (a matrix's base may be one decoded before it)
MATRIX_FIELDS = ("dreset", "xi", "composite_first", "composite_reverse")


# every field a record may carry: the C++ reader's list (event_log_reader.h, EventRecordFields); a
# record without one reads None (a flag: False)
from ._core import record_fields as _record_fields  # noqa: E402

FIELDS = frozenset(_record_fields)


def _b64(text, what):
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a base64 string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not base64") from None


def decode_matrix(value, decoded=None):
    """A matrix field of a record as an ndarray, the doubles written bit for bit: the compact
    form {"shape": [r, c], "base": "zero" | "identity" | <field>, "mask": base64, "data": base64}
    (docs/log-format.md; `decoded`: the record's matrices decoded so far, for a base that names
    one), or nested lists. None stays None. ValueError for anything malformed."""
    if value is None:
        return None
    if isinstance(value, list):
        return _array(value)
    if not isinstance(value, dict) or set(value) != {"shape", "base", "mask", "data"}:
        raise ValueError("a matrix must be an object with shape, base, mask and data")
    shape = value["shape"]
    if (not isinstance(shape, list) or len(shape) != 2 or
            not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 1 << 24 for n in shape) or
            shape[0] * shape[1] > 1 << 24):
        raise ValueError(f"bad matrix shape {shape!r}")
    rows, cols = shape
    base = value["base"]
    if base == "zero":
        a = np.zeros((rows, cols))
    elif base == "identity":
        a = np.eye(rows, cols)
    elif decoded is not None and isinstance(base, str) and decoded.get(base) is not None:
        a = np.array(decoded[base], dtype=float)
        if a.shape != (rows, cols):
            raise ValueError(f"base {base!r} has another shape")
    else:
        raise ValueError(f"base {base!r} is not zero, identity or a matrix of this record decoded before")
    mask = _b64(value["mask"], "mask")
    if len(mask) != (rows * cols + 7) // 8:
        raise ValueError(f"mask has {len(mask)} bytes, not ceil(rows*cols/8) = {(rows * cols + 7) // 8}")
    bits = np.unpackbits(np.frombuffer(mask, dtype=np.uint8), bitorder="little").astype(bool)
    if bits[rows * cols:].any():
        raise ValueError("mask has bits set beyond rows*cols")
    data = _b64(value["data"], "data")
    stored = int(bits.sum())
    if len(data) != 8 * stored:
        raise ValueError(f"data holds {len(data) / 8:g} doubles, mask marks {stored}")
    flat = a.reshape(-1)
    flat[bits[:rows * cols]] = np.frombuffer(data, dtype="<f8")
    return flat.reshape(rows, cols)


def _array(value):
    if value is None:
        return None
    if isinstance(value, dict):
        return decode_matrix(value)
    return np.array([[np.nan if v is None else v for v in row] for row in value], dtype=float) \
        if value and isinstance(value[0], list) else \
        np.array([np.nan if v is None else v for v in value], dtype=float)


def _decode_record(record):
    """The record with its vector and matrix fields as ndarrays (matrices on their bases)."""
    out = dict(record)
    decoded = {}
    for key in MATRIX_FIELDS:
        if key in out:
            out[key] = decoded[key] = decode_matrix(out[key], decoded)
    for key in ARRAY_FIELDS:
        if key in out and key not in decoded:
            out[key] = _array(out[key])
    return out


def _number(value):
    return math.nan if value is None else value


class Event:
    """One record: a touchdown, liftoff, slip or graze with its Ξ, or a near miss, simultaneous
    group, Zeno, chatter or measured-restitution record.

    Attributes (present when the record has them; None otherwise, False for the flags grazing, proxy
    and input_jump): kind, time, geom1, geom2
    (names), body1, body2, point (world, ndarray 3), restitution (the value this impact used; a release's or feature change's: its pair's e at the event),
    transversality (∇gᵀF⁻), transversality_rel (unit-free grazing measure, 0 grazing … 1 head-on),
    grazing, f_minus, f_plus, grad_g, dt_dx (ndarray ndx), xi, dreset (ndarray ndx × ndx, rows and columns as state_labels(m)),
    xi_norm, mode_before, mode_after, released (contact labels), rank (rank after the event),
    bracket, proxy, input_jump (True on a release at an input jump: the inputs changed between
    steps, Ξ = I; absent otherwise), impact, group (a simultaneous group's id: on its record and on its members),
    size, order_spread, composite_first, composite_reverse,
    min_gap, accumulation_time, ratio, normal_velocity_minus, normal_velocity_plus, and on models
    with a prescribed surface motion dg_dt (∂g/∂t) and dreset_dt (D_tΔ, ndarray ndx).
    """

    __slots__ = ("_record", "_decoded")

    def __init__(self, record):
        self._record = dict(record)
        self._decoded = None

    @classmethod
    def from_json(cls, line):
        return cls(json.loads(line))

    def to_dict(self):
        """The record as the JSON log holds it (plain lists and numbers)."""
        return dict(self._record)

    def __getattr__(self, name):
        record = object.__getattribute__(self, "_record")
        if name == "rank":
            name = "rank_after"
        if name not in record:
            if name in FLAGS:
                return False  # an absent flag is false (docs/log-format.md)
            if name in FIELDS:
                return None
            raise AttributeError(f"an event record has no field '{name}'")
        value = record[name]
        if name in ARRAY_FIELDS:
            if object.__getattribute__(self, "_decoded") is None:
                self._decoded = _decode_record(record)
            decoded = self._decoded[name]
            return None if decoded is None else decoded.copy()
        if isinstance(value, (int, float)) or value is None:
            return _number(value) if not isinstance(value, bool) else value
        return value

    def __dir__(self):
        return sorted(set(self._record) | {"to_dict", "rank"})

    def __repr__(self):
        r = self._record
        extra = f", |Xi|={r['xi_norm']:.4g}" if isinstance(r.get("xi_norm"), (int, float)) else ""
        return f"Event({r.get('kind')} at {r.get('time')} s, {r.get('geom1')}/{r.get('geom2')}{extra})"

    def __eq__(self, other):
        return isinstance(other, Event) and self._record == other._record


# the flags (docs/log-format.md): true/false on every CSV row; in JSON written where true (and
# grazing, proxy on every record with Ξ), absent meaning false; read_events gives bools on every row
FLAGS = ("grazing", "proxy", "input_jump")
# the CSV's cells by type (its header is _core.csv_columns): numbers finite or empty, counts
# non-negative integers or empty, text as written
_CSV_COUNTS = ("group", "size")
_CSV_TEXT = ("kind", "geom1", "geom2", "error")
FAILURE = "failure"  # the kind of a failed run's last record (time, kind and error only)


def _read_text(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start})") from None


def _read_jsonl(path, text):
    from . import _core
    _core.check_event_log(text, str(path))  # ValueError naming the line, the record and the field
    rows = []
    header = None
    for line in text.split("\n"):
        if not line.strip(" \t\r"):
            continue
        record = json.loads(line)
        if header is None:
            header = record
            continue
        record = _decode_record(record)
        for flag in FLAGS:
            record.setdefault(flag, False)
        rows.append(record)
    return header, rows


def _read_csv(path, text):
    import csv
    from . import _core
    columns = list(_core.csv_columns)
    kinds = set(_core.event_kinds) | {FAILURE}
    lines = [line.rstrip("\r") for line in text.split("\n")]
    rows = []
    last_time = -math.inf
    header_seen = False
    try:
        parsed = list(enumerate(csv.reader(lines, strict=True), 1))
    except csv.Error as e:
        raise ValueError(f"{path}: not a CSV log ({e})") from None
    for number, cells in parsed:
        if not cells:
            continue  # a blank line
        if not header_seen:  # the first row that is not blank
            if cells != columns:
                raise ValueError(f"{path}:{number}: the CSV header is not saltation's ({','.join(columns)})")
            header_seen = True
            continue
        where = f"{path}:{number}: record {len(rows)}"
        if len(cells) != len(columns):
            raise ValueError(f"{where}: {len(cells)} cells, not {len(columns)} (a truncated file?)")
        row = dict(zip(columns, cells))
        if row["kind"] not in kinds:
            raise ValueError(f"{where}: unknown kind {row['kind']!r}")
        failure = row["kind"] == FAILURE
        out = {}
        for key, cell in row.items():
            if failure and key not in ("time", "kind", "error"):
                if cell:
                    raise ValueError(f"{where}: a failure row holds only time, kind and error, not {key!r}")
                out[key] = False if key in FLAGS else "" if key in _CSV_TEXT else math.nan
            elif key in FLAGS:
                if cell not in ("true", "false"):
                    raise ValueError(f"{where}: {key!r} must be true or false, not {cell!r}")
                out[key] = cell == "true"
            elif key in _CSV_TEXT:
                if key == "error" and cell and not failure:
                    raise ValueError(f"{where}: 'error' belongs to a failure row only")
                out[key] = cell
            elif not cell and key != "time":
                out[key] = math.nan
            else:
                try:
                    value = float(cell)
                except ValueError:
                    value = math.nan
                if not math.isfinite(value):
                    raise ValueError(f"{where}: {key!r} must be a finite number{'' if key == 'time' else ' or empty'}, "
                                     f"not {cell!r}")
                if key in _CSV_COUNTS and (value < 0 or value != int(value)):
                    raise ValueError(f"{where}: {key!r} must be a non-negative integer or empty, not {cell!r}")
                out[key] = value
        if rows and rows[-1]["kind"] == FAILURE:
            raise ValueError(f"{where}: a record after the failure record (a failure ends the run)")
        if out["time"] < last_time:
            raise ValueError(f"{where}: records out of time order ({out['time']} s after {last_time} s)")
        last_time = out["time"]
        rows.append(out)
    return rows


def read_events(path):
    """An event log as a pandas DataFrame: one row per record, in time order. Either form
    (docs/log-format.md), told by its first line (the CSV's starts "time,"):

    - JSON Lines (saltation record/rigid --out, the plugin's `log`): vector and matrix fields as
      numpy arrays (the doubles written, bit for bit); the header record is df.attrs["header"] (a
      dict: model, nq, nv, na, timestep, integrator, state_labels — the row and column names of
      every Ξ —, units, options).
    - CSV (saltation record --csv): its columns, numbers as floats (NaN for an empty cell);
      df.attrs["header"] is None (the CSV has none).

    Either way the flags grazing, proxy and input_jump are bools on every row (an absent JSON flag
    is False), the same values for the same run. Every field is type-checked (the C++ reader,
    event_log_reader.h, checks the JSON Lines). FileNotFoundError for a missing file; ValueError
    naming the line, the record (df.iloc[i]) and the field for a log that is not one.
    """
    import pandas as pd

    text = _read_text(path)
    first = next((line for line in text.split("\n") if line.strip(" \t\r")), "")
    if first.startswith("time,"):  # the CSV's header row
        header, rows = None, _read_csv(path, text)
    else:
        header, rows = _read_jsonl(path, text)
    df = pd.DataFrame(rows)
    df.attrs["header"] = header
    return df
