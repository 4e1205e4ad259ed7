"""LSMDP: the non-stratified least-squares MDP scheme the paper compares SRMDP with (its Tables 1-2).

A baseline in plain NumPy, for small cases only.  One run:

* draw P = K x M start points X^(m) ~ nu once (the logistic law, restricted to the box [-L, L]^d in
  the ``zero`` reading, as SRMDP's samples are), and the Brownian increments Delta W_j^(m),
  j = 0..N-1, once: all P (N + 1) d numbers are stored for the whole backward loop (what makes
  LSMDP's memory grow as K M = the total number of paths);
* for i = N-1 .. 0 the regression at time i uses the paths x_i = X^(m),
  x_{j+1} = x_j + Delta W_j^(m) (j >= i): the responses S_{Y,i+1} = g(x_N) + sum_{j>i} f_j(x_j,
  y_{j+1}(x_{j+1}), z_j(x_j)) dt, S_{Z,i} = S_{Y,i+1} Delta W_i / dt and S_{Y,i} = S_{Y,i+1}
  + f_i(x_i, y_{i+1}(x_{i+1}), z_i(x_i)) dt are regressed on the local polynomials (LP0 or LP1, the
  same cells, local coordinates and truncations as SRMDP) of the stratum that x_i falls in, all
  strata at once: a stratum gets however many of the P paths land in it (about M on average);
* the least-squares problem of each stratum is solved through its normal equations with a
  pseudo-inverse (the minimum-norm solution, so that an empty or rank-deficient stratum gives 0
  or the least-norm fit instead of failing); ``tests/test_lsmdp.py`` checks it against
  ``numpy.linalg.lstsq`` on the stratum's own design matrix.

The error indicators use P_test test points from nu per run and time step, as SRMDP's, and the
same pooled/literal formulas (:func:`srmdp.numerics.indicators.indicators`).
"""

from __future__ import annotations

import math
import sys
import time
import tracemalloc

import numpy as np

from ..case.cases import truncation_for_json
from ..case.memory import required_bytes
from ..case.results import check_writable, peak_rss_bytes, write_json_atomic
from ..cli.common import Parser, exit_status
from ..exceptions import ConfigError
from ..numerics.indicators import indicators
from ..options import add_arguments
from ..problems.gobet2016 import solution as paper_solution
from ..runs.run import run_case
from .inputs.rows import paper_case


def _sigmoid(s):
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp(-np.abs(s))
        return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def terminal(T, x):
    """g(x) of the paper's problem (§5.1) for points x of shape (P, d)."""
    return _sigmoid(T + x.sum(axis=1))


def driver(x, y, z):
    """f(t, x, y, z) = (sum_k z_k) (y - (2 + q)/(2 q)), q = d."""
    d = x.shape[1]
    return z.sum(axis=1) * (y - (2.0 + d) / (2.0 * d))


def logistic_inverse(v, lo=-math.inf, hi=math.inf):
    """Inverse CDF of the logistic law restricted to [lo, hi) at v in [0, 1)."""
    flo = 0.0 if lo == -math.inf else 1.0 / (1.0 + math.exp(-lo))
    fhi = 1.0 if hi == math.inf else 1.0 / (1.0 + math.exp(-hi))
    p = np.clip(flo + v * (fhi - flo), 1e-300, 1.0 - 1.1102230246251565e-16)
    return np.log(p) - np.log1p(-p)


class Grid:
    """#C cells per axis on [-L, L]^d; stratum of x, local coordinates u in [-1/2, 1/2) (box cells)."""

    OUTSIDE = ("unbounded", "zero")  # the readings outside the box the baseline implements

    def __init__(self, d, cells, half_width, outside):
        if outside not in self.OUTSIDE:
            raise ValueError(f"LSMDP baseline: outside={outside!r} not supported (zero or unbounded)")
        self.d, self.cells, self.half, self.outside = d, cells, half_width, outside
        self.h = 2.0 * half_width / cells
        self.strata = cells**d

    def locate(self, x):
        """(stratum index k of each point, -1 outside the box in the zero reading; local coordinates u)."""
        t = (x + self.half) / self.h
        c = np.floor(t).astype(np.int64)
        inside = np.all((c >= 0) & (c < self.cells), axis=1)
        c = np.clip(c, 0, self.cells - 1)
        u = t - c - 0.5  # outer cells of the unbounded reading extrapolate, as SRMDP's do
        k = (c * (self.cells ** np.arange(self.d, dtype=np.int64))).sum(axis=1)
        if self.outside == "zero":
            k = np.where(inside, k, -1)
        return k, u


