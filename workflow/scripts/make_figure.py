"""Draw figures/<fig>.pdf and .png (thin wrapper around srmdp.report.figure_*)."""

from pathlib import Path

from srmdp import report
from srmdp.workflow_support import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

plan = Plan(snakemake.config)
stem = str(Path(snakemake.output.pdf).with_suffix(""))
fig = snakemake.wildcards.fig
if fig == "convergence":
    report.run_logged(snakemake.log[0], report.figure_convergence, plan, list(snakemake.input.summaries), stem,
                      campaign=list(snakemake.input.campaign))
elif fig == "speedup":
    report.run_logged(snakemake.log[0], report.figure_speedup, plan, list(snakemake.input.timings),
                      list(snakemake.input.gpu), stem)
elif fig == "time_vs_K":
    report.run_logged(snakemake.log[0], report.figure_time_vs_k, plan, list(snakemake.input.timings),
                      list(snakemake.input.gpu), stem)
else:
    raise SystemExit(f"unknown figure {fig}")
