"""Measure u0 against the reference on the suite problems: one line per solve.

    python bench/own_pde/own_pde.py PROBLEM D '{"dt": 0.1, "strata": "adapted"}' ['{...}' ...]

Each JSON object is a set of keyword arguments of :func:`srmdp.solve` (default runs 4, one thread); prints u0 ±
s.e., the reference (srmdp/problems/README.md), the relative error, u0_error (when estimated) and whether
|u0 - ref| <= 2 u0_error, seconds per run and wall seconds (compilation included).
"""

import json
import sys
import time

import srmdp

# u(0, x0) (srmdp/problems/README.md): exact, quadrature (hjb_lq), Monte-Carlo lower bound (bs_diff_rates)
REFERENCE = {
    "reaction_diffusion": {4: 1.6, 8: 1.6},
    "quadratic_z": {4: 0.6435710057, 8: 0.6435710057},
    "hjb_lq": {4: 1.1014483483, 8: 1.9018262280},
    "bs_barenblatt": {4: 4.934712, 8: 9.869424},
    "bs_diff_rates": {4: 3.799285, 8: 6.699108},
}


def main(argv):
    problem, d = argv[0], int(argv[1])
    ref = REFERENCE[problem][d]
    for text in argv[2:] or ["{}"]:
        kw = {"runs": 4, "threads": 1, "progress": False, **json.loads(text)}
        t = time.perf_counter()
        try:
            s = srmdp.solve(problem, d=d, **kw)
        except srmdp.NumericalError as exc:
            print(f"{problem} d={d} {text}: {type(exc).__name__}: {exc}", flush=True)
            continue
        u, se, e = s.result["u0"], s.result["u0_se"], s.u0_error
        honest = "-" if e is None else abs(u - ref) <= 2 * e
        err = "-" if e is None else f"{e:.4f}"
        print(
            f"{problem} d={d} {text} N={s.case.steps} #C={s.case.cells} M={s.case.paths}: u0={u:.5f}±{se:.5f}"
            f" ref={ref:.5f} rel={100 * (u - ref) / ref:+.2f}% u0_error={err} honest={honest}"
            f" s/run={s.result['seconds_per_run']:.2f} wall={time.perf_counter() - t:.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
