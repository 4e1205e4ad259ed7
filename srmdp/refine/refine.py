"""Refinement to a tolerance: ``srmdp.solve(problem, d=..., tol=..., budget_s=...)``, ``srmdp solve --tol --budget``.

**The ladder** (:mod:`srmdp.refine.ladder`): the rule levels N = N0/2, N0, 2 N0, ... and between two of them one
parameter at a time (M, dt, #C), with dt partners before the M step; ``tol`` is refused where the rules do not
grow #C and M with N.

**Estimates.** A level's ``u0_error`` is :func:`srmdp.solutions.error_estimate.total_error` against the latest completed
level strictly coarser in N, #C (of the same parity) and M (an intermediate level may have none).  A rule level
with no such level before it in the ladder is preceded by its solve's level below (kind "below", :func:`ladder`).

**Richardson extrapolation in dt** (:mod:`srmdp.refine.richardson`).  The scheme's time error on u0 is first order for
smooth data, so two levels that differ in dt only (the same #C and M, the same seed) give
R = (N u_N - N1 u_N1) / (N - N1), whose s.e. is the levels' noise amplified ((N s)^2 + (N1 s1)^2)^(1/2) /
(N - N1) (x2.2 for N1 = N/2).  It is used only where a third level at the same #C and M confirms the order
(both differences out of their noise, their ratio that of an order in [0.8, 1.5]: z's order 1/2 is refused).
Its estimate compares it with the latest Richardson value strictly coarser in N, #C and M -- never a level
coarser in M only -- with rho_dt squared (the first-order term is gone), or where there is none, with the latest
plain level strictly coarser, u' - a / N' (its dt term removed by the pair's slope a, so that it has R's dt bias:
none; rho of #C and M only; :func:`srmdp.refine.richardson.corrected`), plus the next order, |R - R'| N2 / (N - N2) from
the triple's coarse pair R', and its own s.e.  A level's best value (``Row.best``) is the one of the two with
the smaller estimate.

**tol met** needs the best estimate <= tol at two consecutive estimated levels: one noisy difference (two
coarse levels agreeing by chance) does not end the climb.  **The answer** is the finest level that completed
without divergence and has an estimate (else the finest completed level, u0_error None with the reason),
with its Richardson value where that is its best (``result["extrapolated"]`` keeps the plain value): an
intermediate level without a strictly coarser level below it is not preferred to an estimated one, and a dt
partner or a fill step replaces the answer only where its estimate is also the smaller (more runs of the
answer's level, pooled, replace it whatever their estimate: the same level, known better).

**Levels chosen by predicted error reduction per second.**  Once the answer has an estimate, before each
level of the ladder the error model fitted to the levels so far prices the ladder's next level and the steps
from the answer; a step from the answer is taken instead (``step-<kind>`` in the rows) where it is the better
buy (:mod:`srmdp.refine.step_choice`).

**The whole budget.**  When the next level does not fit in what is left (or the ladder ends), the rest of
the budget goes to fill steps from the answer (:mod:`srmdp.refine.fill_steps`: its dt partners N/2 and N/4, dt/2, 2 M,
#C + 2, or more runs of the answer's level, with its Richardson partners' or not, pooled with the runs done:
:mod:`srmdp.refine.pooled_runs`; a pooled level's row replaces its earlier row, status "pooled", and the answer
uses it), the one with the largest predicted error reduction per second (``predicted_gain`` there: the
answer's estimate split into its s.e., its dt part from a dt pair at its #C and M, and the rest, the cells'
and M's bias; a step removes the part it acts on by the model's orders), again and again until no step fits.

**The budget** holds in every branch: before a level starts, its time is predicted from its work (path
steps x runs) and the measured rate (path steps per second) of the latest level at least a quarter of the
largest so far in work (so that a rising load shows; the faster of it and a smaller level's otherwise),
diverged ones included (the seconds of their runs that completed before the divergence, without the compilation; a level
that diverged in its first run gives no rate); a level that would overrun ``budget_s`` is not started, and a
level that cannot be predicted yet (nothing measured) is not started past half the budget.  The clock is
:data:`_clock` (a test injects a fake one).

**Divergence** (:class:`srmdp.kernels.divergence.DivergenceError`) is not answered by climbing on.  The remedies are
applied in this order, each restarting the ladder from its bottom with the change recorded in the solution
(``result["remedies"]``): (1) adapted strata (:mod:`srmdp.problems.adapt`) where the strata were the box; (2)
truncation bounds from the data (:func:`srmdp.kernels.divergence.data_bounds`: 2x the range of g and of
sigma^T grad g at the strata) where none were given.  When both were applied (or given), the climb stops
and says what to set.  A level whose u0 and s.e. jump by orders of magnitude against the level below
(u0 off by > 100 s.e. and s.e. x100) is recorded as exploded and never returned.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from ..exceptions import ConfigError
from ..solutions.prediction import DEFAULT_BUDGET_S, check_budget
from ..solutions.row import Row
from .climb import Climb
from .fill_steps import choose_fill, rank_fills
from .ladder import check_rules_grow, ladder
from .pooled_runs import RUNS_KINDS, key, pooled
from .refine_report import answer, line
from .richardson import extrapolate
from .step_choice import answer_model, ladder_gain

_clock = time.perf_counter  # the refinement's clock (a test injects a fake one: no timed runs)

# an exploded level: s.e. > EXPLODED_FACTOR x the level below's, u0 off by > EXPLODED_FACTOR x that s.e.
EXPLODED_FACTOR = 100.0
CONSECUTIVE = 2  # estimates <= tol needed in a row for "tol met"


def prefer_step(req, state, ran, left, pending, group, secs):
    """(kind, [cases], runs) of a step from the answer whose predicted error reduction per second (the error model
    fitted to the levels so far, :mod:`srmdp.refine.error_model`) beats the ladder's next group of levels (``secs``
    seconds), or None: the ladder's level.  Only where the model prices both (it identifies the terms the steps
    change)."""
    gain = ladder_gain(answer_model(state), state, [lv[0] for lv in pending[:group]])
    if gain is None:
        return None
    kind, cases, per_s, runs = rank_fills(req, state, ran, left, model_only=True)
    if kind is None or per_s <= gain / max(secs, 1e-9) or per_s <= 0.0:
        return None
    return kind, cases, runs


def refine(req, tol, budget_s=None, report=None):
    """Climb the ladder until two consecutive estimates are <= tol, then spend what is left of the budget on the
    steps the error model prefers (module docstring); returns the answer."""
    from ..kernels.divergence import data_bounds

    budget = DEFAULT_BUDGET_S if budget_s is None else float(budget_s)
    if req.runs < 2:
        raise ConfigError(f"invalid runs={req.runs} with tol: a refinement needs >= 2 runs per level")
    check_rules_grow(req)
    say = report or (lambda line: None)
    t_start = _clock()
    state = Climb()
    first = True
    while True:
        levels, end = ladder(req)
        if first:  # the first level's cost said before compute; one predicted over the budget refused
            check_budget(req, levels[0][0], None, say=say)
            first = False
        say(
            f"refining to tol = {tol:g} within {budget:g} s: up to {len(levels)} levels, {req.runs} runs each"
            + (f" (remedies: {', '.join(req.remedies)})" if req.remedies else "")
        )
        out, state = _climb(req, levels, end, tol, budget, t_start, state, say)
        if out != "diverged":
            break
        # a divergence: the next remedy, or stop (module docstring)
        case = state.diverged_case
        if not req.adapted:
            req = req.with_remedy("adapted strata", strata="adapted")
            continue
        if math.isinf(case.trunc_y) and math.isinf(case.trunc_z):
            bounds = data_bounds(case, req.problem)
            if bounds is not None:
                req = req.with_remedy(
                    f"truncation from the data: trunc_y = {bounds[0]:.3g}, trunc_z = {bounds[1]:.3g}",
                    trunc_y=bounds[0],
                    trunc_z=bounds[1],
                )
                continue
        state = replace(
            state,
            why=(
                f"divergence at N = {case.steps}, #C = {case.cells}, M = {case.paths} after the remedies"
                f" ({', '.join(req.remedies) or 'none left'}); set trunc_y and trunc_z to the solution's known"
                " bounds (|u| and |sigma^T grad u|), or more paths (paths=)"
            ),
        )
        break
    return answer(state, tol, budget, say, CONSECUTIVE)


def _climb(req, levels, end, tol, budget, t_start, state, say):
    """Run the levels, then fill steps; returns ("diverged", state) (its diverged_case set) or (None, state)
    (stopped, its why set): the state is a frozen record, a new one at each thing learned."""
    from ..exceptions import Interrupted
    from ..kernels.divergence import DivergenceError

    state = replace(state, done=(), why=end)  # this ladder's completed levels (a pooling step pools into these)
    ran = set()  # (N, #C, M) run in this ladder (a fill step may be a later ladder level)
    queue = []  # the rest of a fill step of several levels: (case, rules, kind, runs)
    met = 0
    pending = list(levels)
    while True:
        pending = [lv for lv in pending if (lv[0].steps, lv[0].cells, lv[0].paths) not in ran]
        elapsed = _clock() - t_start
        rate = state.rate
        batch = None  # a pooling step's runs (the step's choice says how many)
        if queue:
            case, rules, kind, batch = queue.pop(0)
        else:
            fits = False
            if pending:
                case, rules, kind = pending[0]
                # dt partners are worth their time only with the level they pair with: priced together
                group = 1 + next(
                    (i for i, lv in enumerate(pending) if lv[2] not in ("dt-partner", "below")), len(pending) - 1
                )
                work = sum(lv[0].path_steps for lv in pending[:group]) * req.runs
                if rate is None and elapsed > budget / 2:
                    why = (
                        f"budget: level N = {case.steps} cannot be predicted (no level measured yet) and"
                        f" half of {budget:g} s is spent"
                    )
                    return None, replace(state, why=why)
                fits = rate is None or elapsed + work / rate <= budget
                if not fits:
                    c = pending[group - 1][0]
                    state = replace(
                        state,
                        why=(
                            f"budget: level N = {c.steps} (#C = {c.cells}, M = {c.paths}) would take about"
                            f" {work / rate:.0f} s, {budget - elapsed:.0f} s of {budget:g} s are left"
                        ),
                    )
            swap = None
            if fits and rate is not None:  # the ladder's next level(s), or a step from the answer the model prefers
                swap = prefer_step(req, state, ran, budget - elapsed, pending, group, work / rate)
            if swap is not None:
                rules = dict(getattr(state.answer[0], "rules", {}))
                queue = [(c, rules, "step-" + swap[0], swap[2]) for c in swap[1]]
                case, rules, kind, batch = queue.pop(0)
            elif fits:
                pending.pop(0)
            else:  # the next level does not fit (or the ladder ended): a fill step, where the model says
                kind, cases, runs = choose_fill(req, state, ran, budget - elapsed, pending)
                if kind is None:
                    return None, replace(state, why=f"{state.why}; {cases}")
                rules = dict(getattr(state.answer[0], "rules", {}))
                queue = [(c, rules, "fill-" + kind, runs) for c in cases]
                case, rules, kind, batch = queue.pop(0)
        ran.add((case.steps, case.cells, case.paths))
        # more runs of a level run (a pooling step): its runs continue the level's run indices, pooled with them
        prior = next((e for e in state.done if key(e[0]) == key(case)), None) if _pooling(kind) else None
        t0 = _clock()
        row = Row(
            level=len(state.rows),
            kind=kind,
            steps=case.steps,
            dt=case.dt,
            cells=case.cells,
            paths=case.paths,
            runs=req.runs,
            remedies=tuple(req.remedies),
        )
        try:
            if prior is None:
                sol = req.run(case, rules)
            else:
                sol = req.run(case, rules, runs=batch, run_start=prior[2].result["runs"])
        except Interrupted as exc:  # a signal: the levels completed and the answer so far go with it
            exc.levels = [r for r in state.rows if r.status == "ok"]
            exc.stage = f"level {len(state.rows)} ({kind}, {case.label}) of the refinement to tol = {tol:g}"
            if state.answer is not None:
                exc.answer = state.answer[0].result
            raise
        except DivergenceError as exc:
            secs = _clock() - t0
            per_run = getattr(exc, "seconds_per_run", None)  # None: it diverged in its first run
            if per_run:  # a run's seconds without the compilation (secs includes it, and it can be most of secs)
                state = replace(state, rate=max(rate or 0.0, case.path_steps / max(per_run, 1e-9)))
            row = replace(row, status="diverged", seconds=secs, message=str(exc))
            state = replace(state, rows=state.rows + (row,), diverged_case=case)
            say(line(row, _clock() - t_start, budget))
            return "diverged", state
        res = sol.result
        compute = (res["seconds_per_run"] + res["error_seconds_per_run"]) * req.runs  # without compilation
        now = case.path_steps * req.runs / max(compute, 1e-9)
        # the rate of the latest level of a size that counts (>= 1/4 of the largest so far: a tiny level's rate is
        # its overhead's), so that a load that rises during the solve shows in the predictions
        largest = max(state.largest, case.path_steps)
        state = replace(
            state, largest=largest, rate=now if case.path_steps >= largest / 4 or rate is None else max(rate, now)
        )
        if prior is not None:  # the level's row and solution are replaced by the pooled ones
            sol = pooled(prior[2], sol)
            res = sol.result
            row = replace(row, runs=res["runs"], pooled_with=prior[1].level)
        row = replace(row, u0=res["u0"], u0_se=res["u0_se"], seconds=_clock() - t0)
        below = state.done[-1][1] if state.done else None
        if below is not None and _jumped(below, row):
            row = replace(row, status="exploded")
        else:
            if prior is not None:  # its row is superseded (left out of the estimates and the model's fit)
                state = replace(state, done=tuple(e for e in state.done if e[1].level != prior[1].level))
                state = state.with_row(replace(prior[1], status="pooled"))
            est, row = _estimate(case, row, state.done)
            sol = sol.replace(result=replace(res, error_estimate=est))
            for i in range(len(state.done)):  # a partner run after its finer level (a fill step): extrapolate it now
                c_fine, r_fine, _ = state.done[i]
                if (c_fine.cells, c_fine.paths) == (case.cells, case.paths) and c_fine.steps > case.steps:
                    state = state.with_row(extrapolate(c_fine, r_fine, state.done + ((case, row, sol),)))
            prev = state.answer
            state = replace(state, done=state.done + ((case, row, sol),))
            # the answer: the finest completed level with an estimate (else the finest completed level); a dt
            # partner or a fill step only where its estimate is also the smaller (a step the model chose may fail)
            rank = (row.best is not None, case.path_steps)
            if prior is not None and prev is not None and prev[1].level == prior[1].level:
                state = replace(state, answer=(sol, row))  # the answer's level with more runs, whatever its estimate
            elif prev is None or rank >= (prev[1].best is not None, prev[0].case.path_steps):
                side = kind in ("dt-partner", "below") or kind.startswith(("fill-", "step-"))
                if not (
                    side
                    and prev is not None
                    and prev[1].best is not None
                    and row.best["u0_error"] > prev[1].best["u0_error"]
                ):
                    state = replace(state, answer=(sol, row))
        state = replace(state, rows=state.rows + (row,))
        say(line(row, _clock() - t_start, budget))
        if row.best is not None:
            # a pooled level is the same level, not one more in a row (its estimate may still reset the count)
            met = met + (prior is None) if row.best["u0_error"] <= tol else 0
            if met >= CONSECUTIVE:
                return None, replace(state, met=True)


def _pooling(kind):
    """Whether a row's kind is a pooling step's ("fill-runs", "step-runs-partners", ...)."""
    return kind.startswith(("fill-", "step-")) and kind.split("-", 1)[1] in RUNS_KINDS


def _estimate(case, row, done):
    """The level's plain estimate (against the latest completed level strictly coarser in N, #C and M) and the
    row with it and its Richardson value in dt (pairs at the same #C and M, checked by a third level; module
    docstring): (estimate, row), the row's best value the one of the two with the smaller estimate (None if
    neither has one)."""
    from ..solutions.error_estimate import ErrorEstimate, coarser, total_error

    u, se = row.u0, row.u0_se
    est = ErrorEstimate(
        u0_error=None,
        reason="no completed level below it is strictly coarser in N, #C and M (with #C of the same parity)",
    )
    for c_low, r_low, _ in reversed(done):
        rho, _why = coarser(case, c_low)
        if rho:
            err, bias = total_error(u, se, r_low.u0, r_low.u0_se, rho)
            row = replace(row, u0_error=err, bias=bias, against=r_low.level)
            est = ErrorEstimate(
                u0_error=err,
                bias=bias,
                rho=rho,
                coarse_u0=r_low.u0,
                coarse_u0_se=r_low.u0_se,
                coarse_case=c_low.as_dict(),
            )
            break
    if row.u0_error is not None:
        row = replace(row, best={"kind": "plain", "u0": u, "u0_se": se, "u0_error": row.u0_error})
    return est, extrapolate(case, row, done)


def _jumped(below, row):
    s0, s1 = below.u0_se, row.u0_se
    if s0 is None or s1 is None or s0 <= 0:
        return False
    return s1 > EXPLODED_FACTOR * s0 and abs(row.u0 - below.u0) > EXPLODED_FACTOR * s0
