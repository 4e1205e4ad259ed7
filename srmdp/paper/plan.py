"""What the Snakemake workflow needs from the package: the plan of a preset and the cost of its jobs.

The rules in ``workflow/rules/*.smk`` stay thin; they ask this module which jobs a preset makes
(one per reading x paper row x device x run chunk, plus one timing job per row and device), where
their files live, how much memory (from :mod:`srmdp.memory`) and time (from :func:`estimate_seconds`)
each needs.  ``srmdp plan CONFIG.yaml...`` prints the estimated cost of
every job of a preset without Snakemake.
"""

from __future__ import annotations

import glob
import math
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from ..memory import required_bytes
from ..readings import reading_key, reading_name, same_reading
from ..results import read_json
from . import chunks
from .cost import estimate_seconds
from .lsmdp import model_bytes as lsmdp_model_bytes
from .preset_reading import PresetReading, readings_from_config
from .rows import canonical_table, paper_case, paper_rows, table_ids


@dataclass(frozen=True)
class Selected:
    """One paper row run by the preset."""

    table: str
    row: int
    runs: int
    chunk_runs: int
    timing: bool

    @property
    def key(self) -> str:
        return f"{self.table}_r{self.row}"

    @property
    def chunks(self) -> int:
        return math.ceil(self.runs / self.chunk_runs)

    def chunk_range(self, j: int) -> tuple[int, int]:
        start = j * self.chunk_runs
        return start, min(self.chunk_runs, self.runs - start)


@dataclass(frozen=True)
class GpuGroup:
    """One group of pooled run chunks under gpu_results: its reading name, row key and group id."""

    reading: str
    key: str
    group: str
    paths: tuple
    flags: str
    runs: int


@dataclass(frozen=True)
class Variant:
    """One residual experiment (config ``residuals.variants``): the residual reading with one thing changed.

    ``changes``: ((key, value), ...) among precision, seed, trunc_y, trunc_z (None = no truncation)."""

    name: str
    hypothesis: str
    changes: tuple

    def get(self, key, default):
        return dict(self.changes).get(key, default)


VARIANT_KEYS = ("precision", "seed", "trunc_y", "trunc_z")


def _paper_keys(rows, where: str, paper_keys) -> list:
    """``rows`` (keys such as LP1d4_r2) without repeats; ValueError naming ``where`` for any non-paper row."""
    unknown = [k for k in rows if k not in paper_keys]
    if unknown:
        raise ValueError(f"config {where}: not the paper's rows: {', '.join(unknown)};"
                         f" allowed: {', '.join(paper_keys)}")
    return list(dict.fromkeys(rows))


def _split_key(key: str) -> tuple:
    table, _, row = key.rpartition("_r")
    return table, int(row)


