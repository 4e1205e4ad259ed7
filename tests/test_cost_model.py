"""The CPU cost model (srmdp.paper.models.cost.solve_seconds) against the committed measurements it was fitted to
(bench/cpu/cost_fit.py): a test on data, not on timing (nothing is run).

Per paper row, the fastest one-thread float64 solve recorded on the calibration host (a shared 2-core machine: a
slower run of the same row measured the load beside it, so the fastest is the machine's own speed).  The model must
predict each within 30 %, the bound the evidence campaign's plan (``srmdp plan``) is read with; and the rows must
span what the plan prices: both bases, d from 4 to 14, runs from a millisecond to minutes.
"""

from conftest import ROOT

from bench.cpu.cost_fit import case_of, result_paths
from srmdp.paper.models import cost

TOLERANCE = 0.30


def test_cost_model_predicts_the_committed_runs_within_30_percent():
    runs = cost.measured_cpu_runs(result_paths())
    assert len(runs) >= 15, f"only {len(runs)} rows measured on {cost.CALIBRATION_HOST}"
    assert {c["basis"] for c, _, _ in runs} == {"LP0", "LP1"}
    assert min(c["d"] for c, _, _ in runs) <= 4 and max(c["d"] for c, _, _ in runs) >= 13
    assert min(s for _, s, _ in runs) < 0.01 and max(s for _, s, _ in runs) > 100
    off = []
    for c, secs, path in runs:
        ratio = cost.solve_seconds(case_of(c)) / secs
        if abs(ratio - 1) > TOLERANCE:
            off.append(f"{c['table']}_r{c['row']}: model/measured {ratio:.2f} ({path})")
    assert not off, "; ".join(off)


def test_measured_cpu_runs_keeps_the_fastest_one_thread_float64_run_of_the_host(tmp_path):
    """Per row the fastest of the matching files; another host, two threads, float32 storage or the Z control
    variate are not the model's measure and are left out."""
    import json

    base = json.loads((ROOT / "data/summaries/default/theory/LP1d4_r2/cpu.json").read_text())
    variants = {
        "slow": {"seconds_per_run_min": 9.0},
        "fast": {"seconds_per_run_min": 0.5},
        "other-host": {"seconds_per_run_min": 0.1, "provenance": {"hardware": {"model": "Intel", "threads": 1}}},
        "two-threads": {"seconds_per_run_min": 0.1, "provenance": {"hardware": {"model": "AMD EPYC", "threads": 2}}},
        "float32": {"seconds_per_run_min": 0.1, "case": dict(base["case"], precision="float32")},
        "zcv": {"seconds_per_run_min": 0.1, "case": dict(base["case"], z_cv=True)},
    }
    paths = []
    for name, change in variants.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({**base, **change}))
        paths.append(p)
    (got,) = cost.measured_cpu_runs(paths)
    assert got[1] == 0.5 and got[2].endswith("fast.json")
