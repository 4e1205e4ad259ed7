"""Render tables/paper_tables_1_2.tex, tables/claims.tex and tables/lsmdp.tex (thin wrapper: srmdp.paper.claims)."""

from pathlib import Path

from srmdp.paper import claims
from srmdp.paper.latex import run_logged
from srmdp.paper.plan import Plan

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

inp, out = snakemake.input, snakemake.output
templates = Path(inp.templates[0]).parent


def render_all():
    claims.render_paper_tables(list(inp.timings), list(inp.gpu), templates, out.tables12)
    claims.render_claims(list(inp.timings), list(inp.gpu), templates, out.claims, list(inp.multicore),
                         list(inp.likeforlike), list(inp.campaign))
    claims.render_lsmdp(Plan(snakemake.config), list(inp.lsmdp), list(inp.summaries), list(inp.timings),
                        templates, out.lsmdp)


run_logged(snakemake.log[0], render_all)
