"""One case's runs (run: what ``srmdp run`` computes) and the aggregation of run chunks into the paper's
indicators with standard errors (aggregate).

May import: srmdp.kernels, srmdp.case, srmdp.numerics, srmdp.options, srmdp.exceptions.
"""
