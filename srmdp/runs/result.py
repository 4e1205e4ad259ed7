"""A run result as a frozen record: what :func:`srmdp.runs.run.run_case` returns, what ``srmdp run`` writes (a
*chunk*) and what :func:`srmdp.runs.aggregate.aggregate` makes of chunks (a *summary*).

:class:`RunResult` is built once (the last line of ``run_case``, of ``aggregate``) and never written into: a
changed result is a new one (:func:`dataclasses.replace`).  Its JSON (:meth:`RunResult.to_json`, the file's
text; :meth:`RunResult.from_json`) is the file format of :data:`srmdp.case.results.FORMAT_VERSION`: the keys in
the order the writer of its kind has always written them (a chunk's and a summary's differ), each key written
where it has a value (the fields that older writers did not record are absent from their files, and read as
None), a checksum last.  :class:`PerRun` holds the per-run values; :func:`concat` pools per-run values of
independent run sets, the one place where they are joined (the aggregation, the paper's pools and the
refinement's pooled runs).

Readers that still read a result by its JSON keys (``res["per_run"]["ey"]``, ``res.get("u0")``) read the record as
a read-only mapping of its JSON form: each value is a fresh plain copy, so nothing read can write into the record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

import numpy as np

from ..case.results import FORMAT_VERSION, seal
from ..numerics.indicators import indicators
from .facts import ResultFacts

__all__ = ["FORMAT_VERSION", "PerRun", "RunResult", "concat", "INDICATOR_FIELDS"]

# the indicators (srmdp.numerics.indicators.indicators), written flat into the result, in this order
INDICATOR_FIELDS = (
    "mse_y_max",
    "mse_y_av",
    "mse_z_av",
    "mse_y_max_se",
    "mse_y_av_se",
    "mse_z_av_se",
    "mse_y_max_step",
    "literal_y_max",
    "literal_y_av",
    "literal_z_av",
    "literal_y_max_se",
    "literal_y_av_se",
    "literal_z_av_se",
    "per_step_y",
    "per_step_z",
)
PER_RUN_FIELDS = ("ey", "ez", "ey2", "ez2", "u0")


def freeze(obj):
    """JSON-like ``obj`` made read-only: dicts as mapping proxies, lists as tuples (all the way down)."""
    if isinstance(obj, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return tuple(freeze(v) for v in obj)
    return obj


def thaw(obj):
    """The plain JSON form of a frozen value (a fresh copy: dicts and lists)."""
    if isinstance(obj, Mapping):
        return {k: thaw(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return [thaw(v) for v in obj]
    return obj


def _rows(a):
    """Per-run values as a frozen tuple (of tuples: runs x steps), from a list or an array; None stays None."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        a = a.tolist()
    return freeze(a)


@dataclass(frozen=True)
class PerRun:
    """The per-run values of a result: ey, ez (runs x steps: each run's mean squared errors at the test points,
    problems with an exact solution), their second moments ey2, ez2 (absent in files written before them) and
    u0 (runs: u(0, x0) of each run; absent in the earliest files).  Tuples: read them with :meth:`array`."""

    ey: tuple | None = None
    ez: tuple | None = None
    ey2: tuple | None = None
    ez2: tuple | None = None
    u0: tuple | None = None

    @classmethod
    def of(cls, **values) -> PerRun:
        """From arrays or lists (None: not recorded)."""
        return cls(**{k: _rows(v) for k, v in values.items()})

    @classmethod
    def from_dict(cls, data) -> PerRun:
        return cls.of(**{k: data.get(k) for k in PER_RUN_FIELDS})

    def to_dict(self) -> dict:
        return {k: thaw(getattr(self, k)) for k in PER_RUN_FIELDS if getattr(self, k) is not None}

    def array(self, name) -> np.ndarray | None:
        """One field as a float array (None where not recorded)."""
        v = getattr(self, name)
        return None if v is None else np.asarray(v, dtype=float)

    @property
    def exact(self) -> bool:
        """Whether the runs recorded errors (a problem with an exact solution)."""
        return self.ey is not None

    @property
    def runs(self) -> int:
        return len(self.ey if self.ey is not None else self.u0 or ())

    def indicators(self) -> dict | None:
        """The paper's indicators of these runs (:func:`srmdp.numerics.indicators.indicators`); None without errors."""
        return indicators(self.array("ey"), self.array("ez")) if self.exact else None


