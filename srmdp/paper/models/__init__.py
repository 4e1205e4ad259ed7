"""The models the plan and the report share: the CPU and GPU cost models of a paper row (:mod:`.cost`,
:mod:`.shape_cost`), the one equivalence rule on a paper number (:mod:`.equivalence`) with its model of the paper's
evaluations (:mod:`.splits`) and Student's t (:mod:`.student`).

May import: the solver library and :mod:`srmdp.paper.inputs`.
"""
