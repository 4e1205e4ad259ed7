"""Per-path and per-stratum math of Algorithm SRMDP, written once for both targets.

``make_kernels(jit, problem)`` compiles everything with ``jit`` = ``numba.njit`` (CPU) or
``numba.cuda.jit(device=True)`` (GPU).  The case travels in two small arrays (see :data:`FP`,
:data:`IP`, filled by :func:`srmdp.case.Case.params`) so that signatures stay short on both targets.

For time step i and stratum k (eq. PsiM), each of the M paths m uses its own stream
(seed, run, i, k, m):

* pass 1 simulates x_i ~ nu_k, Delta W_i and x_{i+1..N}, and the response
  S_{Y,i+1} = g(x_N) + sum_{j>i} f_j(x_j, y_{j+1}(x_{j+1}), z_j(x_j)) dt; it accumulates
  G = sum phi phi^T, r_0 = sum phi S_{Y,i+1} and r_l = sum phi S_{Y,i+1} dW_l / dt (= S_{Z,i}).
  Solving gives psi_{Z,i,k}.
* pass 2 replays only the first step of the same stream (x_i, Delta W_i) and adds
  sum phi f_i(x_i, y_{i+1}(x_{i+1}), z_i(x_i)) dt to r_0, z_i being the fresh estimate; by
  linearity of OLS in the response this is the regression of S_{Y,i} = S_{Y,i+1} + f_i dt.
  No per-path storage: O((d+1)^2) work space per stratum (``solve_stratum``, the GPU's form).
  The CPU uses ``solve_stratum_cached``, which keeps (x_i, u_i, y_{i+1}(x_{i+1})) of each path from
  pass 1 in a per-thread buffer of M (2d+1) doubles instead of replaying the first step: same
  numbers, same operations, bit-identical coefficients.
"""

import math
from types import SimpleNamespace

from .regression import make_regression
from .rng import DOMAIN_PATHS, DOMAIN_TEST, make_rng
from .strata import UNBOUNDED, ZERO, make_strata

# float parameters fp[...]
F_DT, F_SQDT, F_T, F_HALF, F_H, F_LY, F_LZ = range(7)
N_FP = 7
# integer parameters ip[...]
I_N, I_D, I_NB, I_C, I_MODE, I_M, I_SEED, I_RUN, I_K, I_P = range(10)
N_IP = 10

# work-space layout of one stratum (float64 arrays; sizes for dimension d and nb basis functions)
def scratch_sizes(d, nb):
    """Sizes of (vectors: 7 (d+1) + cell 3d, gram: nb*nb, acc: (d+1)*nb) for one stratum."""
    return 7 * (d + 1) + 3 * d, nb * nb, (d + 1) * nb


def cache_width(d):
    """Doubles kept per path between the two passes by :func:`solve_stratum_cached`: x_i, u_i, y_{i+1}."""
    return 2 * d + 1


