"""CPU profile (not a test): where a path-step's time goes, by timing variants of the generated kernel.

Each variant is the case's generated CPU module (:mod:`srmdp.numerics.build`) with one phase cut out by a text
substitution
of the kernel source (asserted to apply exactly once, so that a change of the code fails here, loudly), built in a
private kernel cache (``$SRMDP_PROFILE_CACHE``, default a folder under the system's temp dir); the difference of
its time to the full kernel's is that phase's cost.  The variants compute wrong numbers: they are only timed.
Timing: ``backward_step`` of each of the N time steps of one run at 1 thread, process CPU time (the machine may be
shared), the variants interleaved per time step ``--reps`` times, the fastest of each (variant, step) kept and
summed over the steps; printed as ns per path-step (``Case.path_steps``,
pass 1's forward steps) and path-steps per CPU-second.

    python bench/cpu/cpu_profile.py --case LP0d4 --arithmetic float64 --reps 5
    python bench/cpu/cpu_profile.py --case LP1d4 --arithmetic float32 --variants full,no_estimate,locate_only

Phases (what the variant removes):

* ``first_step_log``: the d logs of x_i ~ nu_k (Algorithm 3), once per path (``log`` replaced by its argument);
* ``philox``: the Philox counter call that seeds a path's stream, once per path;
* ``ziggurat``: the normal's ziggurat (the raw uniform of the 64-bit draw is used), fast and slow branch;
* ``ziggurat_slow``: only the slow branch (wedges and tail: two exp) -- the rectangle's value is used;
* ``estimate``: y^M, z^M at x_{j+1} on the path (cell location + coefficient gather + truncation);
* ``gather``: the basis, the coefficient gather and the truncation only (the cell location kept);
* ``driver``: the problem's driver f on the path;
* ``terminal``: g(x_N) (one exp per path for gobet2016);
* ``accumulate``: the normal equations' per-path updates of pass 1 (G += phi phi^T, r_c += phi S_c);
* ``pass2``: pass 2's per-path driver term (z_i fresh, from the cache);
* ``solves``: the per-stratum Cholesky and triangular solves;
* ``continue_path``: the whole path after its first step (all of the above per step).
"""

import argparse
import math
import os
import tempfile
import time

import numba
import numpy as np

from srmdp.case.cases import Case
from srmdp.numerics import build
from srmdp.problems import load_problem

CASES = {  # as bench/cpu/cpu_bench.py
    "LP0d4": dict(d=4, dt=0.1, basis="LP0", cells=8, paths=100),
    "LP1d4": dict(d=4, dt=0.1, basis="LP1", cells=5, paths=200),
}

_CV = "    s, y1, mart, vy1 = continue_path(s0, s1, coef, cvar, i, x, xp, dw, inc, u, ph, z, zp, d, nb, c, mart_on)\n"
_SLOW64 = "    return normal_slow(u, idx, s0, s1)\n"
_SLOW32 = "        return normal_slow_rounded(n, idx, s0, s1)\n"
_DRAW = "    r, s0, s1 = next_s(s0, s1)\n    if FLOAT32_ARITHMETIC:"
# module -> [(old, new)] per variant; "full" is the unchanged kernel
VARIANTS = {
    "full": {},
    "no_first_step_log": {"strata": [("        v = math.log(p / (1.0 - p))\n", "        v = p\n")]},
    "no_philox": {
        "scheme": [
            (
                "    s0, s1 = seed_state(c.seed, DOMAIN_PATHS, c.run, i, k, m)\n    s0, s1 = first_step(",
                "    s0, s1 = np.uint64(m + 1), np.uint64(k + 7)\n    s0, s1 = first_step(",
            )
        ]
    },
    "no_ziggurat": {
        "rng": [
            (
                _DRAW,
                "    r, s0, s1 = next_s(s0, s1)\n"
                "    return REAL(float(np.int64(r >> _S11)) * _TWO_M52 - 1.0), s0, s1\n"
                "    if FLOAT32_ARITHMETIC:",
            )
        ]
    },
    "no_ziggurat_slow": {
        "rng": [
            (_SLOW64, "    return u * ZIG_X[idx], s0, s1\n"),
            (_SLOW32, "        return REAL(n) * ZIG_X_F32_SCALED[idx], s0, s1\n"),
        ]
    },
    "no_estimate": {
        "scheme": [
            (
                "            ynext = estimate(coef, j + 1, x, u, ph, z, d, nb, c)\n        f = driver(",
                "            ynext = x[0]\n        f = driver(",
            )
        ]
    },
    "no_gather": {
        "scheme": [
            (
                "    basis_phi(ph, u, d)\n    ly = c.trunc_y\n",
                "    for l in range(d):\n        z[l] = REAL(s)\n    return REAL(s)\n"
                "    basis_phi(ph, u, d)\n    ly = c.trunc_y\n",
            )
        ]
    },
    "no_driver": {"scheme": [("        f = driver(REAL(j) * dt, xp, ynext, zp, d)\n", "        f = ynext\n")]},
    "no_terminal": {
        "scheme": [
            (
                "            ynext = terminal(REAL(c.maturity), x, d)\n            s += ynext\n",
                "            ynext = x[0]\n            s += ynext\n",
            )
        ]
    },
    "no_accumulate": {
        "scheme": [
            (
                "        accumulate_gram(G, phi, nb)\n"
                "        accumulate(acc, 0, phi, s, nb)\n"
                "        for l in range(d):\n"
                "            accumulate(acc, 1 + l, phi, w * dw[l], nb)\n",
                "        acc[0] += s + w\n",
            )
        ]
    },
    "no_pass2": {
        "scheme": [
            (
                "        f = path_driver_term(coef, cvar, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache,"
                " d, nb)\n",
                "        f = REAL(0.0)\n",
            )
        ]
    },
    "no_solves": {
        "scheme": [
            ("    dropped = cholesky(G, nb)\n", "    dropped = 0\n"),
            ("        ok = solve_into(G, acc, 1 + l, nb, coef, i, k, tmp) and ok\n", ""),
            ("    ok = solve_into(G, acc, 0, nb, coef, i, k, tmp) and ok\n", ""),
        ]
    },
    "no_continue_path": {"scheme": [(_CV, "    s, y1, mart, vy1 = x[0], x[1], REAL(0.0), REAL(0.0)\n")]},
}


