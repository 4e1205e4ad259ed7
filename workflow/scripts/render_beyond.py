"""Render tables/beyond.tex (thin wrapper: the logic is srmdp.beyond.render_table)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.beyond import BeyondPlan, render_table  # noqa: E402
from srmdp.report import run_logged  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

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
