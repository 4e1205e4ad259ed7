"""Render tables/beyond.tex (thin wrapper: the logic is srmdp.beyond.render_table)."""

from pathlib import Path

from srmdp.beyond import BeyondPlan, render_table
from srmdp.report import run_logged
from srmdp.workflow_support import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_table,
    BeyondPlan(Plan(snakemake.config)),
    list(snakemake.input.summaries),
    list(snakemake.input.references),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
    published=snakemake.input.published,
)
