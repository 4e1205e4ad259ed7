"""Render tables/summary.tex: the summary page and the generated sentences (thin wrapper:
srmdp.paper.report.summary)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged
from srmdp.paper.report.summary import render_summary

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

inp = snakemake.input
run_logged(
    snakemake.log[0],
    render_summary,
    Plan(snakemake.config),
    list(inp.summaries),
    Path(inp.template).parent,
    snakemake.output[0],
    campaign=list(inp.campaign),
    variant_files=list(inp.variants),
    claim_inputs={
        "timing_files": list(inp.timings),
        "gpu_files": list(inp.gpu),
        "multicore_files": list(inp.multicore),
        "likeforlike_files": list(inp.likeforlike),
        "campaign_files": list(inp.campaign),
    },
)
