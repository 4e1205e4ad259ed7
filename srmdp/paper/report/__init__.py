"""The report: each paper number judged once (:mod:`.judged`, :mod:`.pooling`, :mod:`.verdict`,
:mod:`.consistency`; the rule is :mod:`srmdp.paper.models.equivalence`), the residual experiments
(:mod:`.residuals`), the result tables, the one-switch tables, the figures and the summary page (:mod:`.tables`,
:mod:`.switch_tables`, :mod:`.figures`, :mod:`.summary`), the claims of the text (:mod:`.claims`), their LaTeX
(:mod:`.latex`) and prose (:mod:`.sentences`).

May import: the solver library, :mod:`srmdp.paper.inputs`, :mod:`srmdp.paper.models` and :mod:`srmdp.paper.lsmdp`.
"""
