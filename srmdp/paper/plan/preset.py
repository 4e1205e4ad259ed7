"""What the Snakemake workflow needs from the package: the plan of a preset.

:class:`Plan` reads a preset (a config the workflow has validated against
``workflow/schemas/config.schema.yaml``) into the paper rows, readings and experiments it runs, and checks what
the schema cannot: that the names it cross-references resolve (readings, paper rows, variants).  Its other
parts: where the files live (:class:`srmdp.paper.plan.files.PlanFiles`) and what the jobs cost
(:class:`srmdp.paper.plan.jobs.PlanJobs`).  ``srmdp plan CONFIG.yaml...`` (:mod:`srmdp.paper.plan.cli`)
validates a preset as the workflow does and prints the estimated cost of every job without Snakemake.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path

from ...case.readings import reading_fields, reading_key, reading_name, same_reading
from ...exceptions import ConfigError
from .. import REPOSITORY
from ..inputs import chunks
from ..inputs.preset_reading import PresetReading, readings_from_config
from ..inputs.rows import canonical_table, paper_case, paper_rows, split_row_key, table_ids
from ..models.equivalence import Equivalence
from .files import PlanFiles
from .jobs import PlanJobs


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
    """One group of pooled run chunks under gpu_results or a chunk_results folder: its reading name, row key and group
    id, and ``pool``, the published folder of its summary (``gpu`` for gpu_results' chunks, else the chunk_results
    folder's name: ``evidence``)."""

    reading: str
    key: str
    group: str
    paths: tuple
    flags: str
    runs: int
    pool: str = "gpu"


@dataclass(frozen=True)
class Variant:
    """One residual experiment (config ``residuals.variants``): the residual reading with one thing changed.

    ``changes``: ((key, value), ...) among :func:`variant_keys` (precision, seed, trunc_y, trunc_z, arithmetic;
    None = no truncation).
    ``rows``: the rows it reruns (None: every row of ``residuals.rows``); ``runs``: its runs (None: the row's);
    ``predicted``: the sign it predicts for ours - paper's shift, written before it was run."""

    name: str
    hypothesis: str
    changes: tuple
    rows: tuple | None = None
    runs: int | None = None
    predicted: str = ""

    def get(self, key, default):
        return dict(self.changes).get(key, default)


def variant_keys() -> tuple:
    """What a residual variant may change: the precision, the seed and the fields of the reading declared
    ``variant`` (:class:`srmdp.case.readings.Reading`)."""
    return ("precision", "seed") + tuple(f.name for f in reading_fields() if f.metadata["variant"])


VARIANT_KEYS = variant_keys()


def _paper_keys(rows, where: str, paper_keys) -> list:
    """``rows`` (keys such as LP1d4_r2) without repeats; ValueError naming ``where`` for any non-paper row."""
    unknown = [k for k in rows if k not in paper_keys]
    if unknown:
        raise ValueError(
            f"config {where}: not the paper's rows: {', '.join(unknown)}; allowed: {', '.join(paper_keys)}"
        )
    return list(dict.fromkeys(rows))


class Plan(PlanFiles, PlanJobs):
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
                f"config timing.reading: unknown reading {timing['reading']!r}; allowed: {', '.join(names)}"
            )
        self.gpu_results = config.get("gpu_results", "data/gpu")
        # folders of run chunks pooled as gpu_results' are (the evidence preset's, data/evidence/), not GPU results
        self.chunk_results = list(config.get("chunk_results") or [])
        rows = {(r["table"], r["row"]): r for r in paper_rows()}
        selected = {}
        for entry in config["cases"]:
            table = canonical_table(entry["table"])  # LP1d6 is accepted for the paper's LP1d6_1 (the schema's enum)
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
                raise ValueError(
                    f"config readings: reading {r.name!r} names rows that are not the paper's:"
                    f" {', '.join(unknown)}; allowed: {', '.join(paper_keys)}"
                )
        # the LSMDP baseline (srmdp.paper.lsmdp): its own small list of paper rows, one reading
        lsmdp = config.get("lsmdp") or {}
        self.lsmdp_reading = lsmdp.get("reading", self.readings[0].name)
        if self.lsmdp_reading not in [r.name for r in self.paper_readings]:
            raise ValueError(
                f"config lsmdp.reading: unknown reading {self.lsmdp_reading!r};"
                f" allowed: {', '.join(r.name for r in self.paper_readings)} (LSMDP has no z_cv and"
                " computes in float64)"
            )
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
        # the one verdict on every paper number (srmdp.paper.models.equivalence); None where a preset file is read alone
        self._equivalence = Equivalence.from_config(config.get("equivalence"))
        # the residual experiments (srmdp.paper.report.residuals): variants of one reading on a few rows
        res = config.get("residuals") or {}
        self.residual_reading = res.get("reading", self.paper_readings[0].name)
        if self.residual_reading not in [r.name for r in self.paper_readings]:
            raise ValueError(
                f"config residuals.reading: unknown reading {self.residual_reading!r};"
                f" allowed: {', '.join(r.name for r in self.paper_readings)}"
            )
        # its rows: those of the preset's cases, rerun with their runs (a filter, as a reading's rows); with
        # residuals.runs also rows the cases do not run (the evidence campaign's), with that many runs
        rows = _paper_keys(res.get("rows", []), "residuals.rows", paper_keys)
        self.residual_runs = res.get("runs")
        self.residual_rows = [k for k in paper_keys if k in rows and (k in self.by_key or self.residual_runs)]
        self.variants = [
            Variant(
                v["name"],
                v["hypothesis"],
                tuple((k, v[k]) for k in variant_keys() if k in v),
                None if v.get("rows") is None else tuple(_paper_keys(v["rows"], "residuals.variants.rows", paper_keys)),
                v.get("runs"),
                v.get("predicted", ""),
            )
            for v in res.get("variants", [])
        ]
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
            raise ValueError(
                f"config likeforlike.reading: unknown reading {self.likeforlike_reading!r};"
                f" allowed: {', '.join(r.name for r in self.readings)}"
            )
        self.likeforlike_precision = like.get("precision", "float32")
        self.likeforlike_runs = int(like.get("runs", 1))

    # --- names and paths ---------------------------------------------------------------------
    @property
    def equivalence(self) -> Equivalence:
        if self._equivalence is None:
            raise ConfigError("config equivalence: missing (delta, level, reason: config/config.yaml)")
        return self._equivalence

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

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)

    @property
    def timing_reading(self) -> str:
        return self.config.get("timing", {}).get("reading", self.readings[0].name)

    @property
    def error_device(self) -> str:
        return "cpu" if "cpu" in self.devices else self.devices[0]

    # --- run chunks kept under gpu_results (data/gpu/: the GPU campaign's and single-run files) and chunk_results ---
    def gpu_groups(self) -> list:
        """The chunk groups under gpu_results that are paper rows run under one of the preset's readings.

        Chunks pool per (row, reading, precision, seed, test points, random streams), see
        :mod:`srmdp.paper.inputs.chunks`; each group becomes one ``srmdp aggregate`` job and one table line.
        """
        if getattr(self, "_gpu_groups", None) is None:
            rows = {(r["table"], r["row"]) for r in paper_rows()}
            out = []
            for g in chunks.index(chunks.result_paths(self.gpu_results, *self.chunk_results)).values():
                name = reading_name(g.reading, self.readings)
                if name is None or (g.table, g.row) not in rows:
                    continue
                pool = next(
                    (os.path.basename(os.path.normpath(f)) for f in self.chunk_results if _under(g.paths[0], f)), "gpu"
                )
                out.append(GpuGroup(name, g.label, g.id, tuple(g.paths), chunks.aggregate_flags(g), g.runs, pool))
            order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
            names = [r.name for r in self.readings]
            out.sort(key=lambda x: (order[split_row_key(x.key)], names.index(x.reading), x.group))
            self._gpu_groups = out
        return self._gpu_groups

    def gpu_group(self, reading, key, group) -> GpuGroup:
        return next(g for g in self.gpu_groups() if (g.reading, g.key, g.group) == (reading, key, group))


