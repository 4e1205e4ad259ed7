"""The ladder of a refinement to a tolerance (:mod:`srmdp.refine.refine`).

**The ladder** (:func:`ladder`): the rule levels N = N0/2, N0, 2 N0, 4 N0, ... (N0 = T/dt, default 5; #C and
M by the paper's rules at each N, or scaled from the given ones, :class:`srmdp.solutions.solve_request.SolveRequest`),
and
between two rule levels one parameter at a time -- M first, then dt, then #C -- so that a step costs a few
times the previous one (x4-x8 at d = 4; the rules' own step is their product, x150 at d = 8), which a
budget can use.  Before the M step, the levels at N/2 and N/4 with the new M and the old #C ("dt-partner",
a third of the M step's cost) make the M step and the dt step after it Richardson triples.  Every level's
memory is checked before the climb; the ladder ends at the first that does not fit.  Where the rules do
not grow #C and M with N (LP1 at d >= 11: #C = 2, M = 2000 at every N) the error model does not hold and
``tol`` is refused, with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from ..exceptions import ConfigError
from ..numerics.rng import STEP_BITS

RULE_LEVELS = 12
# between two rule levels, one parameter at a time: M first (more paths never hurts: with #C or N raised first,
# hjb_lq d = 8 had a level N = 5, #C 3, M 36, N nb / M > 1, that gave u0 = -4.95 for 1.90), then dt, then #C
ORDER = ("paths", "dt", "cells")


def ladder(req):
    """The levels' (case, rules, kind) with kind "rule" or "dt"/"cells"/"paths" (one parameter refined),
    checked for memory first, up to the first that does not fit.  Returns (levels, why the ladder ends).  A rule
    level with no level strictly coarser of its #C parity before it (#C 2 -> 3 at d = 8: #C 1 is the only odd
    one below) is preceded by its solve's level below (``SolveRequest.below``, kind "below": at #C 1, one stratum,
    cheap), so that it has an estimate."""
    from ..solutions.error_estimate import coarser

    steps = ([req.steps // 2] if req.steps >= 2 else []) + [req.steps * 2**k for k in range(RULE_LEVELS)]
    levels = []
    prev = None
    for n in steps:
        if n >= 2**STEP_BITS:
            return levels, f"N = {n} exceeds the RNG counter's step field"
        case, rules = req.case_at(n)
        steps_between = []
        if prev is not None:
            mid = prev
            for name in ORDER:
                nxt = replace(mid, **{name: getattr(case, name)})
                if nxt != mid and nxt != case:
                    if name == "paths":  # Richardson's partners: the same #C and M at N/4 and N/2 (cheap)
                        for k in sorted({mid.steps // 4, mid.steps // 2} - {0}):
                            steps_between.append((replace(nxt, dt=nxt.maturity / k), rules, "dt-partner"))
                    steps_between.append((nxt, rules, name))
                    mid = nxt
        below = []
        if not any(coarser(case, lv[0])[0] for lv in levels):  # no level below of its #C parity: the solve's own
            low = req.below(case)[0] if req.runs >= 2 else None
            if low is not None and all(low != lv[0] for lv in levels + steps_between):
                below = [(low, {}, "below")]
        for c, r, kind in steps_between + below + [(case, rules, "rule")]:
            try:
                req.check(c)
            except ConfigError as exc:
                if not levels:
                    raise
                return levels, (
                    f"memory: the next level (N = {c.steps}, #C = {c.cells}, M = {c.paths}) is refused: {exc}"
                )
            levels.append((c, r, kind))
        prev = case
    return levels, "the ladder's last level"


def check_rules_grow(req):
    """Refuse tol where the rules keep #C and M constant in N (the error model needs them to grow)."""
    if req.cells is not None and req.paths is not None:
        return
    a, b = req.case_at(req.steps)[0], req.case_at(req.steps * 4)[0]
    fixed = [
        n
        for n, given in (("#C", req.cells), ("M", req.paths))
        if given is None
        and getattr(a, "cells" if n == "#C" else "paths") >= getattr(b, "cells" if n == "#C" else "paths")
    ]
    if fixed:
        raise ConfigError(
            f"invalid tol at basis {req.basis}, d = {req.d}: the paper's rules keep {' and '.join(fixed)}"
            f" constant in N here (#C = {a.cells}, M = {a.paths} at every N), so refining N alone"
            " leaves their bias and the error estimate does not hold; give cells= and paths= (they"
            " are then scaled with N) or solve without tol"
        )
