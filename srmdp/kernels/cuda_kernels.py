"""The GPU's top-level kernels (kernel code, see :mod:`srmdp.numerics.jit`; numba-cuda).

Two launch shapes (chosen per case by :func:`srmdp.kernels.cuda.choose_mode`):

* :func:`step_thread` -- one thread per stratum (the paper's design), :func:`srmdp.numerics.scheme.solve_stratum`
  as the CPU calls it, with pass 2 replaying each path's first step (``REPLAY``).
* :func:`step_block` -- one block of BLOCK_THREADS threads per stratum, threads over paths.  Each tile of B paths
  writes its basis values phi and responses (S_Y, w dW_1..d) into shared memory; every entry of the
  normal equations (upper triangle of G, the (d+1) x nb right-hand sides) is *owned* by one thread,
  which sums its products over the tile's paths in path order: the sums are formed in the CPU's
  order (path 0, 1, ..., M-1), whatever B or the grid.  Thread 0 runs the Cholesky, d threads solve
  the z components, pass 2 adds the driver terms in the same tiles and thread 0 solves y.

Bound by the builder (:func:`srmdp.kernels.cuda_launch.layout`): THREAD_MODE_BLOCK (threads per block of step_thread),
THREAD_ROW_DOUBLES (the row stride in doubles of step_thread's shared memory per thread: its cell data, G and acc,
3d + nb^2 + (d + 1) nb doubles, padded to an odd stride: no bank conflicts; 0 above d = 8: local arrays), the array
sizes DIM (d: the per-path vectors, exactly d long as the problem's functions see them), D_PLUS_1 (the responses y,
z_1..z_d), CELL_DATA_SIZE (3d), BASIS_SIZE (nb), GRAM_SIZE (nb^2), RHS_SIZE ((d+1) nb); BLOCK_THREADS (threads
per block of step_block), TILE_WIDTH (the tile's row stride: nb + d + 1 columns, padded to an odd stride), TILE_SIZE
and the owned entries ENTRY_COLUMN_A, ENTRY_COLUMN_B, ENTRY_DESTINATION, GRAM_ENTRIES (those of G come first),
ENTRIES (:func:`srmdp.kernels.cuda_launch.entries`).

Arithmetic: the per-path vectors and the tile of step_block are of the arithmetic's type REAL; the cell data,
the normal equations and the owners' running sums stay float64.
"""

import math

from numba import cuda, float64, int64

from ..numerics.jit import device, kernel
from ..numerics.regression import cholesky, residual_variances, solve_into
from ..numerics.rng import REAL
from ..numerics.scheme import (
    CURVATURE,
    NB,
    D,
    add_back_z,
    estimate_at,
    path_driver_term,
    path_response,
    solve_stratum,
    test_point,
)
from ..numerics.strata import UNBOUNDED, cell_setup

# --- bound by srmdp.numerics.build (defaults only make this module importable)
THREAD_MODE_BLOCK = THREAD_ROW_DOUBLES = DIM = D_PLUS_1 = CELL_DATA_SIZE = BASIS_SIZE = GRAM_SIZE = RHS_SIZE = 1
BLOCK_THREADS = TILE_WIDTH = TILE_SIZE = GRAM_ENTRIES = ENTRIES = 1
ENTRY_COLUMN_A = ENTRY_COLUMN_B = ENTRY_DESTINATION = None


@device
def stored_finite(coef, i, k):
    """The stored coefficients of (i, k) are finite (float32 storage can overflow)."""
    for c in range(D_PLUS_1):
        for a in range(BASIS_SIZE):
            if not math.isfinite(coef[i, k, c, a]):
                return False
    return True


