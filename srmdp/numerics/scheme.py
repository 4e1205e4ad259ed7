"""Algorithm SRMDP for one path and one stratum, written once for the CPU and the GPU.

Kernel code (see :mod:`srmdp.numerics.jit`).  ``c`` is the case record (:data:`srmdp.case.cases.RECORD`, fields
by name); ``d`` and ``nb`` are the loop bounds (compile-time constants where the builder
specialises).  For time step i and stratum k (eq. PsiM), path m uses its own stream
(seed, run, i, k, m):

* pass 1 (:func:`path_response`) draws x_i ~ nu_k and Delta W_i, simulates x_{i+1..N} and forms the
  response S_{Y,i+1} = g(x_N) + sum_{j>i} f_j(x_j, y_{j+1}(x_{j+1}), z_j(x_j)) dt; the stratum
  accumulates G = sum phi phi^T, r_0 = sum phi S_{Y,i+1} and r_l = sum phi w dW_l with
  w = (S_{Y,i+1} - cv)/dt, the response of S_{Z,i}; cv = 0, or with the Z control variate
  (``z_cv``) cv = y_{i+1}(x_i) (g(x_i) at i = N-1): E[cv(x_i) dW | x_i] = 0, so the regression's
  limit is unchanged and its variance much smaller.  Solving gives psi_{Z,i,k}.
  With the martingale control variates as well (``martingale_cv``, bit ZCV_MART of ``c.z_cv``; beyond the
  paper, measured in bench/zcv.md) both responses also lose mart = h(x_i).dW_i + sum_{j>i} z_j(x_j).dW_j,
  where z_j(x_j) is the estimate the path already uses in its driver and h = the polynomial of z^M_{i+1}
  on the cell of x_i, untruncated (0 at i = N-1): E[mart | x_i] = 0 and E[mart dW_i | x_i] = h(x_i) dt,
  so the Z response is (S_{Y,i+1} - cv - mart)/dt dW and h is added back to the solved coefficients
  (:func:`add_back_z`: the regression of the cell's own polynomial is exact), the Y response S_{Y,i+1} - mart.
* pass 2 (:func:`path_driver_term`) adds sum phi f_i(x_i, y_{i+1}(x_{i+1}), z_i(x_i)) dt to r_0 with
  the fresh z_i; by linearity of OLS in the response this is the regression of
  S_{Y,i} = S_{Y,i+1} + f_i dt.  It needs (x_i, u_i, y_{i+1}(x_{i+1})) of each path: the CPU keeps
  them from pass 1 in ``cache`` (M (2d+1) doubles per worker); the GPU (``REPLAY``) replays the
  path's first step from its stream instead.  Same draws, same operations: the same numbers.

With the curvature correction (``CURVATURE``, bound by the builder for ``Case.curvature_correction``; beyond the
paper, :mod:`srmdp.problems.curvature`) every driver value of both passes loses :func:`curvature_term`, 1/2 sum_l
d2f/dz_l^2 Var z^M_l + 1/2 d2f/dy^2 Var y^M, each variance sigma^2_c |L^{-1} phi(x)|^2 of the regression that made
the estimate (``cvar[j, s]``: the residual variances and L^{-1} of stratum s at time j, written after its Cholesky
by :func:`srmdp.numerics.regression.residual_variances` from the responses' sums of squares); the CPU's pass-1 cache
keeps
Var y_{i+1}(x_{i+1}) beside y_{i+1}.  Off, the code is the paper scheme's as before, bit for bit.

Arithmetic (``Case.arithmetic``, bound by the builder as ``REAL``): the path state, normals, basis values, the
estimates, the problem's functions and the per-path responses and products are of type REAL; the record's
float64 fields are cast where they enter (``REAL(c.dt)``), literals are ``REAL(...)``.  What stays float64: the
first step's sampling of x_i ~ nu_k (once per path, rounded into x), the sums over paths (G, acc: float64
accumulators), the per-stratum Cholesky solve, and the test points' squared errors.
"""

import math

from .jit import device, inline
from .regression import accumulate, accumulate_gram, cholesky, evaluate, residual_variances, solve_into
from .rng import DOMAIN_PATHS, DOMAIN_TEST, REAL, normal_s, seed_state, uniform_s
from .strata import UNBOUNDED, cell_setup, locate_fast, logistic_in, sample_cell

