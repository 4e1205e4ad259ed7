"""The BSDE interface and the paper's test problem (§5.1).

A problem supplies, through ``make(jit)``, five functions compiled for the CPU or the GPU:

* ``terminal(T, x, d)``            g(x)
* ``driver(t, x, y, z, d)``        f(t, x, y, z), z of length q = d
* ``forward(t, x, dw, dt, d)``     one step of X in place, given the Brownian increment dw
* ``y_exact(t, x, d)``             y(t, x) (for the error indicators; NaN when unknown)
* ``z_exact(t, x, out, d)``        z(t, x) into ``out``

The solver only calls these, so another BSDE plugs in by writing another :class:`Problem`.
Shared-code rules apply: scalars, arrays passed in and ``math`` only.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Problem:
    name: str
    maturity: float
    make: Callable  # make(jit) -> (terminal, driver, forward, y_exact, z_exact)
    y_bound: float = math.inf  # |y| <= y_bound (sup of |y|), used only in documentation/checks
    z_bound: float = math.inf


def _make_paper(jit):
    @jit
    def sigmoid(s):
        if s >= 0.0:
            return 1.0 / (1.0 + math.exp(-s))
        e = math.exp(s)
        return e / (1.0 + e)

    @jit
    def terminal(T, x, d):
        # g(x) = w(T,x) / (1 + w(T,x)),  w(t,x) = exp(t + sum_k x_k)
        s = T
        for l in range(d):
            s += x[l]
        return sigmoid(s)

    @jit
    def driver(t, x, y, z, d):
        # f(t,x,y,z) = (sum_k z_k) (y - (2+q)/(2q)),  q = d
        zs = 0.0
        for l in range(d):
            zs += z[l]
        return zs * (y - (2.0 + d) / (2.0 * d))

    @jit
    def forward(t, x, dw, dt, d):
        # X = W: X_{j+1} = X_j + Delta W_j
        for l in range(d):
            x[l] += dw[l]

    @jit
    def y_exact(t, x, d):
        # y(t,x) = w/(1+w), computed as a sigmoid: no overflow of w in float32 or float64
        s = t
        for l in range(d):
            s += x[l]
        return sigmoid(s)

    @jit
    def z_exact(t, x, out, d):
        # z_k(t,x) = w/(1+w)^2 = s(1-s) with s = sigmoid(t + sum x), every component equal
        s = t
        for l in range(d):
            s += x[l]
        p = sigmoid(s)
        q = sigmoid(-s)
        for l in range(d):
            out[l] = p * q

    return terminal, driver, forward, y_exact, z_exact


PAPER = Problem(name="gobet2016", maturity=1.0, make=_make_paper, y_bound=1.0, z_bound=0.25)


def paper_solution(t, x):
    """Vectorised exact (y, z) of the paper's problem for points x of shape (..., d) (tests)."""
    s = np.asarray(t + np.sum(x, axis=-1), dtype=float)
    with np.errstate(under="ignore"):  # e^-|s| underflows to 0 beyond |s| ~ 745: the right limit
        e = np.exp(-np.abs(s))  # stable sigmoid: full relative precision in both tails
        y = np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        zc = e / (1.0 + e) ** 2  # s(1 - s), symmetric in s
    z = np.repeat(zc[..., None], x.shape[-1], axis=-1)
    return y, z


PROBLEMS = {PAPER.name: PAPER}
