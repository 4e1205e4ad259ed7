"""Build paper/main.pdf with latexmk (thin wrapper around srmdp.paper.report.latex.build_pdf); a preset other than the
default builds out/<preset>/paper/main.pdf from a copy of paper/main.tex beside its own tables/ and figures/
(../tables)."""

import shutil
import sys
from pathlib import Path

from srmdp.paper.report.latex import build_pdf

snakemake = globals()["snakemake"]  # injected by Snakemake's script directive

main = Path(snakemake.input.main)
pdf = Path(snakemake.output[0])
if pdf.parent.resolve() != main.parent.resolve():
    pdf.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(main, pdf.parent / main.name)
    main = pdf.parent / main.name
sys.exit(build_pdf(str(main), str(pdf), snakemake.log[0]))
