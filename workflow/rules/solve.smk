# One job per (reading, paper row, device, run chunk); one timing job per (paper row, device).


rule solve_cpu:
    output:
        f"{RES}/runs/{{reading}}/{{key}}/cpu/chunk-{{chunk}}.json",
    log:
        f"{LOGS}/solve/{{reading}}/{{key}}/cpu/chunk-{{chunk}}.log",
    conda:
        ENV
    threads: PLAN.threads
    resources:
        mem_mb=lambda wc, threads: PLAN.mem_mb(wc.key, threads),
        runtime=chunk_runtime,
    params:
        args=solve_args,
    shell:
        "python -m srmdp run {params.args} --device cpu --threads {threads} --no-progress --out {output} > {log} 2>&1"


rule solve_gpu:
    output:
        f"{RES}/runs/{{reading}}/{{key}}/gpu/chunk-{{chunk}}.json",
    log:
        f"{LOGS}/solve/{{reading}}/{{key}}/gpu/chunk-{{chunk}}.log",
    conda:
        ENV
    threads: 1
    resources:
        gpu=1,
        mem_mb=lambda wc: PLAN.mem_mb(wc.key, 1),
        runtime=lambda wc: PLAN.runtime_min(
            wc.key, PLAN.chunk_runs(wc.key, wc.chunk)[1], 1, "gpu"
        ),
    params:
        args=solve_args,
    shell:
        "python -m srmdp run {params.args} --device gpu --no-progress --out {output} > {log} 2>&1"


rule time_cpu:
    output:
        f"{RES}/timing/{{key}}/cpu.json",
    log:
        f"{LOGS}/timing/{{key}}/cpu.log",
    conda:
        ENV
    threads: timing_threads()
    resources:
        mem_mb=lambda wc, threads: PLAN.mem_mb(wc.key, threads),
        runtime=lambda wc, threads: PLAN.runtime_min(
            wc.key, PLAN.timing_runs, threads, "cpu"
        ),
    params:
        args=timing_args,
    shell:
        "python -m srmdp run {params.args} --device cpu --threads {threads} --no-progress --out {output} > {log} 2>&1"


rule time_gpu:
    output:
        f"{RES}/timing/{{key}}/gpu.json",
    log:
        f"{LOGS}/timing/{{key}}/gpu.log",
    conda:
        ENV
    threads: 1
    resources:
        gpu=1,
        mem_mb=lambda wc: PLAN.mem_mb(wc.key, 1),
        runtime=lambda wc: PLAN.runtime_min(wc.key, PLAN.timing_runs, 1, "gpu"),
    params:
        args=timing_args,
    shell:
        "python -m srmdp run {params.args} --device gpu --no-progress --out {output} > {log} 2>&1"
