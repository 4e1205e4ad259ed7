"""Draw figures/<fig>.pdf and .png (thin wrapper around srmdp.paper.figures)."""

from pathlib import Path

from srmdp.paper import figures
from srmdp.paper.latex import run_logged
from srmdp.paper.plan import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

plan = Plan(snakemake.config)
stem = str(Path(snakemake.output.pdf).with_suffix(""))
fig = snakemake.wildcards.fig
if fig == "convergence":
    run_logged(snakemake.log[0], figures.figure_convergence, plan, list(snakemake.input.summaries), stem,
                 campaign=list(snakemake.input.campaign))
elif fig == "speedup":
    run_logged(snakemake.log[0], figures.figure_speedup, plan, list(snakemake.input.timings),
                 list(snakemake.input.gpu), stem)
elif fig == "time_vs_K":
    run_logged(snakemake.log[0], figures.figure_time_vs_k, plan, list(snakemake.input.timings),
                 list(snakemake.input.gpu), stem)
else:
    raise SystemExit(f"unknown figure {fig}")
