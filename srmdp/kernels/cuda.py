"""The CUDA path (numba-cuda): Algorithm SRMDP with all coefficients resident on the GPU.

Imported only when ``device="gpu"`` is asked for (after :func:`srmdp.kernels.gpu.gpu_unavailable_reason`).
The kernels are :mod:`srmdp.kernels.cuda_kernels` on the shared kernel code (:mod:`srmdp.numerics.scheme` ...),
built for the case by :mod:`srmdp.numerics.build`: same Philox/xoroshiro streams keyed by (seed, run, i, k, m),
same strata, same normal equations, so that the CPU and the GPU draw the same numbers.  This module
holds the backend: the device, the choice of launch shape, the memory check and the backward loop's
launches.  The kernels' launch geometry and arguments are :mod:`srmdp.kernels.cuda_launch`, the patches of
numba-cuda it applies :mod:`srmdp.kernels.cuda_patches`.

Launch shapes (``thread``: one thread per stratum; ``block``: one block of B threads per stratum,
sums owned per entry in path order, so results do not depend on B or the grid): see
:mod:`srmdp.kernels.cuda_kernels`.  Environment knobs read here: ``SRMDP_CUDA_FMA=0`` (no FMA contraction, at
import), ``SRMDP_CUDA_MODE`` and ``SRMDP_CUDA_BLOCK`` (the launch shape and block size, per backend).

Only the first bad stratum and the fallback count come back per time step (16 bytes), and only the
per-step means of the test-point errors (2 N values) per run.
"""

import os

import numpy as np
from numba import cuda

from ..case import memory
from ..case.memory import GPU_RESIDENT_THREADS_PER_SM, gpu_bytes
from ..exceptions import ConfigError
from ..numerics.build import current_target, kernels
from .cuda_launch import THREAD_BLOCK, case_arg, layout
from .cuda_patches import keep_as_call, no_contraction  # noqa: F401  (keep_as_call: the generated modules' import)

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
# SRMDP_CUDA_FMA=0: no contraction of a*b+c into FMAs (NVVM -fma=0), as the CPU path compiles.  The
# default keeps NVVM's contraction (faster).  It matters beyond rounding in one place: a cell edge
# a = -L + c h that is 0 in exact arithmetic (even #C) rounds to 0.0 on the CPU but to -2e-16 with
# an FMA when h is inexact (#C = 12), so the sampler's reflection (a >= 0) differs and the paths of
# that stratum are other (equally valid) draws (bench/README.md, "Measurements behind the defaults").
STRICT_FP = os.environ.get("SRMDP_CUDA_FMA", "1") == "0"
if STRICT_FP and not SIMULATOR:
    no_contraction()
THREAD, BLOCK = "thread", "block"
MODES = ("auto", THREAD, BLOCK)


# --- device properties and the memory model -------------------------------------------------------
def device_info():
    """Name, compute capability, SM count and (free, total) bytes of the current device."""
    dev = cuda.get_current_device()
    if SIMULATOR:
        from ..case.memory import available_bytes

        have = available_bytes()
        return {"name": "numba-cuda simulator", "cc": "sim", "sms": 1, "free": have, "total": have}
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    free, total = cuda.current_context().get_memory_info()
    return {
        "name": name,
        "cc": "{}.{}".format(*dev.compute_capability),
        "sms": int(dev.MULTIPROCESSOR_COUNT),
        "free": int(free),
        "total": int(total),
    }


def choose_mode(case, sms=132, request="auto"):
    """``thread`` for LP0 when K fills the GPU (>= 1024 threads per SM), else ``block``."""
    if request not in MODES:
        raise ConfigError(f"invalid SRMDP_CUDA_MODE={request!r}: allowed values are {', '.join(MODES)}")
    if request != "auto":
        return request
    if case.n_basis == 1 and case.strata >= 1024 * sms:
        return THREAD
    return BLOCK


def device_bytes(case, test_points, mode=BLOCK, sms=132):
    """Device memory of one run (the memory model, :func:`srmdp.case.memory.gpu_bytes`)."""
    return gpu_bytes(case, test_points, mode == THREAD, sms)


