# The reproduction report paper/main.pdf (latexmk), from the tables and figures.


localrules:
    latex,
    paper,


rule latex:
    input:
        main="paper/main.tex",
        tables=[f"{OUT}tables/{t}.tex" for t in TABLES],
        agreement=f"{OUT}tables/agreement.tex",
        preset=f"{OUT}tables/preset.tex",
        claims=[
            f"{OUT}tables/paper_tables_1_2.tex",
            f"{OUT}tables/claims.tex",
            f"{OUT}tables/lsmdp.tex",
        ],
        residuals=f"{OUT}tables/residuals.tex",
        summary=f"{OUT}tables/summary.tex",
        zcv=f"{OUT}tables/zcv.tex",
        arithmetic=f"{OUT}tables/arithmetic.tex",
        beyond=f"{OUT}tables/beyond.tex",
        figures=[f"{OUT}figures/{f}.pdf" for f in FIGURES],
        code=paper_code("report.latex", "plan.preset"),
    output:
        f"{OUT}paper/main.pdf",
    log:
        f"{LOGS}/paper/latexmk.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/build_paper.py"


rule paper:
    input:
        f"{OUT}paper/main.pdf",


# Without TeX the default job skips the PDF (paper_pdf: auto): its last line says so (common.smk).
onsuccess:
    if pdf_skipped_note():
        print(pdf_skipped_note())
    if render_summary():
        print(render_summary(), file=sys.stderr)
