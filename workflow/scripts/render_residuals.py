"""Render tables/residuals.tex, the residual experiments (thin wrapper around srmdp.paper.report.residuals)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged
from srmdp.paper.report.residuals import render_residuals

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_residuals,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    list(snakemake.input.variants),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
    list(snakemake.input.campaign),
)
