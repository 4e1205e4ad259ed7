# The paper's 11 result tables (paper vs ours under each reading), the agreement summary and the
# preset's LaTeX macros; `snakemake table_LP0d4` (or tables/LP0d4.tex) renders one table.


localrules:
    table,
    agreement,
    preset_tex,


rule table:
    input:
        summaries=lambda wc: PLAN.summaries(wc.table),
        campaign=lambda wc: PLAN.gpu_summaries(wc.table),
        timings=lambda wc: PLAN.timings(wc.table),
        gpu=PLAN.gpu_files(),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/table.tex.j2",
        code=paper_code("report.tables", "plan.preset"),
    output:
        f"{OUT}tables/{{table}}.tex",
    log:
        f"{LOGS}/tables/{{table}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_table.py"


rule agreement:
    input:
        summaries=PLAN.summaries(),
        campaign=PLAN.gpu_summaries(),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/agreement.tex.j2",
        code=paper_code("report.tables", "plan.preset"),
    output:
        f"{OUT}tables/agreement.tex",
    log:
        f"{LOGS}/tables/agreement.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_agreement.py"


rule preset_tex:
    input:
        template="workflow/templates/preset.tex.j2",
        code=paper_code("report.tables", "plan.preset"),
    output:
        f"{OUT}tables/preset.tex",
    log:
        f"{LOGS}/tables/preset.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        preset=PRESET,
        readings=[r.cli() for r in PLAN.readings],
        seed=PLAN.seed,
        test_points=PLAN.test_points,
    script:
        "../scripts/render_preset.py"


rule tables:
    input:
        [f"{OUT}tables/{t}.tex" for t in TABLES],
        f"{OUT}tables/agreement.tex",
        f"{OUT}tables/preset.tex",


for _table in TABLES:

    rule:
        name:
            f"table_{_table}"
        input:
            f"{OUT}tables/{_table}.tex",


# The summary page and the sentences of the text (srmdp.paper.report.summary): every count the prose gives.
localrules:
    summary,


rule summary:
    input:
        summaries=PLAN.summaries(),
        campaign=PLAN.gpu_summaries(),
        variants=PLAN.residual_files(),
        timings=PLAN.timings(),
        gpu=PLAN.gpu_files(),
        multicore=PLAN.multicore_files(),
        likeforlike=PLAN.likeforlike_files(),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/summary.tex.j2",
        code=paper_code("report.summary", "plan.preset"),
    output:
        f"{OUT}tables/summary.tex",
    log:
        f"{LOGS}/tables/summary.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_summary.py"
