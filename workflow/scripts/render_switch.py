"""Render tables/zcv.tex or tables/arithmetic.tex: a reading against the paper reading it differs from by one
switch (a thin wrapper around srmdp.paper.report.switch_tables.render_zcv / render_arithmetic, named by
params.render)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report import switch_tables
from srmdp.paper.report.latex import run_logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    getattr(switch_tables, snakemake.params.render),
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
)