def make_kernels(jit, problem, inline_jit=None, dims=None):
    """Compile the shared code with ``jit``.

    ``inline_jit`` (default ``jit``) compiles the small functions of the per-path hot loop; the CPU
    passes ``numba.njit(inline="always")`` so that Numba inlines them into the few large functions
    (a call that passes arrays costs many arguments, and LLVM would not inline them all).  The
    stream state travels as two uint64 scalars along a path (``*_s`` functions) and is written back
    to the ``st`` arrays of the public functions, which draw exactly the same numbers.

    ``dims = (d, nb)`` compiles :func:`solve_stratum_cached` for that dimension and basis only
    (loop bounds become constants: LLVM unrolls the per-axis loops and drops LP1's loops for LP0);
    the default reads them from ``ip`` at run time.  Results are the same either way.
    """
    ijit = inline_jit or jit
    spec_d, spec_nb = (int(dims[0]), int(dims[1])) if dims else (0, 0)
    rng = make_rng(jit, ijit)
    seed_stream, next_u64, uniform, normal = rng.seed_stream, rng.next_u64, rng.uniform, rng.normal
    seed_state, normal_s = rng.seed_state, rng.normal_s
    logistic_cdf, logistic_in, locate, cell_setup, sample_cell, sample_cell_s, locate_fast = make_strata(
        jit, uniform, rng.uniform_s, ijit)
    accumulate_gram, accumulate, cholesky, solve_into, evaluate = make_regression(jit, ijit)
    terminal, driver, forward, y_exact, z_exact = problem.make(ijit)
    inf = math.inf

    @ijit
    def estimate(coef, j, x, u, z, d, nb, ncell, half, h, mode, ly, lz):
        """y^M_j(x), and z^M_j(x) into z; both 0 outside the box in mode ZERO."""
        s = locate(x, u, d, ncell, half, h, mode)
        if s < 0:
            for l in range(d):
                z[l] = 0.0
            return 0.0
        for l in range(d):
            z[l] = evaluate(coef, j, s, 1 + l, u, nb, lz)
        return evaluate(coef, j, s, 0, u, nb, ly)

    @ijit
    def estimate_fast(coef, j, x, u, z, d, nb, ncell, half, h, inv_h, mode, ly, lz):
        """:func:`estimate`, bit for bit (see :func:`srmdp.strata.locate_fast`)."""
        s = locate_fast(x, u, d, ncell, half, h, inv_h, mode, nb > 1)
        if s < 0:
            for l in range(d):
                z[l] = 0.0
            return 0.0
        if ly == inf and lz == inf:  # no truncation: T_L is the identity (one test, not 2 (d+1))
            for l in range(d):
                z[l] = evaluate(coef, j, s, 1 + l, u, nb, inf)
            return evaluate(coef, j, s, 0, u, nb, inf)
        for l in range(d):
            z[l] = evaluate(coef, j, s, 1 + l, u, nb, lz)
        return evaluate(coef, j, s, 0, u, nb, ly)

    @ijit
    def first_step_s(s0, s1, cell, x, dw, u, phi, d, nb, half, h, sq):
        """x_i ~ nu_k (phi: basis at x_i) and Delta W_i (dw); returns the stream state."""
        s0, s1 = sample_cell_s(s0, s1, cell, x, u, d, half, h, nb > 1)
        phi[0] = 1.0
        for a in range(1, nb):
            phi[a] = u[a - 1]
        for l in range(d):
            v, s0, s1 = normal_s(s0, s1)
            dw[l] = sq * v
        return s0, s1

    @ijit
    def continue_path(s0, s1, coef, i, x, xp, dw, inc, u, z, zp, n, d, nb, ncell, mode, dt, sq, tmat,
                      half, h, inv_h, ly, lz):
        """Pass 1 after the first step: x_{i+1} = x_i + dw, then x_{i+2..N}.

        Returns (S_{Y,i+1}, y_{i+1}(x_{i+1}) [g(x_N) if i+1 = N], s0, s1).
        """
        forward(i * dt, x, dw, dt, d)
        if i + 1 == n:
            y1 = terminal(tmat, x, d)
            return y1, y1, s0, s1
        y1 = estimate_fast(coef, i + 1, x, u, z, d, nb, ncell, half, h, inv_h, mode, ly, lz)
        s = 0.0
        for j in range(i + 1, n):
            for l in range(d):
                xp[l] = x[l]
                zp[l] = z[l]
                v, s0, s1 = normal_s(s0, s1)
                inc[l] = sq * v
            forward(j * dt, x, inc, dt, d)
            if j + 1 == n:
                ynext = terminal(tmat, x, d)
                s += ynext
            else:
                ynext = estimate_fast(coef, j + 1, x, u, z, d, nb, ncell, half, h, inv_h, mode, ly, lz)
            s += dt * driver(j * dt, xp, ynext, zp, d)
        return s, y1, s0, s1

    @jit
    def first_step(st, cell, fp, ip, x, dw, u, phi):
        """x_i ~ nu_k (phi: basis at x_i) and Delta W_i (dw)."""
        s0, s1 = first_step_s(st[0], st[1], cell, x, dw, u, phi, ip[I_D], ip[I_NB], fp[F_HALF], fp[F_H],
                              fp[F_SQDT])
        st[0] = s0
        st[1] = s1

    @jit
    def response(st, cell, coef, i, fp, ip, x, xp, dw, inc, u, z, zp, phi):
        """Pass 1 for one path: returns S_{Y,i+1}; dw = Delta W_i, phi = basis at x_i."""
        d = ip[I_D]
        nb = ip[I_NB]
        sq = fp[F_SQDT]
        half = fp[F_HALF]
        h = fp[F_H]
        s0, s1 = first_step_s(st[0], st[1], cell, x, dw, u, phi, d, nb, half, h, sq)
        s, y1, s0, s1 = continue_path(s0, s1, coef, i, x, xp, dw, inc, u, z, zp, ip[I_N], d, nb, ip[I_C],
                                      ip[I_MODE], fp[F_DT], sq, fp[F_T], half, h, 1.0 / h, fp[F_LY], fp[F_LZ])
        st[0] = s0
        st[1] = s1
        return s

    @jit
    def driver_term(st, cell, coef, k, i, fp, ip, x, xp, dw, u, z, zp, phi):
        """Pass 2 for one path: f_i(x_i, y_{i+1}(x_{i+1}), z_i(x_i)) dt with the new z_i."""
        d = ip[I_D]
        nb = ip[I_NB]
        dt = fp[F_DT]
        s0, s1 = first_step_s(st[0], st[1], cell, x, dw, u, phi, d, nb, fp[F_HALF], fp[F_H], fp[F_SQDT])
        st[0] = s0
        st[1] = s1
        for l in range(d):
            xp[l] = x[l]
            z[l] = evaluate(coef, i, k, 1 + l, u, nb, fp[F_LZ])  # u: local coordinates of x_i
        forward(i * dt, x, dw, dt, d)
        if i + 1 == ip[I_N]:
            y1 = terminal(fp[F_T], x, d)
        else:
            y1 = estimate_fast(coef, i + 1, x, u, zp, d, nb, ip[I_C], fp[F_HALF], fp[F_H], 1.0 / fp[F_H],
                               ip[I_MODE], fp[F_LY], fp[F_LZ])  # as pass 1 computes it
        return dt * driver(i * dt, xp, y1, z, d)

    @jit
    def solve_stratum(coef, i, k, fp, ip, st, cell, x, xp, dw, inc, u, z, zp, phi, tmp, G, acc):
        """Regressions of stratum k at time i (eq. PsiM); returns (dropped directions, ok).

        Pass 2 replays the first step of every path (no per-path storage: the GPU's form).
        """
        d = ip[I_D]
        nb = ip[I_NB]
        m_paths = ip[I_M]
        dt = fp[F_DT]
        cell_setup(k, cell, d, ip[I_C], fp[F_HALF], fp[F_H], ip[I_MODE] == UNBOUNDED)
        for a in range(nb * nb):
            G[a] = 0.0
        for a in range((d + 1) * nb):
            acc[a] = 0.0
        for m in range(m_paths):
            seed_stream(st, ip[I_SEED], DOMAIN_PATHS, ip[I_RUN], i, k, m)
            s = response(st, cell, coef, i, fp, ip, x, xp, dw, inc, u, z, zp, phi)
            accumulate_gram(G, phi, nb)
            accumulate(acc, 0, phi, s, nb)
            w = s / dt
            for l in range(d):
                accumulate(acc, 1 + l, phi, w * dw[l], nb)
        dropped = cholesky(G, nb)
        ok = True
        for l in range(d):  # z first ...
            ok = solve_into(G, acc, 1 + l, nb, coef, i, k, tmp) and ok
        for m in range(m_paths):  # ... then y, which uses z_i
            seed_stream(st, ip[I_SEED], DOMAIN_PATHS, ip[I_RUN], i, k, m)
            f = driver_term(st, cell, coef, k, i, fp, ip, x, xp, dw, u, z, zp, phi)
            accumulate(acc, 0, phi, f, nb)
        ok = solve_into(G, acc, 0, nb, coef, i, k, tmp) and ok
        return dropped, ok

    @jit
    def solve_stratum_cached(coef, i, k, fp, ip, cell, x, xp, dw, inc, u, z, zp, phi, tmp, G, acc, cache):
        """:func:`solve_stratum` keeping (x_i, u_i, y_{i+1}(x_{i+1})) of each path for pass 2.

        Bit-identical to the replay (same draws, same operations), without pass 2's second stream
        start, sampling and first step; ``cache`` holds ``M * cache_width(d)`` doubles (the CPU's
        per-thread work space).
        """
        d = spec_d if spec_d > 0 else ip[I_D]
        nb = spec_nb if spec_nb > 0 else ip[I_NB]
        n = ip[I_N]
        ncell = ip[I_C]
        mode = ip[I_MODE]
        m_paths = ip[I_M]
        seed = ip[I_SEED]
        run = ip[I_RUN]
        dt = fp[F_DT]
        sq = fp[F_SQDT]
        tmat = fp[F_T]
        half = fp[F_HALF]
        h = fp[F_H]
        ly = fp[F_LY]
        lz = fp[F_LZ]
        inv_h = 1.0 / h
        width = 2 * d + 1
        cell_setup(k, cell, d, ncell, half, h, mode == UNBOUNDED)
        for a in range(nb * nb):
            G[a] = 0.0
        for a in range((d + 1) * nb):
            acc[a] = 0.0
        for m in range(m_paths):
            s0, s1 = seed_state(seed, DOMAIN_PATHS, run, i, k, m)
            s0, s1 = first_step_s(s0, s1, cell, x, dw, u, phi, d, nb, half, h, sq)
            row = m * width
            for l in range(d):
                cache[row + l] = x[l]
            if nb > 1:
                for l in range(d):
                    cache[row + d + l] = u[l]
            s, y1, s0, s1 = continue_path(s0, s1, coef, i, x, xp, dw, inc, u, z, zp, n, d, nb, ncell, mode,
                                          dt, sq, tmat, half, h, inv_h, ly, lz)
            cache[row + 2 * d] = y1
            accumulate_gram(G, phi, nb)
            accumulate(acc, 0, phi, s, nb)
            w = s / dt
            for l in range(d):
                accumulate(acc, 1 + l, phi, w * dw[l], nb)
        dropped = cholesky(G, nb)
        ok = True
        for l in range(d):  # z first ...
            ok = solve_into(G, acc, 1 + l, nb, coef, i, k, tmp) and ok
        t = i * dt
        for m in range(m_paths):  # ... then y, which uses z_i
            row = m * width
            for l in range(d):
                xp[l] = cache[row + l]
            if nb > 1:
                for l in range(d):
                    u[l] = cache[row + d + l]
            phi[0] = 1.0
            for a in range(1, nb):
                phi[a] = u[a - 1]
            for l in range(d):
                z[l] = evaluate(coef, i, k, 1 + l, u, nb, lz)
            f = dt * driver(t, xp, cache[row + 2 * d], z, d)
            accumulate(acc, 0, phi, f, nb)
        ok = solve_into(G, acc, 0, nb, coef, i, k, tmp) and ok
        return dropped, ok

    @jit
    def test_point(st, coef, i, p, fp, ip, x, u, z, ze):
        """Squared errors |y_i - y^M_i|^2 and |z_i - z^M_i|^2 at test point R_{i,p} ~ nu (eq. mse)."""
        d = ip[I_D]
        seed_stream(st, ip[I_SEED], DOMAIN_TEST, ip[I_RUN], i, 0, p)
        for l in range(d):
            x[l] = logistic_in(-inf, inf, uniform(st))
        yh = estimate(coef, i, x, u, z, d, ip[I_NB], ip[I_C], fp[F_HALF], fp[F_H], ip[I_MODE],
                      fp[F_LY], fp[F_LZ])
        t = i * fp[F_DT]
        ey = y_exact(t, x, d) - yh
        z_exact(t, x, ze, d)
        ez = 0.0
        for l in range(d):
            ez += (ze[l] - z[l]) ** 2
        return ey * ey, ez

    return SimpleNamespace(
        seed_stream=seed_stream, next_u64=next_u64, uniform=uniform, normal=normal,
        logistic_cdf=logistic_cdf, logistic_in=logistic_in, locate=locate, cell_setup=cell_setup,
        sample_cell=sample_cell, accumulate_gram=accumulate_gram, accumulate=accumulate,
        cholesky=cholesky, solve_into=solve_into, evaluate=evaluate, estimate=estimate,
        response=response, driver_term=driver_term, solve_stratum=solve_stratum,
        solve_stratum_cached=solve_stratum_cached, first_step=first_step, seed_state=seed_state,
        normal_s=normal_s, sample_cell_s=sample_cell_s, locate_fast=locate_fast, estimate_fast=estimate_fast,
        test_point=test_point, terminal=terminal, driver=driver, forward=forward,
        y_exact=y_exact, z_exact=z_exact,
    )


__all__ = ["make_kernels", "cache_width", "ZERO", "UNBOUNDED"]
