"""The curvature correction's effect on the c N/M term of u0's error, measured (srmdp.problems.curvature).

    nice -n 5 python bench/own_pde/curvature.py [--runs R] [--only hjb_lq:4] [--out data/own_pde/curvature.json]
    nice -n 5 python bench/own_pde/curvature.py --offdiag [--out data/own_pde/curvature_offdiag.json]

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
# (the issue's) at M = 100 (a c N/M term of ~0.4 at c = -7.5, resolved by a few runs; 225 -> 900 costs 2.3x).  With
# the martingale control variate M = 125 (d = 4) and M = 100 (d = 8) diverge: a row says so
CONFIGS = [
    ("hjb_lq", 4, 10, 5, 125),
    ("hjb_lq", 4, 10, 5, 500),
    ("quadratic_z", 4, 10, 5, 125),
    ("quadratic_z", 4, 10, 5, 500),
    ("hjb_lq", 8, 5, 3, 100),
    ("quadratic_z", 8, 5, 3, 100),
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


def offdiagonal(problem="quadratic_z", d=4, steps=(9, 5, 1)):
    """The off-diagonal covariance of z^M_l, z^M_m that the diagonal correction leaves out: per stratum, the
    correlation of the residuals of the Z responses w dW_l and w dW_m (LP0: the responses less their mean; the same
    (Phi^T Phi)^{-1} multiplies every pair, so this is the correlation of z^M_l and z^M_m) at N = 10, #C 5, M 500,
    z_cv on, after one run's backward pass.  Noise alone gives |corr| ~ M^{-1/2} = 0.045, signed mean ~ 0."""
    from srmdp.case.cases import Case
    from srmdp.kernels.cpu import CpuBackend
    from srmdp.numerics.build import kernels
    from srmdp.problems import load_problem
    from srmdp.runs.run import run_case

    case = Case(d=d, dt=0.1, basis="LP0", cells=5, paths=500, problem=problem, z_cv=True)
    b = CpuBackend(load_problem(problem), threads=2)
    run_case(case, runs=1, test_points=1, seed=0, backend=b)
    k = kernels(load_problem(problem), "LP0", d, "cpu")
    out = []
    for i in steps:
        r = np.zeros((case.strata * case.paths, 2 + d))
        k.path_responses(b.coef, np.zeros((1, 1, 1)), i, case.record(0, 0, 0), r)
        r = r.reshape(case.strata, case.paths, -1)
        zr = r[:, :, 1:2] * r[:, :, 2:]  # (K, M, d): w dW_l
        zr = zr - zr.mean(axis=1, keepdims=True)
        cov = np.einsum("kml,kmn->kln", zr, zr) / (case.paths - 1)
        sd = np.sqrt(np.einsum("kll->kl", cov))
        corr = cov / (sd[:, :, None] * sd[:, None, :])
        off = corr[:, ~np.eye(d, dtype=bool)]
        out.append(
            {
                "i": i,
                "mean_abs_corr": float(np.abs(off).mean()),
                "max_abs_corr": float(np.abs(off).max()),
                "mean_corr": float(off.mean()),
                "mean_corr_se": float(off.std(ddof=1) / math.sqrt(off.size)),
                "noise_level": 1 / math.sqrt(case.paths),
            }
        )
        print(f"{problem} d={d} i={i}: " + ", ".join(f"{k} {v:.4f}" for k, v in out[-1].items() if k != "i"))
    return {"problem": problem, "d": d, "N": case.steps, "cells": case.cells, "M": case.paths, "steps": out}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--runs-d8", type=int, default=6)
    p.add_argument("--only", nargs="+", help="problem:d ... (of CONFIGS' pairs; default all)")
    p.add_argument("--out", help="default data/own_pde/curvature.json (--offdiag: curvature_offdiag.json)")
    p.add_argument("--paths", type=int, nargs="+", help="only the CONFIGS rows of these M")
    p.add_argument("--mcv", choices=("off", "on"), help="only without / with the martingale control variate")
    p.add_argument("--offdiag", action="store_true", help="measure the off-diagonal covariance of z^M instead")
    a = p.parse_args()
    out = Path(a.out or ("data/own_pde/curvature_offdiag.json" if a.offdiag else "data/own_pde/curvature.json"))
    if a.offdiag:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(offdiagonal(), indent=1) + "\n")
        return
    rows = json.loads(out.read_text()) if out.exists() else []
    done = {(r["problem"], r["d"], r["M"], r["martingale_cv"], r["curvature_correction"]) for r in rows}
    for problem, d, n, cells, m in CONFIGS:
        if a.only and f"{problem}:{d}" not in a.only:
            continue
        if a.paths and m not in a.paths:
            continue
        for mcv in (False, True) if a.mcv is None else (a.mcv == "on",):
            for cc in (False, True):
                if (problem, d, m, mcv, cc) in done:
                    continue
                try:
                    r = row(problem, d, n, cells, m, a.runs_d8 if d == 8 else a.runs, mcv, cc)
                except srmdp.NumericalError as exc:  # the martingale control variate at a small M can diverge
                    r = {"problem": problem, "d": d, "N": n, "cells": cells, "M": m, "martingale_cv": mcv}
                    r.update(curvature_correction=cc, diverged=str(exc))
                    print(f"{problem} d={d} M={m} mcv={mcv} cc={cc}: {exc}", flush=True)
                    rows.append(r)
                    out.write_text(json.dumps(rows, indent=1) + "\n")
                    continue
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
