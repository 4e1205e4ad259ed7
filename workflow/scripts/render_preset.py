"""Render tables/preset.tex, the preset's LaTeX macros (thin wrapper around srmdp.report)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import render_preset, run_logged  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

run_logged(
    snakemake.log[0], render_preset, Plan(snakemake.config), Path(snakemake.input.template).parent, snakemake.output[0]
)
