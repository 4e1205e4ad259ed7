"""The CPU's top-level kernels (kernel code, see :mod:`srmdp.numerics.jit`): ``prange`` over chunks of strata.

Each stratum's result depends only on its own random streams, so the coefficients are bit-identical
whatever the number of threads or chunks.  Work space per chunk: the per-path vectors, the normal
equations and the pass-1 cache of M (2d+1) values (:func:`srmdp.case.memory.workspace_bytes`).  The per-path vectors
and the cache are of the arithmetic's type REAL; the cell data and the normal equations stay float64.
"""

import numpy as np
from numba import prange

from ..numerics.jit import kernel
from ..numerics.rng import REAL
from ..numerics.scheme import CURVATURE, cache_width, estimate_at, path_response, solve_stratum, test_point
from ..numerics.strata import UNBOUNDED, cell_setup


@kernel
def backward_step(coef, cvar, i, case, k0, k1, nchunks, dropped, bad):
    """Time step i for the strata k0 <= k < k1 (a slice: the caller can stop between slices); per chunk: directions
    dropped, first stratum with a bad coefficient.  ``cvar``: the regressions' variances
    (N, K, (d + 1) + nb (nb + 1) / 2) with CURVATURE, else unused.  A stratum's result depends on its own streams
    only: the same whatever the slices and chunks."""
    n_strata = k1 - k0
    d = case[0].d
    nb = case[0].nb
    for q in prange(nchunks):
        lo = k0 + q * n_strata // nchunks
        hi = k0 + (q + 1) * n_strata // nchunks
        cell = np.empty(3 * d)
        x = np.empty(d, REAL)
        xp = np.empty(d, REAL)
        dw = np.empty(d, REAL)
        inc = np.empty(d, REAL)
        u = np.empty(d, REAL)
        ph = np.empty(nb, REAL)
        z = np.empty(d, REAL)
        zp = np.empty(d, REAL)
        phi = np.empty(nb, REAL)
        tmp = np.empty(nb)
        gram = np.empty(nb * nb)
        acc = np.empty((d + 1) * (nb + 1) if CURVATURE else (d + 1) * nb)
        cache = np.empty(case[0].paths * cache_width(d), REAL)
        nd = 0
        for k in range(lo, hi):
            dr, ok = solve_stratum(
                coef, cvar, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, gram, acc, cache
            )
            nd += dr
            if not ok and bad[q] < 0:
                bad[q] = k
        dropped[q] += nd


@kernel
def test_errors(coef, case, nchunks, ey, ez):
    """ey[i, p], ez[i, p]: squared errors at the test points R_{i,p} (eq. mse)."""
    n = case[0].steps
    n_points = case[0].points
    d = case[0].d
    nb = case[0].nb
    total = n * n_points
    for q in prange(nchunks):
        lo = q * total // nchunks
        hi = (q + 1) * total // nchunks
        x = np.empty(d, REAL)
        u = np.empty(d, REAL)
        ph = np.empty(nb, REAL)
        z = np.empty(d, REAL)
        ze = np.empty(d, REAL)
        for r in range(lo, hi):
            i = r // n_points
            p = r % n_points
            ey[i, p], ez[i, p] = test_point(coef, i, p, case, x, u, ph, z, ze)


@kernel
def evaluate_points(coef, j, case, points, y, z):
    """y[p] = y^M_j(X_p) and z[p, :] = z^M_j(X_p) for points X of shape (n, d)."""
    d = case[0].d
    nb = case[0].nb
    for p in prange(points.shape[0]):
        x = np.empty(d, REAL)
        u = np.empty(d, REAL)
        ph = np.empty(nb, REAL)
        zz = np.empty(d, REAL)
        for l in range(d):
            x[l] = points[p, l]
        y[p] = estimate_at(coef, j, x, u, ph, zz, case)
        for l in range(d):
            z[p, l] = zz[l]


@kernel
def path_responses(coef, cvar, i, case, out):
    """Diagnostics: out[k M + m] = (S_{Y,i+1}, w, Delta W_i) of path m of stratum k at time i (pass 1)."""
    d = case[0].d
    nb = case[0].nb
    m_paths = case[0].paths
    for k in prange(case[0].strata):
        c = case[0]
        cell = np.empty(3 * d)
        x = np.empty(d, REAL)
        xp = np.empty(d, REAL)
        dw = np.empty(d, REAL)
        inc = np.empty(d, REAL)
        u = np.empty(d, REAL)
        ph = np.empty(nb, REAL)
        z = np.empty(d, REAL)
        zp = np.empty(d, REAL)
        phi = np.empty(nb, REAL)
        cache = np.empty(m_paths * cache_width(d), REAL)
        cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
        for m in range(m_paths):
            s, w = path_response(coef, cvar, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
            out[k * m_paths + m, 0] = s
            out[k * m_paths + m, 1] = w
            for l in range(d):
                out[k * m_paths + m, 2 + l] = dw[l]
