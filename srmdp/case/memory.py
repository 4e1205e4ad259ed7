"""Memory model of a case, checked before anything is allocated.

Coefficients: N x K x (1 + q) x n_basis values (q = d; n_basis = 1 for LP0, d + 1 for LP1) in the
case's precision.  Work space: per CPU chunk (or GPU stratum) 7 (d+1) + 3d + nb^2 + (d+1) nb float64
and the pass-1 cache of M paths (2d+1 doubles each), plus 3 N P float64 for the
test-point errors of one run (e_Y, e_Z and one square at a time), plus the per-run errors and their second
moments of all R runs (arrays, lists, JSON text), plus a constant for the Python objects of a run.  With the
curvature correction, the regressions' variances (:func:`variance_bytes`) and one more cached value per path.
"""

import math
import os

from ..exceptions import ConfigError

GIB = 2.0**30


def itemsize(precision: str) -> int:
    return 4 if precision == "float32" else 8


def coefficient_bytes(case) -> int:
    return case.steps * case.strata * (case.d + 1) * case.n_basis * itemsize(case.precision)


def scratch_sizes(d, nb):
    """Float64 work space of one worker (srmdp.kernels.cpu_kernels.backward_step): (vectors: 6 (d+1) + cell 3d,
    basis vectors 3 nb, normal equations nb^2 + (d+1) nb)."""
    return 6 * (d + 1) + 3 * d + 3 * nb, nb * nb, (d + 1) * nb


def pass_cache_width(d, curvature=False) -> int:
    """Doubles per path that the CPU keeps between the two passes of a stratum: x_i, u_i, y_{i+1} (and its variance
    with the curvature correction, :func:`srmdp.numerics.scheme.cache_width`)."""
    return 2 * int(d) + (2 if curvature else 1)


def variance_bytes(case) -> int:
    """The regressions' variances of the curvature correction (float64, :meth:`srmdp.case.cases.Case.variance_shape`);
    without it, the one-value placeholder the kernels are passed."""
    return 8 * math.prod(case.variance_shape())


def workspace_bytes(case, test_points: int, workers: int) -> int:
    vec, gram, acc = scratch_sizes(case.d, case.n_basis)
    per_worker = vec + gram + acc + case.paths * pass_cache_width(case.d, case.curvature_correction)
    return 8 * (workers * per_worker + 3 * case.steps * test_points)


# per (run, time step) and indicator: a float64 array entry, a Python float in a list, ~25 B of JSON
RESULT_BYTES_PER_VALUE = 8 + 32 + 25


def result_bytes(case, runs: int = 1) -> int:
    """The per-run errors e_Y, e_Z and their second moments (R x N each) held for the result and its JSON."""
    return 4 * runs * case.steps * RESULT_BYTES_PER_VALUE


# Python objects of a run beyond the arrays above (Numba's dispatch, the result dictionary, the allocator):
# measured 0.04-0.25 MiB above the arrays on the timing runs of the default preset (each result's peak_rss_bytes
# against its memory model, srmdp.paper.report.claims.measured)
RUN_OVERHEAD_BYTES = 512 * 2**10


def required_bytes(case, test_points: int = 1000, workers: int = 64, runs: int = 1) -> int:
    return (
        coefficient_bytes(case)
        + variance_bytes(case)
        + workspace_bytes(case, test_points, workers)
        + result_bytes(case, runs)
        + RUN_OVERHEAD_BYTES
    )


_UNITS = {
    "": 1,
    "B": 1,
    "K": 2**10,
    "KB": 2**10,
    "KIB": 2**10,
    "M": 2**20,
    "MB": 2**20,
    "MIB": 2**20,
    "G": 2**30,
    "GB": 2**30,
    "GIB": 2**30,
    "T": 2**40,
    "TB": 2**40,
    "TIB": 2**40,
}


def parse_bytes(text: str, name: str = "SRMDP_MEMORY_LIMIT") -> int:
    """'8000000000', '8e9', '512M', '4G', '4GiB' -> bytes (binary units); ConfigError otherwise."""
    t = str(text).strip().upper().replace(" ", "")
    num = t.rstrip("BKMGTI")
    unit = t[len(num) :]
    try:
        value = float(num) * _UNITS[unit]
    except (ValueError, KeyError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(
            f"invalid {name}={text!r}: must be a number of bytes > 0, optionally with a unit"
            " K, M, G or T (e.g. 512M, 4G)"
        )
    return int(value)


def available_bytes() -> int:
    """MemAvailable of the host (or SRMDP_MEMORY_LIMIT bytes when set, e.g. on a shared node)."""
    limit = os.environ.get("SRMDP_MEMORY_LIMIT")
    if limit:
        return parse_bytes(limit)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError):  # not on this platform: do not refuse for want of a number
        return 2**63


# --- the GPU (srmdp.kernels.cuda): all N time steps of coefficients resident on the device ------------------
GPU_RESERVE_BYTES = 256 * 2**20  # context, module images, launch bookkeeping
GPU_RESIDENT_THREADS_PER_SM = 2048  # local memory is reserved per resident thread


def gpu_bytes(case, test_points: int, per_thread_normal_equations: bool, sms: int = 132) -> int:
    """Device memory of one run: coefficients, test-point errors and their per-step means and second moments
    (y and z: 4 N values), a bound on local memory (the per-thread vectors of every resident thread; with one
    thread per stratum also its normal equations) and a fixed reserve."""
    errors = 8 * (2 * case.steps * test_points + 4 * case.steps) + 64
    vec, gram, acc = scratch_sizes(case.d, case.n_basis)
    per_thread = vec + 16 + ((gram + acc) if per_thread_normal_equations else 0)
    local = GPU_RESIDENT_THREADS_PER_SM * sms * 8 * per_thread
    return coefficient_bytes(case) + variance_bytes(case) + errors + local + GPU_RESERVE_BYTES


def check_fits(
    case,
    test_points: int = 1000,
    available: int | None = None,
    what: str = "host memory",
    runs: int = 1,
    need: int | None = None,
):
    """Refuse (ConfigError, one line) a case whose memory ``need`` (default: the host model) exceeds
    ``available`` (default: :func:`available_bytes`); returns the need."""
    need = required_bytes(case, test_points, runs=runs) if need is None else need
    have = available_bytes() if available is None else available
    if need > have:
        raise ConfigError(
            f"case {case.label} needs {need / GIB:.2f} GiB (coefficients {coefficient_bytes(case) / GIB:.2f} GiB"
            f" = N {case.steps} x K {case.strata} x (1+q) {case.d + 1} x basis {case.n_basis} x"
            f" {itemsize(case.precision)} B) but only {have / GIB:.2f} GiB of {what} is available"
        )
    return need
