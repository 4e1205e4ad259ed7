# One job per (reading, paper row, device, run chunk); one timing job per (paper row, device).
# The device is a wildcard: a GPU job asks for the resource gpu=1 and runs on one thread.


rule solve:
    output:
        f"{RES}/runs/{{reading}}/{{key}}/{{device}}/chunk-{{chunk}}.json",
    log:
        f"{LOGS}/solve/{{reading}}/{{key}}/{{device}}/chunk-{{chunk}}.log",
    conda:
        ENV
    threads: lambda wc: PLAN.threads if wc.device == "cpu" else 1
    resources:
        gpu=lambda wc: int(wc.device == "gpu"),
        slurm_partition=lambda wc: PLAN.partitions.get(wc.device, ""),
        mem_mb=lambda wc, threads: PLAN.mem_mb(wc.key, threads),
        runtime=chunk_runtime,
    params:
        args=solve_args,
        threads=device_threads,
    shell:
        "python -m srmdp run {params.args} --device {wildcards.device} {params.threads}"
        " --no-progress --out {output} > {log} 2>&1"


rule time:
    output:
        f"{RES}/timing/{{key}}/{{device}}.json",
    log:
        f"{LOGS}/timing/{{key}}/{{device}}.log",
    conda:
        ENV
    threads: lambda wc: timing_threads() if wc.device == "cpu" else 1
    resources:
        gpu=lambda wc: int(wc.device == "gpu"),
        slurm_partition=lambda wc: PLAN.partitions.get(wc.device, ""),
        mem_mb=lambda wc, threads: PLAN.mem_mb(wc.key, threads),
        runtime=lambda wc, threads: PLAN.runtime_min(
            wc.key, PLAN.timing_runs, threads, wc.device
        ),
    params:
        args=timing_args,
        threads=device_threads,
    shell:
        "python -m srmdp run {params.args} --device {wildcards.device} {params.threads}"
        " --no-progress --out {output} > {log} 2>&1"
