# Beyond the paper's tables: readings that differ from a paper reading by one switch, each against that reading:
# the Z control variate (readings with z_cv: true), tables/zcv.tex, and float32 path arithmetic, the paper's
# precision (readings with arithmetic: float32), tables/arithmetic.tex.


localrules:
    switch_table,


rule switch_table:
    input:
        summaries=lambda w: PLAN.switch_summaries(w.switch),
        reference="srmdp/data/paper_cases.csv",
        template="workflow/templates/{switch}.tex.j2",
        rows="workflow/templates/switch_rows.tex.j2",
        code=paper_code("report.switch_tables", "plan.preset"),
    output:
        f"{OUT}tables/{{switch}}.tex",
    log:
        f"{LOGS}/tables/{{switch}}.log",
    wildcard_constraints:
        switch="zcv|arithmetic",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        render=lambda w: f"render_{w.switch}",
    script:
        "../scripts/render_switch.py"
