"""The total-error estimate of u0 (``Solution.u0_error``): u0 at a level strictly coarser in every parameter.

The Monte-Carlo standard error s of u0 says nothing about the bias (cells, M, dt).  A second solve at a
coarser level (N', #C', M') gives it by Richardson's argument, **if** every parameter that drives the bias
is coarser there: the cells' bias is O(h^q) with h = 2L/#C (q = 2 for the affine and quadratic bases LP1,
LP2d; 1 for LP0), the time step's O(dt^{1/2}) (order 1/2 of the backward Euler scheme for a general
driver), the regression's statistical error O((N nb / M)^{1/2}).  Going from the coarse to the fine level
each term falls at least by its factor

    rho_dt = (N / N')^{1/2},   rho_C = (#C / #C')^q,   rho_M = (M N' / (M' N))^{1/2},

so the total bias falls at least by rho = min(rho_dt, rho_C, rho_M) (:func:`reduction`), and with
e' = rho e (the slowest term dominating), u_N - u_N' = e - e' gives |e| <= |u_N - u_N'| / (rho - 1).  A
parameter that is not strictly coarser (rho_X <= 1) leaves its bias in both levels, where it cancels in the
difference: then there is no estimate (:func:`coarser`, None with the reason), never a number that leaves
a bias out.  The difference carries both levels' Monte-Carlo noise, s_diff = (s^2 + s'^2)^{1/2}, and two
levels can agree by chance: the estimate adds :data:`NOISE` s_diff to |u_N - u_N'| before scaling,

    bias = (|u_N - u_N'| + NOISE s_diff) / (rho - 1),      u0_error = (bias^2 + s^2)^{1/2}.

Both standard errors are needed: an estimate needs >= 2 runs per level (``runs=1``: u0_error None, with
the reason).  With the paper's rules (r = N/N' = 2) rho = 2^{1/2}: 1/(rho - 1) = 2.4, which overstates an
error that falls with order 1 by 2.4x -- on the safe side.  The coverage (how often |u0 - exact| <=
u0_error) is measured, not asserted: ``bench/own_pde_coverage.py``, table in ``srmdp/problems/README.md``.
"""

from __future__ import annotations

import math

from .bases import BASES

NOISE = 1.0  # s.e.s of the difference added to |u_N - u_N'| (a chance agreement of the levels)
RHO_MIN = 1.1  # below this the amplification 1/(rho - 1) > 10: the levels are too close for an estimate


def reduction(fine, coarse) -> float:
    """rho = min(rho_dt, rho_C, rho_M) (module docstring) for cases ``fine`` and ``coarse``."""
    q = 1.0 if BASES[fine.basis].rules == "LP0" else 2.0
    rho_dt = (fine.steps / coarse.steps) ** 0.5
    rho_c = (fine.cells / coarse.cells) ** q
    rho_m = (fine.paths * coarse.steps / (coarse.paths * fine.steps)) ** 0.5
    return min(rho_dt, rho_c, rho_m)


def coarser(fine, coarse):
    """(rho, None) when ``coarse`` is strictly coarser than ``fine`` in N, #C and M with rho >= RHO_MIN, else
    (None, the reason in a few words)."""
    for name, f, c in (("N", fine.steps, coarse.steps), ("#C", fine.cells, coarse.cells),
                       ("M", fine.paths, coarse.paths)):
        if c >= f:
            return None, f"the level below is not coarser in {name} ({c} against {f}), so its bias would cancel"
    rho = reduction(fine, coarse)
    if rho < RHO_MIN:
        return None, (f"the level below is too close (error reduction factor {rho:.3g} < {RHO_MIN:g}: M falls"
                      " slower than N)")
    return rho, None


def total_error(u, se, u_coarse, se_coarse, rho, noise=NOISE):
    """(u0_error, bias estimate): the module docstring's formula (both standard errors required)."""
    diff_se = math.hypot(se, se_coarse)
    bias = (abs(u - u_coarse) + noise * diff_se) / (rho - 1.0)
    return math.hypot(bias, se), bias
