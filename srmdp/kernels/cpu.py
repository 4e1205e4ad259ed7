"""The CPU backend (Numba, OpenMP-style ``prange`` over chunks of strata): memory and calls.

The kernels are :mod:`srmdp.kernels.cpu_kernels` built for the case by :mod:`srmdp.numerics.build` (compiled once
per machine, then loaded from the disk cache).
"""

import time

import numba
import numpy as np

from ..case.results import cpu_model
from ..numerics.build import kernels
from . import stop

# One kernel call computes a slice of a time step's strata sized to take about this long (from the rate of the
# previous calls), so that a stop asked for by a signal (srmdp.kernels.stop) is seen within about this time.
SLICE_SECONDS = 0.25


class CpuBackend:
    """Coefficients in host memory; one call per slice of a time step's strata (:data:`SLICE_SECONDS`)."""

    device = "cpu"

    def __init__(self, problem, threads=None):
        if threads:
            numba.set_num_threads(int(threads))
        self.threads = numba.get_num_threads()
        self.problem = problem

    def check_fits(self, case, test_points, runs=1):
        """The CPU's memory is the host's, checked before the backend exists (its spec's ``check_host``)."""

    def allocate(self, case):
        self.k = kernels(self.problem, case.basis, case.d, "cpu", case.kernel_bindings, arithmetic=case.arithmetic)
        dtype = np.float32 if case.precision == "float32" else np.float64
        self.coef = np.zeros((case.steps, case.strata, case.d + 1, case.n_basis), dtype=dtype)
        self.cvar = np.zeros(case.variance_shape())
        self.nchunks = int(min(case.strata, 8 * self.threads))
        self.dropped = np.zeros(self.nchunks, np.int64)
        self.bad = np.full(self.nchunks, -1, np.int64)
        self.strata = case.strata
        self.seconds_per_stratum = None  # measured by the calls: sizes the next slice

    def attach(self, case, coef):
        """Use given coefficients coef[i, k, c, a] (a saved solution) for :meth:`evaluate`, no backward run."""
        self.k = kernels(self.problem, case.basis, case.d, "cpu", arithmetic=case.arithmetic)
        self.coef = coef

    def warm_up(self, rec):
        """Compile (or load from the disk cache) outside the timed region: K = 0, P = 0 touch nothing."""
        rec0 = rec.copy()
        rec0[0].strata = 0
        rec0[0].points = 0
        self.k.backward_step(self.coef, self.cvar, 0, rec0, 0, 0, 1, np.zeros(1, np.int64), np.full(1, -1, np.int64))
        if self.problem.has_exact:
            e = np.zeros((self.coef.shape[0], 0))
            self.k.test_errors(self.coef, rec0, 1, e, e.copy())
        self.evaluate(0, rec0, np.zeros((0, int(rec[0].d))))

    def backward_step(self, i, rec):
        """Time step i, in slices of strata; between two slices a stop asked for is raised
        (:func:`srmdp.kernels.stop.check`).  The first stratum with a bad coefficient, or -1."""
        first = -1
        k0, total = 0, self.strata
        while k0 < total:
            per = self.seconds_per_stratum
            size = total - k0 if per is None and total <= self.nchunks else self.nchunks
            if per is not None:
                size = max(self.nchunks, int(SLICE_SECONDS / max(per, 1e-12)))
            k1 = min(total, k0 + size)
            chunks = int(min(k1 - k0, self.nchunks))
            self.bad[:] = -1
            t0 = time.perf_counter()
            self.k.backward_step(self.coef, self.cvar, i, rec, k0, k1, chunks, self.dropped, self.bad)
            self.seconds_per_stratum = (time.perf_counter() - t0) / (k1 - k0)
            bad = self.bad[self.bad >= 0]
            if bad.size and first < 0:
                first = int(bad.min())
            k0 = k1
            stop.check()
        return first

    def errors(self, rec):
        n, n_points = int(rec[0].steps), int(rec[0].points)
        ey = np.empty((n, n_points))
        ez = np.empty((n, n_points))
        chunks = int(max(1, min(n * n_points, 8 * self.threads)))
        self.k.test_errors(self.coef, rec, chunks, ey, ez)
        return ey.mean(axis=1), ez.mean(axis=1), (ey * ey).mean(axis=1), (ez * ez).mean(axis=1)

    def evaluate(self, j, rec, points):
        """(y^M_j(X), z^M_j(X)) at points X of shape (n, d)."""
        points = np.ascontiguousarray(points, dtype=np.float64)
        y = np.empty(points.shape[0])
        z = np.empty((points.shape[0], int(rec[0].d)))
        self.k.evaluate_points(self.coef, j, rec, points, y, z)
        return y, z

    def coefficients(self):
        return self.coef

    def fallbacks(self):
        return int(self.dropped.sum())

    def memory_report(self, test_points):
        """Device memory: none (host memory is measured by the solver, peak_rss_bytes)."""
        return {}

    def hardware(self):
        return {"device": "cpu", "model": cpu_model(), "threads": self.threads}
