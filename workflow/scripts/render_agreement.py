"""Render tables/agreement.tex (thin wrapper around srmdp.paper.report.tables.render_agreement)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged
from srmdp.paper.report.tables import render_agreement

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
