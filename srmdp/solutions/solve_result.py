"""A solve's result as a frozen record: :class:`SolveResult` (``Solution.result``), the level's runs (a
:class:`srmdp.runs.result.RunResult`) with what the solve says of them: its error estimate
(:class:`srmdp.solutions.error_estimate.ErrorEstimate`), z0 over the runs, the prediction said before compute and,
for a refinement, its rows, its stop and the answer's Richardson value.

It is built from values (:func:`srmdp.solving.solve`, :mod:`srmdp.refine.refine`) and never written into: a solve
that adds to a level's result makes a new record (:func:`dataclasses.replace`).  It reads as a read-only mapping
of its JSON form, the ``result`` object of a solution file (:mod:`srmdp.solutions.solution_file`): the runs' keys
in their file order (u0 and u0_se the extrapolated ones where the answer is Richardson's), then the solve's keys
in :data:`OWN`'s order, each where it has a value (a refinement's keys wherever ``tol`` is set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from ..runs.result import RunResult, freeze, thaw
from .error_estimate import ErrorEstimate
from .row import Row

__all__ = ["OWN", "SolveResult"]

# the solve's keys, in the order they are written after the runs'
OWN = (
    "data_scale",
    "z0_runs",
    "remedies",
    "prediction",
    "error_estimate",
    "z0",
    "z0_se",
    "tol",
    "budget_s",
    "tol_met",
    "refinement",
    "refinement_stop",
    "chosen_level",
    "extrapolated",
)
REFINEMENT = ("tol", "budget_s", "tol_met", "refinement", "refinement_stop", "chosen_level")


@dataclass(frozen=True)
class SolveResult:
    """The result of a solve (module docstring).  ``run``: the level's runs, a RunResult (a read-only mapping where
    the runs are not a whole run result: a solution file's result without them, a solution of one run's
    coefficients)."""

    run: Mapping
    data_scale: float | None = None  # the divergence guard's scale of the data (srmdp.kernels.divergence)
    z0_runs: tuple | None = None  # z(0, x0) of each run by the first step (srmdp.solutions.first_step)
    remedies: tuple | None = None  # a refinement's remedies applied before this level (srmdp.refine.refine)
    prediction: Mapping | None = None  # the cost said before compute (srmdp.solutions.prediction)
    error_estimate: ErrorEstimate | None = None
    z0: tuple | None = None  # z(0, x0): the mean over the runs, its standard error
    z0_se: tuple | None = None
    tol: float | None = None  # a refinement's tolerance, budget, whether met, rows, stop and answer's level
    budget_s: float | None = None
    tol_met: bool | None = None
    refinement: tuple | None = None  # the refinement's rows (srmdp.solutions.row.Row), in the order run
    refinement_stop: str | None = None
    chosen_level: int | None = None
    extrapolated: Mapping | None = None  # the answer's Richardson value in dt, with the plain one it replaces

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (dict, list, tuple)):
                object.__setattr__(self, f.name, freeze(v))
        if isinstance(self.error_estimate, Mapping):
            object.__setattr__(self, "error_estimate", ErrorEstimate.from_dict(self.error_estimate))
        if self.refinement is not None:  # a file's rows (JSON objects) as records
            object.__setattr__(self, "refinement", tuple(Row.of(r) for r in self.refinement))

    @classmethod
    def of(cls, result) -> SolveResult:
        """``result`` as a record: a SolveResult itself, a RunResult (the runs alone), a JSON object."""
        if isinstance(result, SolveResult):
            return result
        if isinstance(result, RunResult):
            return cls(run=result)
        return cls.from_dict(result)

    @classmethod
    def from_dict(cls, data: Mapping) -> SolveResult:
        """The record of a solution file's ``result`` object (:meth:`to_dict`)."""
        own = {k: data[k] for k in OWN if k in data}
        runs = {k: v for k, v in data.items() if k not in OWN}
        ext = own.get("extrapolated")
        if ext is not None:  # the file's u0 is the extrapolated value: the runs' own is the plain one
            runs.update(u0=ext["plain_u0"], u0_se=ext["plain_u0_se"])
        whole = "case_hash" in runs and "per_run" in runs
        return cls(run=RunResult.from_dict(runs) if whole else freeze(runs), **own)

    # -- values ----------------------------------------------------------------------------------------------
    @property
    def u0(self):
        """u(0, x0): the answer's (the extrapolated value where there is one, else the runs' mean)."""
        return self.extrapolated["u0"] if self.extrapolated is not None else self.run.get("u0")

    @property
    def u0_se(self):
        return self.extrapolated["u0_se"] if self.extrapolated is not None else self.run.get("u0_se")

    # -- the JSON form ---------------------------------------------------------------------------------------
    def _own(self, key):
        v = getattr(self, key)
        if v is None and not (key in REFINEMENT and self.tol is not None):
            raise KeyError(key)
        if key == "refinement" and v is not None:
            return [r.to_dict() for r in v]
        return v.to_dict() if isinstance(v, ErrorEstimate) else thaw(v)

    def _items(self):
        for k in self.run:
            yield k, self[k]
        for k in OWN:
            try:
                yield k, self._own(k)
            except KeyError:
                continue

    def to_dict(self) -> dict:
        """The JSON object (plain dicts and lists, fresh copies)."""
        return dict(self._items())

    def __getitem__(self, key):
        if key in OWN:
            return self._own(key)
        if key in ("u0", "u0_se") and self.extrapolated is not None:
            return getattr(self, key)
        return thaw(self.run[key])

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        return self.get(key, _MISSING) is not _MISSING

    def keys(self):
        return [k for k, _ in self._items()]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def items(self):
        return list(self._items())

    def values(self):
        return [v for _, v in self._items()]


_MISSING = object()
Mapping.register(SolveResult)
