"""Steps chosen by the error model against the fixed ladder, on problems with exact solutions: the answer's error
and the coverage of its u0_error when ``tol`` cannot be met within the budget (so that the model's steps are used).

    python bench/own_pde/own_pde_steps.py [--seeds 5] [--budget 30] [--tol 0.002] [--d 2]

Per (problem, seed): ``srmdp.solve(P, d, tol, budget_s, seed, threads=1)`` twice, with the model's choice
(the default) and with the fixed ladder (``srmdp.refine.refine.prefer_step`` disabled: the ladder's order, the fill
steps at its end); the refinement's clock is this process's CPU seconds (one thread), so that the machine's load
does not change which levels fit.  Prints the answer (N, #C, M, Richardson or not), |error|, u0_error, and the
totals: median |error| per mode, within 1x / 2x u0_error.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--tol", type=float, default=0.002)
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--problems", nargs="+", default=["quadratic_z", "reaction_diffusion", "running_cost"])
    args = ap.parse_args(argv)
    import srmdp
    from srmdp.paper.beyond.solve import COVERAGE_PROBLEMS, exact_u0
    from srmdp.refine import refine

    refine._clock = time.process_time
    prefer = refine.prefer_step
    out = {"model": [], "ladder": []}
    for name in args.problems:
        spec = COVERAGE_PROBLEMS[name]
        spec = str(ROOT / spec) if spec.endswith(".py") else spec
        exact = exact_u0(spec, args.d)
        for seed in range(args.seeds):
            for mode in ("model", "ladder"):
                refine.prefer_step = prefer if mode == "model" else (lambda *a, **k: None)
                s = srmdp.solve(
                    spec, d=args.d, tol=args.tol, budget_s=args.budget, seed=seed, threads=1, progress=False
                )
                err = abs(s.result["u0"] - exact)
                steps = sum(r["kind"].startswith("step-") for r in s.result["refinement"])
                out[mode].append((err, s.u0_error))
                print(
                    f"{name} d {args.d} seed {seed} {mode}: N {s.case.steps} #C {s.case.cells} M {s.case.paths}"
                    f"{' (Richardson)' if 'extrapolated' in s.result else ''} error {err:.4g} u0_error"
                    f" {s.u0_error if s.u0_error is None else f'{s.u0_error:.3g}'} steps from the answer {steps}",
                    flush=True,
                )
    for mode, rows in out.items():
        est = [(e, u) for e, u in rows if u is not None]
        print(
            f"{mode}: median |error| {statistics.median(e for e, _ in rows):.4g} over {len(rows)}; within 1x"
            f" {sum(e <= u for e, u in est)} / {len(est)}, within 2x {sum(e <= 2 * u for e, u in est)} / {len(est)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
