"""srmdp.solve on the GPU backend against the CPU, and the GPU backend's evaluate (tiny cases).

Under numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1) the kernels run as Python with the CPU's IEEE double
arithmetic: coefficients and evaluations agree bit for bit; on a real GPU within 1e-9 relative (FMA
contraction, libdevice), as in tests/test_cuda_sim.py.  Skipped without the simulator or a GPU.
"""

import os

import numpy as np
import pytest
from conftest import cuda_usable

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


pytestmark = [
    pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU"),
    pytest.mark.usefixtures("fast_simulator"),
]


def _agree(a, b):
    if SIM:
        assert np.array_equal(a, b), np.abs(np.asarray(a) - np.asarray(b)).max()
    else:
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_solve_on_gpu_and_gpu_evaluate_match_cpu():
    from numba import cuda

    from srmdp.kernels.cuda import CudaBackend
    from srmdp.solving import solve

    kw = dict(d=2, dt=0.5, basis="LP1", cells=2, paths=6, runs=2, seed=4, test_points=8, progress=False)
    cpu = solve("gobet2016", device="cpu", threads=1, **kw)
    gpu = solve("gobet2016", device="gpu", **kw)
    assert gpu.result["device"] == "gpu" and gpu.provenance["hardware"]["device"] == "gpu"
    _agree(gpu.coefficients, cpu.coefficients)
    assert gpu.result["per_run"]["u0"] == pytest.approx(cpu.result["per_run"]["u0"], rel=1e-9)
    X = np.random.default_rng(2).normal(size=(17, 2)) * 4
    backend = CudaBackend(cpu.problem, mode="block", block=4)
    backend.allocate(cpu.case)
    rec = cpu.case.record(4, 0, 0)
    for r in range(2):
        backend.coef = cuda.to_device(np.ascontiguousarray(cpu.coefficients[r]))
        for i in range(cpu.steps):
            y_gpu, z_gpu = backend.evaluate(i, rec, X)
            y_cpu, z_cpu = cpu.evaluate(i, X, run=r)
            _agree(y_gpu, y_cpu)
            _agree(z_gpu, z_cpu)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_adapted_strata_on_gpu_match_cpu():
    """Strata where the paths are (srmdp.problems.adapt) are a change of the problem's coordinates: the GPU kernels run
    the same generated problem (its tables as global constant arrays) and agree with the CPU."""
    from srmdp.solving import solve

    kw = dict(
        d=2,
        dt=0.5,
        basis="LP1",
        cells=2,
        paths=6,
        runs=2,
        seed=4,
        test_points=8,
        progress=False,
        strata="adapted",
        error=False,
    )
    cpu = solve("bs_diff_rates", device="cpu", threads=1, **kw)
    gpu = solve("bs_diff_rates", device="gpu", **kw)
    assert cpu.case.problem == gpu.case.problem == "bs_diff_rates#adapted-d2"
    _agree(gpu.coefficients, cpu.coefficients)
    assert gpu.result["per_run"]["u0"] == pytest.approx(cpu.result["per_run"]["u0"], rel=1e-9)
