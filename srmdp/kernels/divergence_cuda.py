"""The divergence guard's reduction on the GPU (:func:`srmdp.kernels.divergence.growth`): A_i = max_k |coef[i, k, 0, 0]|
computed on the device, one thread per time step, so that only N values cross to the host."""

import numpy as np
from numba import cuda

THREADS = 64


@cuda.jit
def row_max(c, out):
    i = cuda.grid(1)
    if i < c.shape[0]:
        m = 0.0
        for k in range(c.shape[1]):
            v = abs(c[i, k, 0, 0])
            if v != v:  # NaN is kept (the guard's isfinite test reports it)
                m = v
                break
            if v > m:
                m = v
        out[i] = m


def growth(coef) -> np.ndarray:
    n = coef.shape[0]
    out = cuda.device_array(n, dtype=np.float64)
    row_max[(n + THREADS - 1) // THREADS, THREADS](coef, out)
    return out.copy_to_host()
