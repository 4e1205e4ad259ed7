"""Every `srmdp run` result records the process's measured peak RSS beside the memory model, and its peak
before the first run (the baseline of tables/paper_tables_1_2.tex's measured-memory table); summaries keep
the largest of their chunks'.  One tiny case whose kernels the other fast tests compile too."""

import json

from srmdp.case.cases import Case
from srmdp.case.results import write_json_atomic
from srmdp.runs.aggregate import aggregate
from srmdp.runs.run import peak_rss_bytes, run_case

CASE = Case(d=2, dt=0.25, basis="LP1", cells=4, paths=8)  # as tests/test_determinism.py: K = 16, N = 4


def test_run_records_peak_rss_next_to_the_model(tmp_path):
    res = run_case(CASE, runs=1, test_points=16, seed=3, threads=1)
    assert res["memory_bytes"] > 0
    peak, before = res["peak_rss_bytes"], res["peak_rss_before_runs_bytes"]
    assert isinstance(peak, int) and isinstance(before, int)
    assert 10 * 2**20 < before <= peak <= peak_rss_bytes()  # at least an interpreter; a high-water mark
    other = run_case(CASE, runs=1, run_start=1, test_points=16, seed=3, threads=1)
    paths = []
    for j, r in enumerate((res, other)):
        paths.append(tmp_path / f"chunk-{j}.json")
        write_json_atomic(paths[-1], r)
    assert json.loads(paths[0].read_text())["peak_rss_bytes"] == peak
    summary = aggregate(paths, expect_runs=2)
    assert summary["peak_rss_bytes"] == max(res["peak_rss_bytes"], other["peak_rss_bytes"])
