"""``tables/beyond.tex``: the suite's runs, solves and coverage of u0_error against their references and the values
other methods published (``config/beyond_published.csv``), each with its source files."""

from __future__ import annotations

import math
from pathlib import Path

from ...case.results import read_json
from ..inputs.index import hardware_label
from ..report.latex import jinja_env, se_digits, tex_escape, write_text
from .jobs import BeyondPlan, published_rows
from .solve import coverage_totals


def _load(path):
    return read_json(path)


def table_model(
    plan: BeyondPlan, summaries, references, published="config/beyond_published.csv", solves=None, coverage=None
) -> dict:
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
        row = {
            "problem": tex_escape(c.problem),
            "d": c.d,
            "dt": f"{c.dt:g}",
            "basis": c.basis,
            "cells": c.cells,
            "K": c.cells**c.d,
            "M": c.paths,
            "runs": res["runs"],
            "u0": u0,
            "u0_se": se,
            "ref": ref["value"],
            "ref_se": ref["se"] or None,
            "exact": ref["method"] == "exact solution",
            "err": err,
            "err_se": err_se,
            "rel": err / abs(ref["value"]) if ref["value"] else None,
            "seconds": res["seconds_per_run"],
            "hw": mark,
            "trunc": "" if c.trunc_z is None else f"$|z_j|\\le{c.trunc_z:g}$",
            "sources": [src, rsrc],
        }
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
        pub.append(
            {
                "problem": tex_escape(r["problem"]),
                "d": r["d"],
                "value": r["value"],
                "method": tex_escape(r["method"]),
                "source": tex_escape(r["source"]),
                "x0": tex_escape(r["x0"]),
                "ours": None if ours is None else ours[1]["value"],
                "ours_se": None if ours is None else (ours[1]["se"] or None),
                "ours_method": None if ours is None else tex_escape(ours[1]["method"]),
                "sources": [str(published)] + ([ours[0]] if ours else []),
            }
        )
    marks = sorted(hardware.items(), key=lambda kv: kv[1])
    solve_rows = []
    for path in solves or []:
        r = _load(path)
        ref = refs[f"{r['problem']}_d{r['d']}"][1]
        c = r["case"]
        solve_rows.append(
            {
                "problem": tex_escape(r["problem"]),
                "d": r["d"],
                "mode": r["mode"],
                "tol": "" if r["tol"] is None else f"{r['tol']:g}",
                "strata": r["strata"],
                "N": c["steps"],
                "cells": c["cells"],
                "M": c["paths"],
                "runs": r["runs"],
                "u0": r["u0"],
                "u0_se": r["u0_se"],
                "err": abs(r["u0"] - ref["value"]),
                "u0_error": r["u0_error"],
                "tol_met": r["tol_met"],
                "cpu": r["cpu_seconds"],
                "solve": r["solve_seconds"],
                "sources": [path, refs[f"{r['problem']}_d{r['d']}"][0]],
            }
        )
    cov = None
    if coverage:
        data = _load(coverage[0])
        cov = {
            "seeds": data["seeds"],
            "runs": data["runs"],
            "source": coverage[0],
            "rows": [dict(r, problem=tex_escape(r["problem"]), cm=_cm(r)) for r in data["rows"]],
            "totals": {
                k: {"n": v[0], "p1": 100 * v[1] / max(v[0], 1), "p2": 100 * v[2] / max(v[0], 1)}
                for k, v in coverage_totals(data["rows"]).items()
            },
        }
    return {
        "rows": rows,
        "published": pub,
        "solves": solve_rows,
        "coverage": cov,
        "preset": tex_escape(plan.plan.preset),
        "test_points": plan.plan.test_points,
        "seed": plan.plan.seed,
        "hardware": [{"mark": n, "label": tex_escape(h)} for h, n in marks],
    }


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


def render_table(
    plan: BeyondPlan,
    summaries,
    references,
    template_dir,
    out,
    published="config/beyond_published.csv",
    solves=None,
    coverage=None,
):
    """Render tables/beyond.tex from the published files (:func:`table_model`) into ``out``."""
    env = jinja_env(template_dir)
    env.filters["u"] = fmt_u
    model = table_model(plan, summaries, references, published, solves, coverage)
    write_text(out, env.get_template("beyond.tex.j2").render(**model))
