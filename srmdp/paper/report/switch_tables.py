"""The tables of readings that differ from a paper reading by one switch, each against that reading: the Z control
variate (tables/zcv.tex) and float32 path arithmetic (tables/arithmetic.tex)."""

from __future__ import annotations

import math

from ...case.readings import matches
from ...numerics.indicators import INDICATORS
from ..inputs.index import index_results
from ..inputs.rows import paper_rows
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text


# --- beyond the paper: the Z control variate (tables/zcv.tex) ----------------------------------------------
def _line(res):
    out = {k: res.get(k) for k in INDICATORS}
    out.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
    out.update(runs=res["runs"], test_points=res["test_points"], sources=[res["_path"]])
    return out


def _twin_rows(plan, variants, summaries):
    """Per row run under one of the ``variants`` (readings beyond the paper's tables): the paper's line and ours
    under the variant (``on``) and under its base reading (``off``: :meth:`Plan.base_reading`), with the two
    summaries; and the readings described."""
    sums = index_results(summaries)
    rows, readings = [], []
    for vr in variants:
        base = plan.base_reading(vr)
        readings.append(
            {"name": tex_escape(vr.name), "describe": vr.describe(), "base": tex_escape(base.name) if base else None}
        )
        for s in plan.selected:
            if not vr.runs_row(s.key):
                continue
            paper = next(r for r in paper_rows() if r["table"] == s.table and r["row"] == s.row)
            found = sums.get((s.table, s.row), [])
            on = next((x for x in found if matches(x, vr)), None)
            off = next((x for x in found if matches(x, base)), None) if base else None
            row = {
                "table": tex_escape(s.table),
                "row": s.row,
                "d": paper["d"],
                "dt": f"{paper['dt']:g}",
                "cells": paper["cells"],
                "M": paper["M"],
                "reading": tex_escape(vr.name),
                "base": tex_escape(base.name) if base else None,
                "paper": {k: paper[k] for k in INDICATORS},
                "on": _line(on) if on else None,
                "off": _line(off) if off else None,
                "diff": None,
            }
            rows.append((row, on, off))
    return rows, readings


def zcv_model(plan, summaries):
    """Per row run under a reading with the Z control variate: the paper's line, ours without it (the base
    reading: same outside and truncations), ours with it, and their difference (Z: ln of the gain ± s.e.;
    Y: in combined standard errors).  No times: the summaries' seconds come from jobs run at other times
    and loads (the cost is measured apart, bench/zcv.md)."""
    rows, readings = _twin_rows(plan, plan.zcv_readings, summaries)
    for row, on, off in rows:
        if on and off:
            diff = {"sources": [off["_path"], on["_path"]]}
            for k in INDICATORS:
                se = math.hypot(off.get(k + "_se") or 0.0, on.get(k + "_se") or 0.0)
                diff[k] = on[k] - off[k]
                diff[k + "_se"] = se
                diff[k + "_z"] = (on[k] - off[k]) / se if se > 0 else None
            diff["gain"] = math.exp(-diff["mse_z_av"])  # MSE_Z,av without / with
            row["diff"] = diff
    return {"preset": tex_escape(plan.preset), "readings": readings, "rows": [r for r, _, _ in rows]}


def render_zcv(plan, summaries, template_dir, out):
    env = jinja_env(template_dir)
    write_text(out, env.get_template("zcv.tex.j2").render(**zcv_model(plan, summaries)))


def arithmetic_model(plan, summaries):
    """Per row run under a float32-arithmetic reading (the paper's precision): the paper's line, ours in float64
    and in float32 arithmetic (same seed and random streams: the same normals, rounded), and their difference,
    also in units of the float64 result's standard error (how much of its Monte-Carlo noise the arithmetic
    moves it); ``worst``: the largest of those per indicator, over the rows."""
    rows, readings = _twin_rows(plan, plan.arithmetic_readings, summaries)
    worst = {}
    for row, on, off in rows:
        if on and off:
            diff = {"sources": [off["_path"], on["_path"]]}
            for k in INDICATORS:
                se = off.get(k + "_se")
                diff[k] = on[k] - off[k]
                diff[k + "_rel"] = abs(diff[k]) / se if se else None
                if diff[k + "_rel"] is not None and diff[k + "_rel"] >= worst.get(k, {"rel": -1.0})["rel"]:
                    worst[k] = {
                        "rel": diff[k + "_rel"],
                        "diff": diff[k],
                        "where": f"{row['table']} $\\Delta t={row['dt']}$",
                    }
            row["diff"] = diff
    return {
        "preset": tex_escape(plan.preset),
        "readings": readings,
        "rows": [r for r, _, _ in rows],
        "worst": [{"indicator": INDICATOR_TEX[k], **worst[k]} for k in INDICATORS if k in worst],
    }


def render_arithmetic(plan, summaries, template_dir, out):
    env = jinja_env(template_dir)
    write_text(out, env.get_template("arithmetic.tex.j2").render(**arithmetic_model(plan, summaries)))
