"""Build paper/main.pdf with latexmk (thin wrapper around srmdp.build_pdf)."""

import sys

from srmdp.paper.latex import build_pdf

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

sys.exit(build_pdf(snakemake.input.main, snakemake.output[0], snakemake.log[0]))
