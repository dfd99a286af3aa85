"""An HTML report of one event log: ``python -m saltation.report LOG.jsonl [--out report.html]``.

One self-contained page (the plots embedded as PNG, no file or network beside it) with the
sections a reader of a run needs, each an ``<section id=…>``:

  summary      the model, the versions, the options, the records by kind
  timeline     events over time by kind and contact
  xi-norm      ‖Ξ‖ and the grazing measure (dimensionless transversality) over time
  largest      the events of largest ‖Ξ‖, each with its Ξ as a heat map whose rows and columns are
               labelled by the header's state_labels (the model's joints)
  zeno-chatter-simultaneous   Zeno accumulations, chattering contacts, simultaneous groups
  rigid-vs-compliant          the restitution the rigid model used against the one measured on
                              MuJoCo's contact (when the log has restitution records)

The page is written to a temporary file beside the target and renamed into place, so a reader
never sees half a page. Exit status: 0 written, 1 the log is not a log (ValueError), 2 usage or a
file that cannot be read or written. matplotlib draws with its Agg backend (no display needed).
"""
import argparse
import base64
import html
import io
import math
import os
import sys

import numpy as np

from ._files import write_atomically

SECTIONS = ("summary", "timeline", "xi-norm", "largest", "zeno-chatter-simultaneous", "rigid-vs-compliant")
KIND_COLOURS = {"touchdown": "#1f77b4", "graze": "#ff7f0e", "liftoff": "#2ca02c", "slip": "#17becf",
                "near_miss": "#7f7f7f", "simultaneous": "#9467bd", "zeno": "#d62728", "chatter": "#8c564b",
                "restitution": "#e377c2", "feature": "#bcbd22"}


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("saltation.report: matplotlib is missing (pip install 'saltation[report]' or matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _png(fig, tight=True):
    # bbox_inches="tight" draws the figure twice: the heat maps (hundreds of labels) lay out by hand
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight" if tight else None)
    _pyplot().close(fig)
    return '<img alt="" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode() + '">'


def _e(x):
    return html.escape(str(x))


def _num(x, fmt="{:.4g}"):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return fmt.format(x) if isinstance(x, (int, float, np.floating)) else _e(x)


def _table(header, rows):
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    return "".join(out) + "</table>"


def _contact(row):
    g1, g2 = row.get("geom1") or "", row.get("geom2") or ""
    return f"{g1}/{g2}" if g1 or g2 else "(none)"


def _contact_and_features(row):
    """the contact, and for a feature change (or a liftoff made by one) the features it passes
    between: "ball/table (face → edge)" (docs/log-format.md, feature_before / feature_after)"""
    before, after = row.get("feature_before"), row.get("feature_after")
    if isinstance(before, str) and isinstance(after, str) and before and after:
        return f"{_contact(row)} ({before} → {after})"
    return _contact(row)


def _section(key, title, body):
    return f'<section id="{key}"><h2>{_e(title)}</h2>{body}</section>'


def _summary(df, h):
    counts = df.kind.value_counts() if len(df) else {}
    span = f"{df.time.min():.6g} – {df.time.max():.6g} s" if len(df) else "no records"
    facts = [("model", _e(h.get("model") or h.get("model_name", ""))), ("model name", _e(h.get("model_name", ""))),
             ("source", _e(h.get("source", ""))),
             ("saltation / MuJoCo", _e(f"{h.get('saltation_version')} / {h.get('mujoco_version')}")),
             ("sizes", _e(f"nq={h['nq']} nv={h['nv']} na={h['na']}, Ξ is {2 * h['nv'] + h['na']} × {2 * h['nv'] + h['na']}")),
             ("timestep, integrator", _e(f"{h.get('timestep')} s, {h.get('integrator')}")),
             ("records", _e(f"{len(df)} over {span}"))]
    body = _table(["", ""], [(f"<b>{k}</b>", v) for k, v in facts])
    body += "<h3>records by kind</h3>" + _table(["kind", "count"], [(_e(k), int(n)) for k, n in dict(counts).items()])
    options = h.get("options", {})
    body += "<details><summary>options used</summary>" + _table(
        ["option", "value"], [(_e(k), _e(json_like(v))) for k, v in options.items()]) + "</details>"
    return _section("summary", "Summary", body)


def json_like(v):
    return ", ".join(map(str, v)) if isinstance(v, list) else v


def _timeline(df, plt):
    if not len(df):
        return _section("timeline", "Events over time", "<p>No records.</p>")
    contacts = sorted({_contact(r) for r in df.to_dict("records")})
    row_of = {c: i for i, c in enumerate(contacts)}
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.28 * len(contacts)))
    for kind, group in df.groupby("kind"):
        ys = [row_of[_contact(r)] for r in group.to_dict("records")]
        ax.scatter(group.time, ys, s=22, label=kind, color=KIND_COLOURS.get(kind, "black"), alpha=0.85)
    ax.set_yticks(range(len(contacts)), contacts, fontsize=7)
    ax.set_xlabel("time (s)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title("events by kind (colour) and contact (row)")
    return _section("timeline", "Events over time", _png(fig))


def _xi_norm(df, h, plt):
    with_xi = df[df.xi_norm.notna()] if "xi_norm" in df else df.iloc[:0]
    if not len(with_xi):
        return _section("xi-norm", "‖Ξ‖ and the grazing measure", "<p>No event with Ξ.</p>")
    fig, (a, b) = plt.subplots(2, 1, figsize=(10, 5), sharex=True)
    for kind, group in with_xi.groupby("kind"):
        colour = KIND_COLOURS.get(kind, "black")
        a.scatter(group.time, group.xi_norm, s=18, color=colour, label=kind)
        b.scatter(group.time, group.transversality_rel, s=18, color=colour, label=kind)
    a.set_yscale("log")
    a.set_ylabel("‖Ξ‖₂")
    a.legend(fontsize=7)
    threshold = h.get("options", {}).get("grazing_threshold")
    if isinstance(threshold, (int, float)) and threshold > 0:
        b.axhline(threshold, color="red", lw=0.8, ls="--", label="grazing threshold")
    b.set_ylabel("transversality_rel\n(1 head-on, 0 grazing)")
    b.set_yscale("log")
    b.set_xlabel("time (s)")
    for axis in (a, b):
        axis.grid(alpha=0.3)
    return _section("xi-norm", "‖Ξ‖ and the grazing measure",
                    _png(fig) + "<p>A large ‖Ξ‖ goes with a small transversality: near grazing the event "
                    "time is ill-conditioned, and so is the linearisation through it.</p>")


def _heatmap(xi, labels, title, plt):
    n = xi.shape[0]
    size = min(11, 3 + 0.13 * n)
    fig = plt.figure(figsize=(size + 2.2, size + 1.0))
    # room for the labels: left and bottom margins in inches, whatever the size
    ax = fig.add_axes([1.4 / (size + 2.2), 1.4 / (size + 1.0), (size - 1.2) / (size + 2.2), (size - 1.6) / (size + 1.0)])
    cax = fig.add_axes([(size + 0.6) / (size + 2.2), 0.25, 0.15 / (size + 2.2), 0.5])
    finite = np.where(np.isfinite(xi), xi, 0.0)
    scale = max(np.abs(finite).max(), 1e-300)
    from matplotlib.colors import SymLogNorm
    image = ax.imshow(finite, cmap="RdBu_r", norm=SymLogNorm(linthresh=max(scale * 1e-6, 1e-300), vmin=-scale, vmax=scale))
    fontsize = max(3.5, min(8, 300 / max(n, 1)))
    ax.set_xticks(range(n), labels, rotation=90, fontsize=fontsize)
    ax.set_yticks(range(n), labels, fontsize=fontsize)
    ax.tick_params(length=1.5, pad=1)
    ax.minorticks_off()
    ax.set_xlabel("column: δx⁻ (before the event)")
    ax.set_ylabel("row: δx⁺ (after the event)")
    ax.set_title(title, fontsize=9)
    exponent = int(np.floor(np.log10(scale)))
    ticks = [-(10.0 ** exponent), -(10.0 ** (exponent // 2)), 0, 10.0 ** (exponent // 2), 10.0 ** exponent]
    bar = fig.colorbar(image, cax=cax, ticks=sorted(set(ticks)))
    bar.minorticks_off()
    bar.set_label("Ξ entry (symmetric log scale)")
    return _png(fig, tight=False)


def _largest(df, h, plt, top):
    if "xi_norm" not in df or not df.xi_norm.notna().any():
        return _section("largest", "Largest ‖Ξ‖", "<p>No event with Ξ.</p>")
    labels = h["state_labels"]
    rows = df[df.xi_norm.notna()].sort_values("xi_norm", ascending=False).head(top)
    table = _table(["time (s)", "kind", "contact", "‖Ξ‖", "transversality_rel", "largest entry"],
                   [(_num(r.time, "{:.6f}"), _e(r.kind), _e(_contact_and_features(r._asdict())), _num(r.xi_norm),
                     _num(r.transversality_rel), _e(_largest_entry(r.xi, labels)))
                    for r in rows.itertuples()])
    maps = []
    for r in rows.itertuples():
        if isinstance(r.xi, np.ndarray):
            title = f"Ξ at t = {r.time:.6f} s, {r.kind} {_contact_and_features(r._asdict())}, ‖Ξ‖ = {r.xi_norm:.4g}"
            maps.append(f"<figure>{_heatmap(r.xi, labels, title, plt)}<figcaption>{_e(title)}</figcaption></figure>")
    return _section("largest", f"Largest ‖Ξ‖ (top {len(rows)})", table + "".join(maps))


def _largest_entry(xi, labels):
    if not isinstance(xi, np.ndarray):
        return ""
    off = np.where(np.isfinite(xi), np.abs(xi - np.eye(*xi.shape)), 0.0)
    i, j = np.unravel_index(int(np.argmax(off)), xi.shape)
    return f"∂{labels[i]}⁺ / ∂{labels[j]}⁻ = {xi[i, j]:.4g}"


def _zeno_chatter_simultaneous(df):
    parts = []
    zeno = df[df.kind == "zeno"]
    parts.append("<h3>Zeno</h3>" + (_table(
        ["time (s)", "contact", "accumulation time (s)", "interval ratio"],
        [(_num(r["time"], "{:.6f}"), _e(_contact(r)), _num(r.get("accumulation_time"), "{:.6f}"), _num(r.get("ratio")))
         for r in zeno.to_dict("records")]) if len(zeno) else "<p>No Zeno accumulation.</p>"))
    chatter = df[df.kind == "chatter"]
    if len(chatter):
        counts = {}
        for r in chatter.to_dict("records"):
            counts.setdefault(_contact(r), []).append(r["time"])
        parts.append("<h3>Chatter</h3>" + _table(["contact", "episodes", "first (s)"],
                                                 [(_e(c), len(t), _num(min(t), "{:.6f}")) for c, t in counts.items()]))
    else:
        parts.append("<h3>Chatter</h3><p>No chattering contact.</p>")
    sim = df[df.kind == "simultaneous"]
    if len(sim):
        rows = []
        for r in sim.to_dict("records"):
            members = df[(df.kind != "simultaneous") & (df.get("group") == r["group"])] if "group" in df else df.iloc[:0]
            rows.append((_e(int(r["group"])), _num(r["time"], "{:.6f}"), _e(r.get("size")), _num(r.get("order_spread")),
                         _e(", ".join(_contact(m) for m in members.to_dict("records")))))
        parts.append("<h3>Simultaneous groups</h3>" + _table(
            ["group", "time (s)", "size", "order spread ‖C₁−C₂‖/max‖Cᵢ‖", "members (records with this group id)"], rows) +
            "<p>The order spread compares Ξ composed in the two orders of the group: near 0 the order does "
            "not matter; near 1 the linearisation depends on which contact is taken first.</p>")
    else:
        parts.append("<h3>Simultaneous groups</h3><p>None.</p>")
    return _section("zeno-chatter-simultaneous", "Zeno, chatter and simultaneous impacts", "".join(parts))


def _rigid_vs_compliant(df):
    measured = df[df.kind == "restitution"]
    if not len(measured):
        return _section("rigid-vs-compliant", "Rigid vs compliant",
                        "<p>No restitution measured in this log (record with MuJoCo's contact to see it).</p>")
    impacts = df[df.kind.isin(["touchdown", "graze"])]
    rows = []
    for r in measured.to_dict("records"):
        same = impacts[(impacts.geom1 == r["geom1"]) & (impacts.geom2 == r["geom2"]) & (impacts.time <= r["time"])]
        used = same.restitution.iloc[-1] if len(same) and "restitution" in same else float("nan")
        rows.append((_num(r["time"], "{:.6f}"), _e(_contact(r)), _num(used), _num(r.get("restitution")),
                     _num(r.get("normal_velocity_minus")), _num(r.get("normal_velocity_plus"))))
    return _section("rigid-vs-compliant", "Rigid vs compliant", _table(
        ["time (s)", "contact", "e used by the rigid model", "e measured on MuJoCo's contact",
         "approach speed (m/s)", "separation speed (m/s)"], rows) +
        "<p>The rigid model bounces with the restitution of the MJCF's &lt;custom&gt; fields (or the override); "
        "MuJoCo's soft contact dissipates what its solref/solimp say. Where the two differ, the rigid Ξ describes "
        "a different bounce than the simulation shows: record with <code>--restitution auto</code> to use the "
        "measured value.</p>")


STYLE = """body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px;text-align:left}img{max-width:100%}
figure{margin:1em 0}figcaption{font-size:12px;color:#555}section{margin-bottom:2em}"""


def render(log, top=5):
    """The report of the log at `log` as HTML text. ValueError for a file that is not a log."""
    from ._events import read_events
    df = read_events(log)
    h = df.attrs["header"]
    if h is None:
        raise ValueError(f"{os.fspath(log)} is a CSV log: the report needs the JSON Lines log (record --out), "
                         "which has the header and the matrices")
    plt = _pyplot()
    title = f"saltation report: {h.get('model') or h.get('model_name') or log}"
    body = "".join([_summary(df, h), _timeline(df, plt), _xi_norm(df, h, plt), _largest(df, h, plt, top),
                    _zeno_chatter_simultaneous(df), _rigid_vs_compliant(df)])
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{_e(title)}</title><style>{STYLE}</style>"
            f"</head><body><h1>{_e(title)}</h1><p>log: {_e(os.fspath(log))}</p>{body}</body></html>\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="saltation report", description="An HTML report of an event log (JSON Lines).")
    parser.add_argument("log", help="the log, as saltation record --out writes it")
    parser.add_argument("--out", help="the page to write (default: LOG with .html)")
    parser.add_argument("--top", type=int, default=5, help="heat maps of the N events of largest ‖Ξ‖ (default 5)")
    args = parser.parse_args(argv)
    out = args.out or os.path.splitext(args.log)[0] + ".html"
    if args.top < 0:
        parser.error("--top must be non-negative")
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        print(f"saltation report: cannot write {out}: no such directory", file=sys.stderr)
        return 2
    try:
        text = render(args.log, args.top)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as e:
        print(f"saltation report: cannot read {args.log}: {e.strerror or e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"saltation report: {e}", file=sys.stderr)
        return 1
    try:
        write_atomically(out, text)
    except OSError as e:
        print(f"saltation report: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
