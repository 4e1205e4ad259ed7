"""A user's problem file on the GPU backend (``srmdp.solve(..., device="gpu")``), tiny cases: the answer and its
error estimate agree with the CPU's, and a refinement to a tolerance runs there.  Under numba-cuda's simulator
(NUMBA_ENABLE_CUDASIM=1) the kernels run as Python with the CPU's double arithmetic, so u0 agrees to 1e-12
relative (on a real GPU to 1e-9: FMA contraction, libdevice).  Skipped without the simulator or a GPU."""

import os
from pathlib import Path

import pytest
from conftest import cuda_usable

pytestmark = [
    pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU"),
    pytest.mark.usefixtures("fast_simulator"),
]
SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
ALLEN_CAHN = str(Path(__file__).resolve().parent.parent / "examples" / "allen_cahn.py")


def test_a_user_file_on_the_gpu_matches_the_cpu_with_its_error_estimate():
    from srmdp.solving import solve

    kw = dict(d=2, dt=0.1, cells=3, paths=40, runs=2, seed=1, test_points=8, progress=False)  # strata: adapted
    cpu = solve(ALLEN_CAHN, device="cpu", threads=1, **kw)
    gpu = solve(ALLEN_CAHN, device="gpu", **kw)
    assert gpu.result["device"] == "gpu" and gpu.case.problem.endswith("#adapted-d2")
    rel = 1e-12 if SIM else 1e-9
    assert gpu.result["u0"] == pytest.approx(cpu.result["u0"], rel=rel)
    assert gpu.u0_error is not None and gpu.u0_error == pytest.approx(cpu.u0_error, rel=1e-6)


@pytest.mark.slow  # 15-20 s under the simulator
def test_a_refinement_to_a_tolerance_runs_on_the_gpu():
    """An unreachable tol and a short budget: levels run on the GPU backend and the answer is one of them (the
    number of levels depends on the machine's speed; nothing here is timed)."""
    from srmdp.solving import solve

    sol = solve(ALLEN_CAHN, d=2, cells=3, paths=8, dt=0.1, tol=1e-9, budget_s=20, device="gpu", progress=False)
    rows = sol.result["refinement"]
    assert sol.result["device"] == "gpu" and sol.result["tol_met"] is False and rows
    assert sol.result["chosen_level"] in [r["level"] for r in rows if r["status"] == "ok"]
