# Gather the run chunks of one case into the three MSE indicators with standard errors.


localrules:
    aggregate,


rule aggregate:
    input:
        lambda wc: PLAN.chunk_paths(wc.reading, wc.key, wc.device),
    output:
        f"{RES}/runs/{{reading}}/{{key}}/{{device}}/summary.json",
    log:
        f"{LOGS}/aggregate/{{reading}}/{{key}}/{{device}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        runs=lambda wc: PLAN.by_key[wc.key].runs,
    shell:
        "python -m srmdp aggregate {input} --expect-runs {params.runs} --out {output} > {log} 2>&1"
