"""Render tables/<table>.tex (thin wrapper: the logic is srmdp.report.render_table)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import render_table, run_logged  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

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
