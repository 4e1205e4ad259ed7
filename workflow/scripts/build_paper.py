"""Build paper/main.pdf with latexmk (thin wrapper around srmdp.report.build_pdf)."""

import sys
from pathlib import Path

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1]))
from srmdp.report import build_pdf  # noqa: E402

sys.exit(build_pdf(snakemake.input.main, snakemake.output[0], snakemake.log[0]))
