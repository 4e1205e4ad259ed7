"""The curvature correction's effect on the c N/M term of u0's error, measured (srmdp.curvature).

    nice -n 5 python bench/own_pde/curvature.py [--runs R] [--only hjb_lq:4] [--out data/own_pde/curvature.json]

Read u0 = u* + a/N + b/#C^2 + c N/M: at a fixed N and #C, u0(4M) - u0(M) = -(3/4) c N/M, so
c = -(4/3) (u0(4M) - u0(M)) M / N.  Each row solves (srmdp.solve, defaults otherwise: adapted strata, z_cv on,
error=False, 2 threads, seed 0) at M and 4M with the correction off and on, with and without the martingale control
variate.  Run r at 4M draws its first M paths per stratum from the streams of run r at M (same seed, run, step,
stratum and path index), so the two are paired: the difference's s.e. is that of the R per-run differences.  Writes
the rows as they come (a JSON list) and prints one line each: u0 - reference at M and 4M, the difference, c, the
seconds per run (wall, without compilation; the machine may be shared: compare on and off within a row).
"""

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

import srmdp

REFERENCE = {"hjb_lq": {4: 1.1014483483, 8: 1.9018262280}, "quadratic_z": {4: 0.6435710057, 8: 0.6435710057}}
# (problem, d, N, #C, M): M and 4M solved.  d = 4: the issue's N = 10, #C 5 at two scales of M; d = 8: N = 5, #C 3
CONFIGS = [
    ("hjb_lq", 4, 10, 5, 125),
    ("hjb_lq", 4, 10, 5, 500),
    ("quadratic_z", 4, 10, 5, 125),
    ("quadratic_z", 4, 10, 5, 500),
    ("hjb_lq", 8, 5, 3, 225),
    ("quadratic_z", 8, 5, 3, 225),
]


def solve(problem, d, n, cells, paths, runs, mcv, cc):
    t = time.process_time()
    s = srmdp.solve(
        problem,
        d=d,
        dt=1.0 / n,
        cells=cells,
        paths=paths,
        runs=runs,
        seed=0,
        threads=2,
        error=False,
        progress=False,
        martingale_cv=mcv,
        curvature_correction=cc,
    )
    assert s.case.curvature_correction == cc and s.case.martingale_cv == mcv
    return np.array(s.result["per_run"]["u0"]), s.result["seconds_per_run"], time.process_time() - t


def row(problem, d, n, cells, m, runs, mcv, cc):
    ref = REFERENCE[problem][d]
    u1, s1, cpu1 = solve(problem, d, n, cells, m, runs, mcv, cc)
    u4, s4, cpu4 = solve(problem, d, n, cells, 4 * m, runs, mcv, cc)
    diff = u4 - u1
    se = lambda a: float(np.std(a, ddof=1) / math.sqrt(len(a)))  # noqa: E731
    scale = -4.0 / 3.0 * m / n
    return {
        "problem": problem,
        "d": d,
        "N": n,
        "cells": cells,
        "M": m,
        "runs": runs,
        "martingale_cv": mcv,
        "curvature_correction": cc,
        "reference": ref,
        "error_M": float(u1.mean() - ref),
        "se_M": se(u1),
        "error_4M": float(u4.mean() - ref),
        "se_4M": se(u4),
        "diff": float(diff.mean()),
        "diff_se": se(diff),
        "c": float(scale * diff.mean()),
        "c_se": abs(scale) * se(diff),
        "seconds_per_run_M": s1,
        "seconds_per_run_4M": s4,
        "cpu_seconds": cpu1 + cpu4,
        "u0_M": u1.tolist(),
        "u0_4M": u4.tolist(),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--runs-d8", type=int, default=8)
    p.add_argument("--only", help="problem:d (one of CONFIGS' pairs)")
    p.add_argument("--out", default="data/own_pde/curvature.json")
    a = p.parse_args()
    out = Path(a.out)
    rows = json.loads(out.read_text()) if out.exists() else []
    done = {(r["problem"], r["d"], r["M"], r["martingale_cv"], r["curvature_correction"]) for r in rows}
    for problem, d, n, cells, m in CONFIGS:
        if a.only and a.only != f"{problem}:{d}":
            continue
        for mcv in (False, True):
            for cc in (False, True):
                if (problem, d, m, mcv, cc) in done:
                    continue
                r = row(problem, d, n, cells, m, a.runs_d8 if d == 8 else a.runs, mcv, cc)
                rows.append(r)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(rows, indent=1) + "\n")
                print(
                    f"{problem} d={d} N={n} #C={cells} M={m}->{4 * m} mcv={mcv} cc={cc} R={r['runs']}:"
                    f" err {r['error_M']:+.4f}±{r['se_M']:.4f} -> {r['error_4M']:+.4f}±{r['se_4M']:.4f},"
                    f" diff {r['diff']:+.4f}±{r['diff_se']:.4f}, c {r['c']:+.2f}±{r['c_se']:.2f},"
                    f" s/run {r['seconds_per_run_M']:.2f}/{r['seconds_per_run_4M']:.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
