"""The total-error estimate of u0 (``Solution.u0_error``): u0 at a level strictly coarser in every parameter.

The Monte-Carlo standard error s of u0 says nothing about the bias (cells, M, dt).  A second solve at a
coarser level (N', #C', M') gives it by Richardson's argument, **if** every parameter that drives the bias
is coarser there: the cells' bias is O(h^q) with h = 2L/#C (q = 2 for the affine and quadratic bases LP1,
LP2d; 1 for LP0); the time step's bias on y is O(dt) (the backward Euler scheme's order for y with smooth
data; z's is 1/2, but z's error enters u0 only through the driver); the regression's statistical error is
O((N nb / M)^{1/2}) in mean square, of which the runs' spread (s) holds the variance and the bias of u0 is
the second-order part, O(N nb / M).  Going from the coarse to the fine level each term falls at least by

    rho_dt = N / N',   rho_C = (#C / #C')^q,   rho_M = M N' / (M' N),

so the total bias falls at least by rho = min(rho_dt, rho_C, rho_M) (:func:`reduction`), and with
e' = rho e (the slowest term dominating), u_N - u_N' = e - e' gives |e| <= |u_N - u_N'| / (rho - 1).  A
parameter that is not strictly coarser (rho_X <= 1) leaves its bias in both levels, where it cancels in the
difference: then there is no estimate (:func:`coarser`, None with the reason), never a number that leaves
a bias out.  The difference carries both levels' Monte-Carlo noise, s_diff = (s^2 + s'^2)^{1/2}, and two
levels can agree by chance: the estimate adds :data:`NOISE` s_diff to |u_N - u_N'| before scaling,

    bias = C (|u_N - u_N'| + NOISE s_diff) / (rho - 1),      u0_error = (bias^2 + s^2)^{1/2},

with C = :data:`BIAS_SCALE` and :data:`NOISE` calibrated on problems with exact solutions and checked on
held-out ones (``bench/own_pde/own_pde_calibrate.py``).

**x0's place in its cell.**  With an odd #C the point x0 at the centre of the strata (the box's centre, or the
adapted strata's xi = 0) is at a cell's centre; with an even #C it is on a corner of 2^d cells, where the local
fit is least accurate and its bias is of another size (allen_cahn, d = 4, box L = 3, LP1, N = 5, M = 125:
u0 - exact is -0.230, -0.051 at #C = 1, 3, but -0.035 at #C = 2; -0.024, -0.015 at #C = 5, 7 with M = 500).
The errors fall with h only along one parity, so the coarse level keeps #C's parity (:func:`coarser`): #C = 3
is estimated against #C = 1, not 2 (against 2 the estimate understated an error of 0.051 as 0.03:
bench/own_pde/NOTES.md, "x0's place in its cell").

Both standard errors are needed: an estimate needs >= 2 runs per level (``runs=1``: u0_error None, with
the reason).  The orders were chosen on the coverage benchmark (``bench/own_pde/own_pde_coverage.py``, 360 solves
on three problems with exact solutions, d = 2 and 4, rules' and user-given #C, M; ``bench/own_pde/NOTES.md``):
with these orders 98-100 % of the errors are within u0_error and 100 % within 2 u0_error, the median
u0_error / |error| 3.6-12; with the slower orders 1/2 for dt and M, 100 % / 100 % but a median of 5-19 (an
estimate that overstates the error that much makes ``tol`` climb levels it does not need).  It is an
estimate, not a bound: a bias that does not fall with N yet (a box too narrow for the solution, an
unresolved kink) can escape it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from ..numerics.bases import BASES
from ..runs.result import freeze, thaw

# bias = BIAS_SCALE (|u_N - u_N'| + NOISE s_diff) / (rho - 1): NOISE s.e.s of the difference guard against a chance
# agreement of the levels.  Fitted by bench/own_pde/own_pde_calibrate.py on quadratic_z, reaction_diffusion (d = 2, 4,
# rules' and user-given #C, M; 120 solves): the (C, NOISE) of the grid with the smallest median overstatement whose
# coverage at 2x is >= 97 % there, checked on the held-out running_cost, hjb_lq and gobet2016 (the measurement:
# bench/own_pde/NOTES.md).
NOISE = 1.5
BIAS_SCALE = 0.7
RICHARDSON_NOISE = 1.0  # the same role in srmdp.refine.refine's estimate of an extrapolated u0 (its coverage, measured)
RHO_MIN = 1.1  # below this the amplification 1/(rho - 1) > 10: the levels are too close for an estimate


def reduction(fine, coarse) -> float:
    """rho = min(rho_dt, rho_C, rho_M) (module docstring) for cases ``fine`` and ``coarse``."""
    q = 1.0 if BASES[fine.basis].rules == "LP0" else 2.0
    rho_dt = fine.steps / coarse.steps
    rho_c = (fine.cells / coarse.cells) ** q
    rho_m = fine.paths * coarse.steps / (coarse.paths * fine.steps)
    return min(rho_dt, rho_c, rho_m)


def coarser(fine, coarse):
    """(rho, None) when ``coarse`` is strictly coarser than ``fine`` in N, #C and M, with #C of the same parity
    (module docstring) and rho >= RHO_MIN, else (None, the reason in a few words)."""
    for name, f, c in (
        ("N", fine.steps, coarse.steps),
        ("#C", fine.cells, coarse.cells),
        ("M", fine.paths, coarse.paths),
    ):
        if c >= f:
            return None, f"the level below is not coarser in {name} ({c} against {f}), so its bias would cancel"
    if (fine.cells - coarse.cells) % 2:
        return None, (
            f"the level below has #C = {coarse.cells} against {fine.cells}: x0 sits elsewhere in its cell"
            " (a centre for odd #C, a corner for even), so the cells' biases are not comparable"
        )
    rho = reduction(fine, coarse)
    if rho < RHO_MIN:
        return None, (
            f"the level below is too close (error reduction factor {rho:.3g} < {RHO_MIN:g}: M falls slower than N)"
        )
    return rho, None


def total_error(u, se, u_coarse, se_coarse, rho, noise=NOISE, scale=None):
    """(u0_error, bias estimate): the module docstring's formula (both standard errors required)."""
    diff_se = math.hypot(se, se_coarse)
    bias = (BIAS_SCALE if scale is None else scale) * (abs(u - u_coarse) + noise * diff_se) / (rho - 1.0)
    return math.hypot(bias, se), bias


