"""The steps of a refinement from its answer (:mod:`srmdp.refine`) -- the answer's dt partners, dt/2, 2 M or #C + 2 --
chosen by predicted error reduction per second: by the error model fitted to the levels run so far
(:mod:`srmdp.error_model`) where it identifies the step's term, else by a split of the answer's estimate
(:func:`predicted_gain`).  Also the price of the ladder's next level in the same currency (:func:`ladder_gain`),
so that the refinement takes the ladder's level or a step from the answer, whichever the model prefers."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

from .bases import BASES
from .error_model import bias_terms, exponent, fit, predicted_error
from .exceptions import ConfigError
from .rng import STEP_BITS


def fill_steps(req, case):
    """The steps from ``case`` that the budget's remainder may buy, (kind, [cases]), memory checked: its dt
    partners N/2 and N/4 at the same #C and M ("dt-partners": Richardson's pair and its check, a third of the
    level's cost), dt/2 ("dt"), 2 M ("paths") and #C + 2 ("cells": the same parity, x0 keeps its place)."""
    out = []
    # (N >= 4: a pair and its check; below, the partners could not be checked)
    partners = [
        replace(case, dt=case.maturity / k) for k in sorted({case.steps // 4, case.steps // 2}) if case.steps >= 4
    ]
    steps = (
        ("dt-partners", partners),
        ("dt", [replace(case, dt=case.maturity / (2 * case.steps))]),
        ("paths", [replace(case, paths=2 * case.paths)]),
        ("cells", [replace(case, cells=case.cells + 2)]),
    )
    for kind, cs in steps:
        if not cs or any(c.steps >= 2**STEP_BITS for c in cs):
            continue
        try:
            for c in cs:
                req.check(c)
        except ConfigError:
            continue
        out.append((kind, cs))
    return out


def predicted_gain(kind, case, best, dt_part):
    """The error model's predicted reduction of the answer's error by one fill step (module docstring): the
    answer's estimate split into noise (its s.e.), the dt part (from a dt pair at its #C and M, else a third of
    the bias) and the rest (cells and M)."""
    err, se = best["u0_error"], best["u0_se"]
    bias = math.sqrt(max(err * err - se * se, 0.0))
    if dt_part is None:
        dt_part = bias / 3.0
    rest = max(bias - dt_part, 0.0)  # the cells' and M's part of the bias
    q = 1.0 if BASES[case.basis].rules == "LP0" else 2.0
    if kind in ("dt", "dt-partners"):  # a checked dt pair: Richardson removes the first-order part
        return dt_part if best["kind"] == "plain" else 0.75 * best.get("next_order", 0.0)
    if kind == "cells":
        return rest * (1.0 - (case.cells / (case.cells + 2)) ** q)
    return se * (1.0 - 1.0 / math.sqrt(2.0)) + 0.25 * rest  # paths: noise / sqrt 2 and the M part of the bias


def choose_fill(req, state, ran, left, pending=()):
    """(kind, [cases]) of the fill step with the largest predicted error reduction per second that fits in
    ``left`` seconds, or (None, why).  While the answer has no estimate the model has nothing to fit: the
    cheapest step, a later ladder level included (one finer in #C may be estimated where the answer is not)."""
    kind, cases, _ = rank_fills(req, state, ran, left, pending)
    return kind, cases


def rank_fills(req, state, ran, left, pending=(), model_only=False):
    """choose_fill's choice and its predicted error reduction per second: (kind, [cases], gain per second), or
    (None, why, 0); ``model_only``: only the steps the error model prices."""
    ans = state.get("answer")
    rate = state["rate"]
    if ans is None or rate is None:
        return None, "nothing to refine from", 0.0
    row, best = ans[1], ans[1]["best"]
    case = ans[0].case
    model = answer_model(state)
    options = []
    for kind, cs in fill_steps(req, case):
        cs = [c for c in cs if (c.steps, c.cells, c.paths) not in ran]
        if not cs:
            continue
        secs = sum(c.path_steps for c in cs) * req.runs / rate
        if secs <= left:
            # without an estimate yet, the model has nothing to fit: the cheapest step (which may give one)
            gain = 1.0 if best is None else model_gain(model, kind, case, row, best, same_ladder(state))
            if gain is None:
                if model_only:
                    continue
                gain = predicted_gain(kind, case, best, row.get("dt_part"))
            options.append((gain / secs, -secs, kind, cs))
    if best is None:
        for c, _, _ in pending:
            secs = c.path_steps * req.runs / rate
            if secs <= left and c.path_steps > case.path_steps / 8:  # not a partner far below the answer
                options.append((1.0 / secs, -secs, "ladder", [c]))
    if not options:
        return None, "no step from the answer fits", 0.0
    options.sort(key=lambda o: o[:2])
    return options[-1][2], options[-1][3], options[-1][0]


def same_ladder(state):
    """The rows run with the answer's remedies (a remedy restarts the ladder on another problem: other strata or
    truncation, whose levels neither fit the same model nor estimate the answer)."""
    ans = state.get("answer")
    if ans is None:
        return []
    remedies = ans[1].get("remedies", [])
    return [r for r in state["rows"] if r.get("remedies", []) == remedies]


def answer_model(state):
    """The error model fitted to the refinement's rows at the answer's #C parity (None: not enough levels)."""
    ans = state.get("answer")
    if ans is None or ans[1]["best"] is None:
        return None
    case = ans[0].case
    return fit(same_ladder(state), case.cells % 2, exponent(case.basis))


def _now(model, case, row, best, q):
    """The model's error of the answer's best value (plain, or Richardson with its finer partner)."""
    ext = row.get("richardson")
    if best["kind"] == "richardson" and ext is not None and ext.get("partner_steps"):
        return predicted_error(model, case.steps, case.cells, case.paths, q, row["u0_se"], ext["partner_steps"][0])
    return predicted_error(model, case.steps, case.cells, case.paths, q, row["u0_se"])


def estimable(case, rows, richardson=False):
    """Whether a value at ``case`` would have an estimate from the completed ``rows`` (a level strictly coarser
    in N, #C of its parity and M, :func:`srmdp.error_estimate.coarser`; for a Richardson value, a coarser
    Richardson value, :func:`srmdp.richardson.extrapolate`): a value without one cannot become the answer."""
    from .error_estimate import RHO_MIN, coarser
    from .richardson import reduction_richardson

    for r in rows:
        if r.get("status") != "ok" or r.get("u0") is None or (richardson and r.get("richardson") is None):
            continue
        low = SimpleNamespace(steps=r["steps"], cells=r["cells"], paths=r["paths"], basis=case.basis)
        if coarser(case, low)[0] is not None and (not richardson or reduction_richardson(case, low) >= RHO_MIN):
            return True
    return False


def model_gain(model, kind, case, row, best, rows=()):
    """The model's predicted error reduction of the answer by one step from it: 0 where the step's value could
    not be estimated (it cannot replace the answer), None where the model does not identify the step's term
    (the caller's fallback then)."""
    if model is None:
        return None
    q = exponent(case.basis)
    term = {"dt": "dt", "dt-partners": "dt", "paths": "paths", "cells": "cells"}[kind]
    if bias_terms(model, case.steps, case.cells, case.paths, q)[term] is None:
        return None
    se = row["u0_se"]
    now = _now(model, case, row, best, q)
    n, c, m = case.steps, case.cells, case.paths
    after = now
    if kind == "dt-partners":
        if estimable(case, rows, richardson=True):
            after = predicted_error(model, n, c, m, q, se, partner=n // 2)
    elif kind == "dt":  # N doubled at the same #C, M: its plain value, or its Richardson value with the answer
        new = replace(case, dt=case.maturity / (2 * n))
        if estimable(new, rows):
            after = predicted_error(model, 2 * n, c, m, q, se)
        if estimable(new, rows, richardson=True):
            after = min(after, predicted_error(model, 2 * n, c, m, q, se, partner=n))
    elif kind == "paths":
        if estimable(replace(case, paths=2 * m), rows):
            after = predicted_error(model, n, c, 2 * m, q, se / math.sqrt(2.0))
    elif estimable(replace(case, cells=c + 2), rows):
        after = predicted_error(model, n, c + 2, m, q, se)
    return max(now - after, 0.0)


def ladder_gain(model, state, group):
    """The model's predicted error reduction of the answer by the ladder's next group of levels (its last level's
    value, or its Richardson value with a partner at the same #C and M, in the group or run already); None where
    the model or a term of the group's steps is not identified, or where the last level could not be estimated
    yet (a stepping stone of the ladder: the ladder's order then)."""
    ans = state.get("answer")
    if model is None or ans is None or ans[1]["best"] is None:
        return None
    case, row, best = ans[0].case, ans[1], ans[1]["best"]
    q = exponent(case.basis)
    last = group[-1]
    for name, a, b in (
        ("dt", case.steps, last.steps),
        ("cells", case.cells, last.cells),
        ("paths", case.paths, last.paths),
    ):
        if a != b and bias_terms(model, case.steps, case.cells, case.paths, q)[name] is None:
            return None
    rows = same_ladder(state)
    if not estimable(last, rows):
        return None
    se = row["u0_se"] * math.sqrt(case.paths / last.paths)
    after = predicted_error(model, last.steps, last.cells, last.paths, q, se)
    # its Richardson partners: in the group, or run already (the ladder's dt partners run before their level)
    done = [(r["steps"], r["cells"], r["paths"]) for r in rows if r.get("status") == "ok"]
    partners = [
        n
        for n, c, m in [(c.steps, c.cells, c.paths) for c in group[:-1]] + done
        if (c, m) == (last.cells, last.paths) and n < last.steps
    ]
    if partners:
        after = min(after, predicted_error(model, last.steps, last.cells, last.paths, q, se, partner=max(partners)))
    return max(_now(model, case, row, best, q) - after, 0.0)
