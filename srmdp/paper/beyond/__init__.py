"""The suite beyond the paper (other PDEs with exact solutions): its jobs in the workflow (:mod:`.jobs`), a solve
of one problem (:mod:`.solve`), the reference values (:mod:`.reference`), the table (:mod:`.table`) and
``srmdp beyond`` (:mod:`.cli`).

May import: the solver library, :mod:`srmdp.paper.inputs`, :mod:`srmdp.paper.models` and :mod:`srmdp.paper.report`
(its LaTeX helpers).
"""
