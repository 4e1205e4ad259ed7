# Residual experiments (srmdp.paper.report.residuals): the cells of one reading more than a threshold
# of standard errors from the paper, tested against hypotheses; tables/residuals.tex.


localrules:
    publish_residual,
    residuals_table,


rule residual_solve:
    output:
        f"{RES}/residuals/{{variant}}/{{key}}/cpu.json",
    log:
        f"{LOGS}/residuals/{{variant}}/{{key}}.log",
    conda:
        ENV
    threads: PLAN.threads
    resources:
        mem_mb=lambda wc, threads: PLAN.residual_mem_mb(wc.key, threads),
        runtime=lambda wc, threads: int(
            3 * PLAN.residual_seconds(wc.variant, wc.key, threads) / 60
        )
        + 5,
    params:
        args=lambda wc: PLAN.residual_args(wc.variant, wc.key),
    shell:
        "python -m srmdp run {params.args} --device cpu --threads {threads}"
        " --no-progress --out {output} > {log} 2>&1"


rule publish_residual:
    input:
        f"{RES}/residuals/{{variant}}/{{key}}/cpu.json",
    output:
        f"{PUB}/residuals/{{variant}}/{{key}}.json",
    log:
        f"{LOGS}/publish/residuals/{{variant}}/{{key}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "python -m srmdp aggregate {input} --out {output} > {log} 2>&1"


rule residuals_table:
    input:
        summaries=PLAN.summaries(),
        campaign=PLAN.gpu_summaries(),
        variants=PLAN.residual_files(),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/residuals.tex.j2",
        code=paper_code("report.residuals", "plan.preset"),
    output:
        f"{OUT}tables/residuals.tex",
    log:
        f"{LOGS}/tables/residuals.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_residuals.py"


rule residuals:
    input:
        f"{OUT}tables/residuals.tex",
