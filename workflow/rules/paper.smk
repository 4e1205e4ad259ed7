# The reproduction report paper/main.pdf (latexmk), from the tables and figures.


localrules:
    latex,
    paper,


rule latex:
    input:
        main="paper/main.tex",
        tables=[OUT + f"tables/{t}.tex" for t in TABLES],
        agreement=OUT + "tables/agreement.tex",
        preset=OUT + "tables/preset.tex",
        claims=[
            OUT + "tables/paper_tables_1_2.tex",
            OUT + "tables/claims.tex",
            OUT + "tables/lsmdp.tex",
        ],
        residuals=OUT + "tables/residuals.tex",
        summary=OUT + "tables/summary.tex",
        zcv=OUT + "tables/zcv.tex",
        arithmetic=OUT + "tables/arithmetic.tex",
        beyond=OUT + "tables/beyond.tex",
        figures=[OUT + f"figures/{f}.pdf" for f in FIGURES],
        code=paper_code("latex", "plan"),
    output:
        OUT + "paper/main.pdf",
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
        OUT + "paper/main.pdf",


# Without TeX the default job skips the PDF (paper_pdf: auto): its last line says so (common.smk).
onsuccess:
    if pdf_skipped_note():
        print(pdf_skipped_note())
