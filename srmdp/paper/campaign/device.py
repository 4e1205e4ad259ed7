"""The device a campaign (or a refresh) runs on: its model as results record it, and the check that it is there
before any compute."""

from __future__ import annotations

import os

from ...case.cases import ConfigError
from ...case.results import cpu_model
from ...kernels.backends import backend_spec
from ...runs.run import check_threads

ASSUMED_GPU = "NVIDIA H100 80GB HBM3"


def device_model(device: str) -> str:
    """The device's name as results record it (provenance.hardware.model), without running anything."""
    if device == "cpu":
        return cpu_model()
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba-cuda simulator"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def check_device(device, threads):
    """One ConfigError line where ``device`` cannot run here (the backend registry's answer) or ``threads`` is
    invalid."""
    reason = backend_spec(device).unavailable()
    if reason:
        raise ConfigError(f"invalid device={device!r}: {reason}")
    if device == "cpu" and threads is not None:
        check_threads(threads)
