"""Hamilton-Jacobi-Bellman equation of a linear-quadratic-Gaussian control problem.

PDE (t in [0, T), x in R^d):

    du/dt + Lap u - lam |grad u|^2 = 0,        u(T, x) = g(x) = ln((1 + |x|^2) / 2).

It is the HJB equation of  min_m E[ int_t^T |m_s|^2 ds + g(X_T) ],  dX = 2 sqrt(lam) m dt + sqrt(2) dW.

BSDE: forward X_t = x + sqrt(2) W_t (``forward``: x += sqrt(2) dw), so sigma = sqrt(2) I and
z = sigma^T grad u = sqrt(2) grad u; driver

    f(t, x, y, z) = -lam |grad u|^2 = -(lam / 2) |z|^2,

terminal g.  (Caution when comparing with published code: github.com/frankhan91/DeepBSDE, class HJBLQ,
writes the driver as -lam |z|^2 with the same z = sigma^T grad u, which is the PDE above with 2 lam in
place of lam.  At d = 100 the two give nearly the same u(0, 0) (4.5800 vs 4.5902: |X_T|^2
concentrates, u ~ g), at d <= 12 they do not (d = 4: 0.8888 vs 1.1014): ``u_quadrature(..., lam=2.0)``.)

Reference (no closed form for u, but a Cole-Hopf representation): v = exp(-lam u) solves the heat
equation dv/dt + Lap v = 0, so

    u(t, x) = -(1/lam) ln E[ exp(-lam g(x + sqrt(2) W_{T-t})) ] = -(1/lam) ln E[ (2 / (1 + Q))^lam ],
    Q = |x + sqrt(2 (T-t)) G|^2,  G ~ N(0, I_d).

* ``u_reference``: plain Monte-Carlo of that expectation with its standard error (delta method), as
  the deep-BSDE papers do;
* ``u_quadrature``: the same expectation as a 1-d integral (Laplace transform of the non-central
  chi-square law of Q, see ``reference_solution``), relative accuracy ~1e-13 (checked against scipy's
  adaptive quadrature of the non-central chi-square density in the tests);
* ``reference_solution(t, X)``: (y, z) at any points by that quadrature (z from differentiating under
  the integral), for error indicators on the whole domain (not a kernel function: no ``y_exact``).

Parameters (Han, Jentzen & E, PNAS 115 (2018) 8505-8510, "Overcoming the curse of dimensionality"):
lam = 1, T = 1, x0 = 0 (d = 100 there).  Published for d = 100: u(0, 0) ~ 4.5901 (Monte-Carlo with
the Cole-Hopf formula), deep BSDE relative error 0.17 % (both recalled from that paper, not re-checked
here); ``u_quadrature(0, 100)`` = 4.5901617, consistent with the first.

Strata: the default box [-6.5, 6.5]^d; u grows like ln|x|^2 and |z| <= sqrt(2) (grad u is an average of
grad g under a tilted law, and |grad g| = 2|x|/(1+|x|^2) <= 1), so the driver is bounded on the solution.
"""

import math

import numpy as np

MATURITY = 1.0
X0 = 0.0
LAM = 1.0
SQRT2 = math.sqrt(2.0)


def terminal(T, x, d):
    s = 0.0
    for l in range(d):
        s += x[l] * x[l]
    return math.log(0.5 * (1.0 + s))


def driver(t, x, y, z, d):
    s = 0.0
    for l in range(d):
        s += z[l] * z[l]
    return -0.5 * LAM * s


def driver_zz(t, x, y, z, l, d):
    # d2f/dz_l^2 (the curvature correction, srmdp.problems.curvature)
    return -LAM


def forward(t, x, dw, dt, d):
    # X = x + sqrt(2) W: exact
    for l in range(d):
        x[l] += SQRT2 * dw[l]


def forward_moments(t, x0, d):
    """Mean and standard deviation per axis of X_t = x0 + sqrt(2) W_t (plain Python; for adapted strata)."""
    return x0, math.sqrt(2.0 * t)


# --------------------------------------------------------------------------- references (NumPy)