def concat(parts) -> PerRun:
    """The per-run values of independent run sets ``parts`` (PerRun records, in order) as one set: each field
    joined over the runs where every part records it, else not recorded."""
    parts = list(parts)
    out = {}
    for k in PER_RUN_FIELDS:
        values = [getattr(p, k) for p in parts]
        if values and all(v is not None for v in values):
            out[k] = np.concatenate([np.atleast_1d(np.asarray(v, dtype=float)) for v in values], axis=0)
    return PerRun.of(**out)


# The JSON keys of each kind, in the order its writer writes them: (key, group).  A key of group None is written
# where its value is not None; a key of group "u0" wherever u0 is (its standard error is None for one run).
# "indicators" stands for INDICATOR_FIELDS, written where the runs recorded errors.
_CHUNK_ORDER = (
    ("format_version", None),
    ("case_hash", None),
    ("case", None),
    ("label", None),
    ("problem", None),
    ("reading", None),
    ("device", None),
    ("seed", None),
    ("run_start", None),
    ("runs", None),
    ("test_points", None),
    ("path_steps_per_run", None),
    ("seconds_per_run", None),
    ("seconds_per_run_min", None),
    ("seconds_per_run_max", None),
    ("path_steps_per_second", None),
    ("error_seconds_per_run", None),
    ("compile_seconds", None),
    ("memory_bytes", None),
    ("peak_rss_bytes", None),
    ("peak_rss_before_runs_bytes", None),
    ("gpu_model_bytes", None),
    ("gpu_used_bytes", None),
    ("diagnostics", None),
    ("x0", None),
    ("u0", None),
    ("u0_se", "u0"),
    ("per_run", None),
    ("provenance", None),
    ("indicators", None),
    ("splits", None),
    ("campaign", None),
)
_SUMMARY_ORDER = (
    ("format_version", None),
    ("case_hash", None),
    ("case", None),
    ("label", None),
    ("reading", None),
    ("device", None),
    ("seed", None),
    ("runs", None),
    ("test_points", None),
    ("chunks", None),
    ("run_ranges", None),
    ("path_steps_per_run", None),
    ("seconds_per_run", None),
    ("seconds_per_run_min", None),
    ("diagnostics", None),
    ("per_run", None),
    ("provenance", None),
    ("chunk_commits", None),
    ("seconds_per_run_max", None),
    ("peak_rss_bytes", None),
    ("path_steps_per_second", None),
    ("indicators", None),
    ("splits", None),
    ("problem", "u0"),
    ("x0", "u0"),
    ("u0", None),
    ("u0_se", "u0"),
    ("campaign", None),
)
_ORDER = {"chunk": _CHUNK_ORDER, "summary": _SUMMARY_ORDER}


