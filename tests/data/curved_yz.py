"""A user's problem with a driver curved in y and in z whose curvature terms cancel on the true solution.

u(t, x) = K (T - t) + 1/2 + w(t, x),  w = (1/2) exp((t - T)/2) (cos S1 + sin S2),
S1 = sum_l x_l / sqrt(d),  S2 = sum_l (-1)^l x_l / sqrt(d),  X = W.

w solves the heat equation (dw/dt + Lap w / 2 = 0: each phase is a unit direction), so du/dt + Lap u / 2 = -K,
and the driver

    f(t, x, y, z) = K - (LAM / 2) (y^2 - u(t, x)^2) - (MU / 2) (|z|^2 - |grad u(t, x)|^2)

equals K on the solution (y = u, z = grad u): du/dt + Lap u / 2 + f(t, x, u, grad u) = 0, u(T, .) = 1/2 + w(T, .).
Its second derivatives are -LAM in y and -MU I in z, so a noisy estimate fed to it biases y (E f(y^) - f(y) =
-(LAM/2) Var y^ - (MU/2) tr Cov z^).  u(0, 0) = K T + 1/2 + exp(-T/2) / 2.  Written for the held-out coverage of
the error estimate (srmdp/problems/README.md); constructed for this project.
"""

import math

import numpy as np

MATURITY = 1.0
K = 0.5
LAM = 1.0
MU = 1.0


def _phases(x, d):
    s1 = 0.0
    s2 = 0.0
    for l in range(d):
        s1 += x[l]
        if l % 2 == 0:
            s2 += x[l]
        else:
            s2 -= x[l]
    r = 1.0 / math.sqrt(d)
    return s1 * r, s2 * r


def y_exact(t, x, d):
    s1, s2 = _phases(x, d)
    return K * (MATURITY - t) + 0.5 + 0.5 * math.exp(0.5 * (t - MATURITY)) * (math.cos(s1) + math.sin(s2))


def z_exact(t, x, out, d):
    s1, s2 = _phases(x, d)
    c = 0.5 * math.exp(0.5 * (t - MATURITY)) / math.sqrt(d)
    for l in range(d):
        if l % 2 == 0:
            out[l] = c * (-math.sin(s1) + math.cos(s2))
        else:
            out[l] = c * (-math.sin(s1) - math.cos(s2))


def terminal(T, x, d):
    return y_exact(T, x, d)


def driver(t, x, y, z, d):
    s1, s2 = _phases(x, d)
    c = 0.5 * math.exp(0.5 * (t - MATURITY)) / math.sqrt(d)
    u = K * (MATURITY - t) + 0.5 + 0.5 * math.exp(0.5 * (t - MATURITY)) * (math.cos(s1) + math.sin(s2))
    zz = 0.0
    gg = 0.0
    for l in range(d):
        g = c * (-math.sin(s1) + (math.cos(s2) if l % 2 == 0 else -math.cos(s2)))
        zz += z[l] * z[l]
        gg += g * g
    return K - 0.5 * LAM * (y * y - u * u) - 0.5 * MU * (zz - gg)


def solution(t, X):
    """Vectorised exact (y (n,), z (n, d)) at time t for points X of shape (n, d)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    d = X.shape[1]
    sign = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    s1 = X.sum(axis=1) / np.sqrt(d)
    s2 = X @ sign / np.sqrt(d)
    e = 0.5 * np.exp(0.5 * (t - MATURITY))
    y = K * (MATURITY - t) + 0.5 + e * (np.cos(s1) + np.sin(s2))
    z = (e / np.sqrt(d)) * (-np.sin(s1)[:, None] + sign[None, :] * np.cos(s2)[:, None])
    return y, z
