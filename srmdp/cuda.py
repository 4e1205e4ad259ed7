"""The CUDA path (numba-cuda): Algorithm SRMDP with all coefficients resident on the GPU.

Imported only when ``device="gpu"`` is asked for (after :func:`srmdp.gpu.gpu_unavailable_reason`).
The kernels are :mod:`srmdp.cuda_kernels` on the shared kernel code (:mod:`srmdp.scheme` ...),
built for the case by :mod:`srmdp.build`: same Philox/xoroshiro streams keyed by (seed, run, i, k, m),
same strata, same normal equations, so that the CPU and the GPU draw the same numbers.  This module
holds the launch decisions, the memory model and the backend.

Launch shapes (``thread``: one thread per stratum; ``block``: one block of B threads per stratum,
sums owned per entry in path order, so results do not depend on B or the grid): see
:mod:`srmdp.cuda_kernels`.  Sizes up to ``build.SPECIALISE_MAX_D["cuda"]`` are compiled as
constants (registers, unrolled loops).

Only the first bad stratum and the fallback count come back per time step (16 bytes), and only the
per-step means of the test-point errors (2 N values) per run.
"""

import os
from collections import namedtuple

import numpy as np
from numba import cuda

from . import memory
from .build import Int32Array, current_target, kernels
from .cuda_patches import keep_as_call, no_contraction  # noqa: F401  (keep_as_call: the generated modules' import)
from .exceptions import ConfigError
from .memory import GPU_RESIDENT_THREADS_PER_SM, gpu_bytes

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
SHARED_LIMIT = 48 * 1024  # static shared memory per block without opt-in
THREAD_BLOCK = 128  # threads per block of the one-thread-per-stratum launches (step_thread, test_errors, ...)
# Launch bounds (a register cap) of the specialised step kernels (d <= 8): ptxas keeps each thread within
# 65 536 / (n x threads per block) registers so that n blocks fit an SM.  Default (SRMDP_CUDA_MIN_BLOCKS unset): the
# rule of default_min_blocks -- float32 arithmetic with nb <= 5 basis functions gets as many blocks as shared memory
# allows, at most 8 (<= 64 registers at 128 threads, 50 % occupancy); float64 arithmetic and larger bases none.
# SRMDP_CUDA_MIN_BLOCKS=0: no bound anywhere; =n > 0: n blocks for every specialised step kernel, either arithmetic
# (the A/B of bench/gpu/gpu_next.sh).  Part of the build key (the generated module's header).
BOUND_BLOCKS = 8  # blocks per SM asked by the default rule: 64 registers at 128 threads, 50 % occupancy on sm_90
BOUND_MAX_NB = 5  # ... for bases of at most this many functions (LP0: 1; LP1 up to d = 4): beyond, the cap spills 4x+
SM_SHARED = 228 * 1024  # shared memory per SM (sm_90), with 1 KB reserved per block


def _min_blocks_override(text):
    """SRMDP_CUDA_MIN_BLOCKS as an override: None (unset or empty: the default rule) or an int >= 0."""
    if text is None or not text.strip():
        return None
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0 or n > 32:
        raise ConfigError(f"invalid SRMDP_CUDA_MIN_BLOCKS={text!r}: an integer 0 (no launch bounds) to 32, or unset"
                          " (the default rule)")
    return n


MIN_BLOCKS = _min_blocks_override(os.environ.get("SRMDP_CUDA_MIN_BLOCKS"))
# SRMDP_CUDA_PAD_ROWS=0: the rows of shared memory at their packed length (step_thread's rows
# of 3d + nb^2 + (d+1) nb doubles: even at LP0, a 2-way bank conflict on every access; step_block's tile rows of
# nb + d + 1 values: 2- to 16-way conflicts on its writes where even) instead of padded to a conflict-free stride
# (odd: srmdp.shared_banks); the A/B of bench/gpu/gpu_next.sh.  Bit-identical either way (same values, same order).
PAD_ROWS = os.environ.get("SRMDP_CUDA_PAD_ROWS", "1") != "0"


