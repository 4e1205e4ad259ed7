"""Render tables/<table>.tex (thin wrapper: the logic is srmdp.report.render_table)."""

from pathlib import Path

from srmdp.report import render_table, run_logged
from srmdp.workflow_support import Plan

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
