"""CPU benchmark (not a test): path-steps/s per core of the SRMDP backward loop.

For each case (LP0 d=4 dt=0.1, LP1 d=6 dt=0.1, LP1 d=11 dt=0.2, with fewer strata/paths than the
paper so that a run takes about a second) and each thread count (1, 2) it prints

* ``srmdp``: path-steps per second per core of ``srmdp.run_case`` (the number in the result JSON,
  ``path_steps_per_second`` / threads: the fastest of ``--runs`` runs, JIT compilation excluded);
* ``baseline``: a minimal plain-Numba loop over the same paths (K x M paths per time step, N - i
  Brownian steps each, streams seeded by the same Philox call and drawn from the same
  xoroshiro128++/ziggurat normals, ``prange`` over strata) that only sums the path -- no sampling in
  the stratum, no estimator evaluation, no driver, no regression.  It is the floor that the RNG and
  the loop set; ``srmdp/baseline`` says how much the rest costs.

Also printed: the CPU time per path-step (process CPU time of all threads, less sensitive than wall
time to other processes on a shared machine: with perfect scaling it is the same for 1 and 2 threads)
and the compile time of the first run of each case (0 when already compiled in this process).

    python bench/cpu/cpu_bench.py                 # all cases, 1 and 2 threads
    python bench/cpu/cpu_bench.py --cases LP0d4 --threads 1 --runs 3
    python bench/cpu/cpu_bench.py --paper --cases LP0d4 --threads 1,2   # the paper's LP0 d=4 dt=0.1 row
    python bench/cpu/cpu_bench.py --cases LP0d4,LP1d4 --threads 1 --arithmetic float64,float32 --pairs 3

``--arithmetic float64,float32``: the same case in both arithmetics (``Case.arithmetic``), measured in
alternation ``--pairs`` times (a paired A/B: the other processes of a shared machine load both alike); printed
per arithmetic: path-steps per second of process CPU time (the fastest pair) and the ratio to the first one.
"""

import argparse
import math
import os
import time

import numba
import numpy as np
from numba import njit, prange

import srmdp
from srmdp.case.cases import Case
from srmdp.numerics.build import kernels
from srmdp.numerics.rng import DOMAIN_PATHS
from srmdp.problems import load_problem

CASES = {
    # paper: LP0d4 dt=0.1 #C=12 (K=20736), M=100
    "LP0d4": dict(d=4, dt=0.1, basis="LP0", cells=8, paths=100),
    # paper: LP1d4 dt=0.1 #C=5 (K=625), M=500
    "LP1d4": dict(d=4, dt=0.1, basis="LP1", cells=5, paths=200),
    # paper: LP1d6 dt=0.1 #C=3 (K=729), M=700
    "LP1d6": dict(d=6, dt=0.1, basis="LP1", cells=3, paths=300),
    # paper: LP1d11 dt=0.2 #C=2 (K=2048), M=2000
    "LP1d11": dict(d=11, dt=0.2, basis="LP1", cells=2, paths=200),
}

PAPER_SIZES = {
    "LP0d4": dict(cells=12, paths=100),
    "LP1d4": dict(cells=5, paths=500),
    "LP1d6": dict(cells=3, paths=700),
    "LP1d11": dict(cells=2, paths=2000),
}

_rng = kernels(load_problem("gobet2016"), "LP0", 0, "cpu")  # the same compiled RNG as the solver's
_seed_state = _rng.seed_state
_normal_s = _rng.normal_s


@njit(error_model="numpy", parallel=True)
def baseline_step(i, n, d, n_strata, m_paths, seed, run, sq, out):
    """Time step i of the baseline: K x M Brownian paths of N - i steps, d normals per step."""
    for k in prange(n_strata):
        total = 0.0
        for m in range(m_paths):
            s0, s1 = _seed_state(seed, DOMAIN_PATHS, run, i, k, m)
            path = 0.0
            for _ in range(i, n):
                for _l in range(d):
                    v, s0, s1 = _normal_s(s0, s1)
                    path += sq * v
            total += path
        out[k] = total


