# The suite beyond the paper (srmdp/problems/): one `srmdp run` per case of the config's `beyond` section,
# one reference per (problem, d), published under data/summaries/<preset>/beyond/, and tables/beyond.tex.
# `snakemake beyond` builds the table (srmdp.paper.beyond.jobs: the jobs; srmdp.paper.beyond.table: the table).
from srmdp.paper.beyond.jobs import BeyondPlan  # noqa: E402

BEYOND = BeyondPlan(PLAN)


localrules:
    publish_beyond,
    publish_beyond_solve,
    publish_beyond_reference,
    beyond_table,


rule beyond_run:
    output:
        f"{RES}/beyond/{{bkey}}.json",
    log:
        f"{LOGS}/beyond/{{bkey}}.log",
    wildcard_constraints:
        bkey=r"[A-Za-z0-9_.-]+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: BEYOND.mem_mb(wc.bkey),
        runtime=lambda wc: BEYOND.runtime_min(wc.bkey),
    params:
        args=lambda wc: BEYOND.run_args(wc.bkey),
    shell:
        "python -m srmdp run {params.args} --threads {threads} --no-progress --out {output} > {log} 2>&1"


rule beyond_reference:
    output:
        f"{RES}/beyond/reference/{{rkey}}.json",
    log:
        f"{LOGS}/beyond/reference/{{rkey}}.log",
    wildcard_constraints:
        rkey=r"[A-Za-z0-9_]+_d[0-9]+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        args=lambda wc: BEYOND.reference_args(wc.rkey),
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m srmdp beyond reference {params.args} --out {output}"
        " > {log} 2>&1"


rule publish_beyond:
    input:
        f"{RES}/beyond/{{bkey}}.json",
    output:
        f"{PUB}/beyond/{{bkey}}.json",
    log:
        f"{LOGS}/publish/beyond/{{bkey}}.log",
    wildcard_constraints:
        bkey=r"[A-Za-z0-9_.-]+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


rule publish_beyond_reference:
    input:
        f"{RES}/beyond/reference/{{rkey}}.json",
    output:
        f"{PUB}/beyond/reference/{{rkey}}.json",
    log:
        f"{LOGS}/publish/beyond/reference/{{rkey}}.log",
    wildcard_constraints:
        rkey=r"[A-Za-z0-9_]+_d[0-9]+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


# The suite through srmdp.solve (rules, adapted strata, tol) and the coverage of u0_error
# (srmdp.paper.beyond.solve). Cost on this 2-core machine: the solves ~10 CPU min (the tol runs are
# bounded by their budgets), the coverage ~30 CPU min; both are published under data/summaries and
# committed, so the default job re-renders the table without recomputing them. A solve to a tolerance
# stops at its wall-clock budget: it asks for every core (like rule multicore), so that no other job
# runs beside it, and on SLURM for its node alone (--exclusive); it computes on one thread, NumPy's
# BLAS included (srmdp.paper.beyond.solve, SuiteSolve.alone).
rule beyond_solve:
    output:
        f"{RES}/beyond/solve/{{skey}}.json",
    log:
        f"{LOGS}/beyond/solve/{{skey}}.log",
    wildcard_constraints:
        skey=r"[A-Za-z0-9_.-]+",
    conda:
        ENV
    threads: lambda wc: available_cores() if BEYOND.solve_by_key[wc.skey].alone else 1
    resources:
        mem_mb=4000,
        runtime=30,
        slurm_extra=lambda wc: (
            "--exclusive" if BEYOND.solve_by_key[wc.skey].alone else ""
        ),
    params:
        args=lambda wc: BEYOND.solve_args(wc.skey),
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m srmdp beyond solve {params.args} --out {output}"
        " > {log} 2>&1"


rule beyond_coverage:
    output:
        f"{RES}/beyond/coverage/coverage.json",
    log:
        f"{LOGS}/beyond/coverage/coverage.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        args=lambda wc: BEYOND.coverage_args(),
    shell:
        "python -m srmdp beyond coverage {params.args} --out {output} > {log} 2>&1"


rule publish_beyond_solve:
    input:
        f"{RES}/beyond/{{what}}.json",
    output:
        f"{PUB}/beyond/{{what}}.json",
    log:
        f"{LOGS}/publish/beyond/{{what}}.log",
    wildcard_constraints:
        what=r"(solve|coverage)/[A-Za-z0-9_.-]+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=100,
        runtime=1,
    shell:
        "(cp {input} {output}.tmp && mv {output}.tmp {output}) > {log} 2>&1"


rule beyond_table:
    input:
        summaries=BEYOND.summaries(),
        solves=BEYOND.solve_files(),
        coverage=BEYOND.coverage_files(),
        references=BEYOND.reference_files(),
        published="config/beyond_published.csv",
        template="workflow/templates/beyond.tex.j2",
        code=paper_code("beyond.table", "plan.preset"),
    output:
        f"{OUT}tables/beyond.tex",
    log:
        f"{LOGS}/tables/beyond.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_beyond.py"


rule beyond:
    input:
        f"{OUT}tables/beyond.tex",
