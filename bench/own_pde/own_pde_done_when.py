"""A solve with defaults only, as a user calls it: ``srmdp.solve(file, d=4, tol=0.02, budget_s=900)``.

    nice -n 5 python bench/own_pde/own_pde_done_when.py srmdp/problems/quadratic_z.py > done_when.log 2>&1 &
    nice -n 5 python bench/own_pde/own_pde_done_when.py tests/data/steep_quadratic.py

Prints each level with the wall seconds and the load (the budget is wall time), then u0, its error against
the reference (the file's ``u_reference``; for ``steep_quadratic``, which has none, (1/a) ln E[v^a] by 80 x 80
Gauss-Hermite quadrature, v = 1 + kappa + (sin A + cos B)/2 with A, B ~ N(0, 1) independent: Cole-Hopf),
u0_error, tol met, the remedies and why it stopped.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np


def reference(problem):
    mod = problem.module
    if hasattr(mod, "u_reference"):
        return mod.u_reference(problem.x0, 4)[0]
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    a, b = np.meshgrid(x, x)
    v = 1.0 + mod.KAPPA + 0.5 * (np.sin(a) + np.cos(b))
    return float(np.log((np.outer(w, w) * v**mod.A).sum()) / mod.A)


def main(argv=None):
    import srmdp
    from srmdp.problems import load_problem

    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else "srmdp/problems/quadratic_z.py"
    ref = reference(load_problem(path))
    t0, c0 = time.time(), time.process_time()
    print(f"{path}: reference u(0, x0) = {ref:.7f}; load at start {os.getloadavg()}", flush=True)

    def say(line):
        print(f"[{time.time() - t0:7.1f} s, load {os.getloadavg()[0]:.1f}] {line}", flush=True)

    try:
        sol = srmdp.solve(path, d=4, tol=0.02, budget_s=900, report=say)
    except srmdp.kernels.divergence.DivergenceError as exc:
        print(f"no answer: {exc}")
        sol = None
    print(f"wall {time.time() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s, load at end {os.getloadavg()}")
    if sol is not None:
        r = sol.result
        print(
            f"u0 {r['u0']:.6f} ± {r['u0_se']:.2g}, error {r['u0'] - ref:+.5f}, u0_error {sol.u0_error}"
            f" ({sol.u0_error_reason}), tol met {sol.tol_met}, remedies {r.get('remedies')},"
            f" stop {r.get('refinement_stop')}"
        )
        print(json.dumps({k: r.get(k) for k in ("chosen_level", "budget_s", "tol")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
