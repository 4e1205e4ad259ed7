"""The CUDA path (numba-cuda): Algorithm SRMDP with all coefficients resident on the GPU.

Imported only when ``device="gpu"`` is asked for (after :func:`srmdp.gpu.gpu_unavailable_reason`).
The math is the shared code of :mod:`srmdp.kernels`, compiled once more with
``numba.cuda.jit(device=True)``: same Philox/xoroshiro streams keyed by (seed, run, i, k, m), same
strata, same normal equations, so that the CPU and the GPU draw the same numbers.

Two launch shapes, chosen per case (:func:`choose_mode`):

* ``thread`` -- one thread per stratum (the paper's design) calling ``solve_stratum`` as the CPU
  does.  Used for LP0 when K fills the GPU: its per-stratum state (G: 1, acc: d+1) is tiny.
* ``block`` -- one block of B threads per stratum, threads over paths.  Each tile of B paths writes
  its basis values phi and responses (S_Y, S_Z,1..d) into shared memory; every entry of the normal
  equations (upper triangle of G, the (d+1) x nb right-hand sides) is *owned* by one thread, which
  sums its products over the tile's paths in path order.  Hence the sums are formed in exactly the
  CPU's order (path 0, 1, ..., M-1): the result does not depend on B or on the grid, and equals the
  CPU's bit for bit where both round alike (the simulator; real GPUs contract a*b+c into FMAs and
  use libdevice's exp/log, so there they agree to rounding).  Then thread 0 runs the Cholesky, d
  threads solve the z components in parallel, pass 2 adds the driver terms (one path per thread,
  same tiles) and thread 0 solves y.  Shared memory: B (nb + d + 1) + nb^2 + (d+1) nb doubles,
  B = 128 for small d and 64 for larger d (<= 48 KB up to d = 19 for LP1).

Kernels are specialised on (d, nb, precision-independent) sizes: local arrays get compile-time
lengths and, for small d, the loop bounds d and nb become constants (a local copy of ``ip`` with
ip[I_D] = d, ip[I_NB] = nb), so that the shared code's loops unroll and the per-path vectors stay in
registers.  For large d the bounds are left to run time (vectors in the thread's local memory) so
that nothing spills.  Compiled kernels are cached per (problem, d, nb, mode, B).

Only the first bad stratum and the fallback count come back per time step (16 bytes), and only the
per-step means of the test-point errors (2 N values) per run.
"""

import math
import os
from functools import cache
from types import SimpleNamespace

import numpy as np
from numba import cuda, float64, int64, uint64

from .cases import ConfigError
from .kernels import F_DT, F_H, F_HALF, I_C, I_D, I_K, I_M, I_MODE, I_N, I_NB, I_P, I_RUN, I_SEED, N_IP, make_kernels
from .rng import DOMAIN_PATHS
from .strata import UNBOUNDED

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
# SRMDP_CUDA_FMA=0: no contraction of a*b+c into FMAs (NVVM -fma=0), as the CPU path compiles.  The
# default keeps NVVM's contraction (faster).  It matters beyond rounding in one place: a cell edge
# a = -L + c h that is 0 in exact arithmetic (even #C) rounds to 0.0 on the CPU but to -2e-16 with
# an FMA when h is inexact (#C = 12), so the sampler's reflection (a >= 0) differs and the paths of
# that stratum are other (equally valid) draws -- the max |coef diff| 0.27 seen on LP0d4 dt=0.1.
STRICT_FP = os.environ.get("SRMDP_CUDA_FMA", "1") == "0"
THREAD, BLOCK = "thread", "block"
MODES = ("auto", THREAD, BLOCK)
SHARED_LIMIT = 48 * 1024  # static shared memory per block without opt-in
SPECIALISE_MAX_D = 8  # loop bounds d, nb compiled as constants up to this d (registers, unrolled)
RESERVE_BYTES = 256 * 2**20  # context, module images, launch bookkeeping
GIB = 2.0**30


# --- the shared device functions ------------------------------------------------------------------
def _no_contraction():
    """Make NVVM compile without FMA contraction unless fastmath was asked (process-wide)."""
    from numba.cuda.cudadrv import nvvm

    if getattr(nvvm.compile_ir, "_srmdp_strict", False):
        return
    inner = nvvm.compile_ir

    def compile_ir(llvmir, **options):
        if not options.get("fastmath", False):
            options.setdefault("fma", False)
        return inner(llvmir, **options)

    compile_ir._srmdp_strict = True
    nvvm.compile_ir = compile_ir


