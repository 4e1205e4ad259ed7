"""Render tables/residuals.tex, the residual experiments (thin wrapper around srmdp.residuals)."""

from pathlib import Path

from srmdp.report import run_logged
from srmdp.residuals import render_residuals
from srmdp.workflow_support import Plan

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
