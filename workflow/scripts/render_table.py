"""Render tables/<table>.tex (thin wrapper: the logic is srmdp.report.render_table)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import render_table  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

with open(snakemake.log[0], "w") as log:
    sys.stderr = log
    render_table(
        Plan(snakemake.config),
        snakemake.wildcards.table,
        list(snakemake.input.summaries),
        list(snakemake.input.timings),
        list(snakemake.input.gpu),
        Path(snakemake.input.template).parent,
        snakemake.output[0],
    )
    print(f"wrote {snakemake.output[0]}", file=log)
