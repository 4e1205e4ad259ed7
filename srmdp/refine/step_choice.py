"""The error model's choice of a refinement's steps (:mod:`srmdp.refine.refine`): each step priced in predicted error
reduction per second.

Once the answer has an estimate, before each level of the ladder the error model fitted to the levels so far
(:mod:`srmdp.refine.error_model`: u0 = u* + a/N + b h^p + c N/M; :func:`answer_model`) prices the ladder's next level
(with its dt partners; :func:`ladder_gain`) and the steps from the answer (:mod:`srmdp.refine.fill_steps`;
:func:`model_gain`) in predicted error reduction per second; a step from the answer is taken instead
(:func:`srmdp.refine.refine.prefer_step`; ``step-<kind>`` in the rows) where it is the better buy.  Only what can
become the answer is priced: a value with no strictly coarser level (dt halved at a fixed M; :func:`estimable`)
gains nothing, and the ladder's own stepping stones (dt at a fixed M) are taken as the ladder has them.  Where
the N/M term dominates (``hjb_lq``: c < 0, the quadratic driver's noise in z), the ladder's next level, which
refines N too, is the worse buy at a fixed M, and 2 M from the answer the better.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

from .error_model import bias_terms, exponent, fit, predicted_error


def same_ladder(state):
    """The rows run with the answer's remedies (a remedy restarts the ladder on another problem: other strata or
    truncation, whose levels neither fit the same model nor estimate the answer)."""
    ans = state.answer
    if ans is None:
        return []
    return [r for r in state.rows if r.remedies == ans[1].remedies]


def answer_model(state):
    """The error model fitted to the refinement's rows at the answer's #C parity (None: not enough levels)."""
    ans = state.answer
    if ans is None or ans[1].best is None:
        return None
    case = ans[0].case
    return fit(same_ladder(state), case.cells % 2, exponent(case.basis))


def _now(model, case, row, best):
    """The model's error of the answer's best value (plain, or Richardson with its finer partner)."""
    ext = row.richardson
    if best["kind"] == "richardson" and ext is not None and ext.get("partner_steps"):
        return predicted_error(model, case.steps, case.cells, case.paths, row.u0_se, ext["partner_steps"][0])
    return predicted_error(model, case.steps, case.cells, case.paths, row.u0_se)


def estimable(case, rows, richardson=False):
    """Whether a value at ``case`` would have an estimate from the completed ``rows`` (a level strictly coarser
    in N, #C of its parity and M, :func:`srmdp.solutions.error_estimate.coarser`; for a Richardson value, a coarser
    Richardson value or a coarser plain level with its dt term removed, :func:`srmdp.refine.richardson.extrapolate`): a
    value without one cannot become the answer."""
    from ..solutions.error_estimate import RHO_MIN, coarser
    from .richardson import reduction_richardson

    for r in rows:
        if r.status != "ok" or r.u0 is None:
            continue
        low = SimpleNamespace(steps=r.steps, cells=r.cells, paths=r.paths, basis=case.basis)
        if coarser(case, low)[0] is not None and (
            not richardson or reduction_richardson(case, low, dt=False) >= RHO_MIN
        ):
            return True
    return False


def model_gain(model, kind, case, row, best, rows=(), batch=None):
    """The model's predicted error reduction of the answer by one step from it: 0 where the step's value could
    not be estimated (it cannot replace the answer), None where the model does not identify the step's term
    (the caller's fallback then).  ``batch``: the runs a pooling step adds (:mod:`srmdp.refine.pooled_runs`)."""
    if model is None:
        return None
    if kind in ("runs", "runs-partners"):
        return _pooling_gain(model, kind, case, row, best, rows, batch)
    term = {"dt": "dt", "dt-partners": "dt", "paths": "paths", "cells": "cells"}[kind]
    if bias_terms(model, case.steps, case.cells, case.paths)[term] is None:
        return None
    se = row.u0_se
    now = _now(model, case, row, best)
    n, c, m = case.steps, case.cells, case.paths
    after = now
    if kind == "dt-partners":
        if estimable(case, rows, richardson=True):
            after = predicted_error(model, n, c, m, se, partner=n // 2)
    elif kind == "dt":  # N doubled at the same #C, M: its plain value, or its Richardson value with the answer
        new = replace(case, dt=case.maturity / (2 * n))
        if estimable(new, rows):
            after = predicted_error(model, 2 * n, c, m, se)
        if estimable(new, rows, richardson=True):
            after = min(after, predicted_error(model, 2 * n, c, m, se, partner=n))
    elif kind == "paths":
        if estimable(replace(case, paths=2 * m), rows):
            after = predicted_error(model, n, c, 2 * m, se / math.sqrt(2.0))
    elif estimable(replace(case, cells=c + 2), rows):
        after = predicted_error(model, n, c + 2, m, se)
    return max(now - after, 0.0)


def _pooling_gain(model, kind, case, row, best, rows, batch):
    """The model's noise term: the answer's s.e. x (R / (R + k))^(1/2), its bias unchanged ("runs": its own
    level's runs; "runs-partners": its Richardson partners' too, so that a Richardson value, the answer's or one
    that could be estimated, has the pooled s.e.)."""
    n, c, m, se = case.steps, case.cells, case.paths, row.u0_se
    shrunk = se * math.sqrt(row.runs / (row.runs + batch))
    ext = row.richardson
    if best["kind"] == "richardson":
        n1 = ext["partner_steps"][0]
        # predicted_error takes one s.e. for both levels of a Richardson value: with "runs", the answer's share only
        s = shrunk if kind == "runs-partners" else math.hypot(n * shrunk, n1 * se) / math.hypot(n, n1)
        after = predicted_error(model, n, c, m, s, partner=n1)
    else:
        after = predicted_error(model, n, c, m, shrunk)
        if kind == "runs-partners" and ext is not None and estimable(case, rows, richardson=True):
            after = min(after, predicted_error(model, n, c, m, shrunk, partner=ext["partner_steps"][0]))
    return max(_now(model, case, row, best) - after, 0.0)


def ladder_gain(model, state, group):
    """The model's predicted error reduction of the answer by the ladder's next group of levels (its last level's
    value, or its Richardson value with a partner at the same #C and M, in the group or run already); None where
    the model or a term of the group's steps is not identified, or where the last level could not be estimated
    yet (a stepping stone of the ladder: the ladder's order then)."""
    ans = state.answer
    if model is None or ans is None or ans[1].best is None:
        return None
    case, row, best = ans[0].case, ans[1], ans[1].best
    last = group[-1]
    for name, a, b in (
        ("dt", case.steps, last.steps),
        ("cells", case.cells, last.cells),
        ("paths", case.paths, last.paths),
    ):
        if a != b and bias_terms(model, case.steps, case.cells, case.paths)[name] is None:
            return None
    rows = same_ladder(state)
    if not estimable(last, rows):
        return None
    se = row.u0_se * math.sqrt(case.paths / last.paths)
    after = predicted_error(model, last.steps, last.cells, last.paths, se)
    # its Richardson partners: in the group, or run already (the ladder's dt partners run before their level)
    done = [(r.steps, r.cells, r.paths) for r in rows if r.status == "ok"]
    partners = [
        n
        for n, c, m in [(c.steps, c.cells, c.paths) for c in group[:-1]] + done
        if (c, m) == (last.cells, last.paths) and n < last.steps
    ]
    if partners:
        after = min(after, predicted_error(model, last.steps, last.cells, last.paths, se, partner=max(partners)))
    return max(_now(model, case, row, best) - after, 0.0)
