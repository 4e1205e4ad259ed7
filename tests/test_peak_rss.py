"""Every `srmdp run` result records the process's measured peak RSS beside the memory model, and its peak
before the first run (the baseline of tables/paper_tables_1_2.tex's measured-memory table); summaries keep
the largest of their chunks'.  One tiny case whose kernels the other fast tests compile too."""

import json
import subprocess
import sys

import pytest

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


# --- a solve's peak resident memory held by its model -------------------------------------------------------------
_CHILD = """
import re, sys
import srmdp
def peak():  # bytes: this process's high-water mark (VmHWM; ru_maxrss would carry the parent's across exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
kw = eval(sys.argv[1])
srmdp.solve(**dict(kw, cells=4))  # the same kernels, loaded from the disk cache: the interpreter's baseline
base = peak()
said = []
srmdp.solve(**kw, report=said.append)
gib = float(re.search(r"and ([0-9.e+-]+) GiB of host memory", said[0]).group(1))
print(base, peak(), int(gib * 2**30))
"""
SLACK = 16 * 2**20  # numpy temporaries and the modules a solve imports after the baseline (measured: up to 7 MiB)


@pytest.mark.slow  # two solves of a few seconds each, in their own processes
@pytest.mark.parametrize(
    "kw",
    [
        dict(problem="gobet2016", d=3, cells=60, paths=10, runs=2, error=False),  # K = 216,000: 0.39 GiB, keep all
        dict(problem="gobet2016", d=2, cells=300, paths=16, runs=2),  # K = 90,000 and its level below
    ],
    ids=["keep-all", "with-level-below"],
)
def test_a_solves_peak_memory_stays_within_its_model(kw):
    """The growth of a solve's peak RSS over the interpreter's (a tiny solve of the same kernels, same process) is
    within the memory model's prediction that the solve says before compute, plus SLACK (a copy the model does not
    count would exceed it); and the model is not loose: the growth is at least half of it."""
    # a first process compiles the kernels into the disk cache (the compiler's own peak, 2 GB on a cold cache, is
    # not the solve's); the measured one loads them
    tiny = dict(kw, threads=1, cells=4)  # its runs and level below: every kernel the solve calls
    warm = subprocess.run(
        [sys.executable, "-c", f"import srmdp; srmdp.solve(**{tiny!r})"], capture_output=True, text=True
    )
    assert warm.returncode == 0, warm.stderr[-2000:]
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, repr(dict(kw, threads=1))], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    base, peak, model = (int(x) for x in out.stdout.split()[-3:])
    assert peak - base <= model + SLACK, (peak - base, model)
    assert peak - base >= model / 2, (peak - base, model)
