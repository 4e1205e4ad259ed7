"""The paper's reproduction, built on the solver library (:mod:`srmdp`): the workflow's plan and cost model,
the GPU campaign, Tables 1-2 and the text's claims, the residual experiments, the suite beyond the paper, the
LSMDP baseline, the tables, figures and the report.

It imports the library; the library never imports it.  It runs in a checkout of the repository (its
``config/`` and ``workflow/templates/``), from the Snakemake workflow or the ``srmdp`` subcommands it
registers (:mod:`srmdp.paper.subcommands`: ``cases``, ``campaign``, ``lsmdp``, ``beyond``, ``plan``), which say in
one line when they need the checkout or the ``[paper]`` extra.

Its packages by job, bottom-up (each imports only those below it, :data:`tests.test_import_graph.PAPER_FLOORS`):
:mod:`.inputs`, :mod:`.models`, :mod:`.lsmdp`, :mod:`.report`, :mod:`.beyond`, :mod:`.plan`, :mod:`.campaign`,
:mod:`.subcommands`.  May import: the solver library (:mod:`srmdp`).
"""

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout this package runs in (config/, workflow/)
