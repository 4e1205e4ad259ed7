# Gather the run chunks of one case into the three MSE indicators with standard errors.


localrules:
    aggregate,
    publish_summary,
    publish,


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


# Tables and figures read published copies under data/summaries/<preset>/ (small, committed), so that
# every "% source:" of a committed table names a file in the repository; results/ is scratch.
rule publish_summary:
    input:
        f"{RES}/runs/{{reading}}/{{key}}/{{device}}/summary.json",
    output:
        f"{PUB}/{{reading}}/{{key}}/{{device}}.json",
    log:
        f"{LOGS}/publish/{{reading}}/{{key}}/{{device}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


# Results copied as they are from results/ (scratch) to the published folder (committed), under the same
# relative path: the timing jobs', LSMDP's, and the multi-core and like-for-like timings (claims.smk).
rule publish:
    input:
        f"{RES}/{{what}}/{{path}}.json",
    output:
        f"{PUB}/{{what}}/{{path}}.json",
    log:
        f"{LOGS}/publish/{{what}}/{{path}}.log",
    wildcard_constraints:
        what="timing|lsmdp|multicore|likeforlike",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


# The run chunks kept under gpu_results (data/gpu/: GPU campaign chunks and single-run files) and chunk_results
# (data/evidence/: the CPU evidence campaign), pooled
# per (row, reading, precision, seed, test points, random streams): see srmdp.paper.inputs.chunks.
localrules:
    aggregate_gpu,


rule aggregate_gpu:
    input:
        lambda wc: PLAN.gpu_group(wc.reading, wc.key, wc.group).paths,
    output:
        f"{PUB}/{{pool}}/{{reading}}/{{key}}/{{group}}.json",
    log:
        f"{LOGS}/aggregate_gpu/{{pool}}/{{reading}}/{{key}}/{{group}}.log",
    wildcard_constraints:
        pool="|".join(sorted({g.pool for g in PLAN.gpu_groups()} | {"gpu"})),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        flags=lambda wc: PLAN.gpu_group(wc.reading, wc.key, wc.group).flags,
    shell:
        "python -m srmdp aggregate {input} {params.flags} --out {output} > {log} 2>&1"
