"""The numeric claims of the paper's text and Tables 1-2: the claims and their outcomes (:mod:`.text`), the memory
and scaling measurements behind them (:mod:`.memory`, :mod:`.measured`, :mod:`.scaling`) and their tables
(:mod:`.tables`).

May import: the solver library, :mod:`srmdp.paper.inputs`, :mod:`srmdp.paper.lsmdp` and the report's LaTeX helpers
(:mod:`srmdp.paper.report.latex`).
"""
