"""Black-Scholes with different interest rates for borrowing and lending (no closed form for d > 1).

Market (Bergman 1995): d independent assets dS_l = mu S_l dt + sigma S_l dW_l, lending rate R_l,
borrowing rate R_b > R_l.  The price u(t, s) of the claim g(S_T) solves

    du/dt + 1/2 sigma^2 sum_l s_l^2 d^2u/ds_l^2 + max_{r in {R_l, R_b}} r (sum_l s_l du/ds_l - u) = 0,

i.e. the Black-Scholes equation with the rate R_b where the hedge borrows (stock held worth more than
the price) and R_l where it lends.  Claim (a call spread on the maximum):
g(s) = max(max_l s_l - 120, 0) - 2 max(max_l s_l - 150, 0).

BSDE, as in E, Han & Jentzen (2017): driver, with z = sigma^T grad u, i.e. z_l = sigma s_l du/ds_l,

    f(t, x, y, z) = -R_l y - ((mu - R_l)/sigma) sum_l z_l + (R_b - R_l) max((1/sigma) sum_l z_l - y, 0).

Coordinates (a choice, documented): the strata need O(1) coordinates centred where the solution lives,
so the module works in xi_l = ln(S_l / S0) / sigma, S0 = 100:

    forward  xi_l <- xi_l + (mu - sigma^2/2)/sigma dt + dw_l      (exact: a Brownian motion with drift),
    terminal g(S0 exp(sigma xi)),  x0 = 0 <=> S = (100, ..., 100).

z = grad_xi u = sigma s grad_s u is the same in both coordinates (it is the martingale integrand), so the
driver above is unchanged.  The default box [-6.5, 6.5]^d covers S in [27.3, 366] per coordinate,
about +-9 standard deviations of ln S_T around ln 100 (sigma sqrt(T) = 0.141); both kinks of g
(S = 120: xi = 0.91; S = 150: xi = 2.03) lie inside.

Parameters (E, Han & Jentzen, Comm. Math. Stat. 5 (2017) 349-380, Section 4.4, after Bergman 1995 and
Gobet, Lemor & Warin 2005): mu = 0.06, sigma = 0.2, R_l = 0.04, R_b = 0.06, T = 0.5, S0 = 100.
Published for d = 100: u(0, (100,...,100)) ~ 21.299 (EHJ 2017 Sec. 4.4, deep BSDE, against a
multilevel-Picard reference of E, Hutzenthaler, Jentzen & Kruse, as that section reports it; not
recomputed here).  This project's lower bound at d = 100 is 21.165 +- 0.002 (20 000 paths, 50 rate
steps) and the best single-rate price 21.093: the published value implies a nonlinear effect of 0.21,
our lower bound one of 0.07.  A lower bound below it does not contradict it; but the bound's feedback is
locally optimal (perturbing its threshold, its time to maturity or its prices lowers the value) and the
same bound is exact to < 5e-5 at d = 1 and 2 (against finite differences).  Open: see README.

References computed here (plain Python, for tests and the suite's table):

* ``u_reference_fd(x0, t)``, d = 1 only: the PDE in ln S by implicit Euler with Howard's policy
  iteration at every step, central differences, Richardson-extrapolated in time and space;
  1.0525712 at x0 = 0, error estimate 1.1e-7 (difference of two extrapolated resolutions), ~1 s.
* ``u_reference(x0, d, ...)``, any d: a Monte-Carlo *lower bound*.  The driver is convex, the maximum of
  the linear drivers f_r(y, z) = -r y - ((mu - r)/sigma) sum z_l over r in [R_l, R_b], so by the
  comparison theorem u >= E^{Q_r}[exp(-int r) g(S_T)] for every adapted rate process r, where under Q_r
  the assets have drift r (Girsanov).  We take the feedback r = R_b where the hedge of the *linear*
  R_l-price borrows, which is one Howard / Newton step from that linear price and so is accurate to
  second order in the nonlinear effect (u - u_{R_b} is small: 0.05-0.08 % of u for d <= 12); the rate
  is frozen on a time grid (still an adapted control, so still a lower bound) and the assets are
  stepped exactly.  The hedge of the linear price needs no integral: by homogeneity of the max,
  s.grad u_r - u_r = e^{-r tau} [120 P(M > 120) -
  300 P(M > 150)], M the maximum of the S_l at T under Q_r, P(M <= m) = prod_l Phi(d_l(m)).  The value
  is returned with its Monte-Carlo standard error; the bias (lower bound minus the true value, <= 0)
  measured against the finite-difference solutions: -2e-5 +- 1.4e-5 at d = 1, -2e-5 +- 1.3e-4 at d = 2.
* ``u_reference_fd2(x0)``, d = 2: the PDE in (ln S_1, ln S_2), IMEX finite differences, Richardson-
  extrapolated; 2.03257 +- 1.3e-4 at x0 = 0 (n_space=400, n_time=200: 160 s), +- 6e-4 with the defaults.
* ``linear_price(x0, d, rate)``: the price with a single rate (semi-explicit, one 1-d integral); both
  are lower bounds too (u >= max(u_{R_l}, u_{R_b})).
"""

