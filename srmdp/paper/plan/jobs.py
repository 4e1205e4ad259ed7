"""What a preset's jobs cost and how they are called: threads, memory (:mod:`srmdp.case.memory`), time
(:mod:`srmdp.paper.models.cost`), the arguments of the jobs that are not one reading of one row, and the cost report
of ``srmdp plan``.

:class:`PlanJobs` is the part of :class:`srmdp.paper.plan.preset.Plan` that prices jobs; it reads the plan's selection
and its paths (:class:`srmdp.paper.plan.files.PlanFiles`).
"""

from __future__ import annotations

import math
import os
from dataclasses import replace

from ...case.memory import required_bytes
from ...options import command_line
from ..inputs.rows import paper_case, split_row_key
from ..lsmdp import model_bytes as lsmdp_model_bytes
from ..models.cost import estimate_seconds


def _hms(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class PlanJobs:
    """The jobs of a preset with their resources and cost (a part of :class:`srmdp.paper.plan.preset.Plan`)."""

    def lsmdp_options(self, key) -> dict:
        """The options of the LSMDP job of paper row ``key`` (``srmdp lsmdp``, :mod:`srmdp.options`)."""
        sel = self.lsmdp_by_key[key]
        return (
            {"table": sel.table, "row": sel.row}
            | self.reading(self.lsmdp_reading).run_options("lsmdp")
            | {"runs": sel.runs, "seed": self.seed, "test_points": self.test_points}
        )

    def lsmdp_args(self, key) -> str:
        return command_line(self.lsmdp_options(key), "lsmdp")

    def lsmdp_mem_mb(self, key) -> int:
        sel = self.lsmdp_by_key[key]
        return int(math.ceil(3 * lsmdp_model_bytes(paper_case(sel.table, row=sel.row)) / 1e6)) + 600

    def residual_options(self, variant, key) -> dict:
        """The options of a variant's ``srmdp run`` job: the residual reading's row with the variant's changes."""
        v = self.variant(variant)
        table, row = split_row_key(key)
        base = self.reading(self.residual_reading)
        reading = replace(
            base,
            trunc_y=v.get("trunc_y", base.trunc_y),
            trunc_z=v.get("trunc_z", base.trunc_z),
            arithmetic=v.get("arithmetic", base.arithmetic),
        )
        return (
            {"table": table, "row": row}
            | reading.run_options()
            | {"runs": self.residual_run_count(variant, key), "test_points": self.test_points}
            | {"seed": v.get("seed", self.seed), "precision": v.get("precision", self.precision)}
        )

    def residual_run_count(self, variant, key) -> int:
        """The runs of a rerun: the variant's own, else the row's in the preset's cases, else residuals.runs."""
        v = self.variant(variant)
        return int(v.runs or (self.by_key[key].runs if key in self.by_key else self.residual_runs))

    def residual_case(self, key):
        table, row = split_row_key(key)
        return paper_case(table, row=row, precision=self.precision, **self.reading(self.residual_reading).options())

    def residual_seconds(self, variant, key, threads) -> float:
        runs = self.residual_run_count(variant, key)
        return estimate_seconds(self.residual_case(key), runs, threads, "cpu", self.test_points)

    def residual_mem_mb(self, key, threads: int = 1) -> int:
        need = required_bytes(self.residual_case(key), self.test_points, workers=max(64, threads))
        return int(math.ceil(need / 1e6)) + 600  # + interpreter, Numba and LLVM

    def variant_rows(self, variant) -> list:
        """The rows a variant reruns: its own ``rows`` among the residual rows, else all of them."""
        v = self.variant(variant)
        return [k for k in self.residual_rows if v.rows is None or k in v.rows]

    def residual_args(self, variant, key) -> str:
        return command_line(self.residual_options(variant, key))

    def _alone(self, like: bool):
        """(reading, precision, runs) of a job timed alone: rule likeforlike's or rule multicore's."""
        if like:
            return self.likeforlike_reading, self.likeforlike_precision, self.likeforlike_runs
        return self.timing_reading, self.precision, self.multicore_runs

    def multicore_options(self, key, like: bool = False) -> dict:
        """The options of ``srmdp run`` for a job timed alone (--device and --threads are the rule's)."""
        table, row = split_row_key(key)
        reading, precision, runs = self._alone(like)
        return (
            {"table": table, "row": row}
            | self.reading(reading).run_options()
            | {"runs": runs, "test_points": self.test_points, "seed": self.seed, "precision": precision}
        )

    def multicore_args(self, key, like: bool = False) -> str:
        return command_line(self.multicore_options(key, like))

    def multicore_case(self, key, like: bool = False):
        table, row = split_row_key(key)
        reading, precision, _ = self._alone(like)
        return paper_case(table, row=row, precision=precision, **self.reading(reading).options())

    def multicore_mem_mb(self, key, threads: int, like: bool = False) -> int:
        need = required_bytes(self.multicore_case(key, like), self.test_points, workers=max(64, threads))
        return int(math.ceil(need / 1e6)) + 600  # + interpreter, Numba and LLVM

    def multicore_seconds(self, key, nthreads, cores, like: bool = False) -> float:
        threads = 1 if nthreads == "1" else cores
        runs = self._alone(like)[2]
        return estimate_seconds(self.multicore_case(key, like), runs, threads, "cpu", self.test_points)

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
                        out.append(
                            (
                                "solve",
                                self.chunk_path(r.name, s.key, dev, j),
                                self.job_seconds(s.key, n, thr, dev),
                                thr,
                                self.mem_mb(s.key, thr),
                            )
                        )
                if s.timing:
                    thr = min(self.timing_threads or cores, cores)
                    out.append(
                        (
                            "time",
                            self.run_timing_path(s.key, dev),
                            self.job_seconds(s.key, self.timing_runs, thr, dev),
                            thr,
                            self.mem_mb(s.key, thr),
                        )
                    )
        if "cpu" in self.devices:  # the residual reruns: one CPU job per variant and row
            thr = min(self.threads, cores)
            for key in self.residual_rows:
                for v in self.variants:
                    if key in self.variant_rows(v.name):
                        out.append(
                            (
                                "resid",
                                self.residual_run_path(v.name, key),
                                self.residual_seconds(v.name, key, thr),
                                thr,
                                self.residual_mem_mb(key, thr),
                            )
                        )
        for key in self.multicore:  # each asks for every core (runs alone), 1-thread job included
            for n in self.MULTICORE_THREADS:
                out.append(
                    (
                        "multi",
                        self.multicore_run_path(key, n),
                        self.multicore_seconds(key, n, cores),
                        cores,
                        self.multicore_mem_mb(key, cores),
                    )
                )
        for key in self.likeforlike:  # all cores, alone, in the GPU results' precision and reading
            out.append(
                (
                    "like",
                    self.likeforlike_run_path(key),
                    self.multicore_seconds(key, "all", cores, like=True),
                    cores,
                    self.multicore_mem_mb(key, cores, like=True),
                )
            )
        return out + self._other_jobs(cores)

    def _other_jobs(self, cores: int) -> list:
        """The compute jobs beyond the paper's rows: LSMDP, and the suite beyond the paper (runs, references,
        solves, the coverage of u0_error), priced by :mod:`srmdp.paper.models.cost`."""
        from ..beyond.jobs import BeyondPlan
        from ..beyond.reference import closed_form_reference
        from ..beyond.solve import COVERAGE_PROBLEMS
        from ..models.cost import REFERENCE_SECONDS, SOLVE_SECONDS, coverage_seconds, estimate_seconds, lsmdp_seconds

        out = []
        for sel in self.lsmdp:
            out.append(
                (
                    "lsmdp",
                    self.lsmdp_run_path(sel.key),
                    lsmdp_seconds(paper_case(sel.table, row=sel.row), sel.runs),
                    1,
                    self.lsmdp_mem_mb(sel.key),
                )
            )
        b = BeyondPlan(self)
        for c in b.cases:
            out.append(
                (
                    "beyond",
                    b.run_path(c.key),
                    estimate_seconds(c.case(), c.runs, 1, "cpu", self.test_points),
                    1,
                    b.mem_mb(c.key),
                )
            )
        for problem, d in b.references:
            paths = 0 if closed_form_reference(problem) else b.reference_paths
            out.append(
                (
                    "ref",
                    b.reference_run_path(f"{problem}_d{d}"),
                    REFERENCE_SECONDS[0] + paths * REFERENCE_SECONDS[1],
                    1,
                    1000,
                )
            )
        for x in b.solves:  # a refinement to a tolerance may use its whole budget, on every core (alone)
            seconds = SOLVE_SECONDS + (x.budget_s or 0.0)
            out.append(("solve", b.solve_path(x.key, published=False), seconds, cores if x.alone else 1, 2000))
        if b.coverage:
            out.append(
                (
                    "cover",
                    b.coverage_path(published=False),
                    coverage_seconds(
                        len(COVERAGE_PROBLEMS), int(b.coverage.get("seeds", 20)), len(b.coverage.get("dims", [2, 4]))
                    ),
                    1,
                    2000,
                )
            )
        return out

    def row_needs(self, cores: int, done=os.path.exists, runs=None) -> list:
        """Per paper row, reading and device of the preset: its run chunks' runs present (the files that exist) and
        wanted, the cost model's seconds per run (:func:`srmdp.paper.models.cost.run_seconds`) beside the fastest run
        measured by the chunks present, and the seconds of the chunks still to run (``runs``: whether a chunk runs;
        default: the missing ones).  One entry per row, whatever its number of chunks."""
        from ...case.results import read_json
        from ..models.cost import run_seconds

        runs = runs or (lambda t: not done(t))
        thr = min(self.threads, cores)
        out = []
        for s in self.selected:
            case = self.case(s.key, self.readings[0].name)
            for dev in self.devices:
                for r in self.readings:
                    if not r.runs_row(s.key):
                        continue
                    have, todo, fastest = 0, 0.0, None
                    for j in range(s.chunks):
                        path, n = self.chunk_path(r.name, s.key, dev, j), s.chunk_range(j)[1]
                        if done(path):
                            have += n
                            try:
                                res = read_json(path)
                                secs = float(res.get("seconds_per_run_min") or res["seconds_per_run"])
                            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                                secs = None
                            if secs is not None and (fastest is None or secs < fastest):
                                fastest = secs
                        if runs(path):
                            todo += self.job_seconds(s.key, n, thr, dev)
                    out.append(
                        {
                            "reading": r.name,
                            "key": s.key,
                            "device": dev,
                            "runs": have,
                            "wanted": s.runs,
                            "chunks": s.chunks,
                            "model": run_seconds(case, thr, self.test_points) if dev == "cpu" else None,
                            "measured": fastest,
                            "todo": todo,
                            "threads": thr,
                        }
                    )
        return out

    def cost_report(self, cores: int | None = None, done=os.path.exists, pending=None, render_jobs=None) -> str:
        """The preset's compute jobs with the cost model's seconds.  ``pending``: the outputs of the compute jobs
        this invocation will run (from Snakemake's DAG; None: every job whose output is missing), ``render_jobs``:
        how many other jobs (publish, tables, figures, PDF) it runs besides."""
        cores = cores or os.cpu_count() or 1
        jobs = self.jobs(cores)
        runs = (lambda t: not done(t)) if pending is None else (lambda t: t in pending)
        todo_jobs = [j for j in jobs if runs(j[1])]
        lines = [
            f"srmdp: preset '{self.preset}' has {len(jobs)} compute jobs ({len(self.selected)} paper rows x"
            f" {len(self.readings)} readings x {len(self.devices)} device(s), and the jobs beyond the paper);"
            f" this run computes {len(todo_jobs)} of them"
            + ("" if render_jobs is None else f" and runs {render_jobs} render jobs (publish, tables, figures, PDF)")
            + ":"
        ]
        needs = self.row_needs(cores, done, runs)
        chunks = {
            self.chunk_path(r.name, s.key, dev, j)
            for s in self.selected
            for dev in self.devices
            for r in self.readings
            for j in range(s.chunks)
        }
        others = [j for j in jobs if j[1] not in chunks]
        todo = sum(sec * thr for _, target, sec, thr, _ in jobs if runs(target))
        if needs:
            lines.append(
                "  the paper's rows, one line each: runs present/wanted (chunks), the cost model's s/run beside the"
                " fastest run of the chunks present, and the time its missing chunks take:"
            )
        for n in needs:
            model = "--" if n["model"] is None else f"{n['model']:.3g}"
            measured = "--" if n["measured"] is None else f"{n['measured']:.3g}"
            rest = f"~{_hms(n['todo'])} on {n['threads']} thr" if n["todo"] else "done"
            lines.append(
                f"  rows  {n['reading'] + ' ' + n['key'] + ' ' + n['device']:<34} runs {n['runs']:>4}/{n['wanted']:<4}"
                f" ({n['chunks']} chunks)  s/run model {model:>6}, measured {measured:>6}  {rest}"
            )
        for kind, target, sec, thr, mem in others:
            mark = f"~{_hms(sec)}" if runs(target) else "not run (up to date)"
            if runs(target) or len(others) <= 40:
                lines.append(f"  {kind:<5} {target:<60} {thr} thr  {mem:>6} MB  {mark}")
        scratch = sum(sec * thr for _, _, sec, thr, _ in jobs)
        if not todo_jobs:
            lines.append(
                "srmdp: no compute job to run: only the render jobs, about a minute or two; from scratch (--forceall)"
                f" the cost model gives ~{_hms(scratch)} core-time, ~{_hms(scratch / cores)} wall on {cores} cores"
            )
        else:
            lines.append(
                f"srmdp: compute still to run ~{_hms(todo)} core-time, ~{_hms(todo / cores)} wall on"
                f" {cores} cores (cost model; render jobs not included)"
            )
        return "\n".join(lines)