def patched_source(name, module, text):
    """The kernel module's text ``text`` (srmdp/<module>.py as the builder copies it) with variant ``name``'s
    substitutions; a substitution that does not apply exactly once is an error (the kernel changed).  The slow
    branch's two forms (float64, float32 arithmetic) are alternatives: one of them must apply."""
    subs = VARIANTS[name].get(module.rsplit("/", 1)[-1], [])  # module: its path in srmdp/, VARIANTS: its name
    for old, new in subs:
        if old in (_SLOW64, _SLOW32) and text.count(old) == 0:
            continue
        if text.count(old) != 1:
            raise SystemExit(
                f"variant {name}: the text to replace occurs {text.count(old)} times in "
                f"srmdp/{module}.py (the kernel changed: update bench/cpu/cpu_profile.py):\n{old}"
            )
        text = text.replace(old, new)
    slow = [old for old, _ in subs if old in (_SLOW64, _SLOW32)]
    if slow and not any(new in text for _, new in subs):
        raise SystemExit(f"variant {name}: neither form of the slow branch occurs in srmdp/{module}.py")
    return text


def build_variant(name, case, problem):
    """The generated kernel module of ``case`` with variant ``name``'s substitutions (a private cache)."""
    original = build._module_source
    build._module_source = lambda module: patched_source(name, module, original(module))
    build.kernels.cache_clear()
    try:
        return build.kernels(problem, case.basis, case.d, "cpu", arithmetic=case.arithmetic)
    finally:
        build._module_source = original
        build.kernels.cache_clear()


def step_runner(module, case, seed=1):
    """A function of i that runs ``backward_step`` for time step i and returns the process CPU seconds it took."""
    rec = case.record(seed, 0)
    dtype = np.float32 if case.precision == "float32" else np.float64
    coef = np.zeros((case.steps, case.strata, case.d + 1, case.n_basis), dtype)
    nchunks = 8
    dropped = np.zeros(nchunks, np.int64)
    bad = np.full(nchunks, -1, np.int64)

    def run(i):
        c0 = time.process_time()
        module.backward_step(coef, np.zeros((1, 1, 1)), i, rec, 0, case.strata, nchunks, dropped, bad)
        return time.process_time() - c0

    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="LP0d4", choices=sorted(CASES))
    ap.add_argument("--arithmetic", default="float64", choices=build.ARITHMETICS)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated among " + ", ".join(VARIANTS))
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions (fastest per variant and step kept)")
    args = ap.parse_args(argv)
    names = args.variants.split(",")
    if "full" not in names:
        names.insert(0, "full")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        ap.error(f"unknown variants {unknown}: allowed {', '.join(VARIANTS)}")
    os.environ.setdefault(
        "SRMDP_KERNEL_CACHE",
        os.environ.get("SRMDP_PROFILE_CACHE", os.path.join(tempfile.gettempdir(), "srmdp-cpu-profile")),
    )
    numba.set_num_threads(1)
    case = Case(**CASES[args.case], arithmetic=args.arithmetic)
    problem = load_problem(case.problem)
    runs = {}
    for name in names:
        t0 = time.perf_counter()
        runs[name] = step_runner(build_variant(name, case, problem), case)
        for i in range(case.steps):  # compile / load, touch the arrays
            runs[name](i)
        print(f"# built {name} in {time.perf_counter() - t0:.0f} s", flush=True)
    # interleaved per time step (each variant runs step i in turn), the fastest of the reps per (variant, step),
    # summed over the steps: every variant meets the same load of a shared machine
    best = {name: np.full(case.steps, math.inf) for name in names}
    for _ in range(args.reps):
        for i in range(case.steps - 1, -1, -1):
            for name in names:
                best[name][i] = min(best[name][i], runs[name](i))
    best = {name: float(t.sum()) for name, t in best.items()}
    ps = case.path_steps
    full = best["full"] / ps * 1e9
    print(
        f"{args.case} {args.arithmetic} K={case.strata} M={case.paths} N={case.steps}: 1 thread, fastest of "
        f"{args.reps} interleaved reps per step, process CPU time, numba {numba.__version__}"
    )
    print(f"{'variant':20s} {'ns/path-step':>12s} {'path-steps/cpu-s':>16s} {'phase cost ns':>13s} {'share':>6s}")
    for name in names:
        ns = best[name] / ps * 1e9
        print(f"{name:20s} {ns:12.2f} {1e9 / ns:16.3e} {full - ns:13.2f} {(full - ns) / full:6.1%}")


if __name__ == "__main__":
    main()