def u_reference(x0=X0, d=1, n_paths=1_000_000, seed=20160101, t=0.0, lam=LAM, batch=200_000):
    """u(t, x0 (1,...,1)) by plain Monte-Carlo of the Cole-Hopf formula: (value, standard error).

    The mean m of (2/(1+Q))^lam is estimated from ``n_paths`` i.i.d. samples (NumPy PCG64 stream of
    ``seed``, drawn in batches of ``batch`` so memory stays ~ batch x d doubles); u = -ln(m)/lam and its
    standard error is the delta method's sd(h) / (sqrt(n) m lam)."""
    rng = np.random.default_rng(seed)
    tau = MATURITY - t
    x = np.full(d, float(x0))
    s1 = s2 = 0.0
    done = 0
    while done < n_paths:
        n = min(batch, n_paths - done)
        q = np.sum((x + np.sqrt(2.0 * tau) * rng.standard_normal((n, d))) ** 2, axis=1)
        h = (2.0 / (1.0 + q)) ** lam
        s1 += h.sum()
        s2 += (h * h).sum()
        done += n
    m = s1 / n_paths
    var = max(s2 / n_paths - m * m, 0.0) * n_paths / (n_paths - 1)
    return float(-np.log(m) / lam), float(np.sqrt(var / n_paths) / (m * lam))


def _laplace_nodes(lam, h=0.05):
    """Trapezoid nodes v (step h) and weights for int_0^inf s^(lam-1) e^-s F(s) ds / Gamma(lam), s = e^v.

    The integrand e^(lam v) e^(-e^v) F(e^v) is analytic in the strip |Im v| < pi/2 for the F used here
    (its singularity is on Im v = pi), decays like e^(lam v) on the left and doubly exponentially on the
    right, so the trapezoid rule's error is ~ exp(-pi^2 / h) plus the truncation at e^(lam v) < 1e-18."""
    v = np.arange(-42.0 / lam, 4.0 + h, h)
    s = np.exp(v)
    w = h * np.exp(lam * v - s) / math.gamma(lam)
    return s, w


def reference_solution(t, X, lam=LAM):
    """(y (n,), z (n, d)) at time t for points X (n, d) from the Cole-Hopf formula, by quadrature.

    (1 + Q)^-lam = int_0^inf s^(lam-1) e^(-s (1+Q)) ds / Gamma(lam) and, for Q = |x + a G|^2 with
    a^2 = 2 (T - t), E[e^(-s Q)] = (1 + 2 s a^2)^(-d/2) exp(-s |x|^2 / (1 + 2 s a^2)), so
    m = E[(2/(1+Q))^lam] is a 1-d integral over s (``_laplace_nodes``), and so is dm/d|x|;
    u = -ln(m)/lam, z = sqrt(2) grad u = sqrt(2) (x/|x|) du/d|x|.  Relative accuracy ~1e-13."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    n, d = X.shape
    tau = MATURITY - t
    rho2 = np.sum(X * X, axis=1)
    if tau <= 0.0:
        return np.log(0.5 * (1.0 + rho2)), SQRT2 * 2.0 * X / (1.0 + rho2)[:, None]
    s, w = _laplace_nodes(lam)
    b = 1.0 + 2.0 * tau * 2.0 * s  # 1 + 2 s a^2
    lap = b[None, :] ** (-0.5 * d) * np.exp(-s[None, :] * rho2[:, None] / b[None, :])  # E e^{-sQ}, (n, nodes)
    m = 2.0**lam * (lap @ w)
    # d m / d(|x|^2) = 2^lam int ... (-s / b) ...; du/dx_l = -(1/lam) (dm/d|x|^2) 2 x_l / m
    dm_drho2 = 2.0**lam * ((lap * (-s / b)[None, :]) @ w)
    y = -np.log(m) / lam
    grad = (-(1.0 / lam) * dm_drho2 / m * 2.0)[:, None] * X
    return y, SQRT2 * grad


def u_quadrature(x0=X0, d=1, t=0.0, lam=LAM):
    """u(t, x0 (1,...,1)) by quadrature (``reference_solution``), accurate to ~1e-13 relative."""
    y, _ = reference_solution(t, np.full((1, d), float(x0)), lam=lam)
    return float(y[0])
