"""The report's inputs: the paper's rows and table numbers (:mod:`.rows`), the readings a preset names
(:mod:`.preset_reading`, :mod:`.config_readings`), the facts of a result file (:mod:`.results`), the chunk files of
a run set (:mod:`.chunks`) and the index of the committed results (:mod:`.index`).

May import: the solver library (:mod:`srmdp`) and :mod:`srmdp.paper` (its ``REPOSITORY``); nothing else of the paper.
"""