def check_fits(case, test_points, info=None, mode=None):
    info = info or device_info()
    mode = mode or choose_mode(case, info["sms"])
    return memory.check_fits(
        case,
        test_points,
        available=info["free"],
        what=f"GPU memory free on {info['name']}",
        need=device_bytes(case, test_points, mode, info["sms"]),
    )


# --- the backend ----------------------------------------------------------------------------------
class CudaBackend:
    """Coefficients of all time steps on the device for the whole backward loop."""

    device = "gpu"

    def __init__(self, problem, mode=None, block=None, threads=None):  # threads: the CPU's, unused here
        self.problem = problem
        self.request = mode or os.environ.get("SRMDP_CUDA_MODE", "auto")
        self.block_request = int(block or os.environ.get("SRMDP_CUDA_BLOCK", "0"))
        self.info = device_info()
        self.mode = None
        self.dropped = 0

    def check_fits(self, case, test_points, runs=1):
        """Refuse (ConfigError) a case whose device arrays would not fit (one run's at a time: ``runs`` unused)."""
        return check_fits(case, test_points, self.info, choose_mode(case, self.info["sms"], self.request))

    def allocate(self, case):
        self.case = case
        self._array_bytes = 0  # bytes of the device arrays of this case (memory_report)
        self.mode = choose_mode(case, self.info["sms"], self.request)
        lay = layout(case.d, case.n_basis, self.block_request, case.arithmetic, curvature=case.curvature_correction)
        self.lay = dict(lay)
        self.k = kernels(self.problem, case.basis, case.d, current_target("gpu"), lay, arithmetic=case.arithmetic)
        self.step = self.k.step_thread if self.mode == THREAD else self.k.step_block
        dtype = np.float32 if case.precision == "float32" else np.float64
        self.coef = self._device_array((case.steps, case.strata, case.d + 1, case.n_basis), dtype)
        self.cvar = self._device_array(case.variance_shape(), np.float64)
        flat = self.coef.reshape(self.coef.size)
        self._launch_per_item(self.k.fill_zero, flat.size, flat)
        self.counters = self._device_array(2, np.int64)
        self._host_counters = np.zeros(2, np.int64)
        self.dropped = 0
        self._errs = None

    def _device_array(self, shape, dtype):
        """A device array of the case, counted in :meth:`memory_report`."""
        a = cuda.device_array(shape, dtype)
        self._array_bytes += a.nbytes
        return a

    def _launch_per_item(self, kernel, n, *args, threads=THREAD_BLOCK):
        """Launch ``kernel(*args)`` on a 1-D grid of ``threads``-thread blocks, one thread per item of ``n``
        (rounded up to whole blocks: the kernels return on the threads past ``n``); nothing when ``n`` is 0."""
        if SIMULATOR:
            threads = min(threads, 16)  # each simulated thread is a Python thread
        if n > 0:
            kernel[(n + threads - 1) // threads, threads](*args)

    def _record(self, rec):
        """The case argument of the kernels (:func:`case_arg`)."""
        return case_arg(rec)

    def _step(self, i, rec, n_strata):
        d_rec = self._record(rec)
        self._host_counters[0] = 0
        self._host_counters[1] = n_strata
        self.counters.copy_to_device(self._host_counters)
        if n_strata > 0:
            if self.mode == THREAD:
                self._launch_per_item(self.step, n_strata, self.coef, self.cvar, i, d_rec, self.counters)
            else:
                self.step[n_strata, self.lay["BLOCK_THREADS"]](self.coef, self.cvar, i, d_rec, self.counters)
        self.counters.copy_to_host(self._host_counters)
        return int(self._host_counters[0]), int(self._host_counters[1])

    def warm_up(self, rec):
        """Compile (or load from the disk cache) every kernel outside the timed region: K = P = N = 0."""
        rec0 = rec.copy()
        rec0[0].strata = 0
        rec0[0].points = 0
        d_rec = case_arg(rec0)
        threads = THREAD_BLOCK if self.mode == THREAD else self.lay["BLOCK_THREADS"]
        self.step[1, threads](self.coef, self.cvar, 0, d_rec, self.counters)
        e = cuda.device_array(1, np.float64)
        if self.problem.has_exact:
            self.k.test_errors[1, 32](self.coef, d_rec, e, e)
        rec0[0].steps = 0
        self.k.reduce_means[1, 32](e, e, case_arg(rec0), cuda.device_array(2, np.float64))
        self.k.evaluate_points[1, 32](
            self.coef,
            0,
            d_rec,
            cuda.device_array((0, int(rec[0].d)), np.float64),
            cuda.device_array(0, np.float64),
            cuda.device_array((0, int(rec[0].d)), np.float64),
        )
        cuda.synchronize()

    def backward_step(self, i, rec):
        n_strata = int(rec[0].strata)
        dropped, bad = self._step(int(i), rec, n_strata)
        self.dropped += dropped
        return bad if bad < n_strata else -1

    def errors(self, rec):
        n, n_points = int(rec[0].steps), int(rec[0].points)
        d_rec = self._record(rec)
        if self._errs is None or self._errs[0].size != n * n_points:
            self._errs = (
                self._device_array(n * n_points, np.float64),
                self._device_array(n * n_points, np.float64),
                self._device_array(4 * n, np.float64),
            )
        ey, ez, out = self._errs
        self._launch_per_item(self.k.test_errors, n * n_points, self.coef, d_rec, ey, ez)
        self._launch_per_item(self.k.reduce_means, n, ey, ez, d_rec, out, threads=32)
        res = out.copy_to_host()
        return res[:n].copy(), res[n : 2 * n].copy(), res[2 * n : 3 * n].copy(), res[3 * n :].copy()

    def evaluate(self, j, rec, points):
        """(y^M_j(X), z^M_j(X)) at points X of shape (n, d), computed on the device."""
        points = np.ascontiguousarray(points, dtype=np.float64)
        n, d = points.shape[0], int(rec[0].d)
        y = cuda.device_array(n, np.float64)
        z = cuda.device_array((n, d), np.float64)
        self._launch_per_item(self.k.evaluate_points, n, self.coef, j, self._record(rec), cuda.to_device(points), y, z)
        return y.copy_to_host(), z.copy_to_host()

    def coefficients(self):
        """The coefficients coef[i, k, c, a] copied to the host (tests, solutions, diagnostics)."""
        return self.coef.copy_to_host()

    def fallbacks(self):
        return int(self.dropped)

    def local_bytes(self):
        """Local memory the driver reserves for the step kernel: its local bytes per thread (stack frame and
        spills, read from the compiled kernel) for every resident thread of every SM; 0 under the simulator."""
        if SIMULATOR:
            return 0
        # numba-cuda's get_local_mem_per_thread(signature) wants a Signature, and overloads is keyed by argument
        # tuples: read the compiled kernels' attribute directly
        per_thread = max((k.local_mem_per_thread for k in self.step.overloads.values()), default=0)
        return int(per_thread) * GPU_RESIDENT_THREADS_PER_SM * int(self.info["sms"])

    def memory_report(self, test_points):
        """The device memory of the case: the model (srmdp.case.memory.gpu_bytes) and ``gpu_used_bytes``, measured:
        the bytes of the device arrays this backend allocated for the case (coefficients, counters, test-point
        errors and means) plus the step kernel's local-memory reservation (:meth:`local_bytes`).  (The
        difference of cudaMemGetInfo readings it replaces read 0 or less whenever the arrays fitted memory the
        driver had already reserved or another process freed memory meanwhile.)"""
        return {
            "gpu_model_bytes": device_bytes(self.case, test_points, self.mode, self.info["sms"]),
            "gpu_used_bytes": self._array_bytes + self.local_bytes(),
        }

    def hardware(self):
        import numba_cuda

        info = self.info
        return {
            "device": "gpu",
            "model": info["name"],
            "compute_capability": info["cc"],
            "multiprocessors": info["sms"],
            "memory_total_bytes": info["total"],
            "kernel_mode": self.mode,
            "block_threads": self.lay["BLOCK_THREADS"] if self.mode == BLOCK else None,
            "numba_cuda": getattr(numba_cuda, "__version__", "?"),
            "simulator": SIMULATOR,
            "fma_contraction": not STRICT_FP,
            "launch_bounds": dict(self.lay["LAUNCH_BOUNDS"]).get(
                "step_thread" if self.mode == THREAD else "step_block"
            ),
            "thread_row_doubles": self.lay["THREAD_ROW_DOUBLES"] if self.mode == THREAD else None,
        }
