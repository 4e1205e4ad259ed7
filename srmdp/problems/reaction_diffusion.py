"""Reaction-diffusion equation with an oscillating explicit solution.

PDE (t in [0, T), x in R^d), X = W:

    du/dt + 1/2 Lap u + min{1, (u - kappa - 1 - sin(lam sum_l x_l) exp(lam^2 d (t - T) / 2))^2} = 0,
    u(T, x) = 1 + kappa + sin(lam sum_l x_l).

BSDE: forward X_t = x + W_t (the default forward step, X = W), driver

    f(t, x, y, z) = min{1, (y - kappa - 1 - sin(lam sum_l x_l) exp(lam^2 d (t - T) / 2))^2}

(independent of z), terminal g(x) = 1 + kappa + sin(lam sum_l x_l).

Explicit solution: u(t, x) = 1 + kappa + sin(lam S) exp(lam^2 d (t - T) / 2), S = sum_l x_l; z = grad u
(sigma = I), every component z_l = lam cos(lam S) exp(lam^2 d (t - T) / 2).  The oscillating part solves
the heat equation du/dt + 1/2 Lap u = 0 and the driver vanishes on the solution, but a scheme only sees
f through its approximation of y, so errors in y feed back through a reaction term that is Lipschitz
with constant <= 2 (the min{1, .} keeps it bounded).

Parameters (as in the deep-BSDE benchmark): kappa = 0.6, lam = 1/sqrt(d) (so lam^2 d = 1 and the
solution's scale does not depend on d), T = 1, x0 = 0 where u(0, 0) = 1 + kappa = 1.6 exactly.

Source: E, Han & Jentzen, "Deep learning-based numerical methods for high-dimensional parabolic PDEs
and BSDEs", Comm. Math. Stat. 5 (2017) 349-380, Section 4.7 ("time-dependent reaction-diffusion-type
example PDE with oscillating explicit solutions"; d = 100 there), which takes it, in higher dimension,
from the numerical section of Gobet & Turkedjiev (their 1-d/low-d example; the exact Gobet-Turkedjiev
paper and section were not re-checked here). The same parameters are in the reference implementation
github.com/frankhan91/DeepBSDE (equation.py, class ReactionDiffusion; T = 1, 30 time steps, d = 100).

Strata: the default box [-6.5, 6.5]^d; the solution is bounded (0.6 <= u <= 2.6, |z| <= 1).
"""

import math

import numpy as np

MATURITY = 1.0
X0 = 0.0
KAPPA = 0.6


def _lam(d):
    # lam = 1/sqrt(d)
    return 1.0 / math.sqrt(d)


def _oscillation(t, x, d):
    # sin(lam sum x) exp(lam^2 d (t - T)/2) = sin(S / sqrt(d)) exp((t - T)/2)
    s = 0.0
    for l in range(d):
        s += x[l]
    return math.sin(_lam(d) * s) * math.exp(0.5 * (t - MATURITY))


def terminal(T, x, d):
    s = 0.0
    for l in range(d):
        s += x[l]
    return 1.0 + KAPPA + math.sin(_lam(d) * s)


def driver(t, x, y, z, d):
    e = y - KAPPA - 1.0 - _oscillation(t, x, d)
    return min(1.0, e * e)


def driver_yy(t, x, y, z, d):
    # d2f/dy^2 (the curvature correction, srmdp.problems.curvature): 2 where (y - y*)^2 < 1, 0 where min{1, .} is 1
    e = y - KAPPA - 1.0 - _oscillation(t, x, d)
    return 2.0 if e * e < 1.0 else 0.0


def driver_zz(t, x, y, z, l, d):
    # f does not depend on z
    return 0.0


def y_exact(t, x, d):
    return 1.0 + KAPPA + _oscillation(t, x, d)


def z_exact(t, x, out, d):
    s = 0.0
    for l in range(d):
        s += x[l]
    lam = _lam(d)
    c = lam * math.cos(lam * s) * math.exp(0.5 * (t - MATURITY))
    for l in range(d):
        out[l] = c


def solution(t, X):
    """Vectorised exact (y (n,), z (n, d)) at time t for points X of shape (n, d)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    d = X.shape[1]
    lam = 1.0 / np.sqrt(d)
    s = lam * X.sum(axis=1)
    e = np.exp(0.5 * (t - MATURITY))
    y = 1.0 + KAPPA + np.sin(s) * e
    z = np.repeat((lam * np.cos(s) * e)[:, None], d, axis=1)
    return y, z


def u_reference(x0=X0, d=1):
    """u(0, x0 (1,...,1)) from the explicit solution, standard error 0 (exact)."""
    y, _ = solution(0.0, np.full((1, d), float(x0)))
    return float(y[0]), 0.0
