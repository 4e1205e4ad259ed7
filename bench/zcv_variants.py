"""Prototype (outside the package) of further control variates for SRMDP's regressions (issue 12 item 4).

The package has one: the Z response (S_{Y,i+1} - c(x_i)) dW_i/dt with c = y^M_{i+1}(x_i) (``--z-cv``).
This script builds the package's CPU kernels for a case (:func:`srmdp.build.kernel_source`), appends
variant versions of the pass-1 path (``continue_path_v``, ``path_response_v``, ``solve_stratum_v``)
and of the top-level ``backward_step``, and runs them with :func:`srmdp.solver.run_case` through a
backend that puts bit flags into the record's ``z_cv`` field:

  1  CV_C       c(x_i) = y_{i+1}(x_i) subtracted in the Z response (= the package's --z-cv)
  2  CV_ZDW     also z_{i+1}(x_i).dW_i subtracted and z_{i+1}(x_i) added back: E[dW dW^T | x_i]/dt = I
                (at i = N-1: z_N = grad g by central differences)
  4  CV_MART_Z  the martingale of the path's future, sum_{j>i} z^M_j(x_j).dW_j, subtracted in the Z response:
                E[z_j(X_j).dW_j dW_i | x_i] = 0 for j > i (dW_j is independent of F_j and of dW_i)
  8  CV_MART_Y  the same martingale, and z_{i+1}(x_i).dW_i, subtracted in the Y response (mean 0 given x_i)
 16  CV_COEF    as CV_ZDW but with h = the untruncated polynomial P_{i+1,k}(x_i) of z^M_{i+1} on the cell of x_i
                (i < N-1 only): its regression on the cell's basis is exact, so h is added back to the solved
                coefficients (coef[i, k] += coef[i+1, k]) instead of to every path's response; the Z response
                stays of the form w dW_l (no per-path vector: the form the package's kernels and the GPU need)

Each is a function of the path with conditional mean 0 given x_i (times the basis), so the regression's
limit is unchanged; only the variance changes.  All variants use the same random streams (common random
numbers): per-run differences of ln MSE are paired, their standard error is that of the differences.

    python bench/zcv_variants.py [--cases LP1d4_r2,...] [--runs 8] [--flags 0,1,3,5,7,13,15] [--threads 2]

Prints one line per (case, variant) and a JSON dump (``--out``).  Results: bench/zcv.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from srmdp import build  # noqa: E402
from srmdp.cases import paper_case  # noqa: E402
from srmdp.cpu import CpuBackend  # noqa: E402
from srmdp.problems import load_problem  # noqa: E402
from srmdp.solver import run_case  # noqa: E402

NAMES = {0: "paper", 1: "z_cv (package)", 3: "z_cv + z.dW", 5: "z_cv + mart(Z)", 7: "z_cv + z.dW + mart(Z)",
         9: "z_cv + mart(Y)", 13: "z_cv + mart(Z,Y)", 15: "all", 17: "z_cv + P.dW (coef)",
         21: "z_cv + P.dW + mart(Z)", 29: "all, P.dW (coef)"}

VARIANT_CODE = '''
# ---- bench/zcv_variants.py: variants of the Z and Y responses; c.z_cv holds bit flags
CV_C = 1
CV_ZDW = 2
CV_MART_Z = 4
CV_MART_Y = 8
CV_COEF = 16
FD_H = 1e-5


@inline
def continue_path_v(s0, s1, coef, i, x, xp, dw, inc, u, ph, z, zp, d, nb, c):
    """continue_path, also returning the future martingale sum_{j>i} z_j(x_j).dW_j."""
    n = c.steps
    dt = c.dt
    sq = c.sqdt
    forward(i * dt, x, dw, dt, d)
    if i + 1 == n:
        y1 = terminal(c.maturity, x, d)
        return y1, y1, 0.0
    y1 = estimate(coef, i + 1, x, u, ph, z, d, nb, c)
    s = 0.0
    mart = 0.0
    for j in range(i + 1, n):
        for l in range(d):
            xp[l] = x[l]
            zp[l] = z[l]
            v, s0, s1 = normal_s(s0, s1)
            inc[l] = sq * v
            mart += zp[l] * inc[l]
        forward(j * dt, x, inc, dt, d)
        if j + 1 == n:
            ynext = terminal(c.maturity, x, d)
            s += ynext
        else:
            ynext = estimate(coef, j + 1, x, u, ph, z, d, nb, c)
        s += dt * driver(j * dt, xp, ynext, zp, d)
    return s, y1, mart


@inline
def path_response_v(coef, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, zc, d, nb):
    """Returns (Y response, w) with Z response w dW_l + zc_l (zc = z_{i+1}(x_i) under CV_ZDW, else 0)."""
    s0, s1 = seed_state(c.seed, DOMAIN_PATHS, c.run, i, k, m)
    s0, s1 = first_step(s0, s1, cell, x, dw, u, phi, d, c)
    row = m * (2 * d + 1)
    for l in range(d):
        cache[row + l] = x[l]
    if NEEDS_U:
        for l in range(d):
            cache[row + d + l] = u[l]
    flags = c.z_cv
    cv = 0.0
    for l in range(d):
        zc[l] = 0.0
    if flags & (CV_C | CV_ZDW | CV_MART_Y):
        if i + 1 == c.steps:
            cv = terminal(c.maturity, x, d)
            if flags & (CV_ZDW | CV_MART_Y):  # z_N = grad g (sigma = I), central differences
                for l in range(d):
                    xp[l] = x[l]
                for l in range(d):
                    xp[l] = x[l] + FD_H
                    gp = terminal(c.maturity, xp, d)
                    xp[l] = x[l] - FD_H
                    gm = terminal(c.maturity, xp, d)
                    xp[l] = x[l]
                    zc[l] = (gp - gm) / (2.0 * FD_H)
        else:
            cv = estimate(coef, i + 1, x, u, ph, z, d, nb, c)
            for l in range(d):
                zc[l] = z[l]
    if not (flags & CV_C):
        cv = 0.0
    s, y1, mart = continue_path_v(s0, s1, coef, i, x, xp, dw, inc, u, ph, z, zp, d, nb, c)
    cache[row + 2 * d] = y1
    zdw = 0.0
    for l in range(d):
        zdw += zc[l] * dw[l]
    sz = s - cv
    if flags & CV_ZDW:
        sz -= zdw
    else:
        for l in range(d):
            zc[l] = 0.0
    if flags & CV_COEF and i + 1 < c.steps:
        zdw = 0.0
        for l in range(d):
            zdw += evaluate(coef, i + 1, k, 1 + l, phi, nb, math.inf) * dw[l]
        sz -= zdw
    if flags & CV_MART_Z:
        sz -= mart
    sy = s
    if flags & CV_MART_Y:
        sy = s - mart - zdw
    return sy, sz / c.dt


@device
def solve_stratum_v(coef, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, G, acc, cache, zc):
    c = case[0]
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    for a in range(nb * nb):
        G[a] = 0.0
    for a in range((d + 1) * nb):
        acc[a] = 0.0
    for m in range(c.paths):
        s, w = path_response_v(coef, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, zc, d, nb)
        accumulate_gram(G, phi, nb)
        accumulate(acc, 0, phi, s, nb)
        for l in range(d):
            accumulate(acc, 1 + l, phi, w * dw[l] + zc[l], nb)
    dropped = cholesky(G, nb)
    ok = True
    for l in range(d):
        ok = solve_into(G, acc, 1 + l, nb, coef, i, k, tmp) and ok
        if c.z_cv & CV_COEF and i + 1 < c.steps:
            for a in range(nb):
                coef[i, k, 1 + l, a] += coef[i + 1, k, 1 + l, a]
    for m in range(c.paths):
        f = path_driver_term(coef, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache, d, nb)
        accumulate(acc, 0, phi, f, nb)
    ok = solve_into(G, acc, 0, nb, coef, i, k, tmp) and ok
    return dropped, ok


@kernel
def backward_step(coef, i, case, nchunks, dropped, bad):
    n_strata = case[0].strata
    d = case[0].d
    nb = case[0].nb
    for q in prange(nchunks):
        lo = q * n_strata // nchunks
        hi = (q + 1) * n_strata // nchunks
        cell = np.empty(3 * d)
        x = np.empty(d + 1)
        xp = np.empty(d + 1)
        dw = np.empty(d + 1)
        inc = np.empty(d + 1)
        u = np.empty(d + 1)
        ph = np.empty(nb)
        z = np.empty(d + 1)
        zp = np.empty(d + 1)
        zc = np.empty(d + 1)
        phi = np.empty(nb)
        tmp = np.empty(nb)
        gram = np.empty(nb * nb)
        acc = np.empty((d + 1) * nb)
        cache = np.empty(case[0].paths * (2 * d + 1))
        nd = 0
        for k in range(lo, hi):
            dr, ok = solve_stratum_v(coef, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, gram, acc,
                                     cache, zc)
            nd += dr
            if not ok and bad[q] < 0:
                bad[q] = k
        dropped[q] += nd
'''


def variant_module(problem, basis, d):
    """The package's CPU kernel module for (problem, basis, d) with the variants appended (own cache folder)."""
    psrc = build.problem_source(problem, "cpu")
    body = build.kernel_source(problem, basis, d, "cpu", "PROBLEM") + VARIANT_CODE
    key = hashlib.sha256((psrc + "\0" + body + "\0" + build._versions("cpu")).encode()).hexdigest()[:16]
    folder = build.cache_root() / f"zcvproto-{problem.name}-{basis}-d{d}-{key}"
    pname, kname = f"zcvproto_k{key}_problem", f"zcvproto_k{key}"
    src = build.kernel_source(problem, basis, d, "cpu", pname) + VARIANT_CODE
    build._write_folder(folder, {"problem.py": psrc, "kernels.py": src})
    build._import(pname, folder / "problem.py")
    return build._import(kname, folder / "kernels.py")


