"""Render tables/<table>.tex (thin wrapper: the logic is srmdp.paper.report.tables.render_table)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged
from srmdp.paper.report.tables import render_table

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_table,
    Plan(snakemake.config),
    snakemake.wildcards.table,
    list(snakemake.input.summaries),
    list(snakemake.input.timings),
    list(snakemake.input.gpu),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
    campaign=list(snakemake.input.campaign),
)
