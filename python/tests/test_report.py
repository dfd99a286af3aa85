"""python -m saltation.report on a recorded humanoid run: one self-contained page with the named
sections and embedded images, heat maps labelled by the model's joints, in under 30 s."""
import html.parser
import json
import resource
import subprocess
import sys

import pytest

from conftest import ROOT
from saltation import report


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.images, self.external, self.text = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "img":
            self.images.append((self.sections[-1] if self.sections else None, a.get("src", "")))
        if tag in ("link", "script") and (a.get("href") or a.get("src")):
            self.external.append(a)

    def handle_data(self, data):
        self.text.append(data)


def test_report_of_a_humanoid_run(cli, tmp_path):
    log = tmp_path / "humanoid.jsonl"
    cli("record", ROOT / "tests" / "models" / "humanoid" / "humanoid.xml", "--duration", "1.5", "--restitution", "auto",
        "--out", log, "--quiet")
    out = tmp_path / "report.html"
    # the report's own CPU time (wall time on a shared machine measures the machine's load)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([sys.executable, "-m", "saltation.report", str(log), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert r.returncode == 0, r.stderr
    assert cpu < 30, f"the report took {cpu:.1f} s of CPU"
    page = _Page()
    page.feed(out.read_text())
    assert list(page.sections) == list(report.SECTIONS)
    assert not page.external, "the page must be self-contained"
    assert all(src.startswith("data:image/png;base64,") for _, src in page.images)
    by_section = {s: sum(1 for k, _ in page.images if k == s) for s in report.SECTIONS}
    assert by_section["timeline"] == 1 and by_section["xi-norm"] == 1
    assert by_section["largest"] == 5  # a heat map per event of the top five
    text = "".join(page.text)
    # the heat maps' events are named in the table with their largest entry, by joint
    assert "∂q:" in text or "∂v:" in text
    assert "Simultaneous groups" in text and "e measured on MuJoCo's contact" in text
    assert not list(tmp_path.glob(".saltation-*")), "the temporary file was renamed into place"


def test_report_errors_are_messages(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert report.main([str(bad), "--out", str(tmp_path / "r.html")]) == 1
    assert report.main([str(tmp_path / "missing.jsonl")]) == 2
    assert report.main([str(bad), "--out", str(tmp_path / "no" / "dir" / "r.html")]) == 2
    assert not (tmp_path / "r.html").exists()


def test_report_names_the_features_of_a_feature_change(cli, tmp_path):
    # a slow ball rolls from the ledge's top face onto its edge (a `feature` record) and leaves on
    # the rounded part: the page shows the change with its own colour and names the two features
    model = ROOT / "tests" / "models" / "ledge_ball.xml"
    log = tmp_path / "ledge.jsonl"
    cli("rigid", model, "--duration", "0.5", "--out", log, "--quiet")
    kinds = [json.loads(line).get("kind") for line in log.read_text().splitlines()[1:]]
    assert "feature" in kinds and "liftoff" in kinds, kinds
    out = tmp_path / "report.html"
    assert report.main([str(log), "--out", str(out)]) == 0
    page = _Page()
    page.feed(out.read_text())
    text = "".join(page.text)
    assert "marble/ledge (face → edge)" in text
    assert report.KIND_COLOURS["feature"] not in {c for k, c in report.KIND_COLOURS.items() if k != "feature"}
