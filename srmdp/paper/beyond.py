"""The suite beyond the paper in the workflow: its cases (config key ``beyond``), references and table.

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
"""

from __future__ import annotations

import csv
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..cases import Case
from ..cli_common import Parser, exit_status
from ..memory import required_bytes
from ..options import add_arguments, command_line, make_case
from ..problems import load_problem
from ..results import check_writable, read_json, write_json_atomic
from . import REPOSITORY
from .beyond_solve import MODES, SuiteSolve, coverage_totals, measure_coverage, run_solve, solves_from, write_json
from .cost import estimate_seconds
from .index import hardware_label
from .latex import jinja_env, se_digits, tex_escape, write_text

PUBLISHED_FILE = REPOSITORY / "config" / "beyond_published.csv"
DEFAULT_REFERENCE_PATHS = 100_000


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
        return {"problem": self.problem, "d": self.d, "dt": self.dt, "basis": self.basis, "cells": self.cells,
                "paths": self.paths}

    def run_options(self) -> dict:
        """The options of its ``srmdp run`` job (the preset's test points and seed join them)."""
        return self.case_values() | {"runs": self.runs, "trunc_y": self.trunc_y, "trunc_z": self.trunc_z,
                                     "z_cv": self.z_cv}

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
    """The suite's jobs and files in one preset (``plan``: the preset's :class:`srmdp.paper.plan.Plan`)."""

    def __init__(self, plan):
        self.plan = plan
        cfg = plan.config.get("beyond") or {}
        runs = int(cfg.get("runs", plan.config.get("runs", 8)))
        self.reference_paths = int(cfg.get("reference_paths", DEFAULT_REFERENCE_PATHS))
        self.cases = []
        for e in cfg.get("cases", []):
            c = SuiteCase(e["problem"], int(e["d"]), float(e["dt"]), e.get("basis", "LP1"), int(e["cells"]),
                          int(e["paths"]), int(e.get("runs", runs)), e.get("trunc_y"), e.get("trunc_z"),
                          bool(e.get("z_cv", False)))
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
        refs |= {(r["problem"], r["d"]) for r in published_rows()
                 if r["problem"] in problems and r["same_x0"] == "yes" and closed_form_reference(r["problem"])}
        self.solves = solves_from(cfg)  # the suite through srmdp.solve (srmdp.paper.beyond_solve)
        self.solve_by_key = {x.key: x for x in self.solves}
        self.coverage = cfg.get("coverage")  # {seeds, dims} of the coverage of u0_error, or None
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
        return (f"--seeds {int(self.coverage.get('seeds', 20))} --dims"
                f" {' '.join(str(int(d)) for d in self.coverage.get('dims', [2, 4]))}")

    def reference_files(self):
        return [self.reference_path(f"{p}_d{d}") for p, d in self.references]

    # --- jobs
    def run_args(self, key) -> str:
        return command_line(self.by_key[key].run_options() | {"test_points": self.plan.test_points,
                                                               "seed": self.plan.seed})

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


# --- references -------------------------------------------------------------------------------------
def closed_form_reference(problem: str) -> bool:
    """Whether the problem's reference is exact or a quadrature (cheap in any d), not a Monte-Carlo estimate."""

    prob = load_problem(problem)
    return prob.has_exact or hasattr(prob.module, "u_quadrature")


def compute_reference(problem: str, d: int, paths: int = DEFAULT_REFERENCE_PATHS) -> dict:
    """u(0, x0) of a suite problem with its standard error and how it was obtained (plain NumPy)."""

    prob = load_problem(problem)
    m = prob.module
    t0 = time.perf_counter()
    extra = {}
    if prob.has_exact:
        value, se = m.u_reference(prob.x0, d)
        method = "exact solution"
    elif hasattr(m, "u_quadrature"):
        value, se = m.u_quadrature(prob.x0, d), 0.0
        method = "quadrature of the Cole-Hopf formula (relative accuracy ~1e-13)"
    elif problem == "bs_diff_rates":
        value, se = m.u_reference(prob.x0, d, n_paths=paths)
        method = f"Monte-Carlo lower bound, {paths} paths (tight to < 5e-5 where checked, d = 1, 2)"
        extra = {"single_rate_lending": m.linear_price(prob.x0, d, rate=m.R_L),
                 "single_rate_borrowing": m.linear_price(prob.x0, d, rate=m.R_B)}
    else:
        value, se = m.u_reference(prob.x0, d)
        method = "u_reference of the module"
    out = {"problem": problem, "d": d, "x0": prob.x0, "value": float(value), "se": float(se), "method": method,
           "seconds": time.perf_counter() - t0, "source_hash": prob.source_hash}
    out.update(extra)
    return out


