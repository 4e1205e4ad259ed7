"""Render tables/zcv.tex, the Z control variate beyond the paper (thin wrapper around srmdp.render_zcv)."""

from pathlib import Path

from srmdp.paper.latex import run_logged
from srmdp.paper.plan import Plan
from srmdp.paper.tables import render_zcv

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0],
    render_zcv,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
)