# --- bound by srmdp.numerics.build in each generated module (these defaults only make this module importable)
D = 0  # the dimension as a compile-time loop bound (0: read c.d at run time)
NB = 0  # the basis size likewise (0: c.nb)
NEEDS_U = True  # the basis reads local coordinates
FD_STEP = 2.0**-13  # the relative step of central_driver_zz/yy (srmdp.numerics.build: the arithmetic's eps^(1/4))
REPLAY = True  # pass 2 replays the first step (GPU) instead of reading the per-worker cache (CPU)
basis_phi = terminal = driver = forward = y_exact = z_exact = None
driver_zz = driver_yy = None  # the problem's second derivatives, else central differences (srmdp.numerics.build)
CURVATURE = False  # the curvature correction of the driver (Case.curvature_correction; module docstring)
# bits of the case record's z_cv field (srmdp.case.cases.Case.record): 0 = the paper's responses
ZCV_Y = 1  # cv = y_{i+1}(x_i) in the Z response (Case.z_cv)
ZCV_MART = 2  # the martingale control variates in both responses (Case.martingale_cv)


@inline
def estimate(coef, j, x, u, ph, z, d, nb, c):
    """y^M_j(x), and z^M_j(x) into z (eq. PsiM, truncated); both 0 outside the box in mode ZERO.

    u, ph: scratch for the local coordinates and the basis at x.
    """
    return estimate_cell(coef, j, x, u, ph, z, d, nb, c)[0]


@inline
def estimate_cell(coef, j, x, u, ph, z, d, nb, c):
    """(:func:`estimate`, the stratum of x: -1 outside the box in mode ZERO); ph = the basis at x when >= 0."""
    s = locate_fast(x, u, d, c.cells, REAL(c.half_width), REAL(c.h), REAL(c.inv_h), c.outside, NEEDS_U)
    if s < 0:
        for l in range(d):
            z[l] = 0.0
        return REAL(0.0), s
    basis_phi(ph, u, d)
    ly = c.trunc_y
    lz = c.trunc_z
    if ly == math.inf and lz == math.inf:  # no truncation: T_L is the identity (one test, not 2 (d+1))
        for l in range(d):
            z[l] = evaluate(coef, j, s, 1 + l, ph, nb, math.inf)
        return evaluate(coef, j, s, 0, ph, nb, math.inf), s
    for l in range(d):
        z[l] = evaluate(coef, j, s, 1 + l, ph, nb, lz)
    return evaluate(coef, j, s, 0, ph, nb, ly), s


@inline
def first_step(s0, s1, cell, x, dw, u, phi, d, c):
    """x_i ~ nu_k (A_nu, Algorithm 3), phi = basis at x_i, dw = Delta W_i; returns the stream state."""
    s0, s1 = sample_cell(s0, s1, cell, x, u, d, c.half_width, c.h, NEEDS_U)
    basis_phi(phi, u, d)
    sq = REAL(c.sqdt)
    for l in range(d):
        v, s0, s1 = normal_s(s0, s1)
        dw[l] = sq * v
    return s0, s1


@inline
def continue_path(s0, s1, coef, cvar, i, x, xp, dw, inc, u, ph, z, zp, d, nb, c, mart_on):
    """Pass 1 after the first step: x_{i+1} = X(x_i, dw), then x_{i+2..N} (the response's sum).

    Returns (S_{Y,i+1}, y_{i+1}(x_{i+1}) [g(x_N) if i+1 = N], the future martingale
    sum_{j>i} z_j(x_j).dW_j if ``mart_on`` else 0, Var y^M_{i+1}(x_{i+1}) with CURVATURE else 0).
    With CURVATURE each driver value loses its :func:`curvature_term`.
    """
    n = c.steps
    dt = REAL(c.dt)
    sq = REAL(c.sqdt)
    forward(REAL(i) * dt, x, dw, dt, d)
    if i + 1 == n:
        y1 = terminal(REAL(c.maturity), x, d)
        return y1, y1, REAL(0.0), REAL(0.0)
    sz = -1  # CURVATURE: the stratum of x_j and the leverage of x_j in its regression at j (for z_j's variance)
    hz = REAL(0.0)
    if CURVATURE:
        y1, sz, hz = estimate_var(coef, cvar, i + 1, x, u, ph, z, d, nb, c)
        vy1 = fitted_variance(cvar, i + 1, sz, 0, hz)
    else:
        y1 = estimate(coef, i + 1, x, u, ph, z, d, nb, c)
        vy1 = REAL(0.0)
    s = REAL(0.0)
    mart = REAL(0.0)
    for j in range(i + 1, n):
        for l in range(d):
            xp[l] = x[l]
            zp[l] = z[l]
            v, s0, s1 = normal_s(s0, s1)
            inc[l] = sq * v
        if mart_on:
            for l in range(d):
                mart += zp[l] * inc[l]
        forward(REAL(j) * dt, x, inc, dt, d)
        sn = -1
        hn = REAL(0.0)
        if j + 1 == n:
            ynext = terminal(REAL(c.maturity), x, d)
            s += ynext
        elif CURVATURE:
            ynext, sn, hn = estimate_var(coef, cvar, j + 1, x, u, ph, z, d, nb, c)
        else:
            ynext = estimate(coef, j + 1, x, u, ph, z, d, nb, c)
        f = driver(REAL(j) * dt, xp, ynext, zp, d)
        if CURVATURE:
            vy = fitted_variance(cvar, j + 1, sn, 0, hn)
            f -= curvature_term(REAL(j) * dt, xp, ynext, zp, cvar, j, sz, hz, vy, d)
            sz = sn
            hz = hn
        s += dt * f
    return s, y1, mart, vy1


