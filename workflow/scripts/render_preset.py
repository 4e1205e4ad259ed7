"""Render tables/preset.tex, the preset's LaTeX macros (thin wrapper around srmdp.paper.report.tables)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.latex import run_logged
from srmdp.paper.report.tables import render_preset

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0], render_preset, Plan(snakemake.config), Path(snakemake.input.template).parent, snakemake.output[0]
)
