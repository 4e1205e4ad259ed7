"""How far from a value a mean of few runs may fall: Student's t quantiles without SciPy (the interval of the
equivalence rule, :mod:`srmdp.paper.models.equivalence`; :func:`z_limit`)."""

import math

import numpy as np


def t_quantile(p: float, df: int) -> float:
    """The p-quantile (p in (0.5, 1)) of Student's t with ``df`` degrees of freedom, to about 1e-9.

    Computed without SciPy: with t = sqrt(df) tan(theta) the t density becomes proportional to
    cos^(df-1)(theta) on [0, pi/2); its integral (Simpson's rule) is inverted by bisection."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df >= 1, got p={p!r}, df={df!r}")

    def integral(x):  # of cos^(df-1) from 0 to x (Simpson, 2000 intervals)
        xs = np.linspace(0.0, x, 2001)
        ys = np.cos(xs) ** (df - 1)
        return float((xs[1] - xs[0]) / 3 * (ys[0] + ys[-1] + 4 * ys[1:-1:2].sum() + 2 * ys[2:-1:2].sum()))

    half = integral(math.pi / 2)  # P(0 < t) = 1/2
    lo, hi = 0.0, math.pi / 2
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if integral(mid) / half < 2 * p - 1 else (lo, mid)
    return math.sqrt(df) * math.tan(0.5 * (lo + hi))


NORMAL_3SIGMA = 0.9986501019683699  # Phi(3): |z| <= 3 holds with probability 0.9973 for a normal z


def z_limit(runs: int, sigmas: float = 3.0) -> float:
    """How many standard errors a mean of ``runs`` runs may lie from the truth with the same two-sided
    probability as ``sigmas`` for a normal variable (0.9973 for 3): the t-quantile with runs - 1 degrees of
    freedom (the standard error itself is estimated from the runs).  inf for fewer than 2 runs."""
    if runs < 2:
        return math.inf
    p = NORMAL_3SIGMA if sigmas == 3.0 else 0.5 * (1 + math.erf(sigmas / math.sqrt(2)))
    return t_quantile(p, runs - 1)