def _under(path, folder) -> bool:
    return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(folder)


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
        try:
            data = yaml.safe_load(Path(p).read_text()) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"invalid YAML in {p}{at}: {getattr(exc, 'problem', None) or exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"invalid config {p}: a YAML mapping of keys, not {type(data).__name__}")
        update(out, data)
    return out


def validate_config(config: dict) -> None:
    """Check ``config`` against the workflow's schema, as the workflow does on start: a one-line ConfigError naming
    the field that fails."""
    import jsonschema
    import yaml

    schema = yaml.safe_load((REPOSITORY / "workflow" / "schemas" / "config.schema.yaml").read_text())
    try:
        jsonschema.validate(config, schema)
    except jsonschema.ValidationError as exc:
        where = ".".join(map(str, exc.absolute_path)) or "(top level)"
        raise ConfigError(f"config {where}: {exc.message}") from None


def paper_code(*modules: str) -> list[str]:
    """The files of the srmdp.paper modules a render job runs: each of ``modules`` (dotted under srmdp.paper:
    ``report.tables``, ``plan.preset``, ...) and the srmdp.paper modules it imports, transitively (relative imports,
    read from the source), as paths relative to the checkout.  The render rules list them as inputs, so that editing
    one renders again; an unknown name is an error (a rule would silently lose its inputs)."""
    import ast

    from .. import REPOSITORY

    root = REPOSITORY / "srmdp" / "paper"

    def path_of(dotted):
        base = root.joinpath(*dotted.split("."))
        return base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"

    for name in modules:
        if not path_of(name).is_file():
            raise ValueError(f"paper_code: no module srmdp.paper.{name}")
    seen, todo = set(), list(modules)
    while todo:
        name = todo.pop()
        path = path_of(name)
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            if node.level - 1 > len(package):
                continue  # above srmdp.paper: the library
            base = package[: len(package) - (node.level - 1)]
            if node.module:
                todo.append(".".join(base + node.module.split(".")))
            todo += [".".join(base + [a.name]) for a in node.names]
    return sorted(str(path_of(n).relative_to(REPOSITORY)) for n in seen if n)