class Plan:
    """The jobs of one preset (a validated Snakemake config dictionary)."""

    def __init__(self, config: dict):
        self.config = config
        self.preset = config["preset"]
        self.results = config.get("results_dir", "results") + "/" + self.preset
        # the small per-case summaries and timings that tables and figures are made from, copied out of
        # results/ (scratch, not committed) so that every "% source:" names a file in the repository
        self.published = config.get("summaries_dir", "data/summaries") + "/" + self.preset
        self.seed = int(config["seed"])
        self.test_points = int(config["test_points"])
        self.precision = config.get("precision", "float64")
        self.devices = list(config["devices"])
        self.partitions = dict(config.get("slurm_partitions") or {})  # device -> SLURM partition ("" = default)
        self.threads = int(config.get("threads", 1))
        timing = config.get("timing", {})
        self.timing_runs = int(timing.get("runs", 3))
        self.timing_threads = int(timing.get("threads", 0))
        self.readings = readings_from_config(config["readings"])
        names = [r.name for r in self.readings]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"config readings: duplicate reading name(s) {', '.join(dup)}; names must be unique")
        if "reading" in timing and timing["reading"] not in names:
            raise ValueError(
                f"config timing.reading: unknown reading {timing['reading']!r}; allowed: {', '.join(names)}")
        self.gpu_results = config.get("gpu_results", "data/gpu")
        rows = {(r["table"], r["row"]): r for r in paper_rows()}
        selected = {}
        for entry in config["cases"]:
            table = canonical_table(entry["table"])  # LP1d6 is accepted for the paper's LP1d6_1
            if table not in table_ids():
                raise ValueError(f"config cases: unknown table {table!r}; allowed: {', '.join(table_ids())}")
            wanted = entry.get("rows", "all")
            numbers = [r for (t, r) in rows if t == table] if wanted == "all" else list(wanted)
            for n in numbers:
                if (table, n) not in rows:
                    raise ValueError(f"config cases: table {table} has no row {n}")
                runs = int(entry.get("runs", config["runs"]))
                chunk = int(entry.get("chunk_runs", config.get("chunk_runs", runs)))
                timing_rows = entry.get("timing", True)
                selected[(table, n)] = Selected(table, n, runs, min(chunk, runs), bool(timing_rows))
        order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
        self.selected = [selected[k] for k in sorted(selected, key=order.get)]
        self.by_key = {s.key: s for s in self.selected}
        paper_keys = [f"{t}_r{n}" for (t, n) in rows]
        for r in self.readings:  # a filter: rows the preset's cases do not select are not run (no error)
            unknown = [k for k in (r.rows or ()) if k not in paper_keys]
            if unknown:
                raise ValueError(f"config readings: reading {r.name!r} names rows that are not the paper's:"
                                 f" {', '.join(unknown)}; allowed: {', '.join(paper_keys)}")
        # the LSMDP baseline (srmdp.paper.lsmdp): its own small list of paper rows, one reading
        lsmdp = config.get("lsmdp") or {}
        self.lsmdp_reading = lsmdp.get("reading", self.readings[0].name)
        if self.lsmdp_reading not in [r.name for r in self.paper_readings]:
            raise ValueError(f"config lsmdp.reading: unknown reading {self.lsmdp_reading!r};"
                             f" allowed: {', '.join(r.name for r in self.paper_readings)} (LSMDP has no z_cv and"
                             " computes in float64)")
        chosen = {}
        for entry in lsmdp.get("cases", []):
            table = canonical_table(entry["table"])
            if table not in table_ids():
                raise ValueError(f"config lsmdp.cases: unknown table {table!r}; allowed: {', '.join(table_ids())}")
            for n in entry["rows"]:
                if (table, n) not in rows:
                    raise ValueError(f"config lsmdp.cases: table {table} has no row {n}")
                chosen[(table, n)] = Selected(table, n, int(entry.get("runs", 4)), 1, False)
        self.lsmdp = [chosen[k] for k in sorted(chosen, key=order.get)]
        self.lsmdp_by_key = {s.key: s for s in self.lsmdp}
        # the residual experiments (srmdp.paper.residuals): variants of one reading on a few rows
        res = config.get("residuals") or {}
        self.residual_reading = res.get("reading", self.paper_readings[0].name)
        if self.residual_reading not in [r.name for r in self.paper_readings]:
            raise ValueError(f"config residuals.reading: unknown reading {self.residual_reading!r};"
                             f" allowed: {', '.join(r.name for r in self.paper_readings)}")
        self.residual_threshold = float(res.get("threshold", 3.0))
        rows = _paper_keys(res.get("rows", []), "residuals.rows", paper_keys)  # a filter, as a reading's rows
        self.residual_rows = [s.key for s in self.selected if s.key in rows]
        self.variants = [Variant(v["name"], v["hypothesis"], tuple((k, v[k]) for k in VARIANT_KEYS if k in v))
                         for v in res.get("variants", [])]
        variant_names = [v.name for v in self.variants]
        dup = sorted({n for n in variant_names if variant_names.count(n) > 1})
        if dup:
            raise ValueError(f"config residuals.variants: duplicate name(s) {', '.join(dup)}")
        # the multi-core speed-up (rule multicore): a few paper rows timed alone on 1 thread and on all cores
        multicore = config.get("multicore") or {}
        self.multicore = _paper_keys(multicore.get("rows", []), "multicore.rows", paper_keys)
        self.multicore_runs = int(multicore.get("runs", 2))
        # 1-thread / all-core timings measured on other machines (e.g. the GPU host's 16 cores), read if present
        self.multicore_results = config.get("multicore_results", "data/multicore")
        # the GPU speed-ups like for like (rule likeforlike): rows timed alone on all cores in the precision
        # and reading of their GPU results under gpu_results
        like = config.get("likeforlike") or {}
        self.likeforlike = _paper_keys(like.get("rows", []), "likeforlike.rows", paper_keys)
        self.likeforlike_reading = like.get("reading", self.timing_reading)
        if self.likeforlike and self.likeforlike_reading not in [r.name for r in self.readings]:
            raise ValueError(f"config likeforlike.reading: unknown reading {self.likeforlike_reading!r};"
                             f" allowed: {', '.join(r.name for r in self.readings)}")
        self.likeforlike_precision = like.get("precision", "float32")
        self.likeforlike_runs = int(like.get("runs", 1))

    # --- names and paths ---------------------------------------------------------------------
    def reading(self, name: str) -> PresetReading:
        return next(r for r in self.readings if r.name == name)

    @property
    def paper_readings(self) -> list:
        """The readings of the paper's tables and agreement: the paper's scheme (no Z control variate) in float64
        path arithmetic (a float32 one is compared with its float64 twin apart, tables/arithmetic.tex)."""
        return [r for r in self.readings if not r.z_cv and r.arithmetic == "float64"]

    @property
    def zcv_readings(self) -> list:
        """The readings with the Z control variate (beyond the paper): tables/zcv.tex and the Z panel."""
        return [r for r in self.readings if r.z_cv]

    @property
    def arithmetic_readings(self) -> list:
        """The readings in float32 path arithmetic (the paper's precision) without the Z control variate."""
        return [r for r in self.readings if not r.z_cv and r.arithmetic != "float64"]

    def base_reading(self, reading: PresetReading) -> PresetReading | None:
        """The paper reading that differs from ``reading`` only by the Z control variate (off) and the
        arithmetic (float64), if any."""
        off = reading_key(replace(reading, z_cv=False, martingale_cv=False, arithmetic="float64"))
        return next((r for r in self.paper_readings if same_reading(reading_key(r), off)), None)

    def case(self, key: str, reading: str | None = None):
        sel = self.by_key[key]
        options = self.reading(reading).options() if reading else {}
        return paper_case(sel.table, row=sel.row, precision=self.precision, **options)

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

    def lsmdp_args(self, key) -> str:
        sel = self.lsmdp_by_key[key]
        return (f"--table {sel.table} --row {sel.row} {self.reading(self.lsmdp_reading).cli()}"
                f" --runs {sel.runs} --seed {self.seed} --test-points {self.test_points}")

    def lsmdp_mem_mb(self, key) -> int:
        sel = self.lsmdp_by_key[key]
        return int(math.ceil(3 * lsmdp_model_bytes(paper_case(sel.table, row=sel.row)) / 1e6)) + 600

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)

    def residual_run_path(self, variant, key):
        return f"{self.results}/residuals/{variant}/{key}/cpu.json"

    def residual_path(self, variant, key):
        """The published summary of one residual experiment (committed)."""
        return f"{self.published}/residuals/{variant}/{key}.json"

    def residual_files(self):
        return [self.residual_path(v.name, k) for v in self.variants for k in self.residual_rows]

    def residual_args(self, variant, key) -> str:
        """`srmdp run` arguments of a variant: the residual reading's row with the variant's changes."""
        v, sel = self.variant(variant), self.by_key[key]
        base = self.reading(self.residual_reading)
        reading = replace(base, trunc_y=v.get("trunc_y", base.trunc_y), trunc_z=v.get("trunc_z", base.trunc_z))
        return (f"--table {sel.table} --row {sel.row} {reading.cli()} --runs {sel.runs}"
                f" --test-points {self.test_points} --seed {v.get('seed', self.seed)}"
                f" --precision {v.get('precision', self.precision)}")

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

    def _alone(self, like: bool):
        """(reading, precision, runs) of a job timed alone: rule likeforlike's or rule multicore's."""
        if like:
            return self.likeforlike_reading, self.likeforlike_precision, self.likeforlike_runs
        return self.timing_reading, self.precision, self.multicore_runs

    def multicore_args(self, key, like: bool = False) -> str:
        """Arguments of `srmdp run` for a job timed alone (--threads is the rule's)."""
        table, row = _split_key(key)
        reading, precision, runs = self._alone(like)
        return (f"--table {table} --row {row} {self.reading(reading).cli()}"
                f" --runs {runs} --test-points {self.test_points} --seed {self.seed} --precision {precision}")

    def multicore_case(self, key, like: bool = False):
        table, row = _split_key(key)
        reading, precision, _ = self._alone(like)
        return paper_case(table, row=row, precision=precision, **self.reading(reading).options())

    def multicore_mem_mb(self, key, threads: int, like: bool = False) -> int:
        need = required_bytes(self.multicore_case(key, like), self.test_points, workers=max(64, threads))
        return int(math.ceil(need / 1e6)) + 600  # + interpreter, Numba and LLVM

    def multicore_seconds(self, key, nthreads, cores, like: bool = False) -> float:
        threads = 1 if nthreads == "1" else cores
        runs = self._alone(like)[2]
        return estimate_seconds(self.multicore_case(key, like), runs, threads, "cpu", self.test_points)

    @property
    def timing_reading(self) -> str:
        return self.config.get("timing", {}).get("reading", self.readings[0].name)

    @property
    def error_device(self) -> str:
        return "cpu" if "cpu" in self.devices else self.devices[0]

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

    # --- run chunks kept under gpu_results (data/gpu/: the GPU campaign's and single-run files) ---
    def gpu_groups(self) -> list:
        """The chunk groups under gpu_results that are paper rows run under one of the preset's readings.

        Chunks pool per (row, reading, precision, seed, test points, random streams), see
        :mod:`srmdp.paper.chunks`; each group becomes one ``srmdp aggregate`` job and one table line.
        """
        if getattr(self, "_gpu_groups", None) is None:
            rows = {(r["table"], r["row"]) for r in paper_rows()}
            out = []
            for g in chunks.index(chunks.result_paths(self.gpu_results)).values():
                name = reading_name(g.reading, self.readings)
                if name is None or (g.table, g.row) not in rows:
                    continue
                out.append(GpuGroup(name, g.label, g.id, tuple(g.paths), chunks.aggregate_flags(g), g.runs))
            order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
            names = [r.name for r in self.readings]
            out.sort(key=lambda x: (order[_split_key(x.key)], names.index(x.reading), x.group))
            self._gpu_groups = out
        return self._gpu_groups

    def gpu_group(self, reading, key, group) -> GpuGroup:
        return next(g for g in self.gpu_groups() if (g.reading, g.key, g.group) == (reading, key, group))

    def gpu_summary_path(self, reading, key, group) -> str:
        """The summary of a chunk group under gpu_results, published next to the CPU ones (committed)."""
        return f"{self.published}/gpu/{reading}/{key}/{group}.json"

    def gpu_summaries(self, table=None) -> list:
        """Summaries of the chunk groups under gpu_results (all, or one table's)."""
        return [self.gpu_summary_path(g.reading, g.key, g.group) for g in self.gpu_groups()
                if table is None or _split_key(g.key)[0] == table]

    def gpu_files(self):
        """Result JSONs (``srmdp run`` output) under gpu_results; other JSON files there are ignored."""
        return [p for p in sorted(glob.glob(os.path.join(self.gpu_results, "**", "*.json"), recursive=True))
                if is_result_file(p)]

    # --- resources ---------------------------------------------------------------------------
    def chunk_runs(self, key, j) -> tuple[int, int]:
        return self.by_key[key].chunk_range(int(j))

    def mem_mb(self, key, threads: int = 1) -> int:
        case = self.case(key, self.readings[0].name)
        need = required_bytes(case, self.test_points, workers=max(64, threads))
        return int(math.ceil(need / 1e6)) + 600  # + interpreter, Numba and LLVM

    def job_seconds(self, key, runs, threads, device="cpu") -> float:
        return estimate_seconds(self.case(key, self.readings[0].name), runs, threads, device, self.test_points)

    def runtime_min(self, key, runs, threads, device="cpu") -> int:
        return int(math.ceil(3 * self.job_seconds(key, runs, threads, device) / 60.0)) + 5

    def jobs(self, cores: int | None = None):
        """Every job of the preset: (kind, target, estimated seconds, threads, mem_mb)."""
        cores = cores or os.cpu_count() or 1
        out = []
        for s in self.selected:
            for dev in self.devices:
                for r in self.readings:
                    if not r.runs_row(s.key):
                        continue
                    for j in range(s.chunks):
                        _, n = s.chunk_range(j)
                        thr = min(self.threads, cores)
                        out.append(("solve", self.chunk_path(r.name, s.key, dev, j),
                                    self.job_seconds(s.key, n, thr, dev), thr, self.mem_mb(s.key, thr)))
                if dev == "cpu":
                    for v in self.variants if s.key in self.residual_rows else ():
                        thr = min(self.threads, cores)
                        out.append(("resid", self.residual_run_path(v.name, s.key),
                                    self.job_seconds(s.key, s.runs, thr), thr, self.mem_mb(s.key, thr)))
                if s.timing:
                    thr = min(self.timing_threads or cores, cores)
                    out.append(("time", self.run_timing_path(s.key, dev),
                                self.job_seconds(s.key, self.timing_runs, thr, dev), thr, self.mem_mb(s.key, thr)))
        for key in self.multicore:  # each asks for every core (runs alone), 1-thread job included
            for n in self.MULTICORE_THREADS:
                out.append(("multi", self.multicore_run_path(key, n), self.multicore_seconds(key, n, cores), cores,
                            self.multicore_mem_mb(key, cores)))
        for key in self.likeforlike:  # all cores, alone, in the GPU results' precision and reading
            out.append(("like", self.likeforlike_run_path(key), self.multicore_seconds(key, "all", cores, like=True),
                        cores, self.multicore_mem_mb(key, cores, like=True)))
        return out + self._other_jobs()

    def _other_jobs(self) -> list:
        """The compute jobs beyond the paper's rows: LSMDP, and the suite beyond the paper (runs, references,
        solves, the coverage of u0_error), priced by :mod:`srmdp.paper.cost`."""
        from .beyond import BeyondPlan, closed_form_reference
        from .beyond_solve import COVERAGE_PROBLEMS
        from .cost import REFERENCE_SECONDS, SOLVE_SECONDS, coverage_seconds, estimate_seconds, lsmdp_seconds

        out = []
        for sel in self.lsmdp:
            out.append(("lsmdp", self.lsmdp_run_path(sel.key), lsmdp_seconds(paper_case(sel.table, row=sel.row),
                                                                            sel.runs), 1, self.lsmdp_mem_mb(sel.key)))
        b = BeyondPlan(self)
        for c in b.cases:
            out.append(("beyond", b.run_path(c.key), estimate_seconds(c.case(), c.runs, 1, "cpu", self.test_points), 1,
                        b.mem_mb(c.key)))
        for problem, d in b.references:
            paths = 0 if closed_form_reference(problem) else b.reference_paths
            out.append(("ref", b.reference_run_path(f"{problem}_d{d}"), REFERENCE_SECONDS[0] + paths *
                        REFERENCE_SECONDS[1], 1, 1000))
        for x in b.solves:
            out.append(("solve", b.solve_path(x.key, published=False), SOLVE_SECONDS + (x.budget_s or 0.0), 1,
                        2000))  # a refinement to a tolerance may use its whole budget
        if b.coverage:
            out.append(("cover", b.coverage_path(published=False),
                        coverage_seconds(len(COVERAGE_PROBLEMS), int(b.coverage.get("seeds", 20)),
                                         len(b.coverage.get("dims", [2, 4]))), 1, 2000))
        return out

    def cost_report(self, cores: int | None = None, done=os.path.exists, pending=None, render_jobs=None) -> str:
        """The preset's compute jobs with the cost model's seconds.  ``pending``: the outputs of the compute jobs
        this invocation will run (from Snakemake's DAG; None: every job whose output is missing), ``render_jobs``:
        how many other jobs (publish, tables, figures, PDF) it runs besides."""
        cores = cores or os.cpu_count() or 1
        jobs = self.jobs(cores)
        runs = (lambda t: not done(t)) if pending is None else (lambda t: t in pending)
        todo_jobs = [j for j in jobs if runs(j[1])]
        lines = [f"srmdp: preset '{self.preset}' has {len(jobs)} compute jobs ({len(self.selected)} paper rows x"
                 f" {len(self.readings)} readings x {len(self.devices)} device(s), and the jobs beyond the paper);"
                 f" this run computes {len(todo_jobs)} of them"
                 + ("" if render_jobs is None else f" and runs {render_jobs} render jobs (publish, tables, figures,"
                                                   " PDF)") + ":"]
        todo = 0.0
        for kind, target, sec, thr, mem in jobs:
            mark = f"~{_hms(sec)}" if runs(target) else "not run (up to date)"
            if runs(target):
                todo += sec * thr
            if runs(target) or len(jobs) <= 40:
                lines.append(f"  {kind:<5} {target:<60} {thr} thr  {mem:>6} MB  {mark}")
        if not todo_jobs:
            lines.append("srmdp: no compute job to run: only the render jobs, about a minute or two")
        else:
            lines.append(f"srmdp: compute still to run ~{_hms(todo)} core-time, ~{_hms(todo / cores)} wall on"
                         f" {cores} cores (cost model; render jobs not included)")
        return "\n".join(lines)