@inline
def estimate_var(coef, cvar, j, x, u, ph, z, d, nb, c):
    """(:func:`estimate`, the stratum s of x, the leverage of x in s's regression at time j: :func:`leverage`)."""
    y, s = estimate_cell(coef, j, x, u, ph, z, d, nb, c)
    return y, s, leverage(cvar, j, s, ph, d, nb)


@inline
def leverage(cvar, j, s, ph, d, nb):
    """phi(x)^T (Phi^T Phi)^{-1} phi(x) = |L^{-1} phi(x)|^2 of stratum s's regression at time j, ph = phi(x)
    (L^{-1} from :func:`srmdp.numerics.regression.residual_variances`); 0 outside the box (s < 0: no estimate, no
    noise)."""
    if s < 0:
        return REAL(0.0)
    h = REAL(0.0)
    for p in range(nb):
        row = d + 1 + p * (p + 1) // 2
        v = REAL(0.0)
        for q in range(p + 1):
            v += REAL(cvar[j, s, row + q]) * ph[q]
        h += v * v
    return h


@inline
def fitted_variance(cvar, j, s, comp, h):
    """Var of the fitted value of response ``comp`` (0: y, 1 + l: z_l) of stratum s at time j at a point of
    leverage h: sigma^2_comp h (0 outside the box)."""
    if s < 0:
        return REAL(0.0)
    return REAL(cvar[j, s, comp]) * h


@inline
def curvature_term(t, x, y, z, cvar, j, sz, hz, vy, d):
    """1/2 sum_l d2f/dz_l^2 Var z^M_{j,l}(x) + 1/2 d2f/dy^2 vy at (t, x, y, z): what the noise of the estimates adds
    to E f(y^M, z^M) at second order (the Hessian's diagonal; z_j's variance from stratum sz with leverage hz)."""
    a = REAL(0.0)
    if sz >= 0:
        for l in range(d):
            a += driver_zz(t, x, y, z, l, d) * fitted_variance(cvar, j, sz, 1 + l, hz)
    if vy > REAL(0.0):
        a += driver_yy(t, x, y, z, d) * vy
    return REAL(0.5) * a


@device
def central_driver_zz(t, x, y, z, l, d):
    """d2f/dz_l^2 by central differences, step FD_STEP (1 + |z_l|) (a problem without ``driver_zz``)."""
    zl = z[l]
    h = FD_STEP * (REAL(1.0) + abs(zl))
    f0 = driver(t, x, y, z, d)
    z[l] = zl + h
    fp = driver(t, x, y, z, d)
    z[l] = zl - h
    fm = driver(t, x, y, z, d)
    z[l] = zl
    return (fp - REAL(2.0) * f0 + fm) / (h * h)


@device
def central_driver_yy(t, x, y, z, d):
    """d2f/dy^2 by central differences, step FD_STEP (1 + |y|) (a problem without ``driver_yy``)."""
    h = FD_STEP * (REAL(1.0) + abs(y))
    return (driver(t, x, y + h, z, d) - REAL(2.0) * driver(t, x, y, z, d) + driver(t, x, y - h, z, d)) / (h * h)


@inline
def cache_width(d):
    """Values per path that pass 1 keeps for pass 2 on the CPU: x_i, u_i, y_{i+1}(x_{i+1}) (and its variance)."""
    return 2 * d + 2 if CURVATURE else 2 * d + 1


@device
def control_variate(coef, i, x, u, ph, z, d, nb, c):
    """cv(x_i) = y_{i+1}(x_i), g(x_i) at i = N-1: the Z control variate (a call: off the hot path when unused)."""
    if i + 1 == c.steps:
        return terminal(REAL(c.maturity), x, d)
    return estimate(coef, i + 1, x, u, ph, z, d, nb, c)


