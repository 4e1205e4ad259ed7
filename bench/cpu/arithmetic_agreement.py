"""float32 against float64 arithmetic on small paper rows (CPU): the indicators, their s.e., the differences.

    python bench/cpu/arithmetic_agreement.py [--rows LP0d4:0.2,LP0d6_0:0.2,LP1d4:0.2] [--runs 8] [--points 200]

Same seed, same streams in both arithmetics (the test of the same name, tests/test_float32_arithmetic.py, asserts
|difference| <= 1 s.e.); printed per row and indicator: float64 value, float32 value, difference, the float64
s.e., and the difference in s.e.; then the largest |difference| / s.e. per indicator.
"""

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
KEYS = ("mse_y_max", "mse_y_av", "mse_z_av")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="LP0d4:0.2,LP0d6_0:0.2,LP1d4:0.2")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--points", type=int, default=200)
    args = ap.parse_args(argv)
    from srmdp.paper.inputs.rows import paper_case
    from srmdp.runs.run import run_case

    worst = {k: (0.0, 0.0, "") for k in (*KEYS, "u0")}
    for spec in args.rows.split(","):
        table, dt = spec.split(":")
        res = {
            a: run_case(
                replace(paper_case(table, dt=float(dt)), arithmetic=a),
                runs=args.runs,
                test_points=args.points,
                seed=3,
                threads=1,
                progress=False,
            )
            for a in ("float64", "float32")
        }
        a, b = res["float64"], res["float32"]
        se = {k: a[f"{k}_se"] for k in KEYS}
        se["u0"] = float(np.std(a["per_run"]["u0"], ddof=1) / math.sqrt(args.runs))
        for k in (*KEYS, "u0"):
            diff = b[k] - a[k]
            print(
                f"{table} dt={dt} {k:9s} f64 {a[k]: .7f} f32 {b[k]: .7f} diff {diff: .2e} s.e. {se[k]:.2e}"
                f" ({abs(diff) / se[k]:.2e} s.e.)",
                flush=True,
            )
            if abs(diff) / se[k] >= worst[k][1]:
                worst[k] = (diff, abs(diff) / se[k], f"{table} dt={dt}")
    for k, (diff, ratio, where) in worst.items():
        print(f"largest {k}: {diff:.2e} = {ratio:.2e} s.e. ({where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
