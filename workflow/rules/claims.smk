# The paper's Tables 1-2 (cost and memory of SRMDP vs LSMDP), the LSMDP baseline measured on small rows,
# and the numeric claims of the paper's text (srmdp.claims, srmdp.lsmdp).


localrules:
    publish_lsmdp,
    claims_tables,


rule lsmdp:
    output:
        f"{RES}/lsmdp/{{key}}.json",
    log:
        f"{LOGS}/lsmdp/{{key}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: PLAN.lsmdp_mem_mb(wc.key),
        runtime=30,
    params:
        args=lambda wc: PLAN.lsmdp_args(wc.key),
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m srmdp.lsmdp {params.args} --out {output} > {log} 2>&1"


rule publish_lsmdp:
    input:
        f"{RES}/lsmdp/{{key}}.json",
    output:
        f"{PUB}/lsmdp/{{key}}.json",
    log:
        f"{LOGS}/publish/lsmdp/{{key}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


rule claims_tables:
    input:
        summaries=PLAN.summaries(),
        timings=PLAN.timings(),
        gpu=PLAN.gpu_files(),
        lsmdp=PLAN.lsmdp_files(),
        reference="config/paper_cases.csv",
        templates=[
            "workflow/templates/paper_tables_1_2.tex.j2",
            "workflow/templates/claims.tex.j2",
            "workflow/templates/lsmdp.tex.j2",
        ],
    output:
        tables12="tables/paper_tables_1_2.tex",
        claims="tables/claims.tex",
        lsmdp="tables/lsmdp.tex",
    log:
        f"{LOGS}/tables/claims.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_claims.py"
