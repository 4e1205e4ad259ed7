"""A BSDE with a driver quadratic in z and a bounded explicit solution (constructed by Cole-Hopf).

PDE (t in [0, T), x in R^d), X = W:

    du/dt + 1/2 Lap u + (a/2) |grad u|^2 = 0,        u(T, x) = g(x) = (1/a) ln v(T, x),

BSDE: forward X = W (default step), driver f(t, x, y, z) = (a/2) |z|^2 (quadratic growth in z, the
class of Kobylanski's quadratic BSDEs; not globally Lipschitz), terminal g.

Explicit solution: if v > 0 solves the heat equation dv/dt + 1/2 Lap v = 0, then u = (1/a) ln v solves the
PDE above (Cole-Hopf: d/dt u + 1/2 Lap u = (dv/dt + 1/2 Lap v)/(a v) - |grad v|^2/(2 a v^2) and
(a/2)|grad u|^2 = |grad v|^2/(2 a v^2)).  We take

    v(t, x) = 1 + kappa + (1/2) exp((t - T)/2) [ sin(S1) + cos(S2) ],
    S1 = (1/sqrt(d)) sum_l x_l,   S2 = (1/sqrt(d)) sum_l (-1)^l x_l      (l = 0..d-1),

each term a heat solution (the directions have unit length), so kappa <= v <= 2 + kappa and

    u = (1/a) ln v,   z_l = (grad u)_l = exp((t-T)/2) [cos(S1) - (-1)^l sin(S2)] / (2 a sqrt(d) v).

Two orthogonal directions (for d >= 2) make u a genuinely two-dimensional function of x and z's
components unequal, unlike the paper's problem and ``reaction_diffusion`` where every z_l is the same.
Bounds: ln(kappa)/a <= u <= ln(2+kappa)/a, |z| <= 1/(sqrt(2) a kappa); the quadratic term contributes
O(1) to u over [0, T] (it is not a perturbation).

Parameters: a = 1 (any a > 0 is the same problem up to u -> u/a), kappa = 0.6, T = 1, x0 = 0 where
u(0, 0) = ln(1 + kappa + exp(-1/2)/2).

Source: constructed for this project (the Cole-Hopf construction is the standard way to build quadratic
BSDEs with known solutions, cf. the examples of Chassagneux & Richou, "Numerical simulation of quadratic
BSDEs", Ann. Appl. Probab. 26 (2016); their exact test cases were not re-checked here).  Strata: the
default box [-6.5, 6.5]^d.
"""

import math

import numpy as np

MATURITY = 1.0
X0 = 0.0
A = 1.0
KAPPA = 0.6


def _phases(x, d):
    # (S1, S2): sum_l x_l / sqrt(d), sum_l (-1)^l x_l / sqrt(d)
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


def _v(t, x, d):
    s1, s2 = _phases(x, d)
    return 1.0 + KAPPA + 0.5 * math.exp(0.5 * (t - MATURITY)) * (math.sin(s1) + math.cos(s2))


def terminal(T, x, d):
    return math.log(_v(T, x, d)) / A


def driver(t, x, y, z, d):
    s = 0.0
    for l in range(d):
        s += z[l] * z[l]
    return 0.5 * A * s


def driver_zz(t, x, y, z, l, d):
    # d2f/dz_l^2 (the curvature correction, srmdp.problems.curvature)
    return A


def y_exact(t, x, d):
    return math.log(_v(t, x, d)) / A


def z_exact(t, x, out, d):
    s1, s2 = _phases(x, d)
    e = math.exp(0.5 * (t - MATURITY))
    v = 1.0 + KAPPA + 0.5 * e * (math.sin(s1) + math.cos(s2))
    c = 0.5 * e / (A * math.sqrt(d) * v)
    c1 = c * math.cos(s1)
    c2 = c * math.sin(s2)
    for l in range(d):
        if l % 2 == 0:
            out[l] = c1 - c2
        else:
            out[l] = c1 + c2


def solution(t, X):
    """Vectorised exact (y (n,), z (n, d)) at time t for points X of shape (n, d)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    d = X.shape[1]
    sign = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    s1 = X.sum(axis=1) / np.sqrt(d)
    s2 = X @ sign / np.sqrt(d)
    e = np.exp(0.5 * (t - MATURITY))
    v = 1.0 + KAPPA + 0.5 * e * (np.sin(s1) + np.cos(s2))
    y = np.log(v) / A
    c = 0.5 * e / (A * np.sqrt(d) * v)
    z = c[:, None] * (np.cos(s1)[:, None] - sign[None, :] * np.sin(s2)[:, None])
    return y, z


def u_reference(x0=X0, d=1):
    """u(0, x0 (1,...,1)) from the explicit solution, standard error 0 (exact)."""
    y, _ = solution(0.0, np.full((1, d), float(x0)))
    return float(y[0]), 0.0
