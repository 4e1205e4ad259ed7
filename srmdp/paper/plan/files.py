"""Where a preset's files live: the run chunks and summaries under results/ (scratch), their published
copies under data/summaries/ (committed, what tables and figures read), and the files each render job reads.

:class:`PlanFiles` is the part of :class:`srmdp.paper.plan.preset.Plan` that names paths; it reads the plan's
selection (``selected``, ``readings``, ``lsmdp``, ``variants``, ...) and never changes it.
"""

from __future__ import annotations

import glob
import os

from ...case.results import read_json
from ..inputs.rows import split_row_key


def is_result_file(path) -> bool:
    """A result/summary JSON of ``srmdp run``/``aggregate`` naming a paper row (not, e.g., a benchmark dump)."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and isinstance(data.get("case"), dict)
        and "device" in data
        and "seconds_per_run" in data
        and bool(data["case"].get("table"))
    )


class PlanFiles:
    """The paths of a preset's jobs and published files (a part of :class:`srmdp.paper.plan.preset.Plan`)."""

    def chunk_path(self, reading, key, device, j):
        return f"{self.results}/runs/{reading}/{key}/{device}/chunk-{j}.json"

    def run_summary_path(self, reading, key, device):
        """The summary written by the aggregate job (under results/, not committed)."""
        return f"{self.results}/runs/{reading}/{key}/{device}/summary.json"

    def run_timing_path(self, key, device):
        """The result of the timing job (under results/, not committed)."""
        return f"{self.results}/timing/{key}/{device}.json"

    def summary_path(self, reading, key, device):
        """The published copy of a case's summary, which tables and figures read (committed)."""
        return f"{self.published}/{reading}/{key}/{device}.json"

    def timing_path(self, key, device):
        """The published copy of a timing result (committed)."""
        return f"{self.published}/timing/{key}/{device}.json"

    def lsmdp_run_path(self, key):
        return f"{self.results}/lsmdp/{key}.json"

    def lsmdp_path(self, key):
        """The published LSMDP result of one paper row (committed)."""
        return f"{self.published}/lsmdp/{key}.json"

    def lsmdp_files(self):
        return [self.lsmdp_path(s.key) for s in self.lsmdp]

    def residual_run_path(self, variant, key):
        return f"{self.results}/residuals/{variant}/{key}/cpu.json"

    def residual_path(self, variant, key):
        """The published summary of one residual experiment (committed)."""
        return f"{self.published}/residuals/{variant}/{key}.json"

    def residual_files(self):
        return [self.residual_path(v.name, k) for v in self.variants for k in self.variant_rows(v.name)]

    MULTICORE_THREADS = ("1", "all")  # the two jobs per row: 1 thread, and every core Snakemake was given

    def multicore_run_path(self, key, nthreads):
        return f"{self.results}/multicore/{key}/threads-{nthreads}.json"

    def multicore_path(self, key, nthreads):
        """The published 1-thread / all-core timing of one row (committed)."""
        return f"{self.published}/multicore/{key}/threads-{nthreads}.json"

    def multicore_files(self):
        """This preset's multicore timings, then those measured elsewhere (multicore_results)."""
        mine = [self.multicore_path(k, n) for k in self.multicore for n in self.MULTICORE_THREADS]
        elsewhere = sorted(glob.glob(os.path.join(self.multicore_results, "**", "*.json"), recursive=True))
        return mine + [p for p in elsewhere if is_result_file(p)]

    def likeforlike_run_path(self, key):
        return f"{self.results}/likeforlike/{key}.json"

    def likeforlike_path(self, key):
        """The published all-core CPU timing of one row in its GPU result's precision and reading (committed)."""
        return f"{self.published}/likeforlike/{key}.json"

    def likeforlike_files(self):
        return [self.likeforlike_path(k) for k in self.likeforlike]

    def chunk_paths(self, reading, key, device):
        return [self.chunk_path(reading, key, device, j) for j in range(self.by_key[key].chunks)]

    def summaries(self, table=None, device=None):
        device = device or self.error_device
        return [
            self.summary_path(r.name, s.key, device)
            for s in self.selected
            if table is None or s.table == table
            for r in self.readings
            if r.runs_row(s.key)
        ]

    def zcv_summaries(self, device=None):
        """The summaries tables/zcv.tex reads: per row of a z_cv reading, its and its base reading's."""
        return self._twin_summaries(self.zcv_readings, device)

    def arithmetic_summaries(self, device=None):
        """The summaries tables/arithmetic.tex reads: per row of a float32 reading, its and its float64 twin's."""
        return self._twin_summaries(self.arithmetic_readings, device)

    def switch_summaries(self, switch: str) -> list:
        """The summaries of tables/<switch>.tex (``zcv`` or ``arithmetic``)."""
        return {"zcv": self.zcv_summaries, "arithmetic": self.arithmetic_summaries}[switch]()

    def _twin_summaries(self, readings, device=None):
        device = device or self.error_device
        out = []
        for r in readings:
            base = self.base_reading(r)
            for s in self.selected:
                if r.runs_row(s.key):
                    if base is not None and base.runs_row(s.key):
                        out.append(self.summary_path(base.name, s.key, device))
                    out.append(self.summary_path(r.name, s.key, device))
        return list(dict.fromkeys(out))

    def timings(self, table=None):
        return [
            self.timing_path(s.key, dev)
            for s in self.selected
            if s.timing and (table is None or s.table == table)
            for dev in self.devices
        ]

    def gpu_summary_path(self, reading, key, group) -> str:
        """The summary of a pooled chunk group, published under its pool's folder (``gpu/``: the GPU campaign's;
        ``evidence/``: the CPU evidence campaign's) next to the preset's own (committed)."""
        return f"{self.published}/{self.gpu_group(reading, key, group).pool}/{reading}/{key}/{group}.json"

    def gpu_summaries(self, table=None) -> list:
        """Summaries of the chunk groups under gpu_results (all, or one table's)."""
        return [
            self.gpu_summary_path(g.reading, g.key, g.group)
            for g in self.gpu_groups()
            if table is None or split_row_key(g.key)[0] == table
        ]

    def stale_gpu_summaries(self) -> list:
        """Published summaries of chunk groups that do not hold their group's chunks as they are now (a chunk
        committed after the summary was written), or that predate the record of their run indices (``run_ranges``).
        A fresh clone's file times cannot say so; the workflow makes these older than their chunks (common.smk)."""
        out = []
        for g in self.gpu_groups():
            path = self.gpu_summary_path(g.reading, g.key, g.group)
            try:
                data = read_json(path)
            except (OSError, ValueError):
                continue  # missing (aggregated anyway) or damaged (the aggregate job's own error)
            if not isinstance(data, dict) or "run_ranges" not in data or set(data.get("chunks") or []) != set(g.paths):
                out.append(path)
        return out

    def gpu_files(self):
        """Result JSONs (``srmdp run`` output) under gpu_results; other JSON files there are ignored."""
        return [
            p
            for p in sorted(glob.glob(os.path.join(self.gpu_results, "**", "*.json"), recursive=True))
            if is_result_file(p)
        ]