def basis(u, nb):
    """phi = (1) for LP0, (1, u_1..u_d) for LP1; shape (P, nb)."""
    if nb == 1:
        return np.ones((u.shape[0], 1))
    return np.concatenate([np.ones((u.shape[0], 1)), u], axis=1)


def regress(k, phi, resp, strata):
    """Least-squares coefficients per stratum: (strata, n_resp, nb), minimum norm where singular.

    k: stratum of each sample (-1: not used), phi: (P, nb) basis values, resp: (P, n_resp).
    """
    use = k >= 0
    k, phi, resp = k[use], phi[use], resp[use]
    nb = phi.shape[1]
    nr = resp.shape[1]
    if nb == 1:
        counts = np.bincount(k, minlength=strata).astype(float)
        out = np.zeros((strata, nr, 1))
        for c in range(nr):
            sums = np.bincount(k, weights=resp[:, c], minlength=strata)
            out[:, c, 0] = np.divide(sums, counts, out=np.zeros(strata), where=counts > 0)
        return out
    gram = np.empty((strata, nb, nb))
    for a in range(nb):
        for b in range(a, nb):
            gram[:, a, b] = gram[:, b, a] = np.bincount(k, weights=phi[:, a] * phi[:, b], minlength=strata)
    rhs = np.empty((strata, nb, nr))
    for a in range(nb):
        for c in range(nr):
            rhs[:, a, c] = np.bincount(k, weights=phi[:, a] * resp[:, c], minlength=strata)
    sol = np.linalg.pinv(gram, hermitian=True) @ rhs  # (strata, nb, nr)
    return np.transpose(sol, (0, 2, 1))


CHUNK = 1 << 16  # points per block in evaluate(): bounds its temporaries to ~CHUNK (d+1) nb doubles


def evaluate(coef, k, u, nb, trunc_y, trunc_z):
    """(y^M(x), z^M(x)) from the coefficients of one time step, truncated; 0 where k = -1."""
    n = k.shape[0]
    v = np.empty((n, coef.shape[1]))
    for lo in range(0, n, CHUNK):
        kk = k[lo : lo + CHUNK]
        inside = kk >= 0
        c = coef[np.where(inside, kk, 0)]  # (chunk, d+1, nb)
        w = c[:, :, 0].copy()
        if nb > 1:
            w += np.einsum("pcl,pl->pc", c[:, :, 1:], u[lo : lo + CHUNK])
        w[~inside] = 0.0
        v[lo : lo + CHUNK] = w
    y = np.clip(v[:, 0], -trunc_y, trunc_y)
    z = np.clip(v[:, 1:], -trunc_z, trunc_z)
    return y, z


def draw_paths(case, seed, run):
    """(generator, start points X (P, d) ~ nu, increments Delta W (N, P, d)), P = K M, drawn once and kept."""
    rng = np.random.default_rng([seed, run, 7])
    p = case.strata * case.paths
    lo, hi = (-case.half_width, case.half_width) if case.outside == "zero" else (-math.inf, math.inf)
    x0 = logistic_inverse(rng.random((p, case.d)), lo, hi)
    dw = rng.standard_normal((case.steps, p, case.d)) * math.sqrt(case.time_step)
    return rng, x0, dw


def solve_run(case, seed, run, test_points=1000):
    """One LSMDP run of ``case`` (a :class:`srmdp.case.cases.Case`): (coefficients, e_Y[N], e_Z[N])."""
    d, n, nb = case.d, case.steps, case.n_basis
    dt = case.time_step
    grid = Grid(d, case.cells, case.half_width, case.outside)
    rng, x0, dw = draw_paths(case, seed, run)
    p = x0.shape[0]
    k0, u0 = grid.locate(x0)
    phi0 = basis(u0, nb)
    coef = np.zeros((n, case.strata, d + 1, nb))
    ly, lz = case.trunc_y, case.trunc_z
    for i in range(n - 1, -1, -1):
        x = x0 + dw[i]
        if i + 1 == n:
            y1 = terminal(case.maturity, x)
            s = y1.copy()
        else:
            k, u = grid.locate(x)
            y1, z = evaluate(coef[i + 1], k, u, nb, ly, lz)
            s = np.zeros(p)
            for j in range(i + 1, n):
                xp, zp = x, z
                x = x + dw[j]
                if j + 1 == n:
                    ynext = terminal(case.maturity, x)
                    s += ynext
                else:
                    k, u = grid.locate(x)
                    ynext, z = evaluate(coef[j + 1], k, u, nb, ly, lz)
                s += dt * driver(xp, ynext, zp)
        # Z regression: S_{Y,i+1} dW_i / dt
        zc = regress(k0, phi0, s[:, None] * dw[i] / dt, case.strata)
        coef[i, :, 1:, :] = zc
        _, zi = evaluate(coef[i], k0, u0, nb, ly, lz)
        sy = s + dt * driver(x0, y1, zi)
        coef[i, :, :1, :] = regress(k0, phi0, sy[:, None], case.strata)
    ey, ez = test_errors(case, grid, coef, rng, test_points)
    return coef, ey, ez