# --- the table --------------------------------------------------------------------------------------
def _load(path):

    return read_json(path)


def table_model(plan: BeyondPlan, summaries, references, published="config/beyond_published.csv", solves=None,
                coverage=None) -> dict:
    """The table's rows (one per suite case) and the published values, each with its source files."""

    sums = {Path(p).stem: (p, _load(p)) for p in summaries}
    refs = {Path(p).stem: (p, _load(p)) for p in references}
    rows = []
    hardware = {}
    for c in plan.cases:
        src, res = sums[c.key]
        rsrc, ref = refs[c.reference_key]
        u0, se = res["u0"], res["u0_se"]
        err = abs(u0 - ref["value"])
        err_se = math.hypot(se or 0.0, ref["se"]) if se is not None else None
        label = hardware_label(res)
        mark = hardware.setdefault(label, len(hardware) + 1)
        row = {"problem": tex_escape(c.problem), "d": c.d, "dt": f"{c.dt:g}", "basis": c.basis, "cells": c.cells,
               "K": c.cells**c.d, "M": c.paths, "runs": res["runs"], "u0": u0, "u0_se": se, "ref": ref["value"],
               "ref_se": ref["se"] or None, "exact": ref["method"] == "exact solution", "err": err, "err_se": err_se,
               "rel": err / abs(ref["value"]) if ref["value"] else None,
               "seconds": res["seconds_per_run"], "hw": mark,
               "trunc": "" if c.trunc_z is None else f"$|z_j|\\le{c.trunc_z:g}$",
               "sources": [src, rsrc]}
        for k in ("mse_y_max", "mse_y_av", "mse_z_av"):
            row[k] = res.get(k)
            row[k + "_se"] = res.get(k + "_se")
        rows.append(row)
    # a line between problems
    for a, b in zip(rows, rows[1:], strict=False):
        a["last_of_problem"] = a["problem"] != b["problem"]
    if rows:
        rows[-1]["last_of_problem"] = False
    pub = []
    problems = [c.problem for c in plan.cases]
    for r in published_rows(published):
        if r["problem"] not in problems:
            continue
        ours = refs.get(f"{r['problem']}_d{r['d']}") if r["same_x0"] == "yes" else None
        pub.append({"problem": tex_escape(r["problem"]), "d": r["d"], "value": r["value"],
                    "method": tex_escape(r["method"]), "source": tex_escape(r["source"]),
                    "x0": tex_escape(r["x0"]),
                    "ours": None if ours is None else ours[1]["value"],
                    "ours_se": None if ours is None else (ours[1]["se"] or None),
                    "ours_method": None if ours is None else tex_escape(ours[1]["method"]),
                    "sources": [str(published)] + ([ours[0]] if ours else [])})
    marks = sorted(hardware.items(), key=lambda kv: kv[1])
    solve_rows = []
    for path in solves or []:
        r = _load(path)
        ref = refs[f"{r['problem']}_d{r['d']}"][1]
        c = r["case"]
        solve_rows.append({"problem": tex_escape(r["problem"]), "d": r["d"], "mode": r["mode"],
                           "tol": "" if r["tol"] is None else f"{r['tol']:g}", "strata": r["strata"],
                           "N": c["steps"], "cells": c["cells"], "M": c["paths"], "runs": r["runs"], "u0": r["u0"],
                           "u0_se": r["u0_se"], "err": abs(r["u0"] - ref["value"]), "u0_error": r["u0_error"],
                           "tol_met": r["tol_met"], "cpu": r["cpu_seconds"], "solve": r["solve_seconds"],
                           "sources": [path, refs[f"{r['problem']}_d{r['d']}"][0]]})
    cov = None
    if coverage:
        data = _load(coverage[0])
        cov = {"seeds": data["seeds"], "runs": data["runs"], "source": coverage[0],
               "rows": [dict(r, problem=tex_escape(r["problem"]), cm=_cm(r)) for r in data["rows"]],
               "totals": {k: {"n": v[0], "p1": 100 * v[1] / max(v[0], 1), "p2": 100 * v[2] / max(v[0], 1)}
                          for k, v in coverage_totals(data["rows"]).items()}}
    return {"rows": rows, "published": pub, "solves": solve_rows, "coverage": cov,
            "preset": tex_escape(plan.plan.preset),
            "test_points": plan.plan.test_points, "seed": plan.plan.seed,
            "hardware": [{"mark": n, "label": tex_escape(h)} for h, n in marks]}


