"""What a run result says about itself, read in one place: its precisions, its threads, its run indices, its
timing.  :class:`ResultFacts` is the part of :class:`srmdp.runs.result.RunResult` that reads them; a result still
held as its JSON object (a dict read from a file, a pooled result of the paper) is read by the same code through
:func:`facts_of`.

* storage precision: the case's ``precision`` (the coefficients' dtype; float64 when absent);
* arithmetic precision: the reading's ``arithmetic`` field (a result written before the field existed computed in
  float64);
* the timing (:attr:`ResultFacts.timing`, :attr:`ResultFacts.slowest`): seconds per run, the mean over its runs,
  with the fastest and the slowest run;
* run identity (:attr:`ResultFacts.run_key`): seed, test points and the run indices it covers, so that a CPU and
  a GPU result computed from the same random streams are recognised as one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["RUNS_IN_NAME", "ResultFacts", "facts_of"]

RUNS_IN_NAME = re.compile(r"runs(\d+)-(\d+)")  # a chunk file's run indices: runs0002-0010


class ResultFacts:
    """The facts of a result, read through :meth:`_read` (a JSON key's value, None where absent)."""

    __slots__ = ()

    def _read(self, key):
        raise NotImplementedError

    @property
    def storage(self) -> str:
        """The coefficients' precision (the case's ``precision``; float64 when absent)."""
        return (self._read("case") or {}).get("precision") or "float64"

    @property
    def arithmetic(self) -> str:
        """The path arithmetic's precision: the reading's ``arithmetic``, float64 for results written before it."""
        return (self._read("reading") or {}).get("arithmetic", "float64")

    @property
    def hardware(self) -> Mapping:
        """The provenance's record of the host (model, threads); empty where not recorded."""
        return (self._read("provenance") or {}).get("hardware") or {}

    @property
    def threads(self):
        """The threads the runs used (the provenance's hardware record), None where not recorded."""
        return self.hardware.get("threads")

    @property
    def run_indices(self) -> tuple:
        """The run indices the result covers: its ``run_ranges`` ([start, stop) ranges; summaries written since
        they are recorded), else its chunks' names (``runs0002-0010``), else ``run_start`` .. ``run_start + runs -
        1``."""
        ranges = self._read("run_ranges")
        if ranges:
            return tuple(i for a, b in ranges for i in range(int(a), int(b)))
        found = []
        for name in self._read("chunks") or ():
            m = RUNS_IN_NAME.search(str(name))
            if m:
                found += range(int(m.group(1)), int(m.group(2)) + 1)
        if found:
            return tuple(sorted(set(found)))
        start = int(self._read("run_start") or 0)
        return tuple(range(start, start + int(self._read("runs") or 0)))

    @property
    def run_key(self) -> tuple:
        """Results with the same key used the same random streams: seed, test points, run indices."""
        return (self._read("seed"), self._read("test_points"), self.run_indices)

    @property
    def timing(self):
        """(seconds per run: the mean over the runs, the fastest run's) or None."""
        mean = self._read("seconds_per_run") or self._read("seconds")
        if not mean:
            return None
        return float(mean), float(self._read("seconds_per_run_min") or mean)

    @property
    def slowest(self):
        """The slowest run's seconds: ``seconds_per_run_max`` where the result records it; of one run, its time;
        of two runs, 2 x mean - fastest (exact); else None (not recorded)."""
        recorded = self._read("seconds_per_run_max")
        if recorded:
            return float(recorded)
        mean, fastest = self.timing
        runs = int(self._read("runs") or 1)
        return mean if runs == 1 else (2 * mean - fastest if runs == 2 else None)


class _JsonFacts(ResultFacts):
    """The facts of a result held as its JSON object."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping):
        self._data = data

    def _read(self, key):
        return self._data.get(key)


def facts_of(res) -> ResultFacts:
    """The facts of ``res``: a :class:`srmdp.runs.result.RunResult` itself, a result's JSON object read in place."""
    return res if isinstance(res, ResultFacts) else _JsonFacts(res)