@kernel
def step_thread(coef, cvar, i, case, counters):
    """Time step i, one thread per stratum; counters = (dropped directions, first bad stratum); ``cvar``: the
    regressions' variances with CURVATURE (:func:`srmdp.numerics.scheme.solve_stratum`), else unused."""
    k = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if k >= case[0].strata:
        return
    if THREAD_ROW_DOUBLES > 0:  # the stratum's cell data and normal equations in this thread's row of shared memory
        rows = cuda.shared.array((THREAD_MODE_BLOCK, THREAD_ROW_DOUBLES), float64)
        row = rows[cuda.threadIdx.x]
        cell = row[:CELL_DATA_SIZE]
        G = row[CELL_DATA_SIZE : CELL_DATA_SIZE + GRAM_SIZE]
        acc = row[CELL_DATA_SIZE + GRAM_SIZE :]
    else:
        cell = cuda.local.array(CELL_DATA_SIZE, float64)
        G = cuda.local.array(GRAM_SIZE, float64)
        acc = cuda.local.array(RHS_SIZE, float64)
    x = cuda.local.array(DIM, REAL)
    xp = cuda.local.array(DIM, REAL)
    dw = cuda.local.array(DIM, REAL)
    inc = cuda.local.array(DIM, REAL)
    u = cuda.local.array(DIM, REAL)
    z = cuda.local.array(DIM, REAL)
    zp = cuda.local.array(DIM, REAL)
    phi = cuda.local.array(BASIS_SIZE, REAL)
    ph = cuda.local.array(BASIS_SIZE, REAL)
    tmp = cuda.local.array(BASIS_SIZE, float64)
    cache = cuda.local.array(1, REAL)  # unused: pass 2 replays
    dropped, ok = solve_stratum(coef, cvar, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, G, acc, cache)
    if dropped > 0:
        cuda.atomic.add(counters, 0, dropped)
    if not (ok and stored_finite(coef, i, k)):
        cuda.atomic.min(counters, 1, k)