def baseline(case, threads, runs):
    numba.set_num_threads(threads)
    out = np.zeros(case.strata)
    n, sq = case.steps, math.sqrt(case.dt)
    baseline_step(n - 1, n, case.d, 1, 1, 0, 0, sq, out)  # compile
    best_wall, best_cpu = math.inf, math.inf
    for r in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        for i in range(n - 1, -1, -1):
            baseline_step(i, n, case.d, case.strata, case.paths, 1, r, sq, out)
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return case.path_steps / best_wall / threads, best_cpu / case.path_steps * 1e9


def solver(case, threads, runs):
    """(path-steps/s per core as run_case reports it, compile seconds, CPU ns per path-step)."""
    first = srmdp.run_case(case, runs=1, test_points=10, seed=1, threads=threads, progress=False)
    c0 = time.process_time()
    res = srmdp.run_case(case, runs=runs, test_points=10, seed=1, threads=threads, progress=False)
    cpu = time.process_time() - c0  # all threads; includes 10 test points per step (~ms)
    return (res["path_steps_per_second"] / threads, first["compile_seconds"], cpu / (runs * case.path_steps) * 1e9)


def paired(case, threads, arithmetics, pairs):
    """{arithmetic: CPU ns per path-step}, the fastest of ``pairs`` alternations (compiled first)."""
    from dataclasses import replace

    cases = {a: replace(case, arithmetic=a) for a in arithmetics}
    for c in cases.values():
        srmdp.run_case(c, runs=1, test_points=10, seed=1, threads=threads, progress=False)  # compile
    best = dict.fromkeys(arithmetics, math.inf)
    for _ in range(pairs):
        for a, c in cases.items():
            c0 = time.process_time()
            srmdp.run_case(c, runs=1, test_points=10, seed=1, threads=threads, progress=False)
            best[a] = min(best[a], (time.process_time() - c0) / c.path_steps * 1e9)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated among " + ", ".join(CASES))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--runs", type=int, default=2, help="runs per measurement (the fastest is kept)")
    ap.add_argument(
        "--paper",
        action="store_true",
        help="use the paper's #C and M for each case (LP0d4: 20736 strata; takes minutes)",
    )
    ap.add_argument("--arithmetic", help="comma-separated arithmetics measured as a paired A/B (float64,float32)")
    ap.add_argument("--pairs", type=int, default=3, help="with --arithmetic: alternations (the fastest is kept)")
    args = ap.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    if args.arithmetic:
        ariths = args.arithmetic.split(",")
        print(f"numba {numba.__version__}; paired A/B over {args.pairs} alternations, process CPU time")
        for name in args.cases.split(","):
            params = dict(CASES[name], **(PAPER_SIZES[name] if args.paper else {}))
            case = Case(**params)
            for t in threads:
                ns = paired(case, t, ariths, args.pairs)
                cells = "  ".join(
                    f"{a} {1e9 / ns[a]:.3e} path-steps/cpu-s (x{ns[ariths[0]] / ns[a]:.2f})" for a in ariths
                )
                print(f"{name:7s} K={case.strata} M={case.paths} N={case.steps} threads={t}  {cells}", flush=True)
        return
    print(f"numba {numba.__version__}, {os.cpu_count()} CPUs, threading layer after first run below")
    print(
        "per core = path-steps/s (wall, fastest run) / threads;  per cpu-s = path-steps per second of "
        "process CPU time (all threads)"
    )
    print(
        f"{'case':8s} {'K':>6s} {'M':>5s} {'N':>3s} {'path-steps':>10s} {'thr':>3s} "
        f"{'srmdp /s/core':>14s} {'/cpu-s':>9s} {'baseline /s/core':>16s} {'/cpu-s':>9s} "
        f"{'ratio':>6s} {'compile s':>9s}"
    )
    for name in args.cases.split(","):
        params = dict(CASES[name])
        if args.paper:
            params.update(PAPER_SIZES[name])
        case = Case(**params)
        for t in threads:
            rate, compile_s, ns_cpu = solver(case, t, args.runs)
            brate, bns_cpu = baseline(case, t, args.runs)
            print(
                f"{name:8s} {case.strata:6d} {case.paths:5d} {case.steps:3d} {case.path_steps:10.3g} {t:3d} "
                f"{rate:14.3e} {1e9 / ns_cpu:9.3e} {brate:16.3e} {1e9 / bns_cpu:9.3e} {rate / brate:6.2f} "
                f"{compile_s:9.1f}",
                flush=True,
            )
    print(f"threading layer: {numba.threading_layer()}")


if __name__ == "__main__":
    main()
