"""The refinement's error model (:mod:`srmdp.refine.refine`): which step buys the most accuracy per second.

u0 at a level (N, #C, M) is modelled as

    u0 = u* + a / N + b h^p + c N / M + noise,      h = 1 / #C,

the scheme's three biases (:mod:`srmdp.solutions.error_estimate`: the time step's first order for y, the cells' h^q,
the regression's second-order bias O(N nb / M), summed over the N regressions) and the runs' noise (the
level's s.e.).  The terms have signs of their own: on ``hjb_lq`` (d = 4, adapted strata, LP1, seed 0;
bench/own_pde/NOTES.md) a ~ +0.36, b ~ +0.3 and c ~ -3 (the quadratic driver's noise in z biases y down,
E|z^|^2 = |z|^2 + Var z^), so refining N alone at a fixed M makes the M term grow, and a Richardson value in dt at
a fixed M carries c (N + N1) / M.

:func:`fit` fits (u*, a, b, c) by least squares weighted by the levels' s.e. to the completed levels of the
answer's #C parity (x0's place in its cell, :mod:`srmdp.solutions.error_estimate`) with N >= 2 and #C >= 2 (the
coarsest levels are not in the asymptotic regime); a term is fitted only where the levels vary in it, and the
fit needs a residual degree of freedom.  The cells' order p is the basis's q (1 for LP0, 2 for LP1 and LP2d)
unless the levels hold >= 3 values of #C and a degree of freedom more: then p is fitted too, on :data:`P_GRID`
(the smallest chi^2; ``model["p"]``).  With the driver's curvature corrected c is near 0: it is
fitted all the same, and its |c| N / M then adds little to a prediction.  :func:`predicted_error` is the
model's error of a plain value or of a Richardson value at a level: the terms' absolute values summed (no
cancellation between terms is counted on: the fit is noisy) and combined with the value's s.e.  The model
chooses steps only; the answer's estimate stays the one against a strictly coarser level
(:mod:`srmdp.solutions.error_estimate`, :mod:`srmdp.refine.richardson`).
"""

from __future__ import annotations

import math

import numpy as np

from ..numerics.bases import BASES

TERMS = ("dt", "cells", "paths")
P_GRID = tuple(1.0 + 0.25 * k for k in range(13))  # the cells' order, where fitted: 1 .. 4
MIN_TERMS = 2  # a fit with fewer identified bias terms does not choose (the caller's fallback does)


def exponent(basis) -> float:
    return 1.0 if BASES[basis].rules == "LP0" else 2.0


def features(steps, cells, paths, p):
    """The terms' regressors at (N, #C, M): (1/N, #C^-p, N/M)."""
    return (1.0 / steps, float(cells) ** -p, steps / paths)


def fit(rows, parity, q):
    """The model fitted to ``rows`` (refinement rows, :class:`srmdp.solutions.row.Row`): {"u_inf", "coef":
    {term: value}, "p": the cells' order, "chi2": residual chi^2 per degree of freedom, "levels": how many} or None
    when fewer than MIN_TERMS terms can be identified with a residual degree of freedom (``q``: the basis's order,
    p where it is not fitted)."""
    pts = [
        r
        for r in rows
        if r.status == "ok" and r.u0 is not None and r.u0_se and r.steps >= 2 and r.cells >= 2 and r.cells % 2 == parity
    ]
    if len(pts) < MIN_TERMS + 2:
        return None
    base = _fit(pts, q)
    if base is None or base["coef"]["cells"] is None or len({r.cells for r in pts}) < 3:
        return base
    terms = [k for k, c in base["coef"].items() if c is not None]
    if len(pts) <= len(terms) + 2:  # no degree of freedom left for p
        return base
    fits = [
        f
        for f in (_fit(pts, p) for p in P_GRID)
        if f is not None and [k for k, c in f["coef"].items() if c is not None] == terms
    ]
    return min(fits + [base], key=lambda f: f["chi2"])


def _fit(pts, p):
    """fit's least squares at the cells' order ``p``."""
    x = np.array([features(r.steps, r.cells, r.paths, p) for r in pts])
    y = np.array([r.u0 for r in pts])
    w = 1.0 / np.array([r.u0_se for r in pts])
    # a term is fitted only where the levels vary in it (relative spread), and where it adds to the rank
    cols = [j for j in range(3) if np.ptp(x[:, j]) > 1e-9 * np.max(np.abs(x[:, j]))]
    while cols:
        a = np.column_stack([np.ones(len(pts))] + [x[:, j] for j in cols])
        if np.linalg.matrix_rank(a * w[:, None]) == a.shape[1]:
            break
        cols.pop()  # the last term is not identified by these levels
    if len(cols) < MIN_TERMS or len(pts) <= len(cols) + 1:
        return None
    a = np.column_stack([np.ones(len(pts))] + [x[:, j] for j in cols])
    sol, *_ = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
    resid = (a @ sol - y) * w
    coef = dict.fromkeys(TERMS, None)
    for k, j in enumerate(cols):
        coef[TERMS[j]] = float(sol[k + 1])
    return {
        "u_inf": float(sol[0]),
        "coef": coef,
        "p": float(p),
        "chi2": float(resid @ resid / (len(pts) - len(cols) - 1)),
        "levels": len(pts),
    }


def bias_terms(model, steps, cells, paths, partner=None):
    """|each term| of the model's bias at (N, #C, M); with ``partner`` N1 < N, of the Richardson value in dt of
    the pair (N1, N) at that #C and M (the dt term gone, the M term c (N + N1) / M).  An unidentified term: None."""
    f = features(steps, cells, paths, model["p"])
    out = {}
    for j, name in enumerate(TERMS):
        c = model["coef"][name]
        if c is None:
            out[name] = None
        elif partner is not None and name == "dt":
            out[name] = 0.0
        elif partner is not None and name == "paths":
            out[name] = abs(c) * (steps + partner) / paths
        else:
            out[name] = abs(c) * f[j]
    return out


def predicted_error(model, steps, cells, paths, se, partner=None):
    """The model's error of the plain value at (N, #C, M) with s.e. ``se`` (or of the Richardson value with
    ``partner``: its s.e. amplified, ((N se)^2 + (N1 se)^2)^(1/2) / (N - N1)); unidentified terms count 0."""
    terms = bias_terms(model, steps, cells, paths, partner)
    bias = sum(v for v in terms.values() if v is not None)
    if partner is not None:
        se = math.hypot(steps * se, partner * se) / (steps - partner)
    return math.hypot(bias, se)
