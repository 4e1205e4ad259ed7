"""A refinement's row: one level of the climb (:mod:`srmdp.refine.refine`) as a frozen record, :class:`Row`.

A row is built when its level starts and never written into: each thing the climb learns of it (its runs' u0,
its estimate, its Richardson value, its status) makes a new version (:func:`dataclasses.replace`) that replaces
the old one wherever the climb holds it (:class:`srmdp.refine.climb.Climb`).  A solve's result keeps the rows
(:class:`srmdp.solutions.solve_result.SolveResult`), and a solution file writes each as the JSON object
:meth:`Row.to_dict` gives: the level's keys (:data:`LEVEL`) always, then each key of :data:`LEARNED` where the
climb set it, in that order, the order the rows were written in as dicts (so that a file reads back as it was).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from ..runs.result import freeze, thaw

__all__ = ["LEARNED", "LEVEL", "Row"]

# the keys every row writes, in their order
LEVEL = (
    "level",
    "kind",
    "steps",
    "dt",
    "cells",
    "paths",
    "runs",
    "u0",
    "u0_se",
    "u0_error",
    "seconds",
    "status",
    "remedies",
    "best",
)
# the keys a row writes where the climb set them, in their order after LEVEL's
LEARNED = ("message", "pooled_with", "bias", "against", "richardson", "dt_part", "plain_best")


@dataclass(frozen=True)
class Row:
    """One level of a refinement: what was run (its kind, N, dt, #C, M, runs, the remedies applied before it), what
    it gave (u0, its s.e. and estimate, the seconds it took, its status) and its best value (``best``: the plain
    value or its Richardson value in dt, whichever has the smaller estimate; None where neither has one)."""

    level: int = 0  # its index in the refinement's rows, unique in a refinement
    kind: str = "rule"  # "rule", "dt", "cells", "paths", "dt-partner", "below", "step-<kind>", "fill-<kind>"
    steps: int | None = None
    dt: float | None = None
    cells: int | None = None
    paths: int | None = None
    runs: int | None = None
    u0: float | None = None
    u0_se: float | None = None
    u0_error: float | None = None  # the plain value's estimate against a strictly coarser level
    seconds: float | None = None
    status: str = "ok"  # "ok", "diverged", "exploded", "pooled" (its runs pooled into a later row)
    remedies: tuple = ()
    best: Mapping | None = None  # {"kind": "plain" | "richardson", "u0", "u0_se", "u0_error"[, "next_order"]}
    message: str | None = None  # a divergence's
    pooled_with: int | None = None  # the level whose runs this row's runs were pooled with
    bias: float | None = None  # the plain estimate's bias part, and the level it is against
    against: int | None = None
    richardson: Mapping | None = None  # its Richardson value in dt (srmdp.refine.richardson.richardson)
    dt_part: float | None = None  # the dt part of its bias, from its Richardson pair
    plain_best: Mapping | None = None  # the plain best value, kept where a checked Richardson value was weighed
    kept_plain: bool = False  # whether plain_best was set (it may be None: no plain estimate)

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (dict, list, tuple)):
                object.__setattr__(self, f.name, freeze(v))

    @classmethod
    def of(cls, row) -> Row:
        """``row`` as a record: a Row itself, or a row's JSON object (:meth:`from_dict`)."""
        return row if isinstance(row, Row) else cls.from_dict(row)

    @classmethod
    def from_dict(cls, data: Mapping) -> Row:
        """The record of a row's JSON object (:meth:`to_dict`); a key it does not know is left out."""
        known = set(LEVEL) | set(LEARNED)
        return cls(**{k: v for k, v in data.items() if k in known}, kept_plain="plain_best" in data)

    def to_dict(self) -> dict:
        """The JSON object (plain dicts and lists, fresh copies): LEVEL's keys, then LEARNED's where set."""
        out = {k: thaw(getattr(self, k)) for k in LEVEL}
        for k in LEARNED:
            v = getattr(self, k)
            if v is not None or (k == "plain_best" and self.kept_plain):
                out[k] = thaw(v)
        return out