class VariantBackend(CpuBackend):
    """The CPU backend with the variant kernels; the record's z_cv field carries the variant's flags."""

    def __init__(self, problem, flags, threads=None):
        super().__init__(problem, threads)
        self.flags = int(flags)

    def allocate(self, case):
        super().allocate(case)
        self.k = variant_module(self.problem, case.basis, case.d)

    def backward_step(self, i, rec):
        rec = rec.copy()
        rec[0].z_cv = self.flags
        return super().backward_step(i, rec)


def per_run_ln(res):
    """Per-run ln MSE_Y,av, ln MSE_Z,av (for paired differences between variants on the same streams)."""
    ey = np.asarray(res["per_run"]["ey"])
    ez = np.asarray(res["per_run"]["ez"])
    return np.log(ey.mean(axis=1)), np.log(ez.mean(axis=1)), np.log(ey.max(axis=1))


def timing(args):
    """Seconds per run (solve only, compilation excluded) of each variant, interleaved round by round so that
    a change of load on a shared machine hits every variant alike; min and median over the rounds."""
    problem = load_problem("gobet2016")
    flags = [int(f) for f in args.flags.split(",")]
    for item in args.cases.split(","):
        key = item.partition(":")[0]
        table, _, row = key.rpartition("_r")
        secs = {f: [] for f in flags}
        backends = {f: VariantBackend(problem, f, 1) for f in flags}
        for _ in range(args.timing):
            for f in flags:
                case = paper_case(table, row=int(row), z_cv=bool(f & 1))
                res = run_case(case, runs=1, test_points=10, seed=args.seed, backend=backends[f])
                secs[f].append(res["seconds_per_run"])
        ref = float(np.median(secs[flags[0]]))
        for f in flags:
            med = float(np.median(secs[f]))
            print(f"{key:<11} {NAMES.get(f, str(f)):<24} min {min(secs[f]):.4f}  median {med:.4f} s/run"
                  f"  (median / {NAMES.get(flags[0], flags[0])}: {med / ref:.3f})", flush=True)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default="LP1d4_r1:32,LP1d4_r2:8,LP1d6_1_r2:8,LP0d6_0_r2:16",
                   help="row keys, each with :RUNS optionally (default --runs)")
    p.add_argument("--flags", default="0,1,3,5,7,13,15")
    p.add_argument("--runs", type=int, default=8)
    p.add_argument("--test-points", type=int, default=1000)
    p.add_argument("--seed", type=int, default=2016)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=None, help="JSON dump of every result's indicators")
    p.add_argument("--timing", type=int, default=0,
                   help="instead: T rounds, each one run of every variant in turn (1 thread), seconds per run")
    args = p.parse_args(argv)
    if args.timing:
        return timing(args)
    problem = load_problem("gobet2016")
    flags = [int(f) for f in args.flags.split(",")]
    dump = []
    for item in args.cases.split(","):
        key, _, nruns = item.partition(":")
        runs = int(nruns) if nruns else args.runs
        table, _, row = key.rpartition("_r")
        base = None
        for f in flags:
            case = paper_case(table, row=int(row), z_cv=bool(f & 1))
            res = run_case(case, runs=runs, test_points=args.test_points, seed=args.seed,
                           backend=VariantBackend(problem, f, args.threads))
            ly, lz, lmax = per_run_ln(res)
            if base is None:
                base = (ly, lz, lmax)
            ref = next((d for d in dump if d["case"] == key and d["flags"] == 1), None)
            line = {"case": key, "flags": f, "variant": NAMES.get(f, str(f)), "runs": runs,
                    "test_points": args.test_points, "seconds_per_run": res["seconds_per_run"],
                    **{k: res[k] for k in ("mse_y_max", "mse_y_av", "mse_z_av", "mse_y_max_se", "mse_y_av_se",
                                           "mse_z_av_se")},
                    "_per_run": [ly.tolist(), lz.tolist(), lmax.tolist()]}
            if ref is not None:  # paired differences against the package's z_cv (flags 1), same streams
                rly, rlz, rlmax = (np.asarray(v) for v in ref["_per_run"])
                for name, a, b in (("d_z_av", lz, rlz), ("d_y_av", ly, rly), ("d_y_max", lmax, rlmax)):
                    diff = a - b
                    line[name] = float(diff.mean())
                    line[name + "_se"] = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else None
            dump.append(line)
            extra = ""
            if "d_z_av" in line:
                extra = (f"  vs z_cv (paired, per-run ln): dZ {line['d_z_av']:+.3f}±{line['d_z_av_se']:.3f}"
                         f"  dYav {line['d_y_av']:+.3f}±{line['d_y_av_se']:.3f}")
            print(f"{key:<11} {line['variant']:<24} Ymax {res['mse_y_max']:.3f}±{res['mse_y_max_se']:.3f}"
                  f"  Yav {res['mse_y_av']:.3f}±{res['mse_y_av_se']:.3f}  Z {res['mse_z_av']:.3f}±"
                  f"{res['mse_z_av_se']:.3f}  {res['seconds_per_run']:.2f} s/run{extra}", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps([{k: v for k, v in d.items() if k != "_per_run"} for d in dump],
                                             indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