@dataclass(frozen=True)
class RunResult(ResultFacts):
    """One result of runs of one case (a chunk: consecutive runs of one process; a summary: chunks aggregated,
    ``chunks`` naming them).  Fields as in the file (module docstring); mappings are read-only, lists tuples.
    What it says about itself (precisions, threads, run indices, timing) are its :class:`ResultFacts`."""

    case_hash: str
    case: Mapping
    device: str
    seed: int | str
    runs: int
    test_points: int
    seconds_per_run: float
    per_run: PerRun
    format_version: int = FORMAT_VERSION
    label: str | None = None
    problem: str | None = None
    reading: Mapping | None = None
    run_start: int | None = None  # a chunk's first run index
    chunks: tuple | None = None  # a summary's chunk files
    run_ranges: tuple | None = None  # a summary's run indices, [start, stop) ranges (summaries written since)
    path_steps_per_run: int | None = None
    seconds_per_run_min: float | None = None
    seconds_per_run_max: float | None = None
    path_steps_per_second: float | None = None
    error_seconds_per_run: float | None = None
    compile_seconds: float | None = None
    memory_bytes: int | None = None  # the memory model's host bytes (srmdp.case.memory)
    peak_rss_bytes: int | None = None  # measured: the process's peak RSS after the runs
    peak_rss_before_runs_bytes: int | None = None  # ... and before the first run
    gpu_model_bytes: int | None = None  # GPU: the device memory model
    gpu_used_bytes: int | None = None  # GPU: the device memory measured
    diagnostics: Mapping | None = None
    x0: float | None = None
    u0: float | None = None  # u(0, x0): the mean over the runs
    u0_se: float | None = None  # its standard error (None for one run)
    provenance: Mapping | None = None
    chunk_commits: tuple | None = None  # a summary's chunks' git commits
    indicators: Mapping | None = None  # INDICATOR_FIELDS (problems with an exact solution)
    splits: Mapping | None = None  # older summaries: the paper's splits (srmdp.paper.models.splits), now computed
    campaign: Mapping | None = None  # the campaign's metadata of a chunk (srmdp.paper.campaign)
    extra: Mapping = field(default_factory=lambda: MappingProxyType({}))  # keys this srmdp does not name, as read

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (dict, list, tuple)):
                object.__setattr__(self, f.name, freeze(v))
        if not isinstance(self.per_run, PerRun):
            object.__setattr__(self, "per_run", PerRun.from_dict(self.per_run))

    def _read(self, key):
        """A field's value (a key this srmdp does not name: as read), None where absent."""
        return getattr(self, key) if key in _FIELD_NAMES else self.extra.get(key)

    # -- the file -------------------------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """``summary`` (aggregated chunks) or ``chunk``."""
        return "summary" if self.chunks is not None else "chunk"

    def _items(self):
        for key, group in _ORDER[self.kind]:
            if key == "indicators":
                if self.indicators is not None:
                    yield from ((k, self.indicators[k]) for k in INDICATOR_FIELDS if k in self.indicators)
                continue
            v = getattr(self, key)
            if v is not None or (group == "u0" and self.u0 is not None):
                yield key, v
        yield from self.extra.items()

    def to_dict(self) -> dict:
        """The JSON object of the result (plain dicts and lists, without the checksum)."""
        return {k: (v.to_dict() if isinstance(v, PerRun) else thaw(v)) for k, v in self._items()}

    def to_json(self) -> str:
        """The file's text: the JSON object sealed with its checksum (:func:`srmdp.case.results.seal`), as
        :func:`srmdp.case.results.write_json_atomic` writes it."""
        return json.dumps(seal(self.to_dict()), indent=1, sort_keys=False, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping) -> RunResult:
        """The record of a result's JSON object (the checksum, if any, dropped: :meth:`to_json` seals anew)."""
        names = {f.name for f in fields(cls)} - {"indicators", "extra"}
        known = {k: v for k, v in data.items() if k in names}
        found = {k: data[k] for k in INDICATOR_FIELDS if k in data}
        extra = {k: v for k, v in data.items() if k not in names and k not in found and k != "checksum"}
        return cls(**known, indicators=found or None, extra=freeze(extra))

    @classmethod
    def from_json(cls, text: str) -> RunResult:
        """The record of a result file's text (:meth:`to_json`); the checksum is checked by the readers that
        verify files (:func:`srmdp.runs.aggregate.load_chunk`)."""
        return cls.from_dict(json.loads(text))

    def write(self, path):
        """Write the file atomically (:func:`srmdp.case.results.write_json_atomic`)."""
        from ..case.results import write_atomic

        text = self.to_json()
        return write_atomic(path, lambda fh: fh.write(text))

    # -- read-only mapping of the JSON form (readers that still read by key) -----------------------------------
    def _value(self, key):
        if key in INDICATOR_FIELDS:
            if self.indicators is None or key not in self.indicators:
                raise KeyError(key)
            return thaw(self.indicators[key])
        if key in self.extra:
            return thaw(self.extra[key])
        if key in ("indicators", "extra") or key not in _FIELD_NAMES:
            raise KeyError(key)
        v = getattr(self, key)
        group = dict(_ORDER[self.kind]).get(key)
        if v is None and not (group == "u0" and self.u0 is not None):
            raise KeyError(key)
        return v.to_dict() if isinstance(v, PerRun) else thaw(v)

    def __getitem__(self, key):
        return self._value(key)

    def get(self, key, default=None):
        try:
            return self._value(key)
        except KeyError:
            return default

    def __contains__(self, key):
        try:
            self._value(key)
        except KeyError:
            return False
        return True

    def keys(self):
        return [k for k, _ in self._items()]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def values(self):
        return [self[k] for k in self.keys()]


Mapping.register(RunResult)
_FIELD_NAMES = frozenset(f.name for f in fields(RunResult))