def _cm(r) -> str:
    return "rules" if r["cells"] is None else f"{r['cells']}, {r['paths']}"


def fmt_u(x, se=None) -> str:
    """A value with its standard error, 4 significant decimals (u0 ranges from 0.4 to 50 in the suite)."""
    if x is None:
        return "--"
    digits = 4 if abs(x) < 10 else 3
    if se is None:
        return f"${x:.{digits}f}$"
    digits = se_digits(se, digits)
    return f"${x:.{digits}f}\\pm{se:.{digits}f}$"


def render_table(plan: BeyondPlan, summaries, references, template_dir, out, published="config/beyond_published.csv",
                 solves=None, coverage=None):

    env = jinja_env(template_dir)
    env.filters["u"] = fmt_u
    model = table_model(plan, summaries, references, published, solves, coverage)
    write_text(out, env.get_template("beyond.tex.j2").render(**model))


# --- command line (the workflow's reference jobs) -----------------------------------------------------
def build_parser():
    p = Parser(prog="srmdp beyond", description="references of the suite's problems")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    r = sub.add_parser("reference", help="u(0, x0) of a suite problem in dimension d, with its standard error")
    r.add_argument("--problem", required=True)
    r.add_argument("--d", type=int, required=True)
    r.add_argument("--paths", type=int, default=DEFAULT_REFERENCE_PATHS)
    r.add_argument("--out", required=True)
    v = sub.add_parser("solve", help="one suite solve through srmdp.solve (rules, adapted strata or tol)")
    add_arguments(v, "beyond_solve")  # its options (srmdp.options), and the suite's mode:
    v.add_argument("--mode", choices=MODES, required=True, help="rules: the paper's box; adapted strata; tol")
    c = sub.add_parser("coverage", help="coverage of u0_error over seeds (problems with an exact solution)")
    c.add_argument("--seeds", type=int, default=20)
    c.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    c.add_argument("--out", required=True)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command == "solve":
        return exit_status(lambda: _solve(args))
    if args.command == "coverage":
        return exit_status(lambda: _coverage(args))
    return exit_status(lambda: _reference(args))


def _solve(args) -> int:
    check_writable(args.out)
    s = SuiteSolve(args.problem, args.d, args.mode, args.tol, args.budget_s, args.runs)
    out = run_solve(s, args.seed)
    write_json(args.out, out)
    print(f"{s.key}: u0 = {out['u0']:.6g} +- {out['u0_se']:.2g}, u0_error {out['u0_error']}, {out['cpu_seconds']:.0f}"
          " CPU s")
    return 0


def _coverage(args) -> int:
    check_writable(args.out)
    out = measure_coverage(args.seeds, tuple(args.dims), root=REPOSITORY)
    out.pop("raw")
    write_json(args.out, out)
    return 0


def _reference(args) -> int:
    check_writable(args.out)
    ref = compute_reference(args.problem, args.d, args.paths)
    write_json_atomic(args.out, ref)
    print(f"{args.problem} d={args.d}: u(0, x0) = {ref['value']:.7g} +- {ref['se']:.2g} ({ref['method']},"
          f" {ref['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