import math

import numpy as np

MATURITY = 0.5
X0 = 0.0
BOX_HALF_WIDTH = 6.5  # the default: S in [27.3, 366] in the xi coordinates (see the docstring)
S0 = 100.0
MU = 0.06
SIGMA = 0.2
R_L = 0.04
R_B = 0.06
K1 = 120.0
K2 = 150.0


def _payoff(s):
    return max(s - K1, 0.0) - 2.0 * max(s - K2, 0.0)


def terminal(T, x, d):
    m = x[0]
    for l in range(1, d):
        if x[l] > m:
            m = x[l]
    return _payoff(S0 * math.exp(SIGMA * m))


def driver(t, x, y, z, d):
    s = 0.0
    for l in range(d):
        s += z[l]
    s /= SIGMA
    return -R_L * y - (MU - R_L) * s + (R_B - R_L) * max(s - y, 0.0)


def forward(t, x, dw, dt, d):
    # xi = ln(S/S0)/sigma: a Brownian motion with drift (mu - sigma^2/2)/sigma, exact step
    b = (MU - 0.5 * SIGMA * SIGMA) / SIGMA * dt
    for l in range(d):
        x[l] += b + dw[l]


def forward_moments(t, x0, d):
    """Mean and standard deviation per axis of xi_t = x0 + b t + W_t (plain Python; for adapted strata)."""
    return x0 + (MU - 0.5 * SIGMA * SIGMA) / SIGMA * t, math.sqrt(t)


# --------------------------------------------------------------------------- references (NumPy/SciPy)


def to_price(xi):
    """S = S0 exp(sigma xi)."""
    return S0 * np.exp(SIGMA * np.asarray(xi, dtype=float))


def _prob_max_above(k, s, tau, rate):
    """P(max_l S_l(T) > k) under drift ``rate`` from prices s (n, d), time to maturity tau > 0."""
    from scipy.special import log_ndtr

    dl = (np.log(k / s) - (rate - 0.5 * SIGMA**2) * tau) / (SIGMA * np.sqrt(tau))
    return -np.expm1(np.sum(log_ndtr(dl), axis=-1))


def linear_price(x0=X0, d=1, rate=R_L, t=0.0, n=20001):
    """Price with the single rate ``rate`` at xi = x0 (1,...,1): e^{-r tau} (C(120) - 2 C(150)),
    C(K) = E[(M - K)^+] = int_K^inf P(M > m) dm by Simpson's rule in ln m (n points, to K e^3)."""
    tau = MATURITY - t
    s = to_price(np.full((1, d), float(x0)))

    def call(k):
        w = np.linspace(0.0, 3.0, n)  # m = k e^w; P(M > k e^3) < 1e-40 here
        f = _prob_max_above(k * np.exp(w)[:, None], s, tau, rate) * k * np.exp(w)
        h = w[1] - w[0]
        return h / 3.0 * (f[0] + f[-1] + 4.0 * f[1:-1:2].sum() + 2.0 * f[2:-1:2].sum())

    return float(np.exp(-rate * tau) * (call(K1) - 2.0 * call(K2)))


