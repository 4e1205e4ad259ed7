"""The refinement's state (:mod:`srmdp.refine.refine`): what the climb has done and found so far, read by the
modules that choose its next step (:mod:`srmdp.refine.step_choice`, :mod:`srmdp.refine.fill_steps`,
:mod:`srmdp.refine.pooled_runs`) and by its answer (:mod:`srmdp.refine.refine_report`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Climb:
    """A refinement's state across its ladders (a remedy restarts the ladder, not the state)."""

    rows: list = field(default_factory=list)  # every level's row, in the order run (the solution's refinement)
    rate: float | None = None  # path steps per second measured (srmdp.refine.refine's budget)
    why: str | None = None  # why the climb stopped (the ladder's end, the budget, a divergence)
    done: list = field(default_factory=list)  # (case, row, solution) of this ladder's completed levels
    answer: tuple | None = None  # (solution, row) of the answer so far
    met: bool = False  # the tolerance met at consecutive levels
    largest: int = 0  # the largest level's path steps (the rate is of a level of a size that counts)
    batch: int | None = None  # a pooling step's runs (srmdp.refine.fill_steps chooses them)
    diverged_case: object = None  # the case that diverged (the next remedy's)
