"""A refinement's answer and its report lines (:mod:`srmdp.refine.refine`)."""

from __future__ import annotations

from dataclasses import replace

from ..solutions.error_estimate import ErrorEstimate


def answer(state, tol, budget, say, consecutive):
    """The refinement's answer (state.answer: its solution, with the refinement's rows, the stop reason and,
    where its best value is Richardson's, the extrapolated u0 and its estimate), and its report line;
    ``consecutive``: the estimates <= tol in a row that "tol met" needed."""
    from ..kernels.divergence import DivergenceError

    rows = state.rows
    if state.answer is None:
        last = (rows[-1].message if rows else None) or ""
        raise DivergenceError(f"no level of the refinement gave an answer ({state.why}): {last}")
    sol, row = state.answer
    met = state.met
    why = None if met else state.why
    best = row.best
    extrapolated = estimate = None
    if best is not None and best["kind"] == "richardson":  # u(0, x0) is the extrapolated value (Solution.u0)
        ext = row.richardson
        extrapolated = {
            "u0": ext["u0"],
            "u0_se": ext["u0_se"],
            "plain_u0": row.u0,
            "plain_u0_se": row.u0_se,
            "partners": ext["partners"],
        }
        estimate = ErrorEstimate(
            u0_error=ext["u0_error"],
            bias=ext["bias"],
            rho=ext["rho"],
            next_order=ext["next_order"],
            against=ext["against"],
            against_kind=ext["against_kind"],
            richardson=True,
        )
    result = replace(
        sol.result,
        tol=tol,
        budget_s=budget,
        tol_met=met,
        refinement=rows,
        refinement_stop=why,
        chosen_level=row.level,
        extrapolated=extrapolated,
        error_estimate=estimate or sol.result.error_estimate,
    )
    shown = best or {"u0": row.u0, "u0_se": row.u0_se, "u0_error": None, "kind": "plain"}
    how = " (Richardson in dt)" if shown["kind"] == "richardson" else ""
    if met:
        say(
            f"tol met: u0 = {shown['u0']:.6g} ± {fmt(shown['u0_se'])}{how} (estimated error"
            f" {shown['u0_error']:.2g} <= {tol:g} at {consecutive} consecutive levels) at N = {row.steps},"
            f" #C = {row.cells}, M = {row.paths}"
        )
    else:
        est = "not estimated" if shown["u0_error"] is None else f"{shown['u0_error']:.2g}"
        say(
            f"tol = {tol:g} NOT met ({why}); answer u0 = {shown['u0']:.6g} ± {fmt(shown['u0_se'])}{how},"
            f" estimated error {est}, at N = {row.steps}, #C = {row.cells}, M = {row.paths}"
        )
    return sol.replace(result=result)


def fmt(v):
    return "?" if v is None else f"{v:.2g}"


def line(row, elapsed, budget):
    """A level's report line (its parameters, u0 and s.e., estimate, Richardson value, kind, seconds)."""
    head = (
        f"level {row.level}: N = {row.steps:>3} dt = {row.dt:<8.4g} #C = {row.cells:>2}"
        f" M = {row.paths:>6} runs = {row.runs}:"
    )
    if row.status == "diverged":
        body = "diverged (not an answer)"
    else:
        err = "  --" if row.u0_error is None else f"{row.u0_error:.2g}"
        body = f"u0 = {row.u0:.6g} ± {fmt(row.u0_se)}  estimated error {err}"
        ext = row.richardson
        if ext is not None and ext["order_confirmed"]:
            body += f"; Richardson in dt {ext['u0']:.6g} ± {fmt(ext['u0_se'])}, estimated error {fmt(ext['u0_error'])}"
        if row.kind != "rule":
            body += f"  ({row.kind})"
        if row.status == "exploded":
            body += "  EXPLODED (not an answer)"
    return f"{head} {body}  {row.seconds:.1f} s  [{elapsed:.0f}/{budget:g} s]"
