"""The one verdict on a paper number: an equivalence test with a declared margin (config ``equivalence``).

With Delta = ours - paper, R our runs and se our standard error, the interval is Delta +- t * s, where t is the
two-sided ``level`` quantile of Student's t on R - 1 degrees of freedom (the standard error is estimated from the
runs) and s = se * sqrt(1 + R / PAPER_RUNS) adds the paper's own Monte-Carlo error, estimated from our per-run
spread (se * sqrt(R)) at its 10^3 runs.  The number is

* *reproduced* when the interval lies inside (-delta, +delta),
* *differs* when it lies wholly outside [-delta, +delta],
* *undecided* otherwise, and without a standard error (one run).

Both sides use the same interval, so few runs can decide neither way: with R = 2 (t = 235.8 at the 3-sigma level)
a number is reproduced only if its standard error is below delta / 236.  Every verdict of the report (the scorecard,
the per-table words, the hypotheses of the residuals, p. 1) is :meth:`Equivalence.verdict`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache

from .splits import PAPER_RUNS
from .student import t_quantile

VERDICTS = ("reproduced", "differs", "undecided")


@cache
def _t(level: float, runs: int) -> float:
    return math.inf if runs < 2 else t_quantile(0.5 * (1 + level), runs - 1)


@dataclass(frozen=True)
class Equivalence:
    delta: float  # the margin on Delta, in the tables' unit (natural log of an MSE)
    level: float  # two-sided confidence of the interval
    reason: str = ""

    @classmethod
    def from_config(cls, eq: dict | None) -> Equivalence | None:
        if not eq:
            return None
        return cls(float(eq["delta"]), float(eq["level"]), str(eq.get("reason", "")))

    def scaled(self, factor: float) -> Equivalence:
        """The same rule with the margin times ``factor`` (the sensitivity counts: delta/2, 2 delta)."""
        return replace(self, delta=self.delta * factor)

    def t(self, runs: int) -> float:
        return _t(self.level, int(runs))

    def spread(self, se, runs: int) -> float:
        """The standard deviation of Delta: ours and the paper's at its 10^3 runs, from our per-run spread."""
        return se * math.sqrt(1 + runs / PAPER_RUNS)

    def half_width(self, se, runs: int, spread=None) -> float:
        """Half the interval's width; ``spread``: the standard deviation of Delta where a hypothesis gives its own
        (the splits of the residuals: the paper's error under that split), else :meth:`spread`."""
        if runs < 2 or not se or not math.isfinite(se):
            return math.inf
        return self.t(runs) * (self.spread(se, runs) if spread is None else spread)

    def verdict(self, diff, se, runs: int, spread=None) -> str:
        """``reproduced``, ``differs`` or ``undecided`` (see the module's docstring)."""
        if diff is None:
            return "undecided"
        h = self.half_width(se, runs, spread)
        if abs(diff) + h < self.delta:
            return "reproduced"
        if abs(diff) - h > self.delta:
            return "differs"
        return "undecided"

    def words(self) -> str:
        """The rule in words, for captions: margin, level and where the interval comes from."""
        return (
            f"$\\delta={self.delta:g}$ (natural logs: about {100 * (math.exp(self.delta) - 1):.0f}\\,\\% of the MSE),"
            f" interval at {100 * self.level:g}\\,\\% (Student's $t$ on $R-1$ degrees of freedom, the paper's own"
            f" error at its $10^3$ runs included)"
        )
