"""More runs of a level already run, pooled with its runs: a refinement's step where noise dominates
(:mod:`srmdp.refine.refine`, :mod:`srmdp.refine.fill_steps`).

A level's runs use the streams of their run indices (:func:`srmdp.runs.run.run_case`, ``run_start``): a batch run
from run index R (the runs done) is independent of the first R runs, and the pooled runs are exactly the runs
0 .. R + k - 1 of one solve, so :func:`pooled` gives that solve's u0 and s.e., bit for bit (the mean and the
spread of the same per-run values, the kept coefficients the last run's).

The steps (:func:`runs_steps`): ``runs``, another batch of the answer's level; ``runs-partners``, another batch
of the answer's level and of its Richardson partners in dt (the two finest levels at its #C and M with fewer
steps, those :func:`srmdp.refine.richardson.extrapolate` pairs and checks it with), so that the order check and the
extrapolated value see the pooled noise.  Their gain (:func:`runs_gain`) is the noise term's: the answer's
s.e. falls as (R / (R + k))^(1/2), its bias stays.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

RUNS_KINDS = ("runs", "runs-partners")


def key(case):
    return (case.steps, case.cells, case.paths)


def pooled(first, second):
    """The solution of ``first``'s runs and ``second``'s (run from run index ``first``'s runs on): u0 the mean of
    all the per-run values, its s.e. their spread / sqrt(runs); the timings are ``second``'s (the refinement's
    rate is the batch's), the kept coefficients ``second``'s last run (one solve's, keep="last") or all runs'."""
    from ..runs.result import concat

    a, b = first.result, second.result
    joined = concat(r.run.per_run for r in (a, b))  # the runs joined (srmdp.runs.result)
    u = joined.array("u0")
    runs = replace(
        b.run,
        runs=len(u),
        run_start=a.run.run_start or 0,
        per_run=joined,
        u0=float(np.mean(u)),
        u0_se=float(np.std(u, ddof=1) / math.sqrt(len(u))),
        # a problem with an exact solution: its error indicators over all the runs
        indicators=joined.indicators() if joined.exact else b.run.indicators,
    )
    kept = {"coefficients": np.concatenate([first.coefficients, second.coefficients])} if second.keep == "all" else {}
    return second.replace(result=replace(b, run=runs), runs=len(u), **kept)


def runs_steps(state):
    """The answer's pooling steps, (kind, [cases]), partners first (the answer is estimated and extrapolated after
    them): none where the answer is not a level of the ladder being climbed (``state.done``) or has no
    per-run values to pool."""
    ans = state.answer
    done = state.done
    if ans is None or "u0" not in ans[0].result.get("per_run", {}):
        return []
    if not any(r.level == ans[1].level for _, r, _ in done):
        return []
    case = ans[0].case
    partners = sorted(
        c.steps for c, _, _ in done if (c.cells, c.paths) == (case.cells, case.paths) and c.steps < case.steps
    )
    out = [("runs", [case])]
    if partners:
        out.append(("runs-partners", [replace(case, dt=case.maturity / n) for n in partners[-2:]] + [case]))
    return out


def runs_gain(kind, row, best, batch, partner_se=None):
    """The predicted error reduction of the answer by another ``batch`` runs (``kind`` in RUNS_KINDS): its noise
    term only.  The answer's error, its estimate split into its s.e. and the rest (the bias), becomes
    hypot(bias, s.e. (R / (R + k))^(1/2)); a Richardson answer's s.e. is ((N s)^2 + (N1 s1)^2)^(1/2) / (N - N1),
    of which ``runs`` shrinks the N part only (``partner_se``: s1, the partner's s.e.)."""
    err, se = best["u0_error"], best["u0_se"]
    bias2 = max(err * err - se * se, 0.0)
    shrink = math.sqrt(row.runs / (row.runs + batch))
    if best["kind"] == "richardson" and kind == "runs":
        ext = row.richardson
        n, n1 = row.steps, ext["partner_steps"][0]
        s1 = se * (n - n1) / math.hypot(n, n1) if partner_se is None else partner_se
        after = math.hypot(n * row.u0_se * shrink, n1 * s1) / (n - n1)
    else:
        after = se * shrink
    return max(err - math.sqrt(bias2 + after * after), 0.0)
