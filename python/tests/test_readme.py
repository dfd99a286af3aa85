"""README's Python quickstart runs as written (from the repository's root, as a reader would)."""
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_quickstart_runs_as_written():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Quickstart"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 15
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONWARNINGS": "error"})
    assert r.returncode == 0, r.stderr
    assert "touchdown" in r.stdout and "largest entry of Xi: v:" in r.stdout
