"""Cost of the control variates in the package: seconds per run (solve only, compilation excluded) of the
paper's scheme, --z-cv and --martingale-cv, one thread, interleaved round by round so that a change of load
on a shared machine hits the three alike; min and median over the rounds.  Results: bench/zcv.md.

    python bench/cpu/zcv_cost.py [--rounds 5] [--cases LP1d4_r2,problem:quadratic_z]

A case is a paper row key (LP1d4_r2) or problem:NAME (d=4, dt=0.1, LP1, #C=5, M=500, as in bench/zcv.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import numpy as np

from srmdp.case.cases import Case
from srmdp.kernels.cpu import CpuBackend
from srmdp.paper.inputs.rows import paper_case
from srmdp.problems import load_problem
from srmdp.runs.run import run_case

VARIANTS = {"paper": {}, "z_cv": {"z_cv": True}, "martingale_cv": {"z_cv": True, "martingale_cv": True}}


def base_case(spec: str) -> Case:
    if spec.startswith("problem:"):
        return Case(d=4, dt=0.1, basis="LP1", cells=5, paths=500, problem=spec.split(":", 1)[1])
    table, _, row = spec.rpartition("_r")
    return paper_case(table, row=int(row), outside="unbounded")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default="LP1d4_r2,LP1d6_1_r2,problem:quadratic_z")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=2016)
    args = p.parse_args(argv)
    for spec in args.cases.split(","):
        case = base_case(spec)
        backend = CpuBackend(load_problem(case.problem), threads=1)
        secs = {v: [] for v in VARIANTS}
        for r in range(args.rounds):
            for name, opts in VARIANTS.items():
                res = run_case(
                    dataclasses.replace(case, **opts),
                    runs=1,
                    run_start=r,
                    test_points=10,
                    seed=args.seed,
                    backend=backend,
                )
                secs[name].append(res["seconds_per_run"])
        ref = min(secs["paper"])
        for name, s in secs.items():
            print(
                f"{spec:<22} {name:<14} min {min(s):.4f}  median {float(np.median(s)):.4f} s/run"
                f"  min / paper's min: {min(s) / ref:.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
