"""Render tables/preset.tex, the preset's LaTeX macros (thin wrapper around srmdp.report)."""

from pathlib import Path

from srmdp.report import render_preset, run_logged
from srmdp.workflow_support import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

run_logged(
    snakemake.log[0], render_preset, Plan(snakemake.config), Path(snakemake.input.template).parent, snakemake.output[0]
)
