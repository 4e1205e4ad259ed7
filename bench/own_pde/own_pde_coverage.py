"""Coverage of u0_error: how often |u0 - exact| <= u0_error and <= 2 u0_error, on problems with an
exact solution, at d = 2 and 4, with the rules' #C and M and with user-given ones (coarse and fine), and how
often a tol-met refinement is within tol.

    python bench/own_pde/own_pde_coverage.py                 # the full table (20 seeds; CPU minutes, 1 thread)
    python bench/own_pde/own_pde_coverage.py --seeds 4 --dims 2 --no-tol   # a quick look

Prints one line per (problem, d, parameters): coverage at 1x and 2x, the median of u0_error / |error|, the
estimates that were None, CPU s (srmdp.paper.beyond.solve.measure_coverage, also the workflow's rule).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    from srmdp.paper.beyond.solve import COVERAGE_PROBLEMS, coverage_totals, exact_u0, measure_coverage, write_json

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--problems", nargs="+", default=list(COVERAGE_PROBLEMS))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--no-tol", dest="tol", action="store_false")
    ap.add_argument("--no-coverage", dest="coverage", action="store_false", help="only the tol part")
    ap.add_argument("--tol-value", type=float, default=0.05)
    ap.add_argument("--tol-seeds", type=int, default=10)
    ap.add_argument("--json", help="write the table and every solve's numbers (JSON) here")
    args = ap.parse_args(argv)
    import srmdp

    print(
        "| problem | d | #C, M | estimates | |err| <= u0_error | <= 2 u0_error | median u0_error/|err| | None | CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    cov = {"rows": []}
    if args.coverage:
        cov = measure_coverage(
            args.seeds, args.dims, args.problems, args.runs, root=ROOT, say=lambda line: print(line, flush=True)
        )
    for key, (n, h1, h2) in coverage_totals(cov["rows"]).items():
        print(
            f"all, {key}: {n} estimates, {100 * h1 / max(n, 1):.1f} % within 1x, {100 * h2 / max(n, 1):.1f} % within 2x"
        )
    if args.tol:
        within = met = 0
        for name in args.problems:
            spec = COVERAGE_PROBLEMS[name]
            spec = str(ROOT / spec) if spec.endswith(".py") else spec
            exact = exact_u0(spec, 2)
            for seed in range(args.tol_seeds):
                s = srmdp.solve(spec, d=2, tol=args.tol_value, budget_s=120, seed=seed, threads=1, progress=False)
                ok = abs(s.result["u0"] - exact) <= args.tol_value
                print(
                    f"  {name} seed {seed}: tol met {s.tol_met}, N {s.case.steps} #C {s.case.cells} M"
                    f" {s.case.paths}, error {abs(s.result['u0'] - exact):.3g}, u0_error {s.u0_error}",
                    flush=True,
                )
                if s.tol_met:
                    met += 1
                    within += ok
        cov["tol"] = {
            "tol": args.tol_value,
            "d": 2,
            "solves": args.tol_seeds * len(args.problems),
            "met": met,
            "within": within,
        }
        print(
            f"tol {args.tol_value:g}, d = 2: {met} of {args.tol_seeds * len(args.problems)} tol met, {within} of"
            f" them ({100 * within / max(met, 1):.0f} %) within tol"
        )
    if args.json:
        write_json(args.json, cov)
    return 0


if __name__ == "__main__":
    sys.exit(main())
