"""Render tables/agreement.tex (thin wrapper around srmdp.report.render_agreement)."""

from pathlib import Path

from srmdp.report import render_agreement, run_logged
from srmdp.workflow_support import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_agreement,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
    campaign=list(snakemake.input.campaign),
)