@dataclass(frozen=True)
class ErrorEstimate:
    """What a solution's error estimate says (``Solution.u0_error`` and its reasons): u0's total error against a
    level below (``bias``, ``rho``, the level below's ``coarse_*``), or against a Richardson value
    (``richardson`` True: ``next_order``, ``against``, ``against_kind``, :mod:`srmdp.refine.richardson`), or None
    with the ``reason`` (and a ``hint``: what would give one); z0's error per component with its reason.
    Written as a JSON object (:meth:`to_dict`): ``u0_error`` always, ``z0_error`` where the solve said something
    of z0, the other fields where set; keys it does not name are kept as read (``extra``)."""

    u0_error: float | None = None
    reason: str | None = None
    hint: Mapping | None = None
    bias: float | None = None
    rho: float | None = None
    coarse_case: Mapping | None = None
    coarse_u0: float | None = None
    coarse_u0_se: float | None = None
    coarse_seconds: float | None = None
    next_order: float | None = None
    against: object = None
    against_kind: str | None = None  # "richardson" or "corrected plain" (srmdp.refine.richardson.extrapolate)
    richardson: bool | None = None
    z0_error: tuple | None = None
    z0_reason: str | None = None
    z0_rho: float | None = None
    coarse_z0: tuple | None = None
    extra: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (dict, list, tuple)):
                object.__setattr__(self, f.name, freeze(v))

    def to_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            said = f.name == "u0_error" or (f.name == "z0_error" and (v is not None or self.z0_reason is not None))
            if f.name != "extra" and (v is not None or said):
                out[f.name] = thaw(v)
        return {**out, **thaw(self.extra)}

    @classmethod
    def from_dict(cls, data: Mapping) -> ErrorEstimate:
        names = {f.name for f in fields(cls)} - {"extra"}
        return cls(
            **{k: v for k, v in data.items() if k in names}, extra={k: v for k, v in data.items() if k not in names}
        )
