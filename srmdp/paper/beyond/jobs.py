"""The suite beyond the paper in the workflow: its cases (config key ``beyond``), their jobs and files.

The problems are the modules of :mod:`srmdp.problems` (``srmdp/problems/README.md``: PDEs, sources,
reference values).  A preset lists the suite's cases::

    beyond:
      runs: 8                   # default runs per case
      reference_paths: 100000   # Monte-Carlo paths of a reference without closed form (bs_diff_rates)
      cases:
        - {problem: reaction_diffusion, d: 4, dt: 0.2, basis: LP1, cells: 3, paths: 125, runs: 16}
        - {problem: hjb_lq, d: 4, dt: 0.2, basis: LP1, cells: 3, paths: 125, trunc_z: 1.5}

(optional per case: ``runs``, ``trunc_y``, ``trunc_z``, ``z_cv``).  Each case is one ``srmdp run`` job
(rule ``beyond_run``; one thread, the preset's seed and test points), each (problem, d) one reference
job (``python -m srmdp beyond reference``); both are published under
``data/summaries/<preset>/beyond/`` and ``tables/beyond.tex`` is rendered from those copies and from
``config/beyond_published.csv`` (values that other methods published for the same problems, with their
sources).  ``snakemake beyond`` builds the table.

The references are :mod:`srmdp.paper.beyond.reference`'s, the table :mod:`srmdp.paper.beyond.table`'s, the
solves through :func:`srmdp.solve` :mod:`srmdp.paper.beyond.solve`'s, and ``srmdp beyond``
:mod:`srmdp.paper.beyond.cli`'s.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

from ...case.cases import Case
from ...case.memory import required_bytes
from ...options import command_line, make_case
from .. import REPOSITORY
from ..models.cost import estimate_seconds
from .reference import DEFAULT_REFERENCE_PATHS, closed_form_reference
from .solve import solves_from

PUBLISHED_FILE = REPOSITORY / "config" / "beyond_published.csv"


@dataclass(frozen=True)
class SuiteCase:
    problem: str
    d: int
    dt: float
    basis: str
    cells: int
    paths: int
    runs: int
    trunc_y: float | None = None
    trunc_z: float | None = None
    z_cv: bool = False

    @property
    def key(self) -> str:
        out = f"{self.problem}_d{self.d}_{self.basis}_dt{self.dt:g}_C{self.cells}_M{self.paths}"
        if self.trunc_y is not None:
            out += f"_ty{self.trunc_y:g}"
        if self.trunc_z is not None:
            out += f"_tz{self.trunc_z:g}"
        return out + ("_zcv" if self.z_cv else "")

    @property
    def reference_key(self) -> str:
        return f"{self.problem}_d{self.d}"

    def case_values(self) -> dict:
        """The case as options (:mod:`srmdp.options`)."""
        return {
            "problem": self.problem,
            "d": self.d,
            "dt": self.dt,
            "basis": self.basis,
            "cells": self.cells,
            "paths": self.paths,
        }

    def run_options(self) -> dict:
        """The options of its ``srmdp run`` job (the preset's test points and seed join them)."""
        return self.case_values() | {
            "runs": self.runs,
            "trunc_y": self.trunc_y,
            "trunc_z": self.trunc_z,
            "z_cv": self.z_cv,
        }

    def case(self) -> Case:
        return make_case(self.case_values() | {"trunc_y": self.trunc_y, "trunc_z": self.trunc_z, "z_cv": self.z_cv})

    def cli(self) -> str:
        return command_line(self.run_options())


def published_rows(path=PUBLISHED_FILE) -> list[dict]:
    """Values other methods published for the suite's problems (config/beyond_published.csv)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["d"] = int(r["d"])
        r["value"] = float(r["value"])
    return rows


class BeyondPlan:
    """The suite's jobs and files in one preset (``plan``: the preset's :class:`srmdp.paper.plan.preset.Plan`)."""

    def __init__(self, plan):
        self.plan = plan
        cfg = plan.config.get("beyond") or {}
        runs = int(cfg.get("runs", plan.config.get("runs", 8)))
        self.reference_paths = int(cfg.get("reference_paths", DEFAULT_REFERENCE_PATHS))
        self.cases = []
        for e in cfg.get("cases", []):
            c = SuiteCase(
                e["problem"],
                int(e["d"]),
                float(e["dt"]),
                e.get("basis", "LP1"),
                int(e["cells"]),
                int(e["paths"]),
                int(e.get("runs", runs)),
                e.get("trunc_y"),
                e.get("trunc_z"),
                bool(e.get("z_cv", False)),
            )
            c.case()  # validates (one line naming the field)
            self.cases.append(c)
        keys = [c.key for c in self.cases]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"config beyond.cases: duplicate case(s) {', '.join(dup)}")
        self.by_key = {c.key: c for c in self.cases}
        problems = {c.problem for c in self.cases}
        refs = {(c.problem, c.d) for c in self.cases}
        # and at the published values' dimension (d = 100) where our reference costs nothing (exact, quadrature)
        refs |= {
            (r["problem"], r["d"])
            for r in published_rows()
            if r["problem"] in problems and r["same_x0"] == "yes" and closed_form_reference(r["problem"])
        }
        self.solves = solves_from(cfg)  # the suite through srmdp.solve (srmdp.paper.beyond.solve)
        self.solve_by_key = {x.key: x for x in self.solves}
        # {seeds, dims} of the coverage of u0_error; None, or no dims (a preset that overrides the default's), is none
        coverage = cfg.get("coverage")
        self.coverage = coverage if coverage and coverage.get("dims", [2, 4]) else None
        refs |= {(x.problem, x.d) for x in self.solves}
        self.references = sorted(refs)

    # --- files
    def run_path(self, key):
        return f"{self.plan.results}/beyond/{key}.json"

    def path(self, key):
        return f"{self.plan.published}/beyond/{key}.json"

    def reference_run_path(self, rkey):
        return f"{self.plan.results}/beyond/reference/{rkey}.json"

    def reference_path(self, rkey):
        return f"{self.plan.published}/beyond/reference/{rkey}.json"

    def summaries(self):
        return [self.path(c.key) for c in self.cases]

    def solve_path(self, key, published=True):
        return f"{self.plan.published if published else self.plan.results}/beyond/solve/{key}.json"

    def solve_files(self):
        return [self.solve_path(x.key) for x in self.solves]

    def coverage_path(self, published=True):
        return f"{self.plan.published if published else self.plan.results}/beyond/coverage/coverage.json"

    def coverage_files(self):
        return [self.coverage_path()] if self.coverage else []

    def solve_args(self, key) -> str:
        return self.solve_by_key[key].cli(self.plan.seed)

    def coverage_args(self) -> str:
        return (
            f"--seeds {int(self.coverage.get('seeds', 20))} --dims"
            f" {' '.join(str(int(d)) for d in self.coverage.get('dims', [2, 4]))}"
        )

    def reference_files(self):
        return [self.reference_path(f"{p}_d{d}") for p, d in self.references]

    # --- jobs
    def run_args(self, key) -> str:
        return command_line(
            self.by_key[key].run_options() | {"test_points": self.plan.test_points, "seed": self.plan.seed}
        )

    def reference_args(self, rkey) -> str:
        problem, _, d = rkey.rpartition("_d")
        return f"--problem {problem} --d {d} --paths {self.reference_paths}"

    def mem_mb(self, key) -> int:
        c = self.by_key[key]
        return int(math.ceil(required_bytes(c.case(), self.plan.test_points, runs=c.runs) / 1e6)) + 600

    def runtime_min(self, key) -> int:
        c = self.by_key[key]
        sec = estimate_seconds(c.case(), c.runs, 1, "cpu", self.plan.test_points)
        return int(math.ceil(3 * sec / 60.0)) + 5
