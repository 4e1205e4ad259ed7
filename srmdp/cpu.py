"""The CPU path: backward step with ``prange`` over chunks of strata (OpenMP-style), Numba.

Each stratum's result depends only on its own random streams, so the coefficients are
bit-identical whatever the number of threads or chunks.
"""

import os
from functools import cache

import numba
import numpy as np
from numba import njit, prange

from .kernels import I_D, I_K, I_M, I_N, I_NB, I_P, make_kernels

SPECIALISE_MAX_D = int(os.environ.get("SRMDP_CPU_SPECIALISE_MAX_D", "12"))


def _kernels(problem, dims=None):
    # No NRT: the shared code never allocates, and without it no reference-count operations are
    # emitted around the arrays of the inlined functions in the hot loop.
    return make_kernels(njit(error_model="numpy", _nrt=False), problem,
                        inline_jit=njit(error_model="numpy", inline="always", _nrt=False), dims=dims)


def specialised_dims(d, nb):
    """(d, nb) when the CPU kernels are compiled for this size only, else None (generic)."""
    return (int(d), int(nb)) if 0 < d <= SPECIALISE_MAX_D else None


@cache
def compile_cpu(problem, dims=None):
    """(backward_step, test_errors) compiled for ``problem`` (backward_step for ``dims`` = (d, nb))."""
    solve_stratum = _kernels(problem, dims).solve_stratum_cached

    @njit(parallel=True)
    def backward_step(coef, i, fp, ip, nchunks, dropped, bad):
        n_strata = ip[I_K]
        d = ip[I_D]
        nb = ip[I_NB]
        for c in prange(nchunks):
            lo = c * n_strata // nchunks
            hi = (c + 1) * n_strata // nchunks
            cell = np.empty(3 * d)
            x = np.empty(d + 1)
            xp = np.empty(d + 1)
            dw = np.empty(d + 1)
            inc = np.empty(d + 1)
            u = np.empty(d + 1)
            z = np.empty(d + 1)
            zp = np.empty(d + 1)
            phi = np.empty(nb)
            tmp = np.empty(nb)
            gram = np.empty(nb * nb)
            acc = np.empty((d + 1) * nb)
            cache = np.empty(ip[I_M] * (2 * d + 1))
            nd = 0
            for k in range(lo, hi):
                dr, ok = solve_stratum(coef, i, k, fp, ip, cell, x, xp, dw, inc, u, z, zp, phi, tmp, gram, acc,
                                       cache)
                nd += dr
                if not ok and bad[c] < 0:
                    bad[c] = k
            dropped[c] += nd

    return backward_step, _compile_errors(problem)


@cache
def _compile_errors(problem):
    """test_errors for ``problem`` (generic in d: not hot)."""
    test_point = _kernels(problem).test_point

    @njit(parallel=True)
    def test_errors(coef, fp, ip, nchunks, ey, ez):
        n = ip[I_N]
        n_points = ip[I_P]
        d = ip[I_D]
        total = n * n_points
        for c in prange(nchunks):
            lo = c * total // nchunks
            hi = (c + 1) * total // nchunks
            st = np.empty(2, np.uint64)
            x = np.empty(d + 1)
            u = np.empty(d + 1)
            z = np.empty(d + 1)
            ze = np.empty(d + 1)
            for q in range(lo, hi):
                i = q // n_points
                p = q % n_points
                ey[i, p], ez[i, p] = test_point(st, coef, i, p, fp, ip, x, u, z, ze)

    return test_errors


class CpuBackend:
    """Coefficients in host memory; one call per time step."""

    device = "cpu"

    def __init__(self, problem, threads=None):
        if threads:
            numba.set_num_threads(int(threads))
        self.threads = numba.get_num_threads()
        self.problem = problem

    def _compile(self, case):
        self._step, self._errors = compile_cpu(self.problem, specialised_dims(case.d, case.n_basis))

    def allocate(self, case):
        self._compile(case)
        dtype = np.float32 if case.precision == "float32" else np.float64
        self.coef = np.zeros((case.steps, case.strata, case.d + 1, case.n_basis), dtype=dtype)
        self.nchunks = int(min(case.strata, 8 * self.threads))
        self.dropped = np.zeros(self.nchunks, np.int64)
        self.bad = np.full(self.nchunks, -1, np.int64)

    def warm_up(self, fp, ip):
        """Compile outside the timed region (no stratum is touched: K is set to 0)."""
        ip0 = ip.copy()
        ip0[I_K] = 0
        ip0[I_P] = 0
        self._step(self.coef, 0, fp, ip0, 1, np.zeros(1, np.int64), np.full(1, -1, np.int64))
        e = np.zeros((self.coef.shape[0], 0))
        self._errors(self.coef, fp, ip0, 1, e, e.copy())

    def backward_step(self, i, fp, ip):
        self.bad[:] = -1
        self._step(self.coef, i, fp, ip, self.nchunks, self.dropped, self.bad)
        bad = self.bad[self.bad >= 0]
        return int(bad.min()) if bad.size else -1

    def errors(self, fp, ip):
        n, n_points = int(ip[I_N]), int(ip[I_P])
        ey = np.empty((n, n_points))
        ez = np.empty((n, n_points))
        chunks = int(max(1, min(n * n_points, 8 * self.threads)))
        self._errors(self.coef, fp, ip, chunks, ey, ez)
        return ey.mean(axis=1), ez.mean(axis=1)

    def fallbacks(self):
        return int(self.dropped.sum())

    def hardware(self):
        from .results import cpu_model

        return {"device": "cpu", "model": cpu_model(), "threads": self.threads}
