"""Render tables/paper_tables_1_2.tex, claims.tex and lsmdp.tex (thin wrapper: srmdp.paper.report.claims.tables)."""

from pathlib import Path

from srmdp.paper.plan.preset import Plan
from srmdp.paper.report.claims import tables as claims_tables
from srmdp.paper.report.latex import run_logged

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

inp, out = snakemake.input, snakemake.output
templates = Path(inp.templates[0]).parent


def render_all():
    claims_tables.render_paper_tables(list(inp.timings), list(inp.gpu), templates, out.tables12)
    claims_tables.render_claims(
        list(inp.timings),
        list(inp.gpu),
        templates,
        out.claims,
        list(inp.multicore),
        list(inp.likeforlike),
        list(inp.campaign),
    )
    claims_tables.render_lsmdp(
        Plan(snakemake.config), list(inp.lsmdp), list(inp.summaries), list(inp.timings), templates, out.lsmdp
    )


run_logged(snakemake.log[0], render_all)