def u_reference(x0=X0, d=1, n_paths=200_000, n_steps=100, seed=19950101, policy_rate=R_L, cv_rate=R_B, batch=50_000):
    """Monte-Carlo lower bound of u(0, x0 (1,...,1)): (value, standard error).  See the module docstring.

    The feedback borrows (rate R_b) on [t_k, t_{k+1}) where 120 P(M > 120) > 300 P(M > 150) under the
    drift ``policy_rate`` from S(t_k) (the hedge of the linear ``policy_rate``-price), else lends (R_l).
    Assets step exactly under the chosen drift; the payoff is discounted by the rates used.  Control
    variate: the same Brownian increments drive a second copy of the assets under the constant rate
    ``cv_rate``, whose price is known (``linear_price``); the estimator is
    linear_price + mean(policy payoff - constant-rate payoff), unbiased, with a much smaller variance
    because the two copies differ only through a drift difference <= R_b - R_l.  NumPy PCG64 stream of
    ``seed`` in batches of ``batch`` paths."""
    rng = np.random.default_rng(seed)
    dt = MATURITY / n_steps
    sq = SIGMA * np.sqrt(dt)
    s1 = s2 = 0.0
    done = 0
    log0 = np.log(S0) + SIGMA * float(x0)
    while done < n_paths:
        n = min(batch, n_paths - done)
        logs = np.full((n, d), log0)
        disc = np.zeros(n)
        dw = np.zeros((n, d))  # sum of the increments, for the constant-rate copy
        for k in range(n_steps):
            tau = MATURITY - k * dt
            s = np.exp(logs)
            borrow = K1 * _prob_max_above(K1, s, tau, policy_rate) > 2.0 * K2 * _prob_max_above(K2, s, tau, policy_rate)
            r = np.where(borrow, R_B, R_L)
            inc = sq * rng.standard_normal((n, d))
            logs += ((r - 0.5 * SIGMA**2) * dt)[:, None] + inc
            dw += inc
            disc += r * dt
        m = np.exp(logs.max(axis=1))
        v = np.exp(-disc) * (np.maximum(m - K1, 0.0) - 2.0 * np.maximum(m - K2, 0.0))
        mc = np.exp((log0 + (cv_rate - 0.5 * SIGMA**2) * MATURITY + dw).max(axis=1))
        v -= np.exp(-cv_rate * MATURITY) * (np.maximum(mc - K1, 0.0) - 2.0 * np.maximum(mc - K2, 0.0))
        s1 += v.sum()
        s2 += (v * v).sum()
        done += n
    mean = s1 / n_paths
    var = max(s2 / n_paths - mean * mean, 0.0) * n_paths / (n_paths - 1)
    return float(linear_price(x0, d, cv_rate) + mean), float(np.sqrt(var / n_paths))


