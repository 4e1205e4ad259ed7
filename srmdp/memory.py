"""Memory model of a case, checked before anything is allocated.

Coefficients: N x K x (1 + q) x n_basis values (q = d; n_basis = 1 for LP0, d + 1 for LP1) in the
case's precision.  Work space: per CPU chunk (or GPU stratum) 7 (d+1) + nb^2 + (d+1) nb float64,
plus 2 N P float64 for the test-point errors of one run.
"""

import os

from .cases import ConfigError
from .kernels import scratch_sizes

GIB = 2.0**30


def itemsize(precision: str) -> int:
    return 4 if precision == "float32" else 8


def coefficient_bytes(case) -> int:
    return case.steps * case.strata * (case.d + 1) * case.n_basis * itemsize(case.precision)


def workspace_bytes(case, test_points: int, workers: int) -> int:
    vec, gram, acc = scratch_sizes(case.d, case.n_basis)
    return 8 * (workers * (vec + gram + acc) + 2 * case.steps * test_points)


def required_bytes(case, test_points: int = 1000, workers: int = 64) -> int:
    return coefficient_bytes(case) + workspace_bytes(case, test_points, workers)


def available_bytes() -> int:
    """MemAvailable of the host (or SRMDP_MEMORY_LIMIT bytes when set, e.g. on a shared node)."""
    limit = os.environ.get("SRMDP_MEMORY_LIMIT")
    if limit:
        return int(float(limit))
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def check_fits(case, test_points: int = 1000, available: int | None = None, what: str = "host memory"):
    need = required_bytes(case, test_points)
    have = available_bytes() if available is None else available
    if need > have:
        raise ConfigError(
            f"case {case.label} needs {need / GIB:.2f} GiB (coefficients {coefficient_bytes(case) / GIB:.2f} GiB"
            f" = N {case.steps} x K {case.strata} x (1+q) {case.d + 1} x basis {case.n_basis} x"
            f" {itemsize(case.precision)} B) but only {have / GIB:.2f} GiB of {what} is available")
    return need
