"""The one verdict on a paper number: an equivalence test with a declared margin (config ``equivalence``), under the
paper's evaluation model that the evidence favours.

The paper's "10^3 x 10^3" evaluations are read as a split of runs x test points (config ``equivalence.model``, the
headline; ``sensitivity_model``, the other reading, shown beside it): 10^3 runs with one test point each (``1000x1``)
or with 10^3 each (``1000x1000``).  Under a split S the paper's number is itself a Monte-Carlo value: from our per-run
moments, :func:`srmdp.paper.models.splits.split` gives its expected shift from ours (the max's and the log's biases
at both
sample sizes: this is where the small-R bias of ln max is corrected in a judgement) and its own standard deviation
sd_S.  With Delta = ours + shift_S - paper, R our runs and se our standard error, the interval is Delta +- t * s with
s = sqrt(se^2 + sd_S^2) and t the two-sided ``level`` quantile of Student's t on R - 1 degrees of freedom.  The
number is

* *reproduced* when the interval lies inside (-delta, +delta),
* *differs* when it lies wholly outside [-delta, +delta],
* *undecided* otherwise, and without a standard error (one run) or per-run moments.

An undecided number has a cause (:meth:`Equivalence.judge`): *the paper's own noise* when z * sd_S alone (z: the
normal quantile of ``level``) reaches delta, so that no run of ours can decide it; else *our runs*, with the runs
R' that bring the half-width down to (delta + z sd_S) / 2, midway between that floor and delta -- sized from the
spread only, never from Delta, so that the test keeps its level; *near the margin* where the half-width is already
there (Delta itself lies near +-delta).

Both sides use the same interval, so few runs can decide neither way: with R = 2 (t = 235.8 at the 3-sigma level)
a number is reproduced only if its spread is below delta / 236.  Every verdict of the report (the scorecard, the
per-table words, the bold cells, p. 1) is :meth:`Equivalence.judge`; the residuals' hypotheses use
:meth:`Equivalence.verdict` with their own values and spreads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache

from .splits import PAPER_RUNS, paper_splits
from .student import t_quantile

VERDICTS = ("reproduced", "differs", "undecided")
MODELS = ("1000x1", "1000x1000")  # the splits of the paper's 10^3 x 10^3 evaluations (srmdp.paper.models.splits)
CAUSES = ("paper noise", "our runs", "near the margin", "no spread")  # why a number is undecided
MAX_RUNS = 10**6  # runs_needed beyond this: reported as more than MAX_RUNS


@cache
def _t(level: float, runs: int) -> float:
    return math.inf if runs < 2 else t_quantile(0.5 * (1 + level), runs - 1)


@cache
def _z(level: float) -> float:
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erf(mid / math.sqrt(2)) < level else (lo, mid)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Judgement:
    """One paper number judged: Delta under the model (ours + shift - paper), its spread and half-width, the verdict,
    and for an undecided number its cause and (cause ``our runs``) the runs its spread needs."""

    diff: float | None
    spread: float
    half_width: float
    verdict: str
    cause: str = ""
    runs_needed: int | None = None
    shift: float = 0.0
    paper_sd: float = 0.0
    runs_held: int | None = None  # the runs that decide it were Delta to stay where it is (None: no number of runs)


def model_spread(res: dict, key: str, model: str):
    """(shift, sd) of indicator ``key`` (``mse_y_max`` ...) of result ``res`` under the split ``model``, or None
    without per-run moments; computed once per result (kept in its private ``_splits``)."""
    if "_splits" not in res:
        res["_splits"] = paper_splits(res)
    sp = res["_splits"].get(model)
    if not sp:
        return None
    short = key[len("mse_") :]
    return float(sp[short + "_shift"]), float(sp[short + "_sd"])


@dataclass(frozen=True)
class Equivalence:
    delta: float  # the margin on Delta, in the tables' unit (natural log of an MSE)
    level: float  # two-sided confidence of the interval
    reason: str = ""
    model: str = "1000x1"  # the headline's split of the paper's evaluations
    sensitivity_model: str = "1000x1000"  # the other split, shown beside it

    @classmethod
    def from_config(cls, eq: dict | None) -> Equivalence | None:
        if not eq:
            return None
        return cls(
            float(eq["delta"]),
            float(eq["level"]),
            str(eq.get("reason", "")),
            str(eq.get("model", "1000x1")),
            str(eq.get("sensitivity_model", "1000x1000")),
        )

    def scaled(self, factor: float) -> Equivalence:
        """The same rule with the margin times ``factor`` (the sensitivity counts: delta/2, 2 delta)."""
        return replace(self, delta=self.delta * factor)

    def under(self, model: str) -> Equivalence:
        """The same rule under another split of the paper's evaluations."""
        return replace(self, model=model)

    def t(self, runs: int) -> float:
        return _t(self.level, int(runs))

    def z(self) -> float:
        """The normal quantile of the level: the half-width's limit per unit of spread, at infinitely many runs."""
        return _z(self.level)

    def spread(self, se, runs: int) -> float:
        """The standard deviation of Delta where no split is modelled (the residuals' reruns and literal form): ours
        and the paper's at its 10^3 runs of our test points, from our per-run spread."""
        return se * math.sqrt(1 + runs / PAPER_RUNS)

    def half_width(self, se, runs: int, spread=None) -> float:
        """Half the interval's width: t on R - 1 d.o.f. times ``spread`` (default :meth:`spread`)."""
        if runs < 2 or not se or not math.isfinite(se):
            return math.inf
        return self.t(runs) * (self.spread(se, runs) if spread is None else spread)

    def verdict(self, diff, se, runs: int, spread=None) -> str:
        """``reproduced``, ``differs`` or ``undecided`` for Delta = ``diff`` (see the module's docstring)."""
        if diff is None:
            return "undecided"
        h = self.half_width(se, runs, spread)
        if abs(diff) + h < self.delta:
            return "reproduced"
        if abs(diff) - h > self.delta:
            return "differs"
        return "undecided"

    def judge(self, res: dict, key: str, paper: float) -> Judgement:
        """Indicator ``key`` of result ``res`` against the paper's value under this rule's model."""
        ours, se, runs = res.get(key), res.get(key + "_se"), int(res.get("runs") or 1)
        m = model_spread(res, key, self.model) if ours is not None and se and runs >= 2 else None
        if m is None:
            return Judgement(None if ours is None else ours - paper, math.inf, math.inf, "undecided", "no spread")
        shift, sd = m
        diff = ours + shift - paper
        spread = math.hypot(se, sd)
        h = self.half_width(se, runs, spread)
        v = self.verdict(diff, se, runs, spread)
        cause, need, held = "", None, None
        if v == "undecided":
            floor = _z(self.level) * sd
            need = None if floor >= self.delta else self.runs_needed(se * math.sqrt(runs), sd, runs)
            cause = "paper noise" if need is None else "near the margin" if need <= runs else "our runs"
            held = self.runs_held(diff, se * math.sqrt(runs), sd, runs)
        return Judgement(diff, spread, h, v, cause, need, shift, sd, held)

    def runs_held(self, diff: float, run_sd: float, paper_sd: float, runs: int) -> int | None:
        """The smallest R' >= ``runs`` whose half-width t(R') sqrt(run_sd^2 / R' + paper_sd^2) puts Delta = ``diff``,
        held where it is, wholly inside or wholly outside +-delta; None where no R' does (the half-width tends to
        z paper_sd, not 0) or beyond MAX_RUNS.  A forecast, not the test's sizing (:meth:`runs_needed`)."""
        gap = abs(self.delta - abs(diff))

        def ok(r):
            return self.t(r) * math.hypot(run_sd / math.sqrt(r), paper_sd) < gap

        if _z(self.level) * paper_sd >= gap:
            return None
        lo, hi = int(runs), max(int(runs) + 1, 2)
        if runs >= 2 and ok(runs):
            return int(runs)
        while not ok(hi):
            if hi > MAX_RUNS:
                return None
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    def runs_needed(self, run_sd: float, paper_sd: float, runs: int) -> int:
        """The smallest R' >= ``runs`` with t(R') sqrt(run_sd^2 / R' + paper_sd^2) <= (delta + z paper_sd) / 2 (the
        module's docstring; the spread alone decides it), MAX_RUNS + 1 beyond MAX_RUNS.  ``runs`` itself: the
        interval is already that narrow, and the number is undecided because its Delta lies near the margin."""
        target = 0.5 * (self.delta + _z(self.level) * paper_sd)

        def ok(r):
            return self.t(r) * math.hypot(run_sd / math.sqrt(r), paper_sd) <= target

        if runs >= 2 and ok(runs):
            return int(runs)
        lo, hi = int(runs), max(int(runs) + 1, 2)
        while not ok(hi):
            if hi > MAX_RUNS:
                return MAX_RUNS + 1
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    def words(self) -> str:
        """The rule in words, for captions: margin, level, model and where the interval comes from."""
        return (
            f"$\\delta={self.delta:g}$ (natural logs: about {100 * (math.exp(self.delta) - 1):.0f}\\,\\% of the MSE),"
            f" interval at {100 * self.level:g}\\,\\% (Student's $t$ on $R-1$ degrees of freedom), the paper's"
            f" evaluations read as {model_tex(self.model)} (runs $\\times$ test points: its bias and its own"
            " Monte-Carlo error included)"
        )


def model_tex(model: str) -> str:
    runs, points = model.split("x")
    e = {"1": "1", "1000": "10^3"}
    return f"${e.get(runs, runs)}{{\\times}}{e.get(points, points)}$"