def test_errors(case, grid, coef, rng, test_points):
    n, nb = case.steps, case.n_basis
    ey, ez = np.empty(n), np.empty(n)
    for i in range(n):
        r = logistic_inverse(rng.random((test_points, case.d)))
        k, u = grid.locate(r)
        yh, zh = evaluate(coef[i], k, u, nb, case.trunc_y, case.trunc_z)
        y, z = paper_solution(i * case.maturity / n, r)
        ey[i] = np.mean((y - yh) ** 2)
        ez[i] = np.mean(np.sum((z - zh) ** 2, axis=1))
    return ey, ez


def model_bytes(case) -> int:
    """LSMDP's stored simulations: P = K M start points and P N increments, d float64 each, plus
    the coefficients N K (d+1) nb (the formula beside srmdp.case.memory.coefficient_bytes)."""
    p = case.strata * case.paths
    return 8 * p * case.d * (case.steps + 1) + 8 * case.steps * case.strata * (case.d + 1) * case.n_basis


def run(case, runs, seed=0, test_points=1000):
    """``runs`` LSMDP runs: indicators (srmdp.numerics.indicators) plus time per run and measured peak memory."""
    tracemalloc.start()
    t0 = time.perf_counter()
    ey, ez = [], []
    for r in range(runs):
        _, a, b = solve_run(case, seed, r, test_points)
        ey.append(a)
        ez.append(b)
    seconds = (time.perf_counter() - t0) / runs
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = indicators(np.array(ey), np.array(ez))
    out.update(
        method="LSMDP",
        case=case.as_dict(),
        runs=runs,
        test_points=test_points,
        seed=seed,
        seconds_per_run=seconds,
        peak_traced_bytes=int(peak),
        model_bytes=model_bytes(case),
        peak_rss_bytes=peak_rss_bytes(),
        paths_total=case.strata * case.paths,
    )
    return out


def srmdp_traced_peak(case, test_points=1000, seed=0) -> int:
    """Peak of the memory SRMDP's run allocates through Python/NumPy (tracemalloc), after a warm-up run
    that compiles the kernels: the like-for-like number beside LSMDP's ``peak_traced_bytes``."""

    run_case(case, runs=1, test_points=test_points, seed=seed, threads=1)
    tracemalloc.start()
    run_case(case, runs=1, run_start=1, test_points=test_points, seed=seed, threads=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return int(peak)


def build_parser():
    """srmdp lsmdp --table T --row R [reading options] --runs R --out FILE"""
    p = Parser(prog="srmdp lsmdp", description=build_parser.__doc__)
    add_arguments(p, "lsmdp")  # the options of srmdp lsmdp (srmdp.options)
    return p


def main(argv=None):
    a = build_parser().parse_args(argv)
    return exit_status(lambda: _run(a))


def _run(a) -> int:
    if a.outside not in Grid.OUTSIDE:
        raise ConfigError(f"invalid outside={a.outside!r}: the LSMDP baseline has {' and '.join(Grid.OUTSIDE)}")
    check_writable(a.out)
    case = paper_case(a.table, row=a.row, outside=a.outside, trunc_y=a.trunc_y, trunc_z=a.trunc_z)
    res = run(case, a.runs, seed=a.seed, test_points=a.test_points)
    res["reading"] = {
        "outside": a.outside,
        "trunc_y": truncation_for_json(a.trunc_y),
        "trunc_z": truncation_for_json(a.trunc_z),
    }
    res["device"] = "cpu"
    res["srmdp_peak_traced_bytes"] = srmdp_traced_peak(case, a.test_points, a.seed)
    res["srmdp_model_bytes"] = required_bytes(case, a.test_points, workers=1)
    res["threads"] = 1
    res = {k: (float(v) if isinstance(v, np.floating) else v) for k, v in res.items()}
    write_json_atomic(a.out, res)
    print(
        f"{case.label}: LSMDP {res['seconds_per_run']:.3f} s/run, peak {res['peak_traced_bytes'] / 2**20:.1f} MiB"
        f" (SRMDP {res['srmdp_peak_traced_bytes'] / 2**20:.1f} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
