"""Render tables/zcv.tex, the Z control variate beyond the paper (thin wrapper around srmdp.report.render_zcv)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import render_zcv, run_logged  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

run_logged(
    snakemake.log[0],
    render_zcv,
    Plan(snakemake.config),
    list(snakemake.input.summaries),
    Path(snakemake.input.template).parent,
    snakemake.output[0],
)