def _hms(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def load_configs(paths) -> dict:
    """Merge YAML configs as Snakemake does (later files update earlier ones, dicts recursively)."""
    import yaml

    out: dict = {}

    def update(a, b):
        for k, v in b.items():
            if isinstance(v, dict) and isinstance(a.get(k), dict):
                update(a[k], v)
            else:
                a[k] = v

    for p in paths:
        update(out, yaml.safe_load(Path(p).read_text()) or {})
    return out


def main(argv=None):
    """``srmdp plan [config/config.yaml [config/PRESET.yaml]]``: the estimated cost of every job of a preset."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("-") for a in argv):
        usage = "usage: srmdp plan [config/config.yaml [config/PRESET.yaml]]"
        if set(argv) <= {"-h", "--help"}:
            print(usage + "\n\nThe estimated cost (threads, memory, time) of every job of a preset; then what the"
                  " paper's rows still need on the GPU (8 runs each) at the measured rates, and the error of the"
                  " GPU cost model on held-out shapes.")
            return 0
        print(usage, file=sys.stderr)
        return 2
    paths = argv or ["config/config.yaml"]
    if paths[0] != "config/config.yaml" and Path("config/config.yaml").exists():
        paths = ["config/config.yaml", *paths]
    plan = Plan(load_configs(paths))
    print(plan.cost_report())
    if os.path.isdir(plan.gpu_results):  # the paper's rows on the GPU: what they still need at measured rates
        from .gpu_plan import report

        print(report([plan.gpu_results], plan.readings[0]))
    return 0


def is_result_file(path) -> bool:
    """A result/summary JSON of ``srmdp run``/``aggregate`` naming a paper row (not, e.g., a benchmark dump)."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return False
    return (isinstance(data, dict) and isinstance(data.get("case"), dict) and "device" in data
            and "seconds_per_run" in data and bool(data["case"].get("table")))


if __name__ == "__main__":
    sys.exit(main())


def paper_code(*modules: str) -> list[str]:
    """The files of the srmdp.paper modules a render job runs: each of ``modules`` (``tables``, ``summary``, ...)
    and the srmdp.paper modules it imports, transitively (relative imports, read from the source), as paths
    relative to the checkout.  The render rules list them as inputs, so that editing one renders again."""
    import ast

    here = Path(__file__).resolve().parent
    seen, todo = set(), list(modules)
    while todo:
        name = todo.pop()
        if name in seen or not (here / f"{name}.py").is_file():
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((here / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import ... / from . import x
                todo += [node.module] if node.module else [a.name for a in node.names]
    return [f"srmdp/paper/{name}.py" for name in sorted(seen)]
