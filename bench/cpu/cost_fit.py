"""Fit the CPU cost model (srmdp.paper.models.cost.run_seconds) to the committed one-thread runs of the paper's rows on
the development machine, and print each row's measured seconds per run beside the committed model's and the new
fit's.  Nothing is run: it reads result files (srmdp.paper.models.cost.measured_cpu_runs picks, per paper row, the
fastest
one-thread float64 run of the calibration host).  Results: bench/NOTES.md, "CPU cost model".

    python bench/cpu/cost_fit.py [EXTRA_DIR ...]

The committed files read: data/summaries/default/**, data/gpu/campaign/*cpu*.json and data/evidence/** (the CPU
evidence campaign's chunks); EXTRA_DIR adds result files below it (a campaign's chunks not yet committed).

The model of a run's solve on one thread (srmdp.paper.models.cost.solve_seconds): path_steps (a + b d) ns
+ K M N nb^2 c ns (the regression's accumulations, bases with nb > 1) + N s (per time step), fitted by non-negative
least squares of the relative error (each row weighted by 1 / its seconds).  A run's errors at the test points
(run_seconds adds them): e per point and step, the median over the chunks that record error_seconds_per_run
(summaries do not).
"""

from __future__ import annotations

import glob
import statistics
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from srmdp.case.cases import Case  # noqa: E402
from srmdp.case.results import read_json  # noqa: E402
from srmdp.numerics.bases import BASES  # noqa: E402
from srmdp.paper.models import cost  # noqa: E402

COMMITTED = ("data/summaries/default/**/*.json", "data/gpu/campaign/*cpu*.json", "data/evidence/**/*.json")


def result_paths(extra=()) -> list:
    pats = [str(ROOT / p) for p in COMMITTED] + [f"{d}/**/*.json" for d in extra]
    return sorted({p for pat in pats for p in glob.glob(pat, recursive=True)})


def case_of(c: dict) -> Case:
    return Case(**{k: c[k] for k in ("d", "dt", "basis", "cells", "paths", "precision")})


def features(case: Case) -> list:
    nb = BASES[case.basis].size(case.d)
    regr = case.strata * case.paths * case.steps * nb**2 if nb > 1 else 0
    return [case.path_steps * 1e-9, case.path_steps * case.d * 1e-9, regr * 1e-9, case.steps]


def main(argv=None) -> int:
    runs = cost.measured_cpu_runs(result_paths(argv if argv is not None else sys.argv[1:]))
    if len(runs) < 4:
        print(f"cost_fit: {len(runs)} rows measured on {cost.CALIBRATION_HOST}: too few to fit 4 constants")
        return 2
    cases = [case_of(c) for c, _, _ in runs]
    secs = np.array([s for _, s, _ in runs])
    a = np.array([features(c) for c in cases])
    coef, _ = nnls(a / secs[:, None], np.ones(len(secs)))
    errs = []
    for p in result_paths(argv if argv is not None else sys.argv[1:]):
        res = read_json(p)
        if isinstance(res, dict) and res.get("device") == "cpu" and res.get("error_seconds_per_run"):
            errs.append(res["error_seconds_per_run"] / (res["case"]["steps"] * res["test_points"]))
    e = statistics.median(errs) if errs else float("nan")
    print(
        f"fit on {len(runs)} rows ({cost.CALIBRATION_HOST}, 1 thread, float64):"
        f" NS_PER_PATH_STEP = ({coef[0]:.3g}, {coef[1]:.3g}), NS_PER_REGRESSION_TERM = {coef[2]:.3g},"
        f" STEP_SECONDS = {coef[3]:.2g}; ERROR_SECONDS_PER_POINT_STEP = {e:.2g} (median of {len(errs)} results)"
    )
    print(f"{'row':<12} {'d':>3} {'measured s':>11} {'model s':>9} {'ratio':>6} {'fit s':>9} {'ratio':>6}  source")
    worst = 0.0
    for (c, s, p), case, f in zip(runs, cases, a @ coef, strict=True):
        m = cost.solve_seconds(case)
        worst = max(worst, abs(m / s - 1))
        print(
            f"{c['table'] + '_r' + str(c['row']):<12} {c['d']:>3} {s:>11.4g} {m:>9.4g} {m / s:>6.2f} {f:>9.4g}"
            f" {f / s:>6.2f}  {Path(p).relative_to(ROOT) if p.startswith(str(ROOT)) else p}"
        )
    print(f"committed model: largest |model / measured - 1| = {worst:.0%} over {len(runs)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
