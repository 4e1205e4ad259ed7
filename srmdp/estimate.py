"""What a user's answer is worth: the divergence detector and the total-error estimate of u0.

**Divergence** (:func:`divergence`).  A scheme that blows up (typically a driver growing fast in z, whose
estimates in the outer cells feed back through the driver, step after step) shows as geometric growth of
the estimators across the backward steps.  For each run, A_i = max over the strata of |y^M_i| at the
cells' centres (the constant coefficient of every basis); the run has diverged at the first step i
(backwards from N-2) where A_i > GROWTH_STEP A_{i+1} or A_i > GROWTH_TOTAL A_{N-1}.  A Lipschitz driver
lets A grow by at most about e^{L dt} per step and e^{L T} in all: the thresholds (x30 in one step,
x1000 over [0, T]) are far above that for any L T < 6.9, and far below the 10^4-10^6 that an exploding
run reaches.  ``guard=False`` in :func:`srmdp.solve` turns it off (a problem whose solution really grows
by 10^3 over [0, T]).

**Total error of u0** (:func:`total_error`).  The Monte-Carlo standard error s of u0 says nothing about
the bias (cells, M, dt).  With the paper's rules the parameters are one function of N = T/dt, and the
error of u0 behaves like C N^{-p}: for LP1 the cells' bias is O(h^2) with h ~ #C^{-1} ~ N^{-1/4} (rules:
K = #C^d ~ N^{d/4}), i.e. O(N^{-1/2}), the time step's O(N^{-1/2}) (order 1/2 of the backward Euler scheme
for a general driver; 1 for smooth ones), and the statistical error's O((N nb/M)^{1/2}) = O(N^{-1/2}).
So p = :data:`ORDER` = 1/2, and a solve at N' = N/r (one refinement level below) gives the bias of the
finer one by Richardson's argument: u_N - u_N' = C N^{-p} (1 - r^p), so |bias_N| ~ |u_N - u_N'| / (r^p - 1).
The estimate combines it with the standard error: ``u0_error = sqrt(bias^2 + s^2)``.
The difference u_N - u_N' carries both levels' Monte-Carlo noise, so the bias term also covers that
noise (E[diff^2] = bias-difference^2 + s^2 + s'^2): no subtraction, which keeps the estimate on the safe
side.  p = 1/2 is the slowest order of the three terms: where the error falls faster (smooth problems,
order 1), the estimate overstates it by (r - 1)/(r^{1/2} - 1) = 2.4 at r = 2 -- on the safe side.
It is an estimate, not a bound: a bias that does not yet decrease with N (a box too narrow for the
solution, an under-resolved kink) can be missed; ``srmdp/problems/README.md`` lists how honest it was
on the suite.
"""

from __future__ import annotations

import math

import numpy as np

from .exceptions import NumericalError

ORDER = 0.5
GROWTH_STEP = 30.0
GROWTH_TOTAL = 1000.0


class DivergenceError(NumericalError):
    """The estimators of a run blew up (or a coefficient is not finite); the message names the step and remedies."""


def remedies(case) -> str:
    """What to try when a solve diverges (one line)."""
    zcv = "z_cv=False (--no-z-cv)" if case.z_cv else "z_cv=True (--z-cv)"
    from .adapt import split_spec

    adapted = "" if split_spec(case.problem)[1] else "; strata='adapted' (--strata adapted)"
    return ("remedies: truncation bounds on y and z (trunc_y=, trunc_z= / --trunc-y, --trunc-z: the range of the"
            " solution and of sigma^T grad u, e.g. from the terminal condition's), a finer grid (more cells, a"
            f" smaller dt with more paths), {zcv}{adapted}")


def growth(coef) -> np.ndarray:
    """A_i = max over the strata of |y^M_i| at the cell centres, i = 0..N-1, for one run's coef[i, k, c, a]."""
    c = np.asarray(coef)
    return np.abs(c[:, :, 0, 0]).max(axis=1)


def divergence(coef, case):
    """None, or a message naming the first diverged time step (the module docstring's rule) and the remedies."""
    a = growth(coef)
    if not np.isfinite(a).all():
        i = int(np.flatnonzero(~np.isfinite(a))[-1])
        return f"non-finite estimator at time step i={i} (t={i * case.dt:g}); {remedies(case)}"
    n = a.size
    ref = max(a[-1], 1e-300)
    for i in range(n - 2, -1, -1):
        step = a[i] > GROWTH_STEP * max(a[i + 1], 1e-300)
        total = a[i] > GROWTH_TOTAL * ref
        if step or total:
            why = (f"x{a[i] / max(a[i + 1], 1e-300):.3g} in one step" if step
                   else f"x{a[i] / ref:.3g} since i={n - 1}")
            return (f"the estimators diverge at time step i={i} (t={i * case.dt:g}): max |y_i| over the strata"
                    f" {a[i]:.3g} against {a[i + 1]:.3g} at i={i + 1} and {a[-1]:.3g} at i={n - 1} ({why});"
                    f" {remedies(case)}")
    return None


def total_error(u, se, u_coarse, ratio, order=ORDER):
    """(u0_error, bias estimate): the module docstring's formula; se None counts as 0."""
    bias = abs(u - u_coarse) / (ratio**order - 1.0)
    return math.sqrt(bias * bias + (se or 0.0) ** 2), bias