def _fd_1d(x0, t, n_space, n_time, half_width=2.0):
    """One implicit-Euler/Howard solve of the d = 1 PDE in y = ln S on [ln S0 - hw, ln S0 + hw]."""
    from scipy.linalg import solve_banded

    tau_total = MATURITY - t
    # grid with ln K1 on a node
    h = 2.0 * half_width / n_space
    lo = math.log(K1) - h * math.ceil((math.log(K1) - (math.log(S0) - half_width)) / h)
    y = lo + h * np.arange(n_space + 1)
    s = np.exp(y)
    u = np.maximum(s - K1, 0.0) - 2.0 * np.maximum(s - K2, 0.0)
    # cell average of the payoff around the K2 kink when it is off the grid (second-order smoothing)
    j = int(np.searchsorted(y, math.log(K2)))
    for i in (j - 1, j):
        a, b = y[i] - h / 2, y[i] + h / 2
        ys = np.linspace(a, b, 2001)
        gs = np.maximum(np.exp(ys) - K1, 0) - 2 * np.maximum(np.exp(ys) - K2, 0)
        u[i] = np.trapezoid(gs, ys) / h
    dt = tau_total / n_time
    a2 = 0.5 * SIGMA**2 / h**2
    a1 = 1.0 / (2.0 * h)
    inner = slice(1, n_space)
    policy = np.full(n_space - 1, R_L)
    for k in range(1, n_time + 1):
        tau = k * dt
        rhs = u[inner].copy()
        lo_bc = 0.0
        hi_bc = 180.0 * math.exp(-R_L * tau) - s[-1]
        for _ in range(50):
            # (I - dt L) u = rhs, L u = a2 D2 u + (r - sigma^2/2) D1 u - r u
            b = policy - 0.5 * SIGMA**2
            lower = -dt * (a2 - b * a1)  # coefficient of u_{i-1}
            upper = -dt * (a2 + b * a1)  # coefficient of u_{i+1}
            diag = 1.0 + dt * (2.0 * a2 + policy)
            rr = rhs.copy()
            rr[0] -= lower[0] * lo_bc
            rr[-1] -= upper[-1] * hi_bc
            ab = np.zeros((3, n_space - 1))
            ab[0, 1:] = upper[:-1]
            ab[1] = diag
            ab[2, :-1] = lower[1:]
            new = solve_banded((1, 1), ab, rr)
            full = np.concatenate(([lo_bc], new, [hi_bc]))
            borrow = (full[2:] - full[:-2]) * a1 - new > 0.0
            new_policy = np.where(borrow, R_B, R_L)
            if np.array_equal(new_policy, policy):
                break
            policy = new_policy
        u = full
    yq = math.log(S0) + SIGMA * x0
    i = int(np.searchsorted(y, yq)) - 1
    # cubic (4-point Lagrange) interpolation at yq
    idx = np.arange(i - 1, i + 3)
    xs, fs = y[idx], u[idx]
    val = 0.0
    for a in range(4):
        w = 1.0
        for b in range(4):
            if b != a:
                w *= (yq - xs[b]) / (xs[a] - xs[b])
        val += w * fs[a]
    return val


def _fd_extrapolated(x0, t, n_space, n_time):
    """Richardson: implicit Euler is first order in time, the central scheme second order in space."""
    a = _fd_1d(x0, t, n_space, n_time)
    b = _fd_1d(x0, t, n_space, 2 * n_time)
    c = _fd_1d(x0, t, 2 * n_space, 2 * n_time)
    return (2.0 * b - a) + 4.0 / 3.0 * (c - b)


def u_reference_fd(x0=X0, t=0.0, n_space=1000, n_time=500):
    """u(t, x0) for d = 1 by finite differences (``_fd_1d``), Richardson-extrapolated in time and space
    at two base resolutions (n_space, n_time) and twice those.  Returns (value at the finer one, error
    estimate = difference of the two extrapolated values).  About 1 s with the defaults."""
    coarse = _fd_extrapolated(x0, t, n_space, n_time)
    fine = _fd_extrapolated(x0, t, 2 * n_space, 2 * n_time)
    return float(fine), float(abs(fine - coarse))


