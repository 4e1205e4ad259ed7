import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cpu_kernels():
    """Shared-code functions compiled for the CPU (as the CPU path compiles them)."""
    from numba import njit

    from srmdp.kernels import make_kernels
    from srmdp.problem import PAPER

    return make_kernels(njit(error_model="numpy"), PAPER)


def pytest_report_header(config):
    return f"NUMBA_ENABLE_CUDASIM={os.environ.get('NUMBA_ENABLE_CUDASIM', '0')}"
