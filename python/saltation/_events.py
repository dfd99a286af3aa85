"""Event records: what the JSON Lines logs hold (the CLI's, the engine plugin's), as Python objects.

One schema for the Hook, the rigid simulator, floquet and read_events: the C++ library writes each
record as JSON (17 significant digits, so the numbers are the C++ ones bit for bit) and this module
reads it.
"""
import json
import math

import numpy as np

# fields holding vectors or matrices: numpy arrays in Event and in read_events' DataFrame
ARRAY_FIELDS = ("point", "f_minus", "f_plus", "grad_g", "dt_dx", "xi", "dreset", "bracket",
                "composite_first", "composite_reverse")


# every field a record may carry (event_json.h); a record without one reads None
FIELDS = frozenset((
    "time", "kind", "geom1", "geom2", "body1", "body2", "point", "restitution", "transversality",
    "transversality_rel", "grazing", "f_minus", "f_plus", "grad_g", "dt_dx", "xi", "xi_norm", "dreset",
    "bracket", "rank_after", "mode_before", "mode_after", "released", "impact", "proxy", "group", "size",
    "order_spread", "composite_first", "composite_reverse", "min_gap", "accumulation_time", "ratio",
    "normal_velocity_minus", "normal_velocity_plus"))


def _array(value):
    if value is None:
        return None
    return np.array([[np.nan if v is None else v for v in row] for row in value], dtype=float) \
        if value and isinstance(value[0], list) else \
        np.array([np.nan if v is None else v for v in value], dtype=float)


def _number(value):
    return math.nan if value is None else value


class Event:
    """One record: a touchdown, liftoff, slip or graze with its Ξ, or a near miss, simultaneous
    group, Zeno, chatter or measured-restitution record.

    Attributes (present when the record has them; None otherwise): kind, time, geom1, geom2
    (names), body1, body2, point (world, ndarray 3), restitution (the value this impact used),
    transversality (∇gᵀF⁻), transversality_rel (unit-free grazing measure, 0 grazing … 1 head-on),
    grazing, f_minus, f_plus, grad_g, dt_dx (ndarray ndx), xi, dreset (ndarray ndx × ndx, rows and columns as state_labels(m)),
    xi_norm, mode_before, mode_after, released (contact labels), rank (rank after the event),
    bracket, proxy, impact, group, size, order_spread, composite_first, composite_reverse,
    min_gap, accumulation_time, ratio, normal_velocity_minus, normal_velocity_plus.
    """

    __slots__ = ("_record",)

    def __init__(self, record):
        self._record = dict(record)

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
            if name in FIELDS:
                return None
            raise AttributeError(f"an event record has no field '{name}'")
        value = record[name]
        if name in ARRAY_FIELDS:
            return _array(value)
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


def read_events(path):
    """A JSON Lines log (saltation record --out, the plugin's `log`) as a pandas DataFrame: one row
    per record, vector and matrix fields as numpy arrays. FileNotFoundError for a missing file,
    ValueError naming the line for a line that is not a JSON object."""
    import pandas as pd

    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{number}: not a JSON record ({e.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{number}: not a JSON object")
            for key in ARRAY_FIELDS:
                if key in record:
                    record[key] = _array(record[key])
            rows.append(record)
    return pd.DataFrame(rows)
