"""How often a float32 ziggurat wedge test could not decide as the float64 one does (issue 24's option of a float32
test with an exact fallback): the fraction of draws whose float64 margin |f1 + v (f0 - f1) - 1| is below a bound.

    python bench/gpu/ziggurat_ambiguity.py [--draws 4000000] [--bounds 1e-6,4e-6,1e-5,1e-12]

A draw (layer idx uniform over 128, u uniform on (-1, 1), as srmdp.rng.normal_s reads one 64-bit draw) goes to the
slow path when |u| >= ZIG_RATIO[idx]: the tail (idx = 0) or a wedge, where srmdp.rng.normal_slow accepts
x = u ZIG_X[idx] iff f1 + v (f0 - f1) < 1 with f0, f1 float64 exps and v a fresh uniform.  A test computed with an
absolute error below ``bound`` decides as float64 wherever the margin exceeds it; the rest would need the exact
(float64) path.  NumPy's float64 exp stands in for libdevice's (both within an ulp: the margin's scale is unchanged).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=4_000_000)
    ap.add_argument("--bounds", default="1e-6,4e-6,1e-5,1e-12")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from srmdp.rng import ZIG_RATIO, ZIG_X

    rng = np.random.default_rng(args.seed)
    idx = rng.integers(0, 128, args.draws)
    u = rng.uniform(-1.0, 1.0, args.draws)
    slow = np.abs(u) >= ZIG_RATIO[idx]
    wedge = slow & (idx > 0)
    print(f"{args.draws} draws: slow path {slow.mean():.4f} per draw (wedge {wedge.mean():.4f},"
          f" tail {(slow & (idx == 0)).mean():.2e})")
    i, x = idx[wedge], u[wedge] * ZIG_X[idx[wedge]]
    v = rng.uniform(0.0, 1.0, i.size)
    f0 = np.exp(-0.5 * (ZIG_X[i] ** 2 - x * x))
    f1 = np.exp(-0.5 * (ZIG_X[i + 1] ** 2 - x * x))
    margin = np.abs(f1 + v * (f0 - f1) - 1.0)
    for bound in (float(b) for b in args.bounds.split(",")):
        amb = (margin < bound).mean()
        print(f"  bound {bound:.0e}: undecided {amb:.2e} per wedge draw, {amb * wedge.mean():.2e} per draw")
    return 0


if __name__ == "__main__":
    sys.exit(main())
