"""The device a campaign (or a refresh) runs on: its model as results record it, and the check that it is there
before any compute."""

from __future__ import annotations

import os

from ...case.cases import ConfigError
from ...case.results import cpu_model
from ...kernels.gpu import gpu_unavailable_reason
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
    if device == "gpu":
        reason = gpu_unavailable_reason()
        if reason:
            raise ConfigError(f"invalid device='gpu': {reason}")
    elif threads is not None:
        check_threads(threads)