@inline
def path_response(coef, cvar, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb):
    """Pass 1 for path m: returns (S_{Y,i+1}, w) with w dW_l the response of S_{Z,i}; phi = basis at
    x_i and dw = Delta W_i on return.  Without REPLAY, (x_i, u_i, y_{i+1}(x_{i+1}) [, its variance]) go to cache
    row m."""
    s0, s1 = seed_state(c.seed, DOMAIN_PATHS, c.run, i, k, m)
    s0, s1 = first_step(s0, s1, cell, x, dw, u, phi, d, c)
    row = m * cache_width(d)
    if not REPLAY:
        for l in range(d):
            cache[row + l] = x[l]
        if NEEDS_U:
            for l in range(d):
                cache[row + d + l] = u[l]
    cv = control_variate(coef, i, x, u, ph, z, d, nb, c) if c.z_cv else REAL(0.0)
    mart_on = (c.z_cv & ZCV_MART) != 0
    s, y1, mart, vy1 = continue_path(s0, s1, coef, cvar, i, x, xp, dw, inc, u, ph, z, zp, d, nb, c, mart_on)
    if not REPLAY:
        cache[row + 2 * d] = y1
        if CURVATURE:
            cache[row + 2 * d + 1] = vy1
    if mart_on:
        return martingale_responses(coef, i, k, s, cv, mart, phi, dw, d, nb, c)
    if c.z_cv:
        return s, (s - cv) / REAL(c.dt)
    return s, s / REAL(c.dt)


@device
def martingale_responses(coef, i, k, s, cv, mart, phi, dw, d, nb, c):
    """(S_{Y,i+1} - m, (S_{Y,i+1} - cv - m)/dt) with m = h(x_i).dW_i + mart (module docstring; a call: off
    the hot path when unused).  phi: the basis at x_i; h: z^M_{i+1} on stratum k, untruncated (0 at N-1)."""
    if i + 1 < c.steps:
        for l in range(d):
            mart += evaluate(coef, i + 1, k, 1 + l, phi, nb, math.inf) * dw[l]
    return s - mart, (s - cv - mart) / REAL(c.dt)


@inline
def add_back_z(coef, i, k, l, nb, c):
    """With the martingale control variates: z^M_{i,l} += h_l, the coefficients of z^M_{i+1,l} on stratum k
    (the exact regression of the h_l(x_i) taken out of every path's Z response; i < N-1)."""
    if c.z_cv & ZCV_MART and i + 1 < c.steps:
        for a in range(nb):
            coef[i, k, 1 + l, a] += coef[i + 1, k, 1 + l, a]


@inline
def path_driver_term(coef, cvar, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache, d, nb):
    """Pass 2 for path m: f_i(x_i, y_{i+1}(x_{i+1}), z_i(x_i)) dt with the fresh z_i (less its
    :func:`curvature_term` with CURVATURE); phi = basis at x_i."""
    dt = REAL(c.dt)
    vy1 = REAL(0.0)
    if REPLAY:
        s0, s1 = seed_state(c.seed, DOMAIN_PATHS, c.run, i, k, m)
        s0, s1 = first_step(s0, s1, cell, x, dw, u, phi, d, c)
        for l in range(d):
            xp[l] = x[l]
        forward(REAL(i) * dt, x, dw, dt, d)
        if i + 1 == c.steps:
            y1 = terminal(REAL(c.maturity), x, d)
        elif CURVATURE:
            y1, sy, hy = estimate_var(coef, cvar, i + 1, x, u, ph, zp, d, nb, c)
            vy1 = fitted_variance(cvar, i + 1, sy, 0, hy)
        else:
            y1 = estimate(coef, i + 1, x, u, ph, zp, d, nb, c)  # as pass 1 computes it
    else:
        row = m * cache_width(d)
        for l in range(d):
            xp[l] = cache[row + l]
        if NEEDS_U:
            for l in range(d):
                u[l] = cache[row + d + l]
        basis_phi(phi, u, d)
        y1 = cache[row + 2 * d]
        if CURVATURE:
            vy1 = cache[row + 2 * d + 1]
    for l in range(d):
        z[l] = evaluate(coef, i, k, 1 + l, phi, nb, c.trunc_z)
    f = driver(REAL(i) * dt, xp, y1, z, d)
    if CURVATURE:
        f -= curvature_term(REAL(i) * dt, xp, y1, z, cvar, i, k, leverage(cvar, i, k, phi, d, nb), vy1, d)
    return dt * f


