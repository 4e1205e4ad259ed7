"""A case and what belongs to it: the case record and its validation (cases), the reading of the paper's open
choices (readings), the memory model checked before allocation (memory) and the result files' provenance and
atomic writes (results).

May import: srmdp.numerics, srmdp.problems, srmdp.exceptions.
"""
