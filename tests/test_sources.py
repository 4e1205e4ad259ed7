"""Every number of a committed table can be traced without rerunning: each "% source:" comment in
tables/*.tex names files that are committed in the repository."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _committed():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return set(filter(None, out.split("\0")))


def _sources(text):
    for line in text.splitlines():
        m = re.search(r"%\s*(?:not run;\s*)?source:\s*(.*)$", line)
        if m:
            yield from m.group(1).split()


def test_every_source_is_a_committed_file():
    committed = _committed()
    tables = sorted((ROOT / "tables").glob("*.tex"))
    assert tables
    named = 0
    for table in tables:
        for src in _sources(table.read_text()):
            named += 1
            assert src in committed, f"{table.name}: source {src} is not a committed file"
            assert not src.startswith("results/"), f"{table.name}: {src} is scratch (results/ is not committed)"
    assert named > 0


def test_the_source_pattern_sees_the_forms_the_templates_write():
    line = r"x & y \\ % source: data/summaries/default/theory/LP0d4_r1/cpu.json srmdp/data/paper_cases.csv"
    assert list(_sources(line)) == ["data/summaries/default/theory/LP0d4_r1/cpu.json", "srmdp/data/paper_cases.csv"]
    assert list(_sources(r"a \\ % not run; source: data/gpu/x.json")) == ["data/gpu/x.json"]
