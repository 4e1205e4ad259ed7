"""Render tables/beyond.tex (thin wrapper: the logic is srmdp.paper.beyond_table.render_table)."""

from pathlib import Path

from srmdp.paper.beyond import BeyondPlan
from srmdp.paper.beyond_table import render_table
from srmdp.paper.latex import run_logged
from srmdp.paper.plan import Plan

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
