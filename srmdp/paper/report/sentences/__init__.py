"""The sentences of the report's prose, each generated from the cells and models it states, by what they write:
:mod:`.verdict` (p. 1), :mod:`.differences` (what differs and why), :mod:`.runs` (speed, devices, limitations, the
tables' sentences), and the words they share (:mod:`.words`).

Each function returns one LaTeX sentence (or paragraph) that replaces a hand-written statement of
``paper/main.tex``; :func:`srmdp.paper.report.summary.summary_model` calls them with the counts of
:mod:`srmdp.paper.report.judged` and :mod:`srmdp.paper.report.verdict`, so that the prose cannot disagree with the
tables.
May import: the report's modules of :mod:`srmdp.paper` (cells, verdict, latex, rows, tables, claims, record).
"""
