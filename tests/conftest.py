import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cpu_kernels():
    """The kernel code built for the CPU (generic d, LP1, the paper's problem), as the CPU path builds it,
    plus stream-array forms of the scalar-state RNG functions for tests (``st``: 2 uint64 words)."""
    import numpy as np
    from numba import njit

    from srmdp.numerics.build import kernels
    from srmdp.problems import load_problem

    k = kernels(load_problem("gobet2016"), "LP1", 0, "cpu")
    seed_state, uniform_s, normal_s, sample_cell_s = k.seed_state, k.uniform_s, k.normal_s, k.sample_cell

    @njit
    def seed_stream(st, seed, domain, run, step, stratum, path):
        s0, s1 = seed_state(seed, domain, run, step, stratum, path)
        st[0] = s0
        st[1] = s1

    @njit
    def uniform(st):
        v, s0, s1 = uniform_s(st[0], st[1])
        st[0] = s0
        st[1] = s1
        return v

    @njit
    def normal(st):
        v, s0, s1 = normal_s(st[0], st[1])
        st[0] = s0
        st[1] = s1
        return v

    @njit
    def sample_cell(st, cell, x, u, d, half, h):
        s0, s1 = sample_cell_s(st[0], st[1], cell, x, u, d, half, h, True)
        st[0] = s0
        st[1] = s1

    names = {n: getattr(k, n) for n in dir(k) if not n.startswith("__")}
    names.update(seed_stream=seed_stream, uniform=uniform, normal=normal, sample_cell=sample_cell, module=k, np=np)
    return SimpleNamespace(**names)


@pytest.fixture
def fast_simulator():
    """For the CUDA tests: the simulator's barriers are thread switches (a short switch interval makes them 2-3x
    faster), and its numpy scalars warn on the RNG's intended uint64 wrap-around."""
    import warnings

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
    sys.setswitchinterval(old)


def case_record(**fields):
    """A case record (srmdp.case.cases.RECORD) with the given fields, the rest 0 (tests of single kernels)."""
    import numpy as np

    from srmdp.case.cases import RECORD

    rec = np.rec.array(np.zeros(1, RECORD))
    for key, value in fields.items():
        rec[0][key] = value
    return rec


# A user's problem file without an exact solution: the heat equation u_t + Delta u / 2 = 0 with
# g = sum cos(x_l / 4), so u(0, 0) = d e^{-T/32} (T = 0.5); used by the API and problem-file tests.
HEAT_PROBLEM = """
import math
MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for l in range(d):
        s += math.cos(0.25 * x[l])
    return s


def driver(t, x, y, z, d):
    return 0.0
"""


def cuda_usable():
    """The CUDA path can run here: numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1) or a usable GPU."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True
    try:
        from srmdp.kernels.gpu import gpu_unavailable_reason

        return gpu_unavailable_reason() is None
    except Exception:
        return False


def real_gpu():
    """A CUDA device, not the simulator, is usable (checked in a process without NUMBA_ENABLE_CUDASIM)."""
    import subprocess

    code = (
        "from srmdp.kernels.gpu import gpu_unavailable_reason; import sys;"
        " sys.exit(gpu_unavailable_reason() is not None)"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120).returncode == 0


@pytest.hookimpl(trylast=True)  # after -m has deselected: the device check runs only when a gpu test is selected
def pytest_collection_modifyitems(config, items):
    """Tests marked ``gpu`` need a real CUDA device: skipped without one (the simulator does not count)."""
    gpu = [item for item in items if item.get_closest_marker("gpu")]
    if gpu and not real_gpu():
        skip = pytest.mark.skip(reason="needs a real CUDA GPU (marker gpu; the simulator does not count)")
        for item in gpu:
            item.add_marker(skip)


def pytest_report_header(config):
    return f"NUMBA_ENABLE_CUDASIM={os.environ.get('NUMBA_ENABLE_CUDASIM', '0')}"


# --- CPU time per test (opt-in: SRMDP_CPU_DURATIONS=<file>) -----------------------------------------------------
# On a shared machine wall-clock durations measure the neighbours; the CPU seconds of the test's process and of the
# subprocesses it waited for (snakemake, the CLI) do not.  One line per test phase: CPU s, children's CPU s, wall s.
_CPU_LOG = os.environ.get("SRMDP_CPU_DURATIONS")
if _CPU_LOG:
    import resource
    import time

    def _cpu():
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime, time.perf_counter()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        start = _cpu()
        yield
        end = _cpu()
        with open(_CPU_LOG, "a") as fh:
            fh.write(f"{end[0] - start[0]:.2f}\t{end[1] - start[1]:.2f}\t{end[2] - start[2]:.2f}\t{item.nodeid}\n")
