# Figures (PDF for LaTeX, PNG for the README): speed-up, time vs K, convergence in dt.


localrules:
    figure,
    figures,


rule figure:
    input:
        unpack(figure_inputs),
        reference="srmdp/data/paper_cases.csv",
        code=paper_code("report.figures", "plan.preset"),
    output:
        pdf=f"{OUT}figures/{{fig}}.pdf",
        png=report(
            f"{OUT}figures/{{fig}}.png",
            caption="../report/figure.rst",
            category="Figures",
            labels={"figure": "{fig}"},
        ),
    log:
        f"{LOGS}/figures/{{fig}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/make_figure.py"


rule figures:
    input:
        [f"{OUT}figures/{f}.{ext}" for f in FIGURES for ext in ("pdf", "png")],
