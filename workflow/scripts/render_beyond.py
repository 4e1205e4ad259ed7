"""Render tables/beyond.tex (thin wrapper: the logic is srmdp.paper.beyond.table.render_table)."""

from pathlib import Path

from srmdp.paper.beyond.jobs import BeyondPlan
from srmdp.paper.beyond.table import render_table
from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged

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
    solves=list(snakemake.input.solves),
    coverage=list(snakemake.input.coverage),
)
