"""The steps of a refinement from its answer (:mod:`srmdp.refine.refine`) -- the answer's dt partners, dt/2, 2 M, #C +
2, or
more runs of the answer's level (with its Richardson partners' or not; :mod:`srmdp.refine.pooled_runs`) --
chosen by predicted error reduction per second: by the error model fitted to the levels run so far
(:mod:`srmdp.refine.step_choice`) where it identifies the step's term, else by a split of the answer's estimate
(:func:`predicted_gain`)."""

from __future__ import annotations

import math
from dataclasses import replace

from ..exceptions import ConfigError
from ..numerics.bases import BASES
from ..numerics.rng import STEP_BITS
from .pooled_runs import RUNS_KINDS, runs_gain, runs_steps
from .step_choice import answer_model, model_gain, same_ladder


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
    """(kind, [cases], runs) of the fill step with the largest predicted error reduction per second that fits in
    ``left`` seconds (``runs``: a pooling step's batch, the runs each of its levels runs), or (None, why, 0).
    While the answer has no estimate the model has nothing to fit: the cheapest step, a later ladder level
    included (one finer in #C may be estimated where the answer is not)."""
    kind, cases, _, runs = rank_fills(req, state, ran, left, pending)
    return kind, cases, runs


def rank_fills(req, state, ran, left, pending=(), model_only=False):
    """choose_fill's choice and its predicted error reduction per second: (kind, [cases], gain per second, runs),
    or (None, why, 0, 0); ``model_only``: only the steps the error model prices."""
    ans = state.answer
    rate = state.rate
    if ans is None or rate is None:
        return None, "nothing to refine from", 0.0, 0
    row, best = ans[1], ans[1].best
    case = ans[0].case
    model = answer_model(state)
    options = []
    # more runs of levels run, for an estimated answer at the budget's end only (model_only: against the ladder's
    # next level, which cuts the noise too; a tiny noise gain would beat a level the model prices at no gain)
    pooling = runs_steps(state) if best is not None and not model_only else []
    for kind, cs in fill_steps(req, case) + pooling:
        if kind not in RUNS_KINDS:
            cs = [c for c in cs if (c.steps, c.cells, c.paths) not in ran]
        if not cs:
            continue
        runs = req.runs
        if kind in RUNS_KINDS:  # a batch of up to the request's runs: as many as fit in what is left
            runs = min(req.runs, int(left * rate / sum(c.path_steps for c in cs)))
        secs = sum(c.path_steps for c in cs) * runs / rate
        if runs >= 1 and secs <= left:
            # without an estimate yet, the model has nothing to fit: the cheapest step (which may give one)
            gain = 1.0 if best is None else model_gain(model, kind, case, row, best, same_ladder(state), runs)
            if gain is None:
                if model_only:
                    continue
                gain = (
                    runs_gain(kind, row, best, runs)
                    if kind in RUNS_KINDS
                    else predicted_gain(kind, case, best, row.dt_part)
                )
            options.append((gain / secs, -secs, kind, cs, runs))
    if best is None:
        for c, _, _ in pending:
            secs = c.path_steps * req.runs / rate
            if secs <= left and c.path_steps > case.path_steps / 8:  # not a partner far below the answer
                options.append((1.0 / secs, -secs, "ladder", [c], req.runs))
    if not options:
        return None, "no step from the answer fits", 0.0, 0
    options.sort(key=lambda o: o[:2])
    per_s, _, kind, cs, runs = options[-1]
    return kind, cs, per_s, runs  # runs: a pooling step's (srmdp.refine.refine runs its levels with as many)
