"""A preset's plan: the plan the workflow runs (:mod:`.preset`), its jobs and files (:mod:`.jobs`, :mod:`.files`),
what the GPU still owes (:mod:`.gpu`) and ``srmdp plan`` (:mod:`.cli`).

May import: the solver library, :mod:`srmdp.paper.inputs`, :mod:`srmdp.paper.models`, :mod:`srmdp.paper.lsmdp` and
:mod:`srmdp.paper.beyond`.
"""
