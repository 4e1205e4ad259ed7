"""The GPU's top-level kernels (kernel code, see :mod:`srmdp.jit`; numba-cuda).

Two launch shapes (chosen per case by :func:`srmdp.cuda.choose_mode`):

* :func:`step_thread` -- one thread per stratum (the paper's design), :func:`srmdp.scheme.solve_stratum`
  as the CPU calls it, with pass 2 replaying each path's first step (``REPLAY``).
* :func:`step_block` -- one block of B threads per stratum, threads over paths.  Each tile of B paths
  writes its basis values phi and responses (S_Y, w dW_1..d) into shared memory; every entry of the
  normal equations (upper triangle of G, the (d+1) x nb right-hand sides) is *owned* by one thread,
  which sums its products over the tile's paths in path order: the sums are formed in the CPU's
  order (path 0, 1, ..., M-1), whatever B or the grid.  Thread 0 runs the Cholesky, d threads solve
  the z components, pass 2 adds the driver terms in the same tiles and thread 0 solves y.

Bound by the builder: TB (threads per block of step_thread), TROW (doubles of shared memory per thread of
step_thread: its cell data, G and acc, 3d + nb^2 + (d + 1) nb; 0 above d = 8: local arrays), D1 (d + 1),
NCELL (3d), NBA (nb), NGRAM (nb^2), NACC ((d+1) nb) as array sizes;
B (threads per block), W (tile width nb + d + 1), TILE (B W) and the owned entries PA, PB, DST, NG, NE
(:func:`srmdp.cuda.entries`).
"""

import math

from numba import cuda, float64, int64

from .jit import device, kernel
from .regression import cholesky, solve_into
from .scheme import NB, D, add_back_z, estimate_at, path_driver_term, path_response, solve_stratum, test_point
from .strata import UNBOUNDED, cell_setup

# --- bound by srmdp.build (defaults only make this module importable)
TB = TROW = D1 = NCELL = NBA = NGRAM = NACC = B = W = TILE = NG = NE = 1
PA = PB = DST = None


@device
def stored_finite(coef, i, k):
    """The stored coefficients of (i, k) are finite (float32 storage can overflow)."""
    for c in range(D1):
        for a in range(NBA):
            if not math.isfinite(coef[i, k, c, a]):
                return False
    return True


@kernel
def step_thread(coef, i, case, counters):
    """Time step i, one thread per stratum; counters = (dropped directions, first bad stratum)."""
    k = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if k >= case[0].strata:
        return
    if TROW > 0:  # the stratum's cell data and normal equations in this thread's row of shared memory
        rows = cuda.shared.array((TB, TROW), float64)
        row = rows[cuda.threadIdx.x]
        cell = row[:NCELL]
        G = row[NCELL:NCELL + NGRAM]
        acc = row[NCELL + NGRAM:]
    else:
        cell = cuda.local.array(NCELL, float64)
        G = cuda.local.array(NGRAM, float64)
        acc = cuda.local.array(NACC, float64)
    x = cuda.local.array(D1, float64)
    xp = cuda.local.array(D1, float64)
    dw = cuda.local.array(D1, float64)
    inc = cuda.local.array(D1, float64)
    u = cuda.local.array(D1, float64)
    z = cuda.local.array(D1, float64)
    zp = cuda.local.array(D1, float64)
    phi = cuda.local.array(NBA, float64)
    ph = cuda.local.array(NBA, float64)
    tmp = cuda.local.array(NBA, float64)
    cache = cuda.local.array(1, float64)  # unused: pass 2 replays
    dropped, ok = solve_stratum(coef, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, G, acc, cache)
    if dropped > 0:
        cuda.atomic.add(counters, 0, dropped)
    if not (ok and stored_finite(coef, i, k)):
        cuda.atomic.min(counters, 1, k)


