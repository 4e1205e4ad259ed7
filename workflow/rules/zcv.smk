# Beyond the paper: the Z control variate (readings with z_cv: true), tables/zcv.tex.


localrules:
    zcv_table,


rule zcv_table:
    input:
        summaries=PLAN.zcv_summaries(),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/zcv.tex.j2",
        code=paper_code("tables", "plan"),
    output:
        "tables/zcv.tex",
    log:
        f"{LOGS}/tables/zcv.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/render_zcv.py"
