"""The run result is a frozen record (srmdp.runs.result.RunResult) that reads every committed result file and writes
it back byte for byte; run_case builds it once; the pooling sites join per-run values by one concat."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from srmdp.case.cases import Case
from srmdp.case.results import write_json_atomic
from srmdp.runs.result import PerRun, RunResult, concat

ROOT = Path(__file__).resolve().parent.parent
DATA = sorted((ROOT / "data").rglob("*.json"))


def _is_run_result(data) -> bool:
    return isinstance(data, dict) and "case_hash" in data and "per_run" in data


def test_every_committed_result_file_reads_and_writes_back_byte_for_byte():
    """Every chunk, summary and GPU result in data/ (460 when this was written) reads, round-trips, and its
    current writer (the chunk's or the summary's order) gives back its very bytes; the other JSON files of data/
    (benchmarks, references, solves, coverage, LSMDP) are not run results and say so by lacking a case_hash."""
    results = 0
    for path in DATA:
        text = path.read_text()
        data = json.loads(text)
        if not _is_run_result(data):
            assert not (isinstance(data, dict) and "case_hash" in data), path
            continue
        results += 1
        res = RunResult.from_json(text)
        assert res.format_version == 1
        out = res.to_json()
        assert RunResult.from_json(out) == res, path
        assert out == text, f"{path}: written back with other bytes"
        assert res.kind == ("summary" if "chunks" in data else "chunk")
    assert results >= 460


def _one_of_each():
    picks = {}
    for path in DATA:
        data = json.loads(path.read_text())
        if _is_run_result(data):
            picks.setdefault((("chunks" in data), tuple(data["per_run"])), path)
    return sorted(picks.values())


@pytest.mark.parametrize("path", _one_of_each(), ids=lambda p: str(p.relative_to(ROOT / "data")))
def test_the_record_reads_as_its_json_mapping(path):
    """Readers that still read results by key see exactly the file's JSON (less the checksum), as fresh copies."""
    data = json.loads(path.read_text())
    res = RunResult.from_json(path.read_text())
    data.pop("checksum")
    assert dict(res) == data and list(res) == list(data) and res.to_dict() == data
    assert all(res[k] == v and res.get(k) == v and k in res for k, v in data.items())
    assert res.get("no such key", 7) == 7 and "no such key" not in res
    res["per_run"]["ey" if "ey" in data["per_run"] else "u0"].clear()  # a copy: the record is unchanged
    assert res["per_run"] == data["per_run"]


def test_a_result_is_frozen():
    res = RunResult.from_json(_one_of_each()[0].read_text())
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.runs = 3
    with pytest.raises(TypeError):
        res.case["d"] = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.per_run.ey = ()
    assert isinstance(res.per_run.u0 or res.per_run.ey, tuple)
    with pytest.raises(TypeError):
        res["runs"] = 3


def test_concat_joins_the_fields_every_part_records():
    a = PerRun.of(ey=[[1.0, 2.0]], ez=[[3.0, 4.0]], u0=[0.5])
    b = PerRun.of(ey=np.array([[5.0, 6.0], [7.0, 8.0]]), ez=np.ones((2, 2)), u0=[1.5, 2.5], ey2=np.ones((2, 2)))
    c = concat([a, b])
    assert c.ey == ((1.0, 2.0), (5.0, 6.0), (7.0, 8.0)) and c.u0 == (0.5, 1.5, 2.5) and c.ey2 is None
    assert c.runs == 3 and c.indicators()["mse_y_max"] == pytest.approx(np.log(np.mean([2.0, 6.0, 8.0])))
    assert PerRun.of(u0=[1.0]).indicators() is None


CASE = Case(d=2, dt=0.5, basis="LP0", cells=2, paths=40)


def test_run_case_returns_a_record_its_file_reads_back(tmp_path):
    from srmdp.runs.run import run_case

    res = run_case(CASE, runs=2, test_points=5, seed=3, threads=1)
    assert isinstance(res, RunResult) and res.kind == "chunk" and res.runs == 2 and res.per_run.runs == 2
    assert res["mse_y_max"] == res.indicators["mse_y_max"]
    write_json_atomic(tmp_path / "a.json", res)
    res.write(tmp_path / "b.json")
    text = (tmp_path / "a.json").read_text()
    assert text == (tmp_path / "b.json").read_text() == res.to_json()
    assert RunResult.from_json(text) == res


FACTS = ("storage", "arithmetic", "hardware", "threads", "run_indices", "run_key", "timing", "slowest")


def test_the_facts_are_the_records_own_and_read_the_same_of_its_json_object():
    """What a result says about itself (srmdp.runs.facts) is a RunResult's property, and the paper's accessors
    (srmdp.paper.inputs.results, which also read results held as JSON objects) give the same of every committed file."""
    from srmdp.paper.inputs import results as record
    from srmdp.runs.facts import facts_of

    accessors = {
        "storage": record.storage_of,
        "arithmetic": record.arithmetic_of,
        "threads": record.threads_of,
        "run_indices": record.run_indices,
        "run_key": record.run_key,
        "timing": record.timing_of,
        "slowest": record.slowest_of,
    }
    for path in DATA:
        data = json.loads(path.read_text())
        if not _is_run_result(data):
            continue
        res = RunResult.from_dict(data)
        for name in FACTS:
            own, of_json = getattr(res, name), getattr(facts_of(data), name)
            assert own == of_json or dict(own) == dict(of_json), (path, name)
            if name in accessors:
                assert accessors[name](res) == accessors[name](data) == own, (path, name)
