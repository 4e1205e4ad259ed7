"""Refinement to a tolerance: ``srmdp.solve(problem, d=..., tol=..., budget_s=...)``, ``srmdp solve --tol --budget``.

The ladder: N = N0/2 (only for the first estimate), N0, 2 N0, 4 N0, ... time steps (N0 = T/dt, default 5),
#C and M by the paper's rules at each N (or scaled from the given ones, :class:`srmdp.solution.Plan`).
Each level's ``u0_error`` is :func:`srmdp.estimate.total_error` against the level below (r = 2, or N0/(N0//2)).
Before the climb, every level's memory is checked (the ladder ends at the first that does not fit); before
each level, its time is predicted from the previous level's measured rate (path steps per second) and the
level is not started if it would overrun ``budget_s``.  The climb stops at the first level whose estimate
is <= tol (``tol_met`` True).  Otherwise it ends with ``tol_met`` False and says why (budget, memory, or the
divergence of a level); the answer returned is then the level with the smallest estimate.  A level that
diverged (:class:`srmdp.estimate.DivergenceError`), or whose u0 and standard error jump by orders of
magnitude against the level below (u0 off by > 100 s.e. and s.e. x100), is recorded and never returned.
"""

from __future__ import annotations

import math
import time

from .exceptions import ConfigError
from .rng import STEP_BITS

DEFAULT_BUDGET_S = 900.0
JUMP = 100.0  # an exploded level: s.e. > JUMP x the level below's, u0 off by > JUMP x that s.e.


def _positive(v, name, unit):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ConfigError(f"invalid {name}={v!r}: must be a finite number > 0 ({unit})")
    return float(v)


def ladder(plan):
    """The levels' (case, rules), checked for memory first: [N0/2,] N0, 2 N0, ... up to the first that does not fit.
    Returns (levels, why the ladder ends)."""
    steps = ([plan.steps // 2] if plan.steps >= 2 else []) + [plan.steps * 2**k for k in range(12)]
    levels = []
    for n in steps:
        if n >= 2**STEP_BITS:
            return levels, f"N = {n} exceeds the RNG counter's step field"
        try:
            case, rules = plan.case_at(n)
            plan.check(case)
        except ConfigError as exc:
            if not levels:
                raise
            return levels, f"the next level N = {n} is refused: {exc}"
        levels.append((case, rules))
    return levels, "the ladder's last level"


def refine(plan, tol, budget_s=None, report=None):
    """Climb the ladder until u0_error <= tol (module docstring); returns the best :class:`Solution`."""
    from .estimate import DivergenceError, total_error

    tol = _positive(tol, "tol", "absolute, in the units of u")
    budget = DEFAULT_BUDGET_S if budget_s is None else _positive(budget_s, "budget_s", "seconds")
    say = report or (lambda line: None)
    levels, end = ladder(plan)
    t_start = time.perf_counter()
    rows, best, last_ok, below, rate = [], None, None, None, None
    why = end
    say(f"refining to tol = {tol:g} within {budget:g} s: up to {len(levels)} levels, {plan.runs} runs each")
    for k, (case, rules) in enumerate(levels):
        elapsed = time.perf_counter() - t_start
        work = case.path_steps * plan.runs
        if rate is not None and elapsed + work / rate > budget:
            why = (f"budget: level N = {case.steps} (#C = {case.cells}, M = {case.paths}) would take about"
                   f" {work / rate:.0f} s, {budget - elapsed:.0f} s of {budget:g} s are left")
            break
        t0 = time.perf_counter()
        row = {"level": k, "steps": case.steps, "dt": case.dt, "cells": case.cells, "paths": case.paths,
               "runs": plan.runs, "u0": None, "u0_se": None, "u0_error": None, "seconds": None, "status": "ok"}
        try:
            sol = plan.run(case, rules)
        except DivergenceError as exc:
            row.update(status="diverged", seconds=time.perf_counter() - t0, message=str(exc))
            rows.append(row)
            say(_line(row, time.perf_counter() - t_start, budget))
            continue
        res = sol.result
        u, se = res["u0"], res["u0_se"]
        compute = (res["seconds_per_run"] + res["error_seconds_per_run"]) * plan.runs  # without compilation
        rate = work / max(compute, 1e-9)
        row.update(u0=u, u0_se=se, seconds=time.perf_counter() - t0)
        if below is not None and _jumped(below, row):
            row["status"] = "exploded"
        elif below is not None:
            err, bias = total_error(u, se, below["u0"], case.steps / below["steps"])
            row.update(u0_error=err, bias=bias)
            res["error_estimate"] = {"u0_error": err, "bias": bias, "coarse_u0": below["u0"],
                                     "coarse_u0_se": below["u0_se"], "coarse_steps": below["steps"]}
            if best is None or err <= best[1]["u0_error"]:
                best = (sol, row)
        rows.append(row)
        say(_line(row, time.perf_counter() - t_start, budget))
        if row["status"] == "ok":
            below = last_ok = row
            last_sol = sol
        if row["u0_error"] is not None and row["u0_error"] <= tol:
            break
    if best is None:
        if last_ok is None:
            raise DivergenceError(f"no level of the refinement gave an answer: {rows[-1].get('message', why)}")
        best = (last_sol, last_ok)
    sol, row = best
    met = row["u0_error"] is not None and row["u0_error"] <= tol
    why = None if met else why
    sol.result.update(tol=tol, budget_s=budget, tol_met=met, refinement=rows, refinement_stop=why,
                      chosen_level=row["level"])
    if met:
        say(f"tol met: u0 = {row['u0']:.6g} ± {_fmt(row['u0_se'])} (estimated error {row['u0_error']:.2g} <= {tol:g})"
            f" at N = {row['steps']}, #C = {row['cells']}, M = {row['paths']}")
    else:
        est = "not estimated" if row["u0_error"] is None else f"{row['u0_error']:.2g}"
        say(f"tol = {tol:g} NOT met ({why}); best estimate u0 = {row['u0']:.6g} ± {_fmt(row['u0_se'])}, estimated"
            f" error {est}, at N = {row['steps']}, #C = {row['cells']}, M = {row['paths']}")
    return sol


def _jumped(below, row):
    s0, s1 = below["u0_se"], row["u0_se"]
    if s0 is None or s1 is None or s0 <= 0:
        return False
    return s1 > JUMP * s0 and abs(row["u0"] - below["u0"]) > JUMP * s0


def _fmt(v):
    return "?" if v is None else f"{v:.2g}"


def _line(row, elapsed, budget):
    head = (f"level {row['level']}: N = {row['steps']:>3} dt = {row['dt']:<8.4g} #C = {row['cells']:>2}"
            f" M = {row['paths']:>6} runs = {row['runs']}:")
    if row["status"] == "diverged":
        body = "diverged (not an answer)"
    else:
        err = "  --" if row["u0_error"] is None else f"{row['u0_error']:.2g}"
        body = f"u0 = {row['u0']:.6g} ± {_fmt(row['u0_se'])}  estimated error {err}"
        if row["status"] == "exploded":
            body += "  EXPLODED (not an answer)"
    return f"{head} {body}  {row['seconds']:.1f} s  [{elapsed:.0f}/{budget:g} s]"
