"""Render tables/paper_tables_1_2.tex, tables/claims.tex and tables/lsmdp.tex (thin wrapper around srmdp.claims)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp import claims  # noqa: E402
from srmdp.report import run_logged  # noqa: E402
from srmdp.workflow_support import Plan  # noqa: E402

inp, out = snakemake.input, snakemake.output
templates = Path(inp.templates[0]).parent


def render_all():
    claims.render_paper_tables(list(inp.timings), list(inp.gpu), templates, out.tables12)
    claims.render_claims(list(inp.timings), list(inp.gpu), templates, out.claims)
    claims.render_lsmdp(Plan(snakemake.config), list(inp.lsmdp), list(inp.summaries), list(inp.timings),
                        templates, out.lsmdp)


run_logged(snakemake.log[0], render_all)
