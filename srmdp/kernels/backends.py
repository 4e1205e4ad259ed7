"""The backends behind one protocol and a registry, as SciPy's ``METHODS``: adding a device is one class and one entry
of :data:`BACKENDS`; nothing above ``kernels/`` branches on a device string.

A backend (:class:`Backend`) owns the coefficients of one case and runs its kernels: ``check_fits`` refuses a case
whose device memory would not fit before anything is allocated (the host's is its spec's,
:meth:`BackendSpec.check_host`, checked before a backend exists), ``allocate``, ``warm_up`` (compile or load outside
the timed region), ``backward_step(i, rec)`` -> the first bad stratum or -1, ``errors(rec)`` -> the per-step means over
the test points of the squared errors and of their squares, ``evaluate(j, rec, X)`` -> (y, z), ``coefficients()``,
``fallbacks()``, ``memory_report(P)`` and ``hardware()``.  What the orchestration needs to know of a device without
building its backend (the CUDA module needs numba-cuda) is its :class:`BackendSpec`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..case import cost, memory
from ..exceptions import ConfigError
from . import gpu
from .divergence import GUARD_BYTES_PER_STEP


class Backend(Protocol):
    device: str

    def check_fits(self, case, test_points: int, runs: int = 1) -> None: ...
    def allocate(self, case) -> None: ...
    def warm_up(self, rec) -> None: ...
    def backward_step(self, i: int, rec) -> int: ...
    def errors(self, rec): ...
    def evaluate(self, j: int, rec, points): ...
    def coefficients(self): ...
    def fallbacks(self) -> int: ...
    def memory_report(self, test_points: int) -> dict: ...
    def hardware(self) -> dict: ...


def _cpu_host_bytes(case, test_points, runs) -> int:
    return memory.required_bytes(case, test_points, runs=runs)


def _gpu_host_bytes(case, test_points, runs) -> int:
    # the results cross to the host, and the divergence guard's N values per run
    return memory.result_bytes(case, runs) + GUARD_BYTES_PER_STEP * case.steps


@dataclass(frozen=True)
class BackendSpec:
    device: str
    module: str  # where the class lives, imported only when a backend is made
    name: str
    host_coefficients: bool  # every run's coefficients reach the host: z0 by the first step (srmdp.solutions)
    unavailable: Callable[[], str | None]  # None where the device can run here, else a one-line reason (asked at
    # each call, not bound at import: the answer is the machine's now)
    host_bytes: Callable  # (case, test_points, runs) -> the host memory a solve's runs need besides kept coefficients
    run_seconds: Callable  # (case, threads, test_points) -> predicted seconds of one run (srmdp.case.cost)
    host_threads: bool  # whether the runs use the host's CPU threads (the --threads option)

    def check_host(self, case, test_points: int, runs: int) -> None:
        """Refuse (one ConfigError line) runs whose host memory would not fit, before any backend exists."""
        memory.check_fits(case, test_points, runs=runs, need=self.host_bytes(case, test_points, runs))

    def make(self, problem, threads=None) -> Backend:
        """A backend for ``problem``; a device that cannot run here is one ConfigError line."""
        reason = self.unavailable()
        if reason:
            raise ConfigError(f"invalid device={self.device!r}: {reason}")
        return getattr(importlib.import_module(self.module), self.name)(problem, threads=threads)


def _cpu_run_seconds(case, threads, test_points):
    return cost.run_seconds(case, threads, test_points)


def _gpu_run_seconds(case, threads, test_points):  # one CPU thread's time over the GPU's factor, plus launches
    return (
        cost.run_seconds(case, 1, test_points) / cost.GPU_SPEEDUP_OVER_ONE_CPU_THREAD
        + cost.GPU_STEP_SECONDS * case.steps
    )


BACKENDS = {
    s.device: s
    for s in (
        BackendSpec(
            "cpu", "srmdp.kernels.cpu", "CpuBackend", True, lambda: None, _cpu_host_bytes, _cpu_run_seconds, True
        ),
        BackendSpec(
            "gpu",
            "srmdp.kernels.cuda",
            "CudaBackend",
            False,
            lambda: gpu.gpu_unavailable_reason(),
            _gpu_host_bytes,
            _gpu_run_seconds,
            False,
        ),
    )
}


def backend_spec(device: str) -> BackendSpec:
    """The registry's entry for ``device``; an unknown device is one ConfigError line."""
    if device not in BACKENDS:
        raise ConfigError(f"invalid device={device!r}: allowed values are {', '.join(BACKENDS)}")
    return BACKENDS[device]


def make_backend(device: str, problem, threads=None) -> Backend:
    return backend_spec(device).make(problem, threads)
