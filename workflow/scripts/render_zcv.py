"""Render tables/zcv.tex, the Z control variate beyond the paper (thin wrapper around srmdp.report.render_zcv)."""

from pathlib import Path

from srmdp.report import render_zcv, run_logged
from srmdp.workflow_support import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_zcv,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
)
