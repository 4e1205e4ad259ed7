"""A paper row's case (srmdp.paper.inputs.rows.PaperCase): the library's Case named by its table and row.  Its record is
the one every committed result holds (written while Case itself held table and row), so a chunk written now has
the case_hash of the chunks of its row committed before, and pools with them."""

import json
import subprocess
from pathlib import Path

from srmdp.case.cases import Case
from srmdp.case.results import identity_hash
from srmdp.paper.inputs.rows import PaperCase, case_of_record, paper_case

ROOT = Path(__file__).resolve().parents[1]


def _committed_records():
    """(path, result) of every committed result file with a case record and a case_hash (chunks and summaries)."""
    files = subprocess.run(
        ["git", "ls-files", "data", "tests/data"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for f in files:
        if f.endswith(".json"):
            data = json.loads((ROOT / f).read_text())
            if isinstance(data, dict) and isinstance(data.get("case"), dict) and "case_hash" in data:
                yield f, data


def test_every_committed_record_is_its_cases_record_with_its_case_hash():
    named = free = 0
    for f, data in _committed_records():
        rec = data["case"]
        case = case_of_record(rec)
        if rec.get("table"):  # a paper row (or a campaign case list's): the same record, key for key, in order
            named += 1
            assert isinstance(case, PaperCase) and list(case.as_dict().items()) == list(rec.items()), f
            assert identity_hash(case.as_dict(), data["seed"], data["test_points"]) == data["case_hash"], f
        else:  # a free case, written with table "" and row 0: read as a Case (the name dropped)
            free += 1
            assert type(case) is Case and rec.get("table", "") == "" and rec.get("row", 0) == 0, f
    assert named >= 250 and free >= 10, (named, free)  # data/gpu, data/multicore, data/summaries (a checkout)


def test_paper_case_names_the_record_and_the_label():
    case = paper_case("LP0d4", row=1, precision="float32")
    rec = case.as_dict()
    assert (rec["table"], rec["row"], case.label) == ("LP0d4", 1, "LP0d4_r1")
    assert list(rec)[list(rec).index("half_width") + 1 :][:2] == ["table", "row"]  # where older files have them
    free = Case(**{k: getattr(case, k) for k in ("d", "dt", "basis", "cells", "paths", "precision")})
    assert {k: v for k, v in rec.items() if k not in ("table", "row")} == free.as_dict()
    # the name is part of the identity: the same numbers under another name never pool
    assert identity_hash(rec, 0, 1000) != identity_hash(free.as_dict(), 0, 1000)
    assert case_of_record(rec) == case and case_of_record(free.as_dict()) == free
