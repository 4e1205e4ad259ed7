# Reproduction of Gobet, Lopez-Salas, Turkedjiev, Vazquez (SISC 2016): every result table, the
# speed-up and convergence figures and a LaTeX report, from the paper's rows (srmdp.paper.inputs.rows) and a preset.
#
#   snakemake --cores all                                   # default preset (config/config.yaml)
#   snakemake --cores all --configfile config/paper.yaml    # all 35 cases at the paper's parameters
#   snakemake --cores all --configfile config/ci.yaml       # the small cases the tests check (into out/ci/)
#   snakemake --cores all table_LP0d4                       # one table (or tables/LP0d4.tex)
#   snakemake --cores all beyond                            # the suite beyond the paper: tables/beyond.tex
#   snakemake --cores all residuals                         # residual experiments: tables/residuals.tex
#   snakemake --profile profiles/slurm                      # on a SLURM cluster
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/solve.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/residuals.smk"
include: "workflow/rules/switches.smk"
include: "workflow/rules/beyond.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/paper.smk"


report: "workflow/report/workflow.rst"


onstart:
    print_cost_report()


rule all:
    default_target: True
    input:
        all_targets(),
