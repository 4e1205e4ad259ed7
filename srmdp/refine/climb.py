"""The refinement's state (:mod:`srmdp.refine.refine`): what the climb has done and found so far, read by the
modules that choose its next step (:mod:`srmdp.refine.step_choice`, :mod:`srmdp.refine.fill_steps`,
:mod:`srmdp.refine.pooled_runs`) and by its answer (:mod:`srmdp.refine.refine_report`).

A frozen record: the climb makes a new one at each thing it learns (:func:`dataclasses.replace`,
:meth:`Climb.with_row`) and hands it to the readers, which never write into it."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Climb:
    """A refinement's state across its ladders (a remedy restarts the ladder, not the state)."""

    rows: tuple = ()  # every level's row (srmdp.solutions.row.Row), in the order run (the solution's refinement)
    rate: float | None = None  # path steps per second measured (srmdp.refine.refine's budget)
    why: str | None = None  # why the climb stopped (the ladder's end, the budget, a divergence)
    done: tuple = ()  # (case, row, solution) of this ladder's completed levels
    answer: tuple | None = None  # (solution, row) of the answer so far
    met: bool = False  # the tolerance met at consecutive levels
    largest: int = 0  # the largest level's path steps (the rate is of a level of a size that counts)
    diverged_case: object = None  # the case that diverged (the next remedy's)

    def __post_init__(self):
        object.__setattr__(self, "rows", tuple(self.rows))
        object.__setattr__(self, "done", tuple(self.done))

    def with_row(self, row) -> Climb:
        """The state with ``row``, a new version of a row, in place of its level's row wherever the state holds it
        (its rows, this ladder's completed levels, the answer)."""

        def same(r):
            return r.level == row.level

        return replace(
            self,
            rows=tuple(row if same(r) else r for r in self.rows),
            done=tuple((c, row if same(r) else r, s) for c, r, s in self.done),
            answer=None if self.answer is None else (self.answer[0], row if same(self.answer[1]) else self.answer[1]),
        )
