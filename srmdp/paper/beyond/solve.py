"""The suite through :func:`srmdp.solve`: per problem and d, the paper's rules (box strata), adapted
strata, and a refinement to a tolerance, each with u0, its error against the reference, u0_error and the
seconds; and the coverage of u0_error over seeds on problems with an exact solution.

Config (the preset's ``beyond`` section)::

    beyond:
      solves:                       # one `srmdp beyond solve` job each (rule beyond_solve)
        - {problem: quadratic_z, d: 4, mode: rules}          # the paper's rules, the paper's box
        - {problem: quadratic_z, d: 4, mode: adapted}        # the defaults for a user's problem
        - {problem: quadratic_z, d: 4, mode: tol, tol: 0.02, budget_s: 60}
      coverage: {seeds: 20, dims: [2, 4]}                    # rule beyond_coverage (bench/own_pde/own_pde_coverage.py)
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...options import command_line

MODES = ("rules", "adapted", "tol")
COVERAGE_PROBLEMS = {
    "quadratic_z": "quadratic_z",
    "reaction_diffusion": "reaction_diffusion",
    "running_cost": "tests/data/running_cost.py",
}
COVERAGE_CONFIGS = {"rules": {}, "user coarse": {"cells": 3, "paths": 100}, "user fine": {"cells": 5, "paths": 300}}


@dataclass(frozen=True)
class SuiteSolve:
    problem: str
    d: int
    mode: str
    tol: float | None = None
    budget_s: float | None = None
    runs: int = 4

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"config beyond.solves: mode {self.mode!r} is not one of {', '.join(MODES)}")
        if (self.mode == "tol") != (self.tol is not None):
            raise ValueError("config beyond.solves: tol goes with mode tol, and mode tol needs tol")

    @property
    def alone(self) -> bool:
        """Whether its job runs with no other job beside it: a solve to a tolerance stops at its wall-clock budget,
        so how far it refines depends on the seconds it gets (it computes on one thread all the same)."""
        return self.mode == "tol"

    @property
    def key(self) -> str:
        tail = f"_tol{self.tol:g}_b{self.budget_s:g}" if self.mode == "tol" else ""
        return f"{self.problem}_d{self.d}_{self.mode}{tail}"

    def kwargs(self) -> dict:
        kw = {"d": self.d, "runs": self.runs, "threads": 1, "progress": False}
        if self.mode == "rules":
            kw["strata"] = "box"
        elif self.mode == "adapted":
            kw["strata"] = "adapted"
        else:
            kw.update(tol=self.tol, budget_s=self.budget_s)
        return kw

    def cli(self, seed: int | None = None) -> str:
        """The arguments of its ``srmdp beyond solve`` job: its options (:mod:`srmdp.options`) and the suite's mode."""
        options = {"runs": self.runs, "tol": self.tol, "budget_s": self.budget_s, "seed": seed}
        head = command_line({"problem": self.problem, "d": self.d}, "beyond_solve")
        return f"{head} --mode {self.mode} {command_line(options, 'beyond_solve')}"


def solves_from(cfg) -> list[SuiteSolve]:
    return [
        SuiteSolve(e["problem"], int(e["d"]), e["mode"], e.get("tol"), e.get("budget_s"), int(e.get("runs", 4)))
        for e in (cfg or {}).get("solves", [])
    ]


def run_solve(s: SuiteSolve, seed: int = 0) -> dict:
    """One suite solve: its numbers for the table (CPU and wall seconds, compilation included)."""
    import srmdp

    c0, w0 = time.process_time(), time.perf_counter()
    sol = srmdp.solve(s.problem, seed=seed, **s.kwargs())
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    res = sol.result
    return {
        "problem": s.problem,
        "d": s.d,
        "mode": s.mode,
        "tol": s.tol,
        "budget_s": s.budget_s,
        "seed": seed,
        "case": sol.case.as_dict(),
        "strata": "adapted" if sol.problem.adapted_d else "box",
        "runs": sol.runs,
        "u0": res["u0"],
        "u0_se": res["u0_se"],
        "u0_error": sol.u0_error,
        "u0_error_reason": sol.u0_error_reason,
        "tol_met": sol.tol_met,
        "remedies": res.get("remedies", []),
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "solve_seconds": res["seconds_per_run"] * sol.runs,
        "provenance": res["provenance"],
    }


