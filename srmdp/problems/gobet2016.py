"""The paper's test problem (§5.1): a semilinear PDE in d = q dimensions with an explicit solution.

Forward SDE X = W (the default ``forward``); terminal g(x) = w(T, x) / (1 + w(T, x)) with
w(t, x) = exp(t + sum_k x_k); driver f(t, x, y, z) = (sum_k z_k)(y - (2 + q)/(2q)).  The solution is
y(t, x) = w/(1 + w) and z_k(t, x) = w/(1 + w)^2, so |y| <= 1 and |z_k| <= 1/4.

A problem module like any other (see :mod:`srmdp.problems`): plain functions, compiled by the
package for the CPU and the GPU.
"""

import math

import numpy as np

MATURITY = 1.0
BOX_HALF_WIDTH = 6.5  # the strata cover [-6.5, 6.5]^d (§5.1)
X0 = 0.0


def sigmoid(s):
    """1/(1 + e^-s) without overflow for any s (e^s of t + sum x overflows float32 beyond 88)."""
    if s >= 0.0:
        return 1.0 / (1.0 + math.exp(-s))
    e = math.exp(s)
    return e / (1.0 + e)


def terminal(T, x, d):
    s = T  # g(x) = w(T,x) / (1 + w(T,x)) as a sigmoid of T + sum x
    for l in range(d):
        s += x[l]
    return sigmoid(s)


def driver(t, x, y, z, d):
    zs = 0.0  # f(t,x,y,z) = (sum_k z_k) (y - (2+q)/(2q)),  q = d
    for l in range(d):
        zs += z[l]
    return zs * (y - (2.0 + d) / (2.0 * d))


def y_exact(t, x, d):
    s = t  # y(t,x) = w/(1+w)
    for l in range(d):
        s += x[l]
    return sigmoid(s)


def z_exact(t, x, out, d):
    s = t  # z_k(t,x) = w/(1+w)^2 = s(1-s) with s = sigmoid(t + sum x), every component equal
    for l in range(d):
        s += x[l]
    p = sigmoid(s)
    q = sigmoid(-s)
    for l in range(d):
        out[l] = p * q


def solution(t, x):
    """Vectorised exact (y, z) for points x of shape (..., d) (plain NumPy; tests and reports)."""
    s = np.asarray(t + np.sum(x, axis=-1), dtype=float)
    with np.errstate(under="ignore"):  # e^-|s| underflows to 0 beyond |s| ~ 745: the right limit
        e = np.exp(-np.abs(s))  # stable sigmoid: full relative precision in both tails
        y = np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        zc = e / (1.0 + e) ** 2  # s(1 - s), symmetric in s
    z = np.repeat(zc[..., None], x.shape[-1], axis=-1)
    return y, z
