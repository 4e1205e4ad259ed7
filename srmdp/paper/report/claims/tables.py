"""Renders the tables of the paper's cost, memory and claims: tables/paper_tables_1_2.tex (Tables 1-2,
:mod:`srmdp.paper.report.claims.scaling`, beside the measured memory, :mod:`srmdp.paper.report.claims.measured`),
tables/claims.tex (:mod:`srmdp.paper.report.claims.text`) and tables/lsmdp.tex (the LSMDP baseline against SRMDP on the
same cases).
"""

from __future__ import annotations

from ....case.readings import matches
from ....numerics.indicators import INDICATORS
from ...inputs.index import best_timing, hw_short, index_results, load
from ...inputs.rows import paper_table_number
from ..latex import fmt_bytes, fmt_slope, jinja_env, tex_escape, write_text
from .measured import COMPILED_SECONDS, GPU_USED_FIX, gpu_invalid_counts, measured_gpu_memory, measured_memory
from .scaling import cost_model, d19_memory, memory_exponents, memory_model
from .text import all_claims, claim_outcome


def _env(template_dir):

    env = jinja_env(template_dir)
    env.filters.update(bytes=fmt_bytes, slope=fmt_slope)
    return env


def render_paper_tables(timing_files, gpu_files, template_dir, out):
    """tables/paper_tables_1_2.tex: the paper's Tables 1 and 2 (exponents and bytes per row), and SRMDP's
    measured peak host memory against the model per timed row."""

    times = index_results(list(timing_files))
    ours = {k: best_timing(v, "cpu") for k, v in times.items()}
    cost = cost_model({k: v["seconds_per_run"] for k, v in ours.items() if v})
    for r in cost:
        r["sources"] = [v["_path"] for (t, _), v in sorted(ours.items()) if v and t == r["table"]]
    hw = "; ".join(sorted({hw_short(v) for v in ours.values() if v})) or "none timed"
    gpu_mem = measured_gpu_memory(gpu_files)
    text = (
        _env(template_dir)
        .get_template("paper_tables_1_2.tex.j2")
        .render(
            cost=cost,
            mem_exp=memory_exponents(),
            mem=memory_model(),
            ours_hw=hw,
            measured=measured_memory(timing_files),
            compiled_seconds=COMPILED_SECONDS,
            d19=d19_memory(),
            measured_gpu=gpu_mem,
            gpu_fix=GPU_USED_FIX,
            gpu_valid=[r for r in gpu_mem if r["used"] is not None],
            gpu_invalid=gpu_invalid_counts(gpu_files),
        )
    )
    write_text(out, text)


def render_claims(
    timing_files, gpu_files, template_dir, out, multicore_files=(), likeforlike_files=(), campaign_files=()
):
    """tables/claims.tex: every numeric claim of the text (:func:`all_claims`)."""
    claims = [
        dict(c, outcome=claim_outcome(c))
        for c in all_claims(timing_files, gpu_files, multicore_files, likeforlike_files, campaign_files)
    ]
    write_text(out, _env(template_dir).get_template("claims.tex.j2").render(claims=claims))


def lsmdp_model(plan, lsmdp_files, summaries, timings):
    """Rows of the LSMDP-vs-SRMDP table: same case, LSMDP measured here, SRMDP from the preset's summaries."""

    sums = index_results(list(summaries))
    times = index_results(list(timings))
    reading = plan.reading(plan.lsmdp_reading)
    rows = []
    for p in lsmdp_files:
        res = load(p)
        case = res["case"]
        key = (case["table"], int(case["row"]))
        srm = next((x for x in sums.get(key, []) if matches(x, reading)), None)
        tim = best_timing(times.get(key, []), "cpu")
        row = {
            "table": case["table"],
            "number": paper_table_number(case["table"]),
            "row": case["row"],
            "d": case["d"],
            "dt": f"{case['dt']:g}",
            "cells": case["cells"],
            "K": case["strata"],
            "M": case["paths"],
            "P": res["paths_total"],
            "sources": [str(p)],
            "lsmdp": {
                **{k: res[k] for k in INDICATORS},
                **{k + "_se": res[k + "_se"] for k in INDICATORS},
                "runs": res["runs"],
                "seconds": res["seconds_per_run"],
                "peak": res["peak_traced_bytes"],
                "model": res["model_bytes"],
                "rss": res["peak_rss_bytes"],
            },
            "srmdp": None,
        }
        if srm is not None:
            row["srmdp"] = {
                **{k: srm[k] for k in INDICATORS},
                **{k + "_se": srm[k + "_se"] for k in INDICATORS},
                "runs": srm["runs"],
                "seconds": tim["seconds_per_run"] if tim else None,
                "peak": res["srmdp_peak_traced_bytes"],
                "model": res["srmdp_model_bytes"],
            }
            row["sources"] += [srm["_path"]] + ([tim["_path"]] if tim else [])
        rows.append(row)
    return {"rows": rows, "reading": plan.lsmdp_reading, "describe": reading.describe()}


def render_lsmdp(plan, lsmdp_files, summaries, timings, template_dir, out):

    ctx = lsmdp_model(plan, lsmdp_files, summaries, timings)
    ctx["reading"] = tex_escape(ctx["reading"])
    write_text(out, _env(template_dir).get_template("lsmdp.tex.j2").render(**ctx))