def exact_u0(spec, d) -> float:
    from ...problems import load_problem

    p = load_problem(spec)
    return float(p.module.y_exact(0.0, np.full(d, p.x0), d))


def measure_coverage(seeds=20, dims=(2, 4), problems=None, runs=4, root=".", say=print) -> dict:
    """Coverage of u0_error: per (problem, d, #C/M) how often |u0 - exact| <= u0_error, <= 2 u0_error,
    the median u0_error / |error|, how many estimates were None, and the CPU seconds."""
    import srmdp

    rows, raw = [], []
    for name in problems or list(COVERAGE_PROBLEMS):
        spec = COVERAGE_PROBLEMS[name]
        if spec.endswith(".py"):
            spec = str(Path(root) / spec)
        for d in dims:
            exact = exact_u0(spec, d)
            for label, kw in COVERAGE_CONFIGS.items():
                c0 = time.process_time()
                hit1 = hit2 = none = 0
                ratios = []
                for seed in range(seeds):
                    s = srmdp.solve(spec, d=d, runs=runs, seed=seed, threads=1, progress=False, **kw)
                    est = s.result["error_estimate"]
                    err = abs(s.result["u0"] - exact)
                    raw.append(
                        {
                            "problem": name,
                            "d": d,
                            "config": label,
                            "seed": seed,
                            "exact": exact,
                            "u0": s.result["u0"],
                            "u0_se": s.result["u0_se"],
                            "u0_error": s.u0_error,
                            "coarse_u0": est.get("coarse_u0"),
                            "coarse_u0_se": est.get("coarse_u0_se"),
                            "fine": [s.case.steps, s.case.cells, s.case.paths],
                            "coarse": [(est.get("coarse_case") or {}).get(k) for k in ("steps", "cells", "paths")],
                        }
                    )
                    if s.u0_error is None:
                        none += 1
                        continue
                    hit1 += err <= s.u0_error
                    hit2 += err <= 2 * s.u0_error
                    ratios.append(s.u0_error / max(err, 1e-12))
                n = seeds - none
                row = {
                    "problem": name,
                    "d": d,
                    "config": label,
                    "cells": kw.get("cells"),
                    "paths": kw.get("paths"),
                    "estimates": n,
                    "none": none,
                    "within_1x": hit1,
                    "within_2x": hit2,
                    "median_ratio": statistics.median(ratios) if ratios else math.nan,
                    "cpu_seconds": time.process_time() - c0,
                }
                rows.append(row)
                say(coverage_line(row))
    return {"seeds": seeds, "runs": runs, "rows": rows, "raw": raw}


def coverage_line(r) -> str:
    n = max(r["estimates"], 1)
    cm = "rules" if r["cells"] is None else f"{r['cells']}, {r['paths']}"
    return (
        f"| {r['problem']} | {r['d']} | {cm} | {r['estimates']} | {100 * r['within_1x'] / n:.0f} % |"
        f" {100 * r['within_2x'] / n:.0f} % | {r['median_ratio']:.2g} | {r['none']} | {r['cpu_seconds']:.0f} |"
    )


def coverage_totals(rows) -> dict:
    """{"rules"|"user": (estimates, within 1x, within 2x)}."""
    out = {}
    for r in rows:
        t = out.setdefault("rules" if r["cells"] is None else "user", [0, 0, 0])
        t[0] += r["estimates"]
        t[1] += r["within_1x"]
        t[2] += r["within_2x"]
    return out


def write_json(path, data):
    from ...case.results import write_json_atomic

    write_json_atomic(path, json.loads(json.dumps(data, default=float)))