def _fd_2d(x0, n_space, n_time, half_width=1.5):
    """One solve of the d = 2 PDE in (ln S_1, ln S_2) on [ln S0 - hw, ln S0 + hw]^2: implicit Euler for
    the linear R_l operator (one sparse LU), the nonlinear part (R_b - R_l)(s - u)^+ explicit (IMEX,
    first order in time), central differences; Neumann du/dy_l = 0 on the low faces (S_l = 22: u does
    not depend on S_l there), Dirichlet u = 180 e^{-R_l tau} - max S on the high faces (S = 448: the
    claim is then the short forward 180 - max S, hedged by lending)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import splu

    h = 2.0 * half_width / n_space
    lo = math.log(K1) - h * math.ceil((math.log(K1) - (math.log(S0) - half_width)) / h)
    y = lo + h * np.arange(n_space + 1)  # nodes 0..n-1 unknown, node n Dirichlet
    n = n_space
    s = np.exp(y)
    mx = np.maximum(s[:n, None], s[None, :n])
    u = (np.maximum(mx - K1, 0.0) - 2.0 * np.maximum(mx - K2, 0.0)).ravel()
    dt = MATURITY / n_time
    s2 = 0.5 * SIGMA**2
    e = np.ones(n)
    d2 = sp.diags([e[:-1], -2.0 * e, e[:-1]], [-1, 0, 1], format="lil")
    d2[0, 1] = 2.0  # ghost node -1 = node 1 (Neumann)
    d1 = sp.diags([-e[:-1], e[:-1]], [-1, 1], format="lil")
    d1[0, 1] = 0.0
    d2 = d2.tocsr() / h**2
    d1 = d1.tocsr() / (2.0 * h)
    eye = sp.identity(n, format="csr")
    lap = sp.kron(d2, eye) + sp.kron(eye, d2)
    grad = sp.kron(d1, eye) + sp.kron(eye, d1)
    big = sp.identity(n * n, format="csr")
    lu = splu((big - dt * (s2 * lap + (R_L - s2) * grad - R_L * big)).tocsc())
    cb = dt * (s2 / h**2 + (R_L - s2) / (2.0 * h))  # weight of the Dirichlet node in the last row

    def face(tau):
        return 180.0 * math.exp(-R_L * tau) - np.maximum(s[n], s[:n])

    for k in range(1, n_time + 1):
        U = u.reshape(n, n)
        ext = np.empty((n + 1, n + 1))
        ext[:n, :n] = U
        ext[n, :n] = ext[:n, n] = face((k - 1) * dt)
        ext[n, n] = 180.0 * math.exp(-R_L * (k - 1) * dt) - s[n]
        g1 = np.zeros((n, n))
        g2 = np.zeros((n, n))
        g1[1:, :] = (ext[2:, :n] - ext[: n - 1, :n]) / (2.0 * h)
        g2[:, 1:] = (ext[:n, 2:] - ext[:n, : n - 1]) / (2.0 * h)
        rhs = U + dt * (R_B - R_L) * np.maximum(g1 + g2 - U, 0.0)
        fb = face(k * dt)
        rhs[n - 1, :] += cb * fb
        rhs[:, n - 1] += cb * fb
        u = lu.solve(rhs.ravel())
    U = u.reshape(n, n)
    yq = math.log(S0) + SIGMA * x0
    i = int(np.searchsorted(y, yq)) - 1
    idx = np.arange(i - 1, i + 3)
    w = np.array([np.prod([(yq - y[b]) / (y[a] - y[b]) for b in idx if b != a]) for a in idx])
    return float(w @ U[np.ix_(idx, idx)] @ w)


def u_reference_fd2(x0=X0, n_space=200, n_time=100):
    """u(0, (x0, x0)) for d = 2 by finite differences (``_fd_2d``), Richardson-extrapolated (first order in
    time, second in space) at base resolutions (n_space/2, n_time/2) and (n_space, n_time).  Returns
    (value at the finer, error estimate = difference of the two).  About 15 s with the defaults."""

    def extrapolated(ns, nt):
        a = _fd_2d(x0, ns, nt)
        b = _fd_2d(x0, ns, 2 * nt)
        c = _fd_2d(x0, 2 * ns, 2 * nt)
        return (2.0 * b - a) + 4.0 / 3.0 * (c - b)

    fine = extrapolated(n_space, n_time)
    coarse = extrapolated(n_space // 2, n_time // 2)
    return float(fine), float(abs(fine - coarse))