if STRICT_FP and not SIMULATOR:
    _no_contraction()


def _device_jit():
    """cuda.jit(device=True), forcing NVVM inlining where numba-cuda offers it (not the simulator)."""
    if SIMULATOR:
        return cuda.jit(device=True)
    try:
        return cuda.jit(device=True, forceinline=True)
    except TypeError:  # an older numba-cuda
        return cuda.jit(device=True)


@cache
def device_functions(problem):
    """make_kernels compiled as CUDA device functions (inlined into the kernels on a real GPU)."""
    return make_kernels(_device_jit(), problem)


def block_size(d, nb):
    """Threads (= paths per shared-memory tile) of the block kernel for sizes (d, nb)."""
    width = nb + d + 1
    for b in (128, 64, 32):
        if b * width * 8 <= 24 * 1024:
            return b
    return 32


def shared_bytes(d, nb, block):
    ne = nb * (nb + 1) // 2 + (d + 1) * nb
    return 8 * (block * (nb + d + 1) + nb * nb + (d + 1) * nb + ne)


def _entries(d, nb):
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


def _device(fn):
    return _device_jit()(fn)


# --- kernel sources -------------------------------------------------------------------------------
@cache
def kernel_sources(problem, d, nb, mode, block=0, specialise=None):
    """Python sources of the kernels for one size (compiled by :func:`compiled`, or by compile_ptx).

    Returns a namespace with ``step`` (one backward time step), ``test`` (squared errors at the
    test points), ``reduce`` (their per-step means), ``zero`` (fill), and the launch ``block``.
    """
    kern = device_functions(problem)
    solve_stratum = kern.solve_stratum
    response = kern.response
    driver_term = kern.driver_term
    seed_stream = kern.seed_stream
    cell_setup = kern.cell_setup
    cholesky = kern.cholesky
    solve_into = kern.solve_into
    test_point = kern.test_point

    D = int(d)
    D1 = D + 1
    NB = int(nb)
    NCELL = 3 * D
    NGRAM = NB * NB
    NACC = D1 * NB
    SPEC = (D <= SPECIALISE_MAX_D) if specialise is None else bool(specialise)
    # for a non-specialised kernel, LLVM must not see the sizes: ip[I_D] is then left as passed
    SPEC_D = D if SPEC else -1
    SPEC_NB = NB if SPEC else -1

    @_device
    def stored_finite(coef, i, k):
        """The stored coefficients of (i, k) are finite (float32 storage can overflow)."""
        for c in range(D1):
            for a in range(NB):
                if not math.isfinite(coef[i, k, c, a]):
                    return False
        return True

    def step_thread(coef, i, fp, ip, counters):
        k = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
        if k >= ip[I_K]:
            return
        ipl = cuda.local.array(N_IP, int64)
        for t in range(N_IP):
            ipl[t] = ip[t]
        if SPEC_D >= 0:
            ipl[I_D] = SPEC_D
            ipl[I_NB] = SPEC_NB
        st = cuda.local.array(2, uint64)
        cell = cuda.local.array(NCELL, float64)
        x = cuda.local.array(D1, float64)
        xp = cuda.local.array(D1, float64)
        dw = cuda.local.array(D1, float64)
        inc = cuda.local.array(D1, float64)
        u = cuda.local.array(D1, float64)
        z = cuda.local.array(D1, float64)
        zp = cuda.local.array(D1, float64)
        phi = cuda.local.array(NB, float64)
        tmp = cuda.local.array(NB, float64)
        G = cuda.local.array(NGRAM, float64)
        acc = cuda.local.array(NACC, float64)
        dropped, ok = solve_stratum(coef, i, k, fp, ipl, st, cell, x, xp, dw, inc, u, z, zp, phi, tmp, G, acc)
        if dropped > 0:
            cuda.atomic.add(counters, 0, dropped)
        if not (ok and stored_finite(coef, i, k)):
            cuda.atomic.min(counters, 1, k)

    B = int(block) if block else block_size(D, NB)
    W = NB + D1
    TILE = B * W
    PA, PB, DST, NG = _entries(D, NB)
    NE = PA.shape[0]

    def step_block(coef, i, fp, ip, counters):
        k = int64(cuda.blockIdx.x)
        tid = cuda.threadIdx.x
        if k >= ip[I_K]:
            return
        tile = cuda.shared.array(TILE, float64)
        G = cuda.shared.array(NGRAM, float64)
        acc = cuda.shared.array(NACC, float64)
        own = cuda.shared.array(NE, float64)  # running sums, each owned by thread e % B
        ipl = cuda.local.array(N_IP, int64)
        for t in range(N_IP):
            ipl[t] = ip[t]
        if SPEC_D >= 0:
            ipl[I_D] = SPEC_D
            ipl[I_NB] = SPEC_NB
        st = cuda.local.array(2, uint64)
        cell = cuda.local.array(NCELL, float64)
        x = cuda.local.array(D1, float64)
        xp = cuda.local.array(D1, float64)
        dw = cuda.local.array(D1, float64)
        inc = cuda.local.array(D1, float64)
        u = cuda.local.array(D1, float64)
        z = cuda.local.array(D1, float64)
        zp = cuda.local.array(D1, float64)
        phi = cuda.local.array(NB, float64)
        tmp = cuda.local.array(NB, float64)
        for e in range(tid, NE, B):
            own[e] = 0.0
        dd = ipl[I_D]
        nb_run = ipl[I_NB]  # a run-time bound unless specialised: the solves stay loops
        m_paths = ipl[I_M]
        dt = fp[F_DT]
        cell_setup(k, cell, dd, ipl[I_C], fp[F_HALF], fp[F_H], ipl[I_MODE] == UNBOUNDED)
        row = tid * W
        # pass 1: responses of B paths per tile, owners sum in path order
        for base in range(0, m_paths, B):
            m = base + tid
            if m < m_paths:
                seed_stream(st, ipl[I_SEED], DOMAIN_PATHS, ipl[I_RUN], i, k, m)
                s = response(st, cell, coef, i, fp, ipl, x, xp, dw, inc, u, z, zp, phi)
                for a in range(NB):
                    tile[row + a] = phi[a]
                tile[row + NB] = s
                w = s / dt
                for l in range(D):
                    tile[row + NB + 1 + l] = w * dw[l]
            cuda.syncthreads()
            rows = min(B, m_paths - base)
            for e in range(tid, NE, B):
                ca = PA[e]
                cb = PB[e]
                sacc = own[e]
                for r in range(rows):
                    sacc += tile[r * W + ca] * tile[r * W + cb]
                own[e] = sacc
            cuda.syncthreads()
        for e in range(tid, NE, B):
            if e < NG:
                G[DST[e]] = own[e]
            else:
                acc[DST[e]] = own[e]
        cuda.syncthreads()
        if tid == 0:
            dropped = cholesky(G, nb_run)
            if dropped > 0:
                cuda.atomic.add(counters, 0, dropped)
        cuda.syncthreads()
        for l in range(tid, dd, B):  # z first (one component per thread) ...
            if not solve_into(G, acc, 1 + l, nb_run, coef, i, k, tmp):
                cuda.atomic.min(counters, 1, k)
        cuda.syncthreads()
        # pass 2: driver terms with the new z_i, owners of acc row 0 continue in path order
        for base in range(0, m_paths, B):
            m = base + tid
            if m < m_paths:
                seed_stream(st, ipl[I_SEED], DOMAIN_PATHS, ipl[I_RUN], i, k, m)
                f = driver_term(st, cell, coef, k, i, fp, ipl, x, xp, dw, u, z, zp, phi)
                for a in range(NB):
                    tile[row + a] = phi[a]
                tile[row + NB] = f
            cuda.syncthreads()
            rows = min(B, m_paths - base)
            for e in range(NG + tid, NG + NB, B):
                ca = PA[e]
                sacc = own[e]
                for r in range(rows):
                    sacc += tile[r * W + ca] * tile[r * W + NB]
                own[e] = sacc
            cuda.syncthreads()
        for e in range(NG + tid, NG + NB, B):
            acc[DST[e]] = own[e]
        cuda.syncthreads()
        if tid == 0:  # ... then y, which uses z_i
            ok = solve_into(G, acc, 0, nb_run, coef, i, k, tmp)
            if not (ok and stored_finite(coef, i, k)):
                cuda.atomic.min(counters, 1, k)

    def test_kernel(coef, fp, ip, ey, ez):
        q = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
        n_points = ip[I_P]
        if q >= ip[I_N] * n_points:
            return
        ipl = cuda.local.array(N_IP, int64)
        for t in range(N_IP):
            ipl[t] = ip[t]
        if SPEC_D >= 0:
            ipl[I_D] = SPEC_D
            ipl[I_NB] = SPEC_NB
        st = cuda.local.array(2, uint64)
        x = cuda.local.array(D1, float64)
        u = cuda.local.array(D1, float64)
        z = cuda.local.array(D1, float64)
        ze = cuda.local.array(D1, float64)
        a, b = test_point(st, coef, q // n_points, q % n_points, fp, ipl, x, u, z, ze)
        ey[q] = a
        ez[q] = b

    def reduce_kernel(ey, ez, ip, out):
        """out[i] = mean_p ey[i, p], out[N + i] = mean_p ez[i, p] (sums in p order)."""
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        n = ip[I_N]
        n_points = ip[I_P]
        if i >= n:
            return
        sy = 0.0
        sz = 0.0
        for p in range(n_points):
            sy += ey[i * n_points + p]
            sz += ez[i * n_points + p]
        out[i] = sy / n_points
        out[n + i] = sz / n_points

    def zero_kernel(a):
        q = int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
        if q < a.shape[0]:
            a[q] = 0

    return SimpleNamespace(step=step_thread if mode == THREAD else step_block, test=test_kernel,
                           reduce=reduce_kernel, zero=zero_kernel, block=B if mode == BLOCK else 128,
                           mode=mode, specialised=SPEC, shared=shared_bytes(D, NB, B) if mode == BLOCK else 0)


@cache
def compiled(problem, d, nb, mode, block=0, specialise=None):
    """The kernels of :func:`kernel_sources`, jitted for the current device (compiled lazily)."""
    src = kernel_sources(problem, d, nb, mode, block, specialise)
    return SimpleNamespace(step=cuda.jit(src.step), test=cuda.jit(src.test), reduce=cuda.jit(src.reduce),
                           zero=cuda.jit(src.zero), block=src.block, mode=src.mode,
                           specialised=src.specialised, shared=src.shared)


# --- signatures (for compile_ptx) -----------------------------------------------------------------
def signatures(precision="float64"):
    """Argument types of (step, test, reduce) for coefficients in ``precision``."""
    from numba import types

    cdt = types.float32 if precision == "float32" else types.float64
    coef = types.Array(cdt, 4, "C")
    f1 = types.Array(types.float64, 1, "C")
    i1 = types.Array(types.int64, 1, "C")
    return {
        "step": (coef, types.int64, f1, i1, i1),
        "test": (coef, f1, i1, f1, f1),
        "reduce": (f1, f1, i1, f1),
    }


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
    """Device memory of one run: coefficients + test-point errors + a bound on local memory."""
    itemsize = 4 if case.precision == "float32" else 8
    coef = case.steps * case.strata * (case.d + 1) * case.n_basis * itemsize
    errors = 8 * (2 * case.steps * test_points + 2 * case.steps) + 64
    # local memory is reserved per resident thread (2048 per SM) for the per-thread vectors
    vec = 8 * (7 * (case.d + 1) + 3 * case.d + 2 * case.n_basis + 16)
    if mode == THREAD:
        vec += 8 * (case.n_basis**2 + (case.d + 1) * case.n_basis)
    local = 2048 * sms * vec
    return coef + errors + local + RESERVE_BYTES


def check_fits(case, test_points, info=None, mode=None):
    info = info or device_info()
    mode = mode or choose_mode(case, info["sms"])
    need = device_bytes(case, test_points, mode, info["sms"])
    if need > info["free"]:
        itemsize = 4 if case.precision == "float32" else 8
        raise ConfigError(
            f"case {case.label} needs {need / GIB:.2f} GiB of GPU memory (coefficients N {case.steps} x K"
            f" {case.strata} x (1+q) {case.d + 1} x basis {case.n_basis} x {itemsize} B) but only"
            f" {info['free'] / GIB:.2f} GiB is free on {info['name']}")
    return need


# --- the backend ----------------------------------------------------------------------------------
class CudaBackend:
    """Coefficients of all time steps on the device for the whole backward loop."""

    device = "gpu"

    def __init__(self, problem, mode=None, block=None, specialise=None):
        self.problem = problem
        self.request = mode or os.environ.get("SRMDP_CUDA_MODE", "auto")
        self.block_request = int(block or os.environ.get("SRMDP_CUDA_BLOCK", "0"))
        self.specialise = specialise
        self.info = device_info()
        self.mode = None
        self.dropped = 0

    def check_fits(self, case, test_points):
        return check_fits(case, test_points, self.info, choose_mode(case, self.info["sms"], self.request))

    def allocate(self, case):
        self.case = case
        self.mode = choose_mode(case, self.info["sms"], self.request)
        self.k = compiled(self.problem, case.d, case.n_basis, self.mode, self.block_request, self.specialise)
        dtype = np.float32 if case.precision == "float32" else np.float64
        self.coef = cuda.device_array((case.steps, case.strata, case.d + 1, case.n_basis), dtype=dtype)
        flat = self.coef.reshape(self.coef.size)
        self._launch1(self.k.zero, flat.size, flat)
        self.counters = cuda.device_array(2, np.int64)
        self._host_counters = np.zeros(2, np.int64)
        self._fp = self._ip = None
        self.dropped = 0
        self._errs = None

    def _launch1(self, kernel, n, *args, threads=128):
        if SIMULATOR:
            threads = min(threads, 16)  # each simulated thread is a Python thread
        if n > 0:
            kernel[(n + threads - 1) // threads, threads](*args)

    def _params(self, fp, ip):
        if self._fp is None or not (np.array_equal(fp, self._fp_host) and np.array_equal(ip, self._ip_host)):
            self._fp_host = np.array(fp, np.float64)
            self._ip_host = np.array(ip, np.int64)
            self._fp = cuda.to_device(self._fp_host)
            self._ip = cuda.to_device(self._ip_host)
        return self._fp, self._ip

    def _step(self, i, fp, ip, n_strata):
        d_fp, d_ip = self._params(fp, ip)
        self._host_counters[0] = 0
        self._host_counters[1] = n_strata
        self.counters.copy_to_device(self._host_counters)
        if n_strata > 0:
            if self.mode == THREAD:
                self._launch1(self.k.step, n_strata, self.coef, i, d_fp, d_ip, self.counters)
            else:
                self.k.step[n_strata, self.k.block](self.coef, i, d_fp, d_ip, self.counters)
        self.counters.copy_to_host(self._host_counters)
        return int(self._host_counters[0]), int(self._host_counters[1])

    def warm_up(self, fp, ip):
        """Compile every kernel outside the timed region (K = 0, P = 0: nothing is touched)."""
        ip0 = np.array(ip, np.int64)
        ip0[I_K] = 0
        ip0[I_P] = 0
        d_fp, d_ip = cuda.to_device(np.array(fp, np.float64)), cuda.to_device(ip0)
        grid = 1
        self.k.step[grid, self.k.block](self.coef, 0, d_fp, d_ip, self.counters)
        e = cuda.device_array(1, np.float64)
        self.k.test[1, 32](self.coef, d_fp, d_ip, e, e)
        ip0[I_N] = 0
        self.k.reduce[1, 32](e, e, cuda.to_device(ip0), cuda.device_array(2, np.float64))
        cuda.synchronize()

    def backward_step(self, i, fp, ip):
        n_strata = int(ip[I_K])
        dropped, bad = self._step(int(i), fp, ip, n_strata)
        self.dropped += dropped
        return bad if bad < n_strata else -1

    def errors(self, fp, ip):
        n, n_points = int(ip[I_N]), int(ip[I_P])
        d_fp, d_ip = self._params(fp, ip)
        if self._errs is None or self._errs[0].size != n * n_points:
            self._errs = (cuda.device_array(n * n_points, np.float64), cuda.device_array(n * n_points, np.float64),
                          cuda.device_array(2 * n, np.float64))
        ey, ez, out = self._errs
        self._launch1(self.k.test, n * n_points, self.coef, d_fp, d_ip, ey, ez)
        self._launch1(self.k.reduce, n, ey, ez, d_ip, out, threads=32)
        res = out.copy_to_host()
        return res[:n].copy(), res[n:].copy()

    def coefficients(self):
        """The coefficients coef[i, k, c, a] copied to the host (tests and diagnostics)."""
        return self.coef.copy_to_host()

    def fallbacks(self):
        return int(self.dropped)

    def hardware(self):
        import numba_cuda

        info = self.info
        return {"device": "gpu", "model": info["name"], "compute_capability": info["cc"],
                "multiprocessors": info["sms"], "memory_total_bytes": info["total"],
                "kernel_mode": self.mode, "block_threads": self.k.block if self.mode == BLOCK else None,
                "specialised": self.k.specialised if self.mode else None,
                "numba_cuda": getattr(numba_cuda, "__version__", "?"), "simulator": SIMULATOR,
                "fma_contraction": not STRICT_FP}

