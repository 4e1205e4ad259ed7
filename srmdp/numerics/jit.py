"""Markers for kernel code: the functions that are compiled for the CPU and the GPU.

In the package they do nothing: the kernel modules (:mod:`rng`, :mod:`strata`, :mod:`regression`,
:mod:`scheme`, :mod:`bases` and a problem's module) stay plain Python, importable and testable as
such.  :mod:`srmdp.numerics.build` copies their source into one generated module per (problem, basis, d,
target) where these names are the target's compilers:

* ``inline``: a small hot-path function (CPU: ``njit(inline="always")``; GPU: a force-inlined device
  function);
* ``device``: a function called as such (CPU: ``njit``; GPU: a device function);
* ``rare``: a function on a rare branch of the hot path (the ziggurat's wedges and tail).  CPU: ``njit``; GPU:
  inlined, except under a register cap (launch bounds: float32 arithmetic's default at d <= 8, nb <= 5, or
  ``SRMDP_CUDA_MIN_BLOCKS``, :func:`srmdp.kernels.cuda_launch.launch_bounds`), where it is a ``noinline``
  call so that the cap spills its temporaries (float64 exp/log), not those of the loop around it (measured in
  bench/gpu_NOTES.md: d=4 float32 spills 148 -> 32 B on LP0 block, while without a cap the call's ABI costs
  registers: LP1 block 90 -> 112);
* ``kernel``: a top-level entry point (CPU: ``njit(parallel=True)``; GPU: a ``cuda.jit`` kernel).

Kernel code uses only scalars, arrays passed in (or, on the GPU, local/shared arrays), ``math`` and
the names of the other kernel modules: no numpy calls, no allocation, no exceptions.  uint64
arithmetic needs ``np.uint64`` constants (see :mod:`srmdp.numerics.rng`).
"""

ARITHMETICS = ("float64", "float32")  # the type REAL a path is computed in (Case.arithmetic)


def inline(fn):
    return fn


def device(fn):
    return fn


def rare(fn):
    return fn


def kernel(fn):
    return fn