@kernel
def step_block(coef, i, case, counters):
    """Time step i, one block of B threads per stratum (see the module's docstring)."""
    k = int64(cuda.blockIdx.x)
    tid = cuda.threadIdx.x
    c = case[0]
    if k >= c.strata:
        return
    tile = cuda.shared.array(TILE, float64)
    G = cuda.shared.array(NGRAM, float64)
    acc = cuda.shared.array(NACC, float64)
    own = cuda.shared.array(NE, float64)  # running sums, each owned by thread e % B
    cell = cuda.shared.array(NCELL, float64)  # the stratum's sampling data, one copy per block (not in registers)
    x = cuda.local.array(D1, float64)
    xp = cuda.local.array(D1, float64)
    dw = cuda.local.array(D1, float64)
    inc = cuda.local.array(D1, float64)
    u = cuda.local.array(D1, float64)
    z = cuda.local.array(D1, float64)
    zp = cuda.local.array(D1, float64)
    phi = cuda.local.array(NBA, float64)
    ph = cuda.local.array(NBA, float64)
    tmp = cuda.local.array(NBA, float64)
    cache = cuda.local.array(1, float64)  # unused: pass 2 replays
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    for e in range(tid, NE, B):
        own[e] = 0.0
    m_paths = c.paths
    if tid == 0:
        cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    cuda.syncthreads()
    row = tid * W
    # pass 1: responses of B paths per tile, owners sum in path order
    for base in range(0, m_paths, B):
        m = base + tid
        if m < m_paths:
            s, w = path_response(coef, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
            for a in range(NBA):
                tile[row + a] = phi[a]
            tile[row + NBA] = s
            for l in range(D1 - 1):
                tile[row + NBA + 1 + l] = w * dw[l]
        cuda.syncthreads()
        rows = min(B, m_paths - base)
        for e in range(tid, NE, B):
            ca = PA[e]
            cb = PB[e]
            sacc = own[e]
            for r in range(rows):
                sacc += tile[r * W + ca] * tile[r * W + cb]
            own[e] = sacc
        cuda.syncthreads()
    for e in range(tid, NE, B):
        if e < NG:
            G[DST[e]] = own[e]
        else:
            acc[DST[e]] = own[e]
    cuda.syncthreads()
    if tid == 0:
        dropped = cholesky(G, nb)
        if dropped > 0:
            cuda.atomic.add(counters, 0, dropped)
    cuda.syncthreads()
    for l in range(tid, d, B):  # z first (one component per thread) ...
        if not solve_into(G, acc, 1 + l, nb, coef, i, k, tmp):
            cuda.atomic.min(counters, 1, k)
        add_back_z(coef, i, k, l, nb, c)
    cuda.syncthreads()
    # pass 2: driver terms with the new z_i, owners of acc row 0 continue in path order
    for base in range(0, m_paths, B):
        m = base + tid
        if m < m_paths:
            f = path_driver_term(coef, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache, d, nb)
            for a in range(NBA):
                tile[row + a] = phi[a]
            tile[row + NBA] = f
        cuda.syncthreads()
        rows = min(B, m_paths - base)
        for e in range(NG + tid, NG + NBA, B):
            ca = PA[e]
            sacc = own[e]
            for r in range(rows):
                sacc += tile[r * W + ca] * tile[r * W + NBA]
            own[e] = sacc
        cuda.syncthreads()
    for e in range(NG + tid, NG + NBA, B):
        acc[DST[e]] = own[e]
    cuda.syncthreads()
    if tid == 0:  # ... then y, which uses z_i
        ok = solve_into(G, acc, 0, nb, coef, i, k, tmp)
        if not (ok and stored_finite(coef, i, k)):
            cuda.atomic.min(counters, 1, k)


@kernel
def test_errors(coef, case, ey, ez):
    """ey[q], ez[q]: squared errors at test point q = i P + p (eq. mse)."""
    q = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    n_points = case[0].points
    if q >= case[0].steps * n_points:
        return
    x = cuda.local.array(D1, float64)
    u = cuda.local.array(D1, float64)
    ph = cuda.local.array(NBA, float64)
    z = cuda.local.array(D1, float64)
    ze = cuda.local.array(D1, float64)
    a, b = test_point(coef, q // n_points, q % n_points, case, x, u, ph, z, ze)
    ey[q] = a
    ez[q] = b


@kernel
def reduce_means(ey, ez, case, out):
    """out[i], out[N + i]: mean_p of ey[i, p], ez[i, p]; out[2N + i], out[3N + i]: of their squares (p order)."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    n = case[0].steps
    n_points = case[0].points
    if i >= n:
        return
    sy = 0.0
    sz = 0.0
    sy2 = 0.0
    sz2 = 0.0
    for p in range(n_points):
        ep = ey[i * n_points + p]
        zp = ez[i * n_points + p]
        sy += ep
        sz += zp
        sy2 += ep * ep
        sz2 += zp * zp
    out[i] = sy / n_points
    out[n + i] = sz / n_points
    out[2 * n + i] = sy2 / n_points
    out[3 * n + i] = sz2 / n_points


@kernel
def evaluate_points(coef, j, case, points, y, z):
    """y[p] = y^M_j(X_p) and z[p, :] = z^M_j(X_p) for points X of shape (n, d)."""
    p = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if p >= points.shape[0]:
        return
    x = cuda.local.array(D1, float64)
    u = cuda.local.array(D1, float64)
    ph = cuda.local.array(NBA, float64)
    zz = cuda.local.array(D1, float64)
    for l in range(D1 - 1):
        x[l] = points[p, l]
    y[p] = estimate_at(coef, j, x, u, ph, zz, case)
    for l in range(D1 - 1):
        z[p, l] = zz[l]


@kernel
def fill_zero(a):
    q = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if q < a.shape[0]:
        a[q] = 0


@kernel
def path_responses(coef, i, case, out):
    """Diagnostics: out[k M + m] = (S_{Y,i+1}, w, Delta W_i) of path m of stratum k at time i (pass 1)."""
    t = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    c = case[0]
    if t >= c.strata * c.paths:
        return
    k = t // c.paths
    m = t % c.paths
    cell = cuda.local.array(NCELL, float64)
    x = cuda.local.array(D1, float64)
    xp = cuda.local.array(D1, float64)
    dw = cuda.local.array(D1, float64)
    inc = cuda.local.array(D1, float64)
    u = cuda.local.array(D1, float64)
    z = cuda.local.array(D1, float64)
    zp = cuda.local.array(D1, float64)
    phi = cuda.local.array(NBA, float64)
    ph = cuda.local.array(NBA, float64)
    cache = cuda.local.array(1, float64)
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    s, w = path_response(coef, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
    out[t, 0] = s
    out[t, 1] = w
    for l in range(D1 - 1):
        out[t, 2 + l] = dw[l]

