# The reproduction report paper/main.pdf (latexmk), from the tables and figures.


localrules:
    latex,
    paper,


rule latex:
    input:
        main="paper/main.tex",
        tables=[f"tables/{t}.tex" for t in TABLES],
        agreement="tables/agreement.tex",
        preset="tables/preset.tex",
        claims=["tables/paper_tables_1_2.tex", "tables/claims.tex", "tables/lsmdp.tex"],
        residuals="tables/residuals.tex",
        summary="tables/summary.tex",
        zcv="tables/zcv.tex",
        arithmetic="tables/arithmetic.tex",
        beyond="tables/beyond.tex",
        figures=[f"figures/{f}.pdf" for f in FIGURES],
        code=paper_code("latex", "plan"),
    output:
        "paper/main.pdf",
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
        "paper/main.pdf",


# Without TeX the default job skips the PDF (paper_pdf: auto): its last line says so (common.smk).
onsuccess:
    if pdf_skipped_note():
        print(pdf_skipped_note())
