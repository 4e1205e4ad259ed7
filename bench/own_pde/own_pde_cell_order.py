"""The cells' term and its order with each basis (LP1, LP2d) on the suite's problems with exact solutions.

    nice -n 5 python bench/own_pde/own_pde_cell_order.py --json data/own_pde/cell_order.json

Per problem and basis, ``srmdp.solve(P, d, basis, dt=T/N, cells=#C, paths=M, runs, seed=0, error=False)`` at a
fixed N and M per cell over odd #C (x0 at a cell's centre): u0(#C) = u_N,M + b #C^-p, the dt and M terms
constant in #C.  p and b are fitted by least squares weighted by the s.e. (p on a grid, u_N,M and b linear);
also printed: u0 - exact per #C and the cells' share, b 3^-p, at the coarsest #C.  Defaults otherwise (adapted
strata for a user's problem, box for gobet2016).  CPU seconds on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from own_pde_calibrate import exact as reference  # noqa: E402

PROBLEMS = {
    "hjb_lq": "hjb_lq",
    "quadratic_z": "quadratic_z",
    "reaction_diffusion": "reaction_diffusion",
    "running_cost": str(ROOT / "tests" / "data" / "running_cost.py"),
    "curved_yz": str(ROOT / "tests" / "data" / "curved_yz.py"),
    "gobet2016": "gobet2016",
}
P_GRID = np.linspace(0.5, 5.0, 91)


def fit_order(cells, u, se):
    """(p, b, u_inf, chi2 per dof) of u = u_inf + b #C^-p, weighted by 1/se."""
    cells, u, w = np.asarray(cells, float), np.asarray(u), 1.0 / np.asarray(se)
    best = None
    for p in P_GRID:
        a = np.column_stack([np.ones_like(cells), cells**-p]) * w[:, None]
        sol, *_ = np.linalg.lstsq(a, u * w, rcond=None)
        r = a @ sol - u * w
        chi2 = float(r @ r)
        if best is None or chi2 < best[3]:
            best = (float(p), float(sol[1]), float(sol[0]), chi2)
    p, b, u_inf, chi2 = best
    return p, b, u_inf, chi2 / max(len(u) - 3, 1)


def main(argv=None):
    import srmdp
    from srmdp.kernels.divergence import DivergenceError
    from srmdp.problems import load_problem

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--paths", type=int, default=2000)
    ap.add_argument("--cells", type=int, nargs="+", default=[3, 5, 7, 9])
    ap.add_argument("--bases", nargs="+", default=["LP1", "LP2d"])
    ap.add_argument("--problems", nargs="+", default=list(PROBLEMS))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    out = []
    print(
        "| problem | d | basis | u0 - exact at #C " + ", ".join(map(str, args.cells)) + " | p | b | cells' share"
        " at #C 3 | chi2/dof | CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.problems:
        spec = PROBLEMS[name]
        p = load_problem(spec)
        exact = reference(spec, args.d)
        for basis in args.bases:
            c0 = time.process_time()
            u, se = [], []
            for c in args.cells:
                try:
                    s = srmdp.solve(
                        spec,
                        d=args.d,
                        basis=basis,
                        dt=p.maturity / args.steps,
                        cells=c,
                        paths=args.paths,
                        runs=args.runs,
                        seed=0,
                        threads=1,
                        progress=False,
                        error=False,
                    )
                except DivergenceError as exc:  # recorded, not fitted: the basis diverged at this #C and M
                    print(f"| {name} | {args.d} | {basis} | #C {c}: diverged ({str(exc)[:80]}) |", flush=True)
                    u.append(None)
                    se.append(None)
                    continue
                u.append(s.result["u0"])
                se.append(s.result["u0_se"])
            ok = [k for k, x in enumerate(u) if x is not None]
            if len(ok) < 3:
                out.append({"problem": name, "d": args.d, "basis": basis, "cells": args.cells, "u0": u, "u0_se": se})
                continue
            order, b, u_inf, chi2 = fit_order([args.cells[k] for k in ok], [u[k] for k in ok], [se[k] for k in ok])
            rec = {
                "problem": name,
                "d": args.d,
                "basis": basis,
                "steps": args.steps,
                "paths": args.paths,
                "cells": args.cells,
                "u0": u,
                "u0_se": se,
                "exact": exact,
                "p": order,
                "b": b,
                "u_inf": u_inf,
                "chi2": chi2,
                "cpu_s": time.process_time() - c0,
            }
            out.append(rec)
            errs = ", ".join(
                "diverged" if x is None else f"{x - exact:+.4f}±{e:.1g}" for x, e in zip(u, se, strict=True)
            )
            share = abs(b) * 3.0**-order
            print(
                f"| {name} | {args.d} | {basis} | {errs} | {order:.2f} | {b:+.3g} | {share:.3g} | {chi2:.2g} |"
                f" {rec['cpu_s']:.0f} |",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
