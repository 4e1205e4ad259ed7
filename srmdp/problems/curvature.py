"""The curvature correction of the driver (beyond the paper): what it is and when it is on.

A driver curved in z or y sees the noise of the estimates it is fed: to second order
E f(y^M, z^M) = f(y, z) + 1/2 sum_l d2f/dz_l^2 Var z^M_l + 1/2 d2f/dy^2 Var y^M (the Hessian's diagonal).  Summed
over the N regressions of M paths this is the c N/M term of u0's error (hjb_lq: the driver -1/2 |z|^2 is biased
down by Var z^M).  With the correction every driver value along a path, in both passes, loses that term
(:func:`srmdp.numerics.scheme.curvature_term`), with the variance of each fitted value at its point x from the
regression
that made it: Var = sigma^2_c phi(x)^T (Phi^T Phi)^{-1} phi(x), sigma^2_c the residual variance of response c
(:func:`srmdp.numerics.regression.residual_variances`, from the normal equations and the responses' sums of squares).
The
second derivatives are the problem's ``driver_zz``/``driver_yy`` where it defines them, else central differences
of ``driver`` (3 driver calls per component and path step).  Only the diagonal: the drivers of the suite have a
diagonal Hessian in z, where it is exact; the off-diagonal covariance of z^M_l, z^M_m that a driver with mixed
terms would need is noise-sized except at the last step (``bench/own_pde/curvature.py --offdiag``).

Cost: a Case field bound at compile time (CURVATURE): off, the kernels are those of the paper's scheme, bit for bit;
on, N x K x ((d + 1) + nb (nb + 1) / 2) float64 of variances and per path step one leverage (nb (nb + 1) / 2
multiply-adds) and d second derivatives (+26 % CPU time on hjb_lq, d = 4, LP1: srmdp/problems/README.md).

Default (:func:`default`, srmdp.solve's ``curvature_correction=None``): off for the paper's problem (its scheme);
otherwise the problem's ``CURVATURE_CORRECTION`` where its file sets one, else on when the driver is curved.
"""

from __future__ import annotations

import math

import numpy as np

PROBE_POINTS = 8  # points (x, y, z) ~ N(0, 1) where the driver's second differences are probed
PROBE_STEP = 1e-3  # relative step of the probe's central differences
PROBE_TOL = 1e-4  # a second difference above PROBE_TOL (1 + |f|) is curvature (rounding: ~1e-10 |f|)


def driver_is_curved(problem, d: int) -> bool:
    """Whether the driver is curved in z or y: it defines ``driver_zz``/``driver_yy``, or a second central
    difference of the compiled driver (as the kernels compute it: no Python exceptions, non-finite values skipped)
    in one z_l or in y exceeds PROBE_TOL (1 + |f|) at one of PROBE_POINTS fixed points."""
    from ..numerics.build import SECOND_DERIVATIVES, cpu_problem_module

    if any(n in problem.module.__dict__ for n in SECOND_DERIVATIVES):
        return True
    f = cpu_problem_module(problem).driver
    rng = np.random.default_rng(0)
    for _ in range(PROBE_POINTS):
        x, z, y = rng.standard_normal(d), rng.standard_normal(d), float(rng.standard_normal())
        f0 = float(f(0.0, x.copy(), y, z.copy(), d))
        if not math.isfinite(f0):
            continue
        for l in range(-1, d):  # -1: y
            v = y if l < 0 else z[l]
            h = PROBE_STEP * (1.0 + abs(v))
            vals = []
            for sgn in (1.0, -1.0):
                zz = z.copy()
                if l >= 0:
                    zz[l] += sgn * h
                vals.append(float(f(0.0, x.copy(), y + sgn * h if l < 0 else y, zz, d)))
            second = (vals[0] - 2.0 * f0 + vals[1]) / (h * h)
            if math.isfinite(second) and abs(second) > PROBE_TOL * (1.0 + abs(f0)):
                return True
    return False


def default(problem, d: int, paper: bool) -> bool:
    """The correction's default for ``problem`` at dimension d (module docstring); ``paper``: the paper's problem."""
    if paper:
        return False
    if problem.curvature_correction is not None:
        return problem.curvature_correction
    return driver_is_curved(problem, d)
