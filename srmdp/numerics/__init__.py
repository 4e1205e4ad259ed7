"""The per-path mathematics of Algorithm SRMDP, written once for the CPU and the GPU: random streams (rng),
strata and conditional sampling (strata), local bases (bases), the regression (regression), one path's step
(scheme), the paper's error indicators (indicators) and its rules for #C and M (rules).  jit holds the markers of
kernel code and the arithmetic types it is compiled in; build copies the kernel modules (rng, strata, regression,
bases, scheme: plain Python) and a backend's top-level kernels into one generated module per (problem, basis, d,
target), compiled once and cached on disk.

May import: numpy, numba, and within srmdp only srmdp.exceptions.  (build names srmdp.kernels' modules by path
and in the text it generates, and never imports them.)
"""
