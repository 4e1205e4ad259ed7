"""The error estimate's honesty on a user's problem with a driver curved in y and z (tests/data/curved_yz.py, exact).

    nice -n 5 python bench/own_pde/own_pde_curved.py --json data/own_pde/curved_yz.json

Solves with defaults, as a user calls them (``srmdp.solve(file, d=d, seed=seed)``), at d = 2 and 4, and a
refinement to ``tol=0.02, budget_s=300`` at d = 4; per solve u0 - exact, u0_error and their ratio, the estimate's
coarse level and its rho, and (for the refinement) each level's u0 - exact against its estimate.  Wall seconds on a
shared machine: a budgeted refinement refines less where the machine is loaded.

``--decompose``: the defaults' level below and level at d = 4, (N 2, #C 1) and (N 5, #C 3), at M x1, x4, x16 (8 runs,
seed 0), with the driver's curvature correction off and on (``curvature_correction``, issue 38 item 1): how u0 moves
with M there is the noise-fed curvature term c N / M.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = str(ROOT / "tests" / "data" / "curved_yz.py")


def main(argv=None):
    import srmdp
    from srmdp.problems import load_problem

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--no-tol", dest="tol", action="store_false")
    ap.add_argument("--budget", type=float, default=300.0)
    ap.add_argument("--decompose", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if args.decompose:
        return decompose(args.json)
    mod = load_problem(PROBLEM).module
    out = []
    for d in args.dims:
        exact = mod.y_exact(0.0, np.zeros(d), d)
        for seed in args.seeds:
            c0 = time.process_time()
            s = srmdp.solve(PROBLEM, d=d, seed=seed, progress=False)
            err = s.result["u0"] - exact
            est = s.result["error_estimate"]
            rec = {
                "mode": "defaults",
                "d": d,
                "seed": seed,
                "exact": exact,
                "u0": s.result["u0"],
                "u0_se": s.result["u0_se"],
                "error": err,
                "u0_error": s.u0_error,
                "rho": est.get("rho"),
                "case": [s.case.steps, s.case.cells, s.case.paths],
                "coarse_u0": est.get("coarse_u0"),
                "coarse_case": est.get("coarse_case"),
                "cpu_s": time.process_time() - c0,
            }
            out.append(rec)
            print(json.dumps(rec), flush=True)
    if args.tol:
        d = 4
        exact = mod.y_exact(0.0, np.zeros(d), d)
        t0, c0 = time.time(), time.process_time()
        s = srmdp.solve(
            PROBLEM,
            d=d,
            tol=0.02,
            budget_s=args.budget,
            progress=False,
            report=lambda line: print(f"[{time.time() - t0:6.0f} s load {os.getloadavg()[0]:.1f}] {line}", flush=True),
        )
        levels = [
            {k: r.get(k) for k in ("level", "kind", "steps", "cells", "paths", "u0", "u0_se", "u0_error", "status")}
            | {
                "error": None if r.get("u0") is None else r["u0"] - exact,
                "richardson": (r.get("richardson") or {}).get("u0"),
            }
            for r in s.result["refinement"]
        ]
        rec = {
            "mode": "tol",
            "d": d,
            "tol": 0.02,
            "budget_s": args.budget,
            "exact": exact,
            "u0": s.result["u0"],
            "error": s.result["u0"] - exact,
            "u0_error": s.u0_error,
            "tol_met": s.tol_met,
            "wall_s": time.time() - t0,
            "cpu_s": time.process_time() - c0,
            "load_end": os.getloadavg()[0],
            "levels": levels,
        }
        out.append(rec)
        print(json.dumps({k: v for k, v in rec.items() if k != "levels"}), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


def decompose(path):
    import srmdp
    from srmdp.problems import load_problem

    d = 4
    exact = load_problem(PROBLEM).module.y_exact(0.0, np.zeros(d), d)
    out = []
    for corr in (False, True):
        for n, c, m in ((2, 1, 20), (2, 1, 80), (2, 1, 320), (5, 3, 125), (5, 3, 500), (5, 3, 2000)):
            s = srmdp.solve(
                PROBLEM,
                d=d,
                dt=1.0 / n,
                cells=c,
                paths=m,
                runs=8,
                seed=0,
                error=False,
                progress=False,
                threads=1,
                curvature_correction=corr,
            )
            rec = {
                "correction": corr,
                "steps": n,
                "cells": c,
                "paths": m,
                "error": s.result["u0"] - exact,
                "u0_se": s.result["u0_se"],
            }
            out.append(rec)
            print(json.dumps(rec), flush=True)
    if path:
        Path(path).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
