"""GPU availability, checked without importing the CUDA path (and without a driver traceback)."""

import os


def gpu_unavailable_reason() -> str | None:
    """None when a CUDA device (or numba-cuda's simulator) is usable, else a one-line reason."""
    try:
        from numba import cuda
    except Exception as exc:  # pragma: no cover - numba is a hard dependency
        return f"numba.cuda cannot be imported ({exc}); install the GPU extra: pip install -e .[cuda]"
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return None
    try:
        import numba_cuda  # noqa: F401
    except ImportError:
        return "the GPU extra is not installed (pip install -e .[cuda])"
    try:
        if cuda.is_available():
            return None
    except Exception as exc:
        return f"no usable CUDA GPU ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return "no usable CUDA GPU was found (numba.cuda.is_available() is False)"