# --- launch layout --------------------------------------------------------------------------------
def block_size(d, nb):
    """Threads (= paths per shared-memory tile) of the block kernel for sizes (d, nb)."""
    width = nb + d + 1
    for b in (128, 64, 32):
        if b * width * 8 <= 24 * 1024:
            return b
    return 32


def shared_bytes(d, nb, block):
    """Static shared memory of step_block in float64 arithmetic (float32: less), tile rows padded."""
    ne = nb * (nb + 1) // 2 + (d + 1) * nb
    return 8 * (block * tile_stride(d, nb) + nb * nb + (d + 1) * nb + ne + 3 * d)


def entries(d, nb):
    """Owned entries of the normal equations: (tile column a, tile column b, destination).

    e < NG: G[a*nb + b] += phi_a phi_b (a <= b); else acc[c*nb + a] += phi_a S_c, S_c in tile column
    nb + c.  Destinations index G for e < NG and acc otherwise.
    """
    pa, pb, dst = [], [], []
    for a in range(nb):
        for b in range(a, nb):
            pa.append(a)
            pb.append(b)
            dst.append(a * nb + b)
    for c in range(d + 1):
        for a in range(nb):
            pa.append(a)
            pb.append(nb + c)
            dst.append(c * nb + a)
    return (np.array(pa, np.int32), np.array(pb, np.int32), np.array(dst, np.int32),
            nb * (nb + 1) // 2)


THREAD_ROW_BYTES = 40 * 1024  # at most this much shared memory per block of step_thread for its rows


def tile_stride(d, nb, width=8, pad=None):
    """Row stride of step_block's tile (B paths x nb + d + 1 values of ``width`` bytes): the smallest conflict-free
    one (:func:`srmdp.shared_banks.conflict_free_stride`) unless ``pad`` (default :data:`PAD_ROWS`) is False."""
    from .shared_banks import conflict_free_stride

    w = nb + d + 1
    return conflict_free_stride(w, width) if (PAD_ROWS if pad is None else pad) else w


def thread_row(d, nb, pad=None):
    """Row stride in doubles of step_thread's shared memory per thread (its cell data, G and acc: out of registers,
    -14 on LP0 d=4, bench/gpu_NOTES.md); 0 (local arrays) above SPECIALISE_MAX_D or beyond THREAD_ROW_BYTES per
    block (LP0 d=8: 35 doubles, 35.8 KB; LP1 thread mode from d=3 on).  The row holds 3d + nb^2 + (d+1) nb doubles;
    the stride is the smallest one at least that long whose accesses are free of bank conflicts
    (:func:`srmdp.shared_banks.conflict_free_stride`: the next odd number) unless ``pad`` (default
    :data:`PAD_ROWS`) is False: then the packed length (LP0: even, a 2-way conflict on every access)."""
    from .build import SPECIALISE_MAX_D
    from .shared_banks import conflict_free_stride

    row = 3 * d + nb * nb + (d + 1) * nb
    if (PAD_ROWS if pad is None else pad):
        row = conflict_free_stride(row, 8)
    if d > SPECIALISE_MAX_D["cuda"] or 8 * row * THREAD_BLOCK > THREAD_ROW_BYTES:
        return 0
    return row


def shared_blocks(smem):
    """Blocks per SM that ``smem`` bytes of static shared memory per block allow (sm_90, 1 KB reserved each)."""
    return SM_SHARED // (-(-(smem + 1024) // 128) * 128)


def default_min_blocks(d, nb, arithmetic, smem):
    """Blocks per SM the launch bounds of a specialised step kernel ask by default (0: no bound).

    float32 arithmetic with at most BOUND_MAX_NB basis functions: min(BOUND_BLOCKS, what the kernel's shared memory
    ``smem`` allows) -- a cap below what shared memory admits anyway would spill for no occupancy.  Why these
    limits: under the cap the small bases spill a little and run faster, larger bases and float64 arithmetic spill
    several times more (the measurements: bench/README.md, "Measurements behind the defaults").  float64
    arithmetic: 0."""
    if arithmetic != "float32" or nb > BOUND_MAX_NB:
        return 0
    return min(BOUND_BLOCKS, shared_blocks(smem))


def launch_bounds(d, threads, min_blocks=None, arithmetic="float64", smem=0, nb=1):
    """(max threads per block, min blocks per SM) of a step kernel launched with ``threads`` threads, or None.

    Only for the sizes compiled as constants (d <= SPECIALISE_MAX_D); ``min_blocks`` (default :data:`MIN_BLOCKS`,
    the environment's override; None: :func:`default_min_blocks` of the basis size ``nb``, the arithmetic and the
    kernel's static shared memory ``smem`` bytes); 0: no bound.  The kernels of d >= 9 are left as they were measured.
    """
    from .build import SPECIALISE_MAX_D

    n = MIN_BLOCKS if min_blocks is None else min_blocks
    if n is None:
        n = default_min_blocks(d, nb, arithmetic, smem)
    if d > SPECIALISE_MAX_D["cuda"] or n <= 0:
        return None
    return (int(threads), int(n))


def layout(d, nb, block=0, arithmetic="float64", min_blocks=None, pad_rows=None):
    """Module constants of the kernels for sizes (d, nb), B threads per block (0: :func:`block_size`) and the
    arithmetic (it sets the default launch bounds, :func:`launch_bounds`; ``min_blocks``, ``pad_rows``: overrides
    of SRMDP_CUDA_MIN_BLOCKS and SRMDP_CUDA_PAD_ROWS)."""
    b = int(block) if block else block_size(d, nb)
    pa, pb, dst, ng = entries(d, nb)
    row = thread_row(d, nb, pad_rows)
    real = 4 if arithmetic == "float32" else 8
    tw = tile_stride(d, nb, real, pad_rows)
    smem_thread = 8 * row * THREAD_BLOCK
    smem_block = real * b * tw + 8 * (nb * nb + (d + 1) * nb + len(pa) + 3 * d)
    pa, pb, dst = (Int32Array(int(v) for v in a) for a in (pa, pb, dst))
    bounds = (("step_thread", launch_bounds(d, THREAD_BLOCK, min_blocks, arithmetic, smem_thread, nb)),
              ("step_block", launch_bounds(d, b, min_blocks, arithmetic, smem_block, nb)))
    return (("THREAD_MODE_BLOCK", THREAD_BLOCK), ("THREAD_ROW_DOUBLES", row), ("D_PLUS_1", d + 1),
            ("CELL_DATA_SIZE", 3 * d), ("BASIS_SIZE", nb), ("GRAM_SIZE", nb * nb), ("RHS_SIZE", (d + 1) * nb),
            ("BLOCK_THREADS", b), ("TILE_WIDTH", tw), ("TILE_SIZE", b * tw), ("ENTRY_COLUMN_A", pa),
            ("ENTRY_COLUMN_B", pb), ("ENTRY_DESTINATION", dst), ("GRAM_ENTRIES", ng), ("ENTRIES", len(pa)),
            ("LAUNCH_BOUNDS", tuple((k, v) for k, v in bounds if v)))


# --- the case argument ----------------------------------------------------------------------------
def _case_type():
    from .cases import RECORD

    return namedtuple("CaseArg", RECORD.names)


CaseArg = _case_type()


def case_arg(rec):
    """The case record as the kernels' ``case`` argument: a one-tuple of a named tuple of its fields.

    Passed by value, its fields are kernel parameters (constant bank): the compiler reads them as
    operands or reloads them for free instead of holding them in registers for the whole kernel, as it
    must for fields loaded from a record in global memory (-26 registers on LP0 d=4).  The kernel code
    is unchanged: ``c = case[0]`` then ``c.dt``, as on the CPU's record array.
    """
    return (CaseArg(*rec[0].item()),)


# --- argument types (compile_ptx without a GPU: bench/gpu/gpu_ptxas.py) ------------------------------
def signatures(precision="float64"):
    """Argument types of the kernels (step_*, test_errors, reduce_means) for coefficients in ``precision``."""
    from numba import from_dtype, types

    from .cases import RECORD

    cdt = types.float32 if precision == "float32" else types.float64
    coef = types.Array(cdt, 4, "C")
    fields = [from_dtype(RECORD.fields[name][0]) for name in RECORD.names]
    rec = types.Tuple([types.NamedTuple(fields, CaseArg)])
    f1 = types.Array(types.float64, 1, "C")
    i1 = types.Array(types.int64, 1, "C")
    return {"step": (coef, types.int64, rec, i1), "test": (coef, rec, f1, f1), "reduce": (f1, f1, rec, f1)}


# --- device properties and the memory model -------------------------------------------------------
def device_info():
    """Name, compute capability, SM count and (free, total) bytes of the current device."""
    dev = cuda.get_current_device()
    if SIMULATOR:
        from .memory import available_bytes

        have = available_bytes()
        return {"name": "numba-cuda simulator", "cc": "sim", "sms": 1, "free": have, "total": have}
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    free, total = cuda.current_context().get_memory_info()
    return {"name": name, "cc": "{}.{}".format(*dev.compute_capability), "sms": int(dev.MULTIPROCESSOR_COUNT),
            "free": int(free), "total": int(total)}


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
    """Device memory of one run (the memory model, :func:`srmdp.memory.gpu_bytes`)."""
    return gpu_bytes(case, test_points, mode == THREAD, sms)


def check_fits(case, test_points, info=None, mode=None):
    info = info or device_info()
    mode = mode or choose_mode(case, info["sms"])
    return memory.check_fits(case, test_points, available=info["free"], what=f"GPU memory free on {info['name']}",
                             need=device_bytes(case, test_points, mode, info["sms"]))


# --- the backend ----------------------------------------------------------------------------------
class CudaBackend:
    """Coefficients of all time steps on the device for the whole backward loop."""

    device = "gpu"

    def __init__(self, problem, mode=None, block=None):
        self.problem = problem
        self.request = mode or os.environ.get("SRMDP_CUDA_MODE", "auto")
        self.block_request = int(block or os.environ.get("SRMDP_CUDA_BLOCK", "0"))
        self.info = device_info()
        self.mode = None
        self.dropped = 0

    def check_fits(self, case, test_points):
        return check_fits(case, test_points, self.info, choose_mode(case, self.info["sms"], self.request))

    def allocate(self, case):
        self.case = case
        self._array_bytes = 0  # bytes of the device arrays of this case (memory_report)
        self.mode = choose_mode(case, self.info["sms"], self.request)
        lay = layout(case.d, case.n_basis, self.block_request, case.arithmetic)
        self.lay = dict(lay)
        self.k = kernels(self.problem, case.basis, case.d, current_target("gpu"), lay, arithmetic=case.arithmetic)
        self.step = self.k.step_thread if self.mode == THREAD else self.k.step_block
        dtype = np.float32 if case.precision == "float32" else np.float64
        self.coef = self._device_array((case.steps, case.strata, case.d + 1, case.n_basis), dtype)
        flat = self.coef.reshape(self.coef.size)
        self._launch1(self.k.fill_zero, flat.size, flat)
        self.counters = self._device_array(2, np.int64)
        self._host_counters = np.zeros(2, np.int64)
        self.dropped = 0
        self._errs = None

    def _device_array(self, shape, dtype):
        """A device array of the case, counted in :meth:`memory_report`."""
        a = cuda.device_array(shape, dtype)
        self._array_bytes += a.nbytes
        return a

    def _launch1(self, kernel, n, *args, threads=THREAD_BLOCK):
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
                self._launch1(self.step, n_strata, self.coef, i, d_rec, self.counters)
            else:
                self.step[n_strata, self.lay["BLOCK_THREADS"]](self.coef, i, d_rec, self.counters)
        self.counters.copy_to_host(self._host_counters)
        return int(self._host_counters[0]), int(self._host_counters[1])

    def warm_up(self, rec):
        """Compile (or load from the disk cache) every kernel outside the timed region: K = P = N = 0."""
        rec0 = rec.copy()
        rec0[0].strata = 0
        rec0[0].points = 0
        d_rec = case_arg(rec0)
        threads = THREAD_BLOCK if self.mode == THREAD else self.lay["BLOCK_THREADS"]
        self.step[1, threads](self.coef, 0, d_rec, self.counters)
        e = cuda.device_array(1, np.float64)
        if self.problem.has_exact:
            self.k.test_errors[1, 32](self.coef, d_rec, e, e)
        rec0[0].steps = 0
        self.k.reduce_means[1, 32](e, e, case_arg(rec0), cuda.device_array(2, np.float64))
        self.k.evaluate_points[1, 32](self.coef, 0, d_rec, cuda.device_array((0, int(rec[0].d)), np.float64),
                                      cuda.device_array(0, np.float64),
                                      cuda.device_array((0, int(rec[0].d)), np.float64))
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
            self._errs = (self._device_array(n * n_points, np.float64), self._device_array(n * n_points, np.float64),
                          self._device_array(4 * n, np.float64))
        ey, ez, out = self._errs
        self._launch1(self.k.test_errors, n * n_points, self.coef, d_rec, ey, ez)
        self._launch1(self.k.reduce_means, n, ey, ez, d_rec, out, threads=32)
        res = out.copy_to_host()
        return res[:n].copy(), res[n:2 * n].copy(), res[2 * n:3 * n].copy(), res[3 * n:].copy()

    def evaluate(self, j, rec, points):
        """(y^M_j(X), z^M_j(X)) at points X of shape (n, d), computed on the device."""
        points = np.ascontiguousarray(points, dtype=np.float64)
        n, d = points.shape[0], int(rec[0].d)
        y = cuda.device_array(n, np.float64)
        z = cuda.device_array((n, d), np.float64)
        self._launch1(self.k.evaluate_points, n, self.coef, j, self._record(rec), cuda.to_device(points), y, z)
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
        """The device memory of the case: the model (srmdp.memory.gpu_bytes) and ``gpu_used_bytes``, measured:
        the bytes of the device arrays this backend allocated for the case (coefficients, counters, test-point
        errors and means) plus the step kernel's local-memory reservation (:meth:`local_bytes`).  (The
        difference of cudaMemGetInfo readings it replaces read 0 or less whenever the arrays fitted memory the
        driver had already reserved or another process freed memory meanwhile.)"""
        return {"gpu_model_bytes": device_bytes(self.case, test_points, self.mode, self.info["sms"]),
                "gpu_used_bytes": self._array_bytes + self.local_bytes()}

    def hardware(self):
        import numba_cuda

        info = self.info
        return {"device": "gpu", "model": info["name"], "compute_capability": info["cc"],
                "multiprocessors": info["sms"], "memory_total_bytes": info["total"],
                "kernel_mode": self.mode, "block_threads": self.lay["BLOCK_THREADS"] if self.mode == BLOCK else None,
                "numba_cuda": getattr(numba_cuda, "__version__", "?"), "simulator": SIMULATOR,
                "fma_contraction": not STRICT_FP,
                "launch_bounds": dict(self.lay["LAUNCH_BOUNDS"]).get("step_thread" if self.mode == THREAD
                                                                     else "step_block"),
                "thread_row_doubles": self.lay["THREAD_ROW_DOUBLES"] if self.mode == THREAD else None}
