"""Draw figures/<fig>.pdf and .png (thin wrapper around srmdp.paper.report.figures)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report import figures
from srmdp.paper.report.latex import run_logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

plan = Plan(snakemake.config)
inp = snakemake.input
stem = str(Path(snakemake.output.pdf).with_suffix(""))
fig = snakemake.wildcards.fig
if fig in ("convergence_y", "convergence_z"):
    inds = ("mse_y_max", "mse_y_av") if fig == "convergence_y" else ("mse_z_av",)
    run_logged(
        snakemake.log[0],
        figures.figure_convergence,
        plan,
        list(inp.summaries),
        stem,
        campaign=list(inp.campaign),
        indicators=inds,
    )
elif fig == "forest":
    run_logged(
        snakemake.log[0],
        figures.figure_forest,
        plan,
        list(inp.summaries),
        stem,
        campaign=list(inp.campaign),
        reruns=list(inp.variants),
    )
elif fig == "speedup":
    run_logged(
        snakemake.log[0],
        figures.figure_speedup,
        plan,
        list(inp.likeforlike),
        list(inp.campaign),
        stem,
        multicore=list(inp.multicore),
    )
elif fig == "time_vs_steps":
    run_logged(snakemake.log[0], figures.figure_time_vs_steps, plan, list(inp.timings), list(inp.campaign), stem)
else:
    raise SystemExit(f"unknown figure {fig}")
