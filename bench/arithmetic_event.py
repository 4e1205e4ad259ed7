"""Which event makes one run's float32-arithmetic errors differ from float64's (CPU, same streams).

    python bench/arithmetic_event.py [--table LP0d6_0] [--dt 0.2] [--run 10] [--seed 2016] [--points 1000]

Runs one run of the paper row under the reading ``theory`` (outer cells unbounded, no truncation; the report's
``theory`` / ``theory-f32a`` pair, tables/arithmetic.tex) in both arithmetics and prints: per time step, the largest
relative difference of the coefficients and the strata above 1e-4; the test point whose squared Y error differs
most, its coordinates (drawn as the kernels draw them, in float64) and each coordinate's quotient (x + L)/h in both
arithmetics, where a point near a cell edge can land in the neighbouring cell.
"""

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="LP0d6_0")
    ap.add_argument("--dt", type=float, default=0.2)
    ap.add_argument("--run", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2016)
    ap.add_argument("--points", type=int, default=1000)
    args = ap.parse_args(argv)
    from srmdp.build import kernels
    from srmdp.paper.rows import paper_case
    from srmdp.problems import load_problem
    from srmdp.rng import DOMAIN_TEST
    from srmdp.run import make_backend, run_case

    base = paper_case(args.table, dt=args.dt, outside="unbounded", trunc_y=math.inf, trunc_z=math.inf)
    problem = load_problem(base.problem)
    coef, errors, mods = {}, {}, {}
    for ar in ("float64", "float32"):
        case = replace(base, arithmetic=ar)
        keep = []
        run_case(case, runs=1, run_start=args.run, test_points=args.points, seed=args.seed, threads=1,
                 progress=False, backend=make_backend("cpu", problem, 1),
                 on_run=lambda r, b, keep=keep: keep.append(b.coefficients().copy()))
        coef[ar] = keep[0]
        mods[ar] = kernels(problem, case.basis, case.d, "cpu", arithmetic=ar)
        ey, ez = np.zeros((case.steps, args.points)), np.zeros((case.steps, args.points))
        mods[ar].test_errors(coef[ar], case.record(args.seed, args.run, args.points), 1, ey, ez)
        errors[ar] = ey
    print(f"{args.table} dt={args.dt} #C={base.cells} M={base.paths} run {args.run} seed {args.seed}")
    rel = np.abs(coef["float64"] - coef["float32"]) / np.maximum(np.abs(coef["float64"]), 1e-300)
    for i in range(rel.shape[0]):
        big = np.unique(np.nonzero(rel[i] > 1e-4)[0]).tolist()
        print(f"  step {i}: coefficients' largest relative difference {rel[i].max():.2e}; strata above 1e-4: {big}")
    diff = np.abs(errors["float64"] - errors["float32"])
    i, p = np.unravel_index(np.argmax(diff), diff.shape)
    runner_up = np.sort(diff.ravel())[-2]
    print(f"  largest per-point |ey64 - ey32| = {diff[i, p]:.3e} at step {i}, test point {p} (next largest"
          f" {runner_up:.1e}): ey = {errors['float64'][i, p]:.4f} (float64), {errors['float32'][i, p]:.4f} (float32)")
    k = mods["float64"]  # the test point as the kernels draw it (float64; stored rounded into REAL x)
    s0, s1 = (np.uint64(v) for v in k.seed_state(args.seed, DOMAIN_TEST, args.run, i, 0, p))
    h = 2.0 * base.half_width / base.cells
    for l in range(base.d):
        v, s0, s1 = k.uniform_s(s0, s1)
        s0, s1 = np.uint64(s0), np.uint64(s1)
        x = k.logistic_in(-math.inf, math.inf, v)
        t64 = (x + base.half_width) / h
        x32, half32, h32 = np.float32(x), np.float32(base.half_width), np.float32(h)
        t32 = (x32 + half32) / h32
        flag = "  <- other cell" if math.floor(t64) != math.floor(float(t32)) else ""
        print(f"    x_{l} = {x:+.6e}: (x + L)/h = {t64:.9f} (float64), {float(t32):.9f} (float32){flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
