"""Coverage of u0_error (issue 23): how often |u0 - exact| <= u0_error and <= 2 u0_error, on problems with an
exact solution, at d = 2 and 4, with the rules' #C and M and with user-given ones (coarse and fine), and how
often a tol-met refinement is within tol.

    python bench/own_pde_coverage.py                 # the full table (>= 20 seeds; CPU minutes, 1 thread)
    python bench/own_pde_coverage.py --seeds 4 --dims 2 --no-tol   # a quick look

Prints one line per (problem, d, parameters): coverage at 1x and 2x, the median of u0_error / |error|, CPU s.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = {"quadratic_z": "quadratic_z", "reaction_diffusion": "reaction_diffusion",
            "running_cost": str(ROOT / "tests" / "data" / "running_cost.py")}
CONFIGS = {"rules": {}, "user coarse": {"cells": 3, "paths": 100}, "user fine": {"cells": 5, "paths": 300}}


def exact_u0(spec, d):
    from srmdp.problems import load_problem

    p = load_problem(spec)
    return float(p.module.y_exact(0.0, np.full(d, p.x0), d))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--no-tol", dest="tol", action="store_false")
    ap.add_argument("--tol-value", type=float, default=0.05)
    ap.add_argument("--raw", help="write every solve's numbers (JSON) here")
    args = ap.parse_args(argv)
    import srmdp

    print("| problem | d | #C, M | solves | |err| <= u0_error | <= 2 u0_error | median u0_error/|err| |"
          " None | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = {}
    raw = []
    for name in args.problems:
        spec = PROBLEMS[name]
        for d in args.dims:
            exact = exact_u0(spec, d)
            for label, kw in CONFIGS.items():
                c0 = time.process_time()
                hit1 = hit2 = none = 0
                ratios = []
                for seed in range(args.seeds):
                    s = srmdp.solve(spec, d=d, runs=args.runs, seed=seed, threads=1, progress=False, **kw)
                    raw.append({"problem": name, "d": d, "config": label, "seed": seed, "exact": exact,
                                "u0": s.result["u0"], "u0_se": s.result["u0_se"],
                                **{k: v for k, v in s.result["error_estimate"].items() if k != "coarse_case"},
                                "coarse": [s.result["error_estimate"].get("coarse_case", {}).get(k)
                                           for k in ("steps", "cells", "paths")],
                                "fine": [s.case.steps, s.case.cells, s.case.paths]})
                    err = abs(s.result["u0"] - exact)
                    if s.u0_error is None:
                        none += 1
                        continue
                    hit1 += err <= s.u0_error
                    hit2 += err <= 2 * s.u0_error
                    ratios.append(s.u0_error / max(err, 1e-12))
                n = args.seeds - none
                cpu = time.process_time() - c0
                key = "rules" if label == "rules" else "user"
                t = totals.setdefault(key, [0, 0, 0])
                t[0] += n
                t[1] += hit1
                t[2] += hit2
                med = statistics.median(ratios) if ratios else math.nan
                cells = "rules" if not kw else f"{kw['cells']}, {kw['paths']}"
                pct1, pct2 = 100 * hit1 / max(n, 1), 100 * hit2 / max(n, 1)
                print(f"| {name} | {d} | {cells} | {n} | {pct1:.0f} % | {pct2:.0f} % | {med:.2g} | {none}"
                      f" | {cpu:.0f} |",
                      flush=True)
    for key, (n, h1, h2) in totals.items():
        print(f"all, {key}: {n} estimates, {100 * h1 / max(n, 1):.1f} % within 1x, {100 * h2 / max(n, 1):.1f} %"
              " within 2x")
    if args.raw:
        Path(args.raw).write_text(json.dumps(raw, indent=0))
    if args.tol:
        within = met = 0
        for name in args.problems:
            spec = PROBLEMS[name]
            exact = exact_u0(spec, 2)
            for seed in range(args.seeds):
                s = srmdp.solve(spec, d=2, tol=args.tol_value, budget_s=120, seed=seed, threads=1, progress=False)
                if s.tol_met:
                    met += 1
                    within += abs(s.result["u0"] - exact) <= args.tol_value
        print(f"tol {args.tol_value:g}, d = 2: {met} of {args.seeds * len(args.problems)} tol met, {within} of them"
              f" ({100 * within / max(met, 1):.0f} %) within tol")
    return 0


if __name__ == "__main__":
    sys.exit(main())