@kernel
def step_block(coef, cvar, i, case, counters):
    """Time step i, one block of BLOCK_THREADS threads per stratum (see the module's docstring)."""
    k = int64(cuda.blockIdx.x)
    tid = cuda.threadIdx.x
    c = case[0]
    if k >= c.strata:
        return
    tile = cuda.shared.array(TILE_SIZE, REAL)
    G = cuda.shared.array(GRAM_SIZE, float64)
    acc = cuda.shared.array(RHS_SIZE, float64)
    own = cuda.shared.array(ENTRIES, float64)  # running sums, each owned by thread e % BLOCK_THREADS
    cell = cuda.shared.array(CELL_DATA_SIZE, float64)  # the stratum's sampling data, one per block (not in registers)
    x = cuda.local.array(DIM, REAL)
    xp = cuda.local.array(DIM, REAL)
    dw = cuda.local.array(DIM, REAL)
    inc = cuda.local.array(DIM, REAL)
    u = cuda.local.array(DIM, REAL)
    z = cuda.local.array(DIM, REAL)
    zp = cuda.local.array(DIM, REAL)
    phi = cuda.local.array(BASIS_SIZE, REAL)
    ph = cuda.local.array(BASIS_SIZE, REAL)
    tmp = cuda.local.array(BASIS_SIZE, float64)
    cache = cuda.local.array(1, REAL)  # unused: pass 2 replays
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    for e in range(tid, ENTRIES, BLOCK_THREADS):
        own[e] = 0.0
    m_paths = c.paths
    if tid == 0:
        cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    cuda.syncthreads()
    row = tid * TILE_WIDTH
    # pass 1: responses of B paths per tile, owners sum in path order
    for base in range(0, m_paths, BLOCK_THREADS):
        m = base + tid
        if m < m_paths:
            s, w = path_response(coef, cvar, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
            for a in range(BASIS_SIZE):
                tile[row + a] = phi[a]
            tile[row + BASIS_SIZE] = s
            for l in range(DIM):
                tile[row + BASIS_SIZE + 1 + l] = w * dw[l]
        cuda.syncthreads()
        rows = min(BLOCK_THREADS, m_paths - base)
        for e in range(tid, ENTRIES, BLOCK_THREADS):
            ca = ENTRY_COLUMN_A[e]
            cb = ENTRY_COLUMN_B[e]
            sacc = own[e]
            for r in range(rows):
                sacc += tile[r * TILE_WIDTH + ca] * tile[r * TILE_WIDTH + cb]
            own[e] = sacc
        cuda.syncthreads()
    for e in range(tid, ENTRIES, BLOCK_THREADS):
        if e < GRAM_ENTRIES:
            G[ENTRY_DESTINATION[e]] = own[e]
        else:
            acc[ENTRY_DESTINATION[e]] = own[e]
    cuda.syncthreads()
    if tid == 0:
        dropped = cholesky(G, nb)
        if dropped > 0:
            cuda.atomic.add(counters, 0, dropped)
        if CURVATURE:  # the sums of squares are owned entries too (srmdp.kernels.cuda_launch.entries)
            residual_variances(G, acc, D_PLUS_1, nb, m_paths, cvar, i, k, tmp)
    cuda.syncthreads()
    for l in range(tid, d, BLOCK_THREADS):  # z first (one component per thread) ...
        if not solve_into(G, acc, 1 + l, nb, coef, i, k, tmp):
            cuda.atomic.min(counters, 1, k)
        add_back_z(coef, i, k, l, nb, c)
    cuda.syncthreads()
    # pass 2: driver terms with the new z_i, owners of acc row 0 continue in path order
    for base in range(0, m_paths, BLOCK_THREADS):
        m = base + tid
        if m < m_paths:
            f = path_driver_term(coef, cvar, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache, d, nb)
            for a in range(BASIS_SIZE):
                tile[row + a] = phi[a]
            tile[row + BASIS_SIZE] = f
        cuda.syncthreads()
        rows = min(BLOCK_THREADS, m_paths - base)
        for e in range(GRAM_ENTRIES + tid, GRAM_ENTRIES + BASIS_SIZE, BLOCK_THREADS):
            ca = ENTRY_COLUMN_A[e]
            sacc = own[e]
            for r in range(rows):
                sacc += tile[r * TILE_WIDTH + ca] * tile[r * TILE_WIDTH + BASIS_SIZE]
            own[e] = sacc
        cuda.syncthreads()
    for e in range(GRAM_ENTRIES + tid, GRAM_ENTRIES + BASIS_SIZE, BLOCK_THREADS):
        acc[ENTRY_DESTINATION[e]] = own[e]
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
    x = cuda.local.array(DIM, REAL)
    u = cuda.local.array(DIM, REAL)
    ph = cuda.local.array(BASIS_SIZE, REAL)
    z = cuda.local.array(DIM, REAL)
    ze = cuda.local.array(DIM, REAL)
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
    x = cuda.local.array(DIM, REAL)
    u = cuda.local.array(DIM, REAL)
    ph = cuda.local.array(BASIS_SIZE, REAL)
    zz = cuda.local.array(DIM, REAL)
    for l in range(DIM):
        x[l] = points[p, l]
    y[p] = estimate_at(coef, j, x, u, ph, zz, case)
    for l in range(DIM):
        z[p, l] = zz[l]


@kernel
def fill_zero(a):
    q = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if q < a.shape[0]:
        a[q] = 0


@kernel
def path_responses(coef, cvar, i, case, out):
    """Diagnostics: out[k M + m] = (S_{Y,i+1}, w, Delta W_i) of path m of stratum k at time i (pass 1)."""
    t = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    c = case[0]
    if t >= c.strata * c.paths:
        return
    k = t // c.paths
    m = t % c.paths
    cell = cuda.local.array(CELL_DATA_SIZE, float64)
    x = cuda.local.array(DIM, REAL)
    xp = cuda.local.array(DIM, REAL)
    dw = cuda.local.array(DIM, REAL)
    inc = cuda.local.array(DIM, REAL)
    u = cuda.local.array(DIM, REAL)
    z = cuda.local.array(DIM, REAL)
    zp = cuda.local.array(DIM, REAL)
    phi = cuda.local.array(BASIS_SIZE, REAL)
    ph = cuda.local.array(BASIS_SIZE, REAL)
    cache = cuda.local.array(1, REAL)
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    s, w = path_response(coef, cvar, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
    out[t, 0] = s
    out[t, 1] = w
    for l in range(DIM):
        out[t, 2 + l] = dw[l]
