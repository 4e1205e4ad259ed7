"""z at a point: |z(0, x0) - z_exact| per component, d = 4, on the problems with an exact z.

    python bench/own_pde/own_pde_z0.py --seeds 8 --json z0.json        # the table of bench/own_pde/NOTES.md
    python bench/own_pde/own_pde_z0.py --seeds 2 --problems gobet2016    # a quick look

For each problem and configuration (the defaults; adapted strata; LP2d; dt halved) and seeds 0..S-1: one
solve with ``runs`` runs (keep all) and, with the same seed, the level below of the u0 error estimate
(``SolveRequest.below``: N/2, #C and M strictly coarser).  z^M_0(x0) is the mean over the runs, its s.e.
their spread / sqrt(R); both for the regression z^M_0(x0) and the first step (srmdp.solutions.first_step).  Prints
per row: the mean over seeds and components of |z - z_exact| and its maximum, the median s.e. of z, |z|
exact, and for the estimate of ``Solution.z0_error`` (srmdp.solutions.first_step.z0_error: bias
(|z_N - z_N'| + s_diff) / (rho - 1), rho with z's orders 1/2 in dt, 2 in h, 1/2 in N/M) how often it covers
the error (1x, 2x, over seeds and components) and the median estimate / error.  CPU seconds
are ``time.process_time`` of the solves (one thread).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = {
    "gobet2016": "gobet2016",
    "quadratic_z": "quadratic_z",
    "reaction_diffusion": "reaction_diffusion",
    "bs_barenblatt": "bs_barenblatt",
    "running_cost": "tests/data/running_cost.py",
}
CONFIGS = {"defaults": {}, "adapted": {"strata": "adapted"}, "LP2d": {"basis": "LP2d"}, "dt/2": {"dt_factor": 0.5}}


def z_exact(problem, d):
    x = np.full(d, problem.x0)
    out = np.zeros(d)
    problem.module.z_exact(0.0, x, out, d)
    return out


def z_runs(sol, x0):
    """Per run (R, d): the regression z^M_0(x0) and the first-step estimate (srmdp.solutions.first_step)."""
    from srmdp.solutions.first_step import first_step_z0

    reg = np.array([sol.z(0, x0, run=r)[0] for r in sol.kept_runs])
    return reg, first_step_z0(sol, x0)[2]


def one(spec, d, kw, seed, runs):
    import srmdp
    from srmdp.options import SolveOptions
    from srmdp.problems import load_problem
    from srmdp.solutions.first_step import z0_rho
    from srmdp.solutions.solve_request import SolveRequest

    kw = dict(kw)
    p = load_problem(spec)
    if "dt_factor" in kw:
        kw["dt"] = p.maturity / 5 * kw.pop("dt_factor")
    common = dict(d=d, seed=seed, runs=runs, threads=1, error=False)
    c0 = time.process_time()
    sol = srmdp.solve(spec, progress=False, **common, **kw)
    cpu = time.process_time() - c0
    x0 = sol.x0_point()
    zf, zfs = z_runs(sol, x0)
    req = SolveRequest.make(spec, SolveOptions(**common, **kw), False)
    low, _, why = req.below(sol.case)
    row = {
        "case": sol.case.label,
        "N": sol.case.steps,
        "cells": sol.case.cells,
        "paths": sol.case.paths,
        "z": zf.tolist(),
        "z_fs": zfs.tolist(),
        "cpu": cpu,
        "exact": z_exact(sol.base_problem, d).tolist(),
    }
    if low is not None:
        lkw = dict(kw, dt=low.time_step, cells=low.cells, paths=low.paths)
        cl = srmdp.solve(spec, progress=False, **common, **lkw)
        zc, zcs = z_runs(cl, x0)
        row.update(
            coarse_case=cl.case.label, z_coarse=zc.tolist(), z_fs_coarse=zcs.tolist(), rho=z0_rho(sol.case, cl.case)
        )
    else:
        row["coarse_reason"] = why
    return row


def summarise(rows, key="z"):
    from srmdp.solutions.error_estimate import RHO_MIN
    from srmdp.solutions.first_step import z0_error

    err, se, est = [], [], []
    for r in rows:
        z = np.array(r[key])
        zm, zs = z.mean(0), z.std(0, ddof=1) / math.sqrt(len(z))
        e = np.abs(zm - np.array(r["exact"]))
        err.append(e)
        se.append(zs)
        if key + "_coarse" in r:
            zc = np.array(r[key + "_coarse"])
            sc = zc.std(0, ddof=1) / math.sqrt(len(zc))
            if r["rho"] >= RHO_MIN:  # the estimate of srmdp.solve (Solution.z0_error)
                est.append((z0_error(zm, zs, zc.mean(0), sc, r["rho"]), e))
    err, se = np.array(err), np.array(se)
    out = {
        "mean_err": float(err.mean()),
        "max_err": float(err.max()),
        "median_se": float(np.median(se)),
        "cpu": float(np.mean([r["cpu"] for r in rows])),
    }
    if est:
        u = np.concatenate([a for a, _ in est])
        e = np.concatenate([b for _, b in est])
        out.update(
            cov1=float(np.mean(e <= u)),
            cov2=float(np.mean(e <= 2 * u)),
            ratio=float(np.median(u / np.maximum(e, 1e-300))),
            n_est=int(u.size),
        )
    return out


def main(argv=None):
    from srmdp.kernels.divergence import DivergenceError

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS))
    ap.add_argument("--json", help="write every solve's z values here")
    args = ap.parse_args(argv)
    raw = {}
    print(
        "| problem | configuration | case (N, #C, M) | mean |z - z_exact| | max | median s.e. | |z_l| exact |"
        " z0 estimate: ≤ 1× | ≤ 2× | median est/err | CPU s/solve |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.problems:
        spec = PROBLEMS.get(name, name)
        spec = str(ROOT / spec) if spec.endswith(".py") else spec
        for cname in args.configs:
            rows, diverged = [], 0
            for seed in range(args.seeds):
                try:
                    rows.append(one(spec, args.d, CONFIGS[cname], seed, args.runs))
                except DivergenceError as exc:  # the solve (or its level below) diverged: counted, no z
                    diverged += 1
                    raw.setdefault(f"{name} {cname} diverged", []).append(str(exc))
            raw[f"{name} {cname}"] = rows
            if not rows:
                print(f"| {name} | {cname} | — | diverged in {diverged} of {args.seeds} seeds | | | | | | | |")
                continue
            r0 = rows[0]
            ex = np.abs(np.array(r0["exact"]))
            exact = f"{ex.min():.3g}" if np.ptp(ex) < 1e-12 else f"{ex.min():.3g}–{ex.max():.3g}"
            for key, how in (("z", "regression"), ("z_fs", "first step")):
                s = summarise(rows, key)
                cov = (
                    f"{100 * s['cov1']:.0f} % | {100 * s['cov2']:.0f} % | {s['ratio']:.2g}"
                    if "cov1" in s
                    else f"— | — | ({r0.get('coarse_reason', '')})"
                )
                div = f" ({diverged} of {args.seeds} seeds diverged)" if diverged else ""
                print(
                    f"| {name} | {cname}, {how}{div} | {r0['N']}, {r0['cells']}, {r0['paths']} |"
                    f" {s['mean_err']:.4f} | {s['max_err']:.4f} | {s['median_se']:.4f} | {exact} | {cov} |"
                    f" {s['cpu']:.2g} |",
                    flush=True,
                )
    if args.json:
        Path(args.json).write_text(json.dumps(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
