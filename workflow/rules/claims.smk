# The paper's Tables 1-2 (cost and memory of SRMDP vs LSMDP), the LSMDP baseline measured on small rows,
# and the numeric claims of the paper's text (srmdp.paper.report.claims.tables, srmdp.paper.lsmdp).


localrules:
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
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m srmdp lsmdp {params.args} --out {output} > {log} 2>&1"


# The multi-core speed-up (the paper's "24 threads, about 16 times faster"): one row timed with 1 thread
# and with every core Snakemake was given; both jobs ask for all cores, so each runs alone.
rule multicore:
    output:
        f"{RES}/multicore/{{key}}/threads-{{nthreads}}.json",
    log:
        f"{LOGS}/multicore/{{key}}/threads-{{nthreads}}.log",
    wildcard_constraints:
        nthreads="1|all",
    conda:
        ENV
    threads: lambda wc: available_cores()
    resources:
        mem_mb=lambda wc, threads: PLAN.multicore_mem_mb(wc.key, threads),
        runtime=lambda wc, threads: int(
            3 * PLAN.multicore_seconds(wc.key, wc.nthreads, threads) / 60 + 5
        ),
    params:
        args=lambda wc: PLAN.multicore_args(wc.key),
        threads=lambda wc, threads: 1 if wc.nthreads == "1" else threads,
    shell:
        "python -m srmdp run {params.args} --device cpu --threads {params.threads}"
        " --no-progress --out {output} > {log} 2>&1"


# The GPU speed-ups like for like: all cores against the GPU, same precision and reading (config likeforlike).
rule likeforlike:
    output:
        f"{RES}/likeforlike/{{key}}.json",
    log:
        f"{LOGS}/likeforlike/{{key}}.log",
    conda:
        ENV
    threads: lambda wc: available_cores()
    resources:
        mem_mb=lambda wc, threads: PLAN.multicore_mem_mb(wc.key, threads, like=True),
        runtime=lambda wc, threads: int(
            3 * PLAN.multicore_seconds(wc.key, "all", threads, like=True) / 60 + 5
        ),
    params:
        args=lambda wc: PLAN.multicore_args(wc.key, like=True),
    shell:
        "python -m srmdp run {params.args} --device cpu --threads {threads}"
        " --no-progress --out {output} > {log} 2>&1"


rule claims_tables:
    input:
        summaries=PLAN.summaries(),
        timings=PLAN.timings(),
        gpu=PLAN.gpu_files(),
        lsmdp=PLAN.lsmdp_files(),
        multicore=PLAN.multicore_files(),
        likeforlike=PLAN.likeforlike_files(),
        campaign=PLAN.gpu_summaries(),
        reference="srmdp/data/paper_cases.csv",
        templates=[
            "workflow/templates/paper_tables_1_2.tex.j2",
            "workflow/templates/claims.tex.j2",
            "workflow/templates/lsmdp.tex.j2",
        ],
        code=paper_code("report.claims.tables", "plan.preset"),
    output:
        tables12=f"{OUT}tables/paper_tables_1_2.tex",
        claims=f"{OUT}tables/claims.tex",
        lsmdp=f"{OUT}tables/lsmdp.tex",
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