@device
def solve_stratum(coef, cvar, i, k, case, cell, x, xp, dw, inc, u, ph, z, zp, phi, tmp, G, acc, cache):
    """The regressions of stratum k at time i (eq. PsiM): z first, then y using z_i.

    Returns (dropped directions, all coefficients finite).  The arguments are flat arrays that the calling kernel
    allocates where they belong on its target (:mod:`srmdp.kernels.cpu_kernels`: per worker;
    :mod:`srmdp.kernels.cuda_kernels`: local or shared memory), in four groups:

    * what is solved: ``coef`` (N, K, 1 + d, nb) coefficients, read at i + 1.. and written at [i, k]; ``case`` the
      one-record case array (a record is passed by reference this way, also into a CPU ``prange`` body);
    * the stratum's sampling data: ``cell`` (3d, :func:`srmdp.numerics.strata.cell_setup`);
    * one path's scratch, overwritten path by path (REAL, d or nb values): ``x`` the state, ``xp`` x at the
      previous date, ``dw`` Delta W_i, ``inc`` the later increments, ``u`` local coordinates, ``ph`` and ``phi``
      the basis at an estimate's point and at x_i, ``z`` and ``zp`` the z estimates at the current and previous
      date;
    * the stratum's normal equations (float64): ``tmp`` (nb) for the solve, ``G`` (nb^2) the Gram matrix,
      ``acc`` ((1 + d) nb) the right-hand sides; ``cache`` (M (2d + 1) REAL) the pass-1 values that pass 2 reads
      on the CPU (unused under ``REPLAY``).
    """
    c = case[0]
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    cell_setup(k, cell, d, c.cells, c.half_width, c.h, c.outside == UNBOUNDED)
    for a in range(nb * nb):
        G[a] = 0.0
    for a in range((d + 1) * (nb + 1) if CURVATURE else (d + 1) * nb):
        acc[a] = 0.0
    for m in range(c.paths):
        s, w = path_response(coef, cvar, i, k, m, c, cell, x, xp, dw, inc, u, ph, z, zp, phi, cache, d, nb)
        accumulate_gram(G, phi, nb)
        accumulate(acc, 0, phi, s, nb)
        for l in range(d):
            accumulate(acc, 1 + l, phi, w * dw[l], nb)
        if CURVATURE:  # the responses' sums of squares, for their residual variances
            acc[(d + 1) * nb] += s * s
            for l in range(d):
                acc[(d + 1) * nb + 1 + l] += (w * dw[l]) * (w * dw[l])
    dropped = cholesky(G, nb)
    if CURVATURE:
        residual_variances(G, acc, d + 1, nb, c.paths, cvar, i, k, tmp)
    ok = True
    for l in range(d):  # z first ...
        ok = solve_into(G, acc, 1 + l, nb, coef, i, k, tmp) and ok
        add_back_z(coef, i, k, l, nb, c)
    for m in range(c.paths):  # ... then y, which uses z_i
        f = path_driver_term(coef, cvar, i, k, m, c, cell, x, xp, dw, u, ph, z, zp, phi, cache, d, nb)
        accumulate(acc, 0, phi, f, nb)
    ok = solve_into(G, acc, 0, nb, coef, i, k, tmp) and ok
    return dropped, ok


@device
def test_point(coef, i, p, case, x, u, ph, z, ze):
    """Squared errors |y_i - y^M_i|^2 and |z_i - z^M_i|^2 at test point R_{i,p} ~ nu (eq. mse)."""
    c = case[0]
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    s0, s1 = seed_state(c.seed, DOMAIN_TEST, c.run, i, 0, p)
    for l in range(d):
        v, s0, s1 = uniform_s(s0, s1)
        x[l] = logistic_in(-math.inf, math.inf, v)
    yh = estimate(coef, i, x, u, ph, z, d, nb, c)
    t = REAL(i) * REAL(c.dt)
    ey = float(y_exact(t, x, d) - yh)  # the squares in float64 whatever the arithmetic
    z_exact(t, x, ze, d)
    ez = 0.0
    for l in range(d):
        ez += float(ze[l] - z[l]) ** 2
    return ey * ey, ez


@device
def estimate_at(coef, j, x, u, ph, z, case):
    """:func:`estimate` for the one-record case array (the evaluation kernels' entry point)."""
    c = case[0]
    d = D if D > 0 else c.d
    nb = NB if D > 0 else c.nb
    return estimate(coef, j, x, u, ph, z, d, nb, c)
