"""Render tables/residuals.tex, the residual experiments (thin wrapper around srmdp.residuals)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import run_logged  # noqa: E402
from srmdp.residuals import render_residuals  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

run_logged(
    snakemake.log[0],
    render_residuals,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    list(snakemake.input.variants),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
    list(snakemake.input.campaign),
)
