"""Richardson extrapolation in dt of a refinement's levels (:mod:`srmdp.refine.refine`, module docstring there).

Two levels that differ in dt only (the same #C and M) give R = (N u_N - N1 u_N1) / (N - N1); a third level at
the same #C and M checks the first order (:func:`richardson`); :func:`extrapolate` estimates R against a
coarser Richardson value (:func:`reduction_richardson`), or where none exists against a coarser plain level with
its dt term removed by the pair's slope (:func:`corrected`), and makes it a level's best value where its estimate
is the smaller.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..numerics.bases import BASES
from ..solutions.error_estimate import RICHARDSON_NOISE

# Richardson's check of the first order by a third level (richardson()): both differences must stand out of
# ORDER_NOISE s.e.s, and their ratio be that of an error a / N^p with p in [ORDER_LOW, ORDER_HIGH], within
# ORDER_NOISE s.e.s of the ratio (an order 1/2, z's, is refused; 1 passes with room for the next order)
ORDER_NOISE = 2.0
ORDER_LOW = 0.8
ORDER_HIGH = 1.5


def extrapolate(case, row, done):
    """``row`` with its Richardson value from the completed levels at its #C and M (run before or after it), with its
    estimate; its best value becomes it where its estimate is the smaller (a new row: rows are frozen)."""
    from ..solutions.error_estimate import RHO_MIN, coarser

    partners = sorted(
        (r for c, r, _ in done if c.cells == case.cells and c.paths == case.paths and c.steps < case.steps),
        key=lambda r: r.steps,
        reverse=True,
    )
    if not partners:
        return row
    ext = richardson(row, partners[0], partners[1] if len(partners) > 1 else None)
    if not ext["order_confirmed"]:
        return replace(row, richardson=ext, dt_part=ext["dt_part"])
    # its estimate: against the latest Richardson value strictly coarser in N, #C (same parity) and M, with
    # rho_dt squared (the first-order term is gone), plus the next order; else against the latest plain level
    # strictly coarser, its dt term removed by the pair's slope (:func:`corrected`)
    for c_low, r_low, _ in reversed(done):
        low = r_low.richardson
        if low is None or coarser(case, c_low)[0] is None:
            continue
        rho = reduction_richardson(case, c_low)
        if rho >= RHO_MIN:
            _estimate(ext, rho, low["u0"], math.hypot(ext["u0_se"], low["u0_se"]), r_low.level, "richardson")
            break
    else:
        for c_low, r_low, _ in reversed(done):
            rho = reduction_richardson(case, c_low, dt=False) if coarser(case, c_low)[0] else 0.0
            if rho >= RHO_MIN:
                ref, diff_se = corrected(row, partners[0], r_low)
                _estimate(ext, rho, ref, diff_se, r_low.level, "corrected plain")
                break
    plain = row.best if row.best is None or row.best["kind"] == "plain" else row.plain_best
    best = plain
    if ext.get("u0_error") is not None and (plain is None or ext["u0_error"] <= plain["u0_error"]):
        best = {
            "kind": "richardson",
            "u0": ext["u0"],
            "u0_se": ext["u0_se"],
            "u0_error": ext["u0_error"],
            "next_order": ext["next_order"],
        }
    return replace(row, richardson=ext, dt_part=ext["dt_part"], plain_best=plain, kept_plain=True, best=best)


def _estimate(ext, rho, ref, diff_se, level, against):
    """The Richardson value's estimate against ``ref`` at error reduction ``rho`` (``diff_se``: the s.e. of their
    difference), plus the next order."""
    bias = (abs(ext["u0"] - ref) + RICHARDSON_NOISE * diff_se) / (rho - 1.0) + ext["next_order"]
    ext.update(u0_error=math.hypot(bias, ext["u0_se"]), bias=bias, rho=rho, against=level, against_kind=against)


def corrected(row, p1, low):
    """(value, s.e. of R minus it) of the plain level ``low`` (N' steps) with its dt term removed by the slope of the
    pair (``row`` at N, ``p1`` at N1): u' - a / N', a = (u1 - u) N N1 / (N - N1), the pair's first-order
    coefficient; the s.e. from the weights of u, u1 and u' in R - (u' - a / N') (independent levels)."""
    n, n1, nl = row.steps, p1.steps, low.steps
    a = (p1.u0 - row.u0) * n * n1 / (n - n1)
    # R - (u' - a / N') = wu u + w1 u1 - u': wu = N (N' - N1) / ((N - N1) N'), w1 = N1 (N - N') / ((N - N1) N')
    wu = n * (nl - n1) / ((n - n1) * nl)
    w1 = n1 * (n - nl) / ((n - n1) * nl)
    return low.u0 - a / nl, math.sqrt((wu * row.u0_se) ** 2 + (w1 * p1.u0_se) ** 2 + low.u0_se**2)


def reduction_richardson(fine, coarse, dt=True) -> float:
    """rho of two Richardson values: as :func:`srmdp.solutions.error_estimate.reduction` with the dt term second order
    (``dt=False``: without it, for a coarse value whose dt term was removed, :func:`corrected`)."""
    q = 1.0 if BASES[fine.basis].rules == "LP0" else 2.0
    terms = [(fine.cells / coarse.cells) ** q, fine.paths * coarse.steps / (coarse.paths * fine.steps)]
    return min(terms + ([(fine.steps / coarse.steps) ** 2] if dt else []))


def richardson(row, p1, p2=None) -> dict:
    """Richardson extrapolation in dt of ``row`` (N steps) with ``p1`` (N1 < N steps, the same #C and M):
    R = (N u - N1 u1) / (N - N1), s.e. ((N s)^2 + (N1 s1)^2)^(1/2) / (N - N1).  With ``p2`` (N2 < N1) the three
    levels check the first order: the differences d1 = u2 - u1 and d2 = u1 - u must stand out of their noise
    (> ORDER_NOISE s.e.) and d1 / d2 be the ratio (N2^-p - N1^-p) / (N1^-p - N^-p) of an order p in [ORDER_LOW,
    ORDER_HIGH] (within ORDER_NOISE s.e. of the ratio); the next order is |R - R'| N2 / (N - N2), R' the
    (N2, N1) value."""
    n, n1 = row.steps, p1.steps
    u, s, u1, s1 = row.u0, row.u0_se, p1.u0, p1.u0_se
    out = {
        "u0": (n * u - n1 * u1) / (n - n1),
        "u0_se": math.hypot(n * s, n1 * s1) / (n - n1),
        "partners": [p1.level],
        "partner_steps": [n1],
        "order_confirmed": False,
        "next_order": 0.0,
        "u0_error": None,
        "dt_part": abs(u - u1) * n1 / (n - n1),
    }
    if p2 is None:
        out["reason"] = "two levels only: the first order is not checked"
        return out
    n2, u2, s2 = p2.steps, p2.u0, p2.u0_se
    out["partners"].append(p2.level)
    out["partner_steps"].append(n2)
    d1, d2 = u2 - u1, u1 - u
    se_d1, se_d2 = math.hypot(s2, s1), math.hypot(s1, s)
    visible = abs(d1) > ORDER_NOISE * se_d1 and abs(d2) > ORDER_NOISE * se_d2
    consistent = False
    if visible and d1 * d2 > 0:
        q = d1 / d2
        rel = math.hypot(se_d1 / d1, se_d2 / d2)  # the ratio's relative s.e.

        def ratio(p):  # d1 / d2 for an error a / N^p
            return (n2**-p - n1**-p) / (n1**-p - n**-p)

        consistent = ratio(ORDER_LOW) * (1 - ORDER_NOISE * rel) <= q <= ratio(ORDER_HIGH) * (1 + ORDER_NOISE * rel)
    out["order_confirmed"] = bool(visible and consistent)
    r_coarse = (n1 * u1 - n2 * u2) / (n1 - n2)
    out["next_order"] = abs(out["u0"] - r_coarse) * n2 / (n - n2)
    if not out["order_confirmed"]:
        out["reason"] = (
            "the dt term is below the noise"
            if not visible
            else f"not first order: the differences' ratio is {d1 / d2:.3g}"
        )
    return out
