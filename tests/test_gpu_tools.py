"""The GPU scripts of bench/ on tiny cases under numba-cuda's simulator (or a GPU), so that they cannot break
unnoticed: gpu_bench.py in both launch modes with its CPU comparison.

Under the simulator the kernels run the CPU's arithmetic: the CPU comparison must find every coefficient
bitwise equal.  On a real GPU (FMA contraction, libdevice) the difference is bounded as in test_cuda_sim.py.
"""

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import cuda_usable

ROOT = Path(__file__).resolve().parent.parent
SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
pytestmark = pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU")


def _gpu_bench():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gpu_bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return gpu_bench


def test_gpu_bench_both_modes_against_the_cpu(tmp_path, capsys):
    summary = tmp_path / "bench.jsonl"
    rc = _gpu_bench().main(["--cases", "LP0d4:0.05", "--set", "dt=0.5,cells=1,paths=5", "--precision", "float64",
                            "--modes", "thread,block", "--test-points", "8", "--compare-cpu", "--no-write",
                            "--summary", str(summary)])
    assert rc == 0
    rows = [json.loads(line) for line in summary.read_text().splitlines()]
    assert [r["mode"] for r in rows] == ["thread", "block"]
    assert rows[0]["block"] is None and rows[1]["block"] == 128
    for r in rows:
        assert (r["d"], r["K"], r["M"], r["path_steps"]) == (4, 1, 5, 1 * 5 * 2 * 3 // 2)
        cv = r["cpu_vs_gpu"]
        if SIM:
            assert cv["max_abs_coef_diff"] == 0.0 and cv["frac_coef_bitwise_equal"] == 1.0
            # the indicators are means over the test points, summed on the device in another order than numpy's:
            # |relative difference| <= (P - 1) eps ~ 1.6e-15 for P = 8 points (not a bitwise quantity)
            assert cv["cpu"] == pytest.approx(cv["gpu"], rel=1e-13, abs=0)
        else:  # rounding differences only (see test_cuda_sim.py)
            assert cv["max_abs_coef_diff"] <= 1e-9 * max(1.0, cv["max_abs_coef"])
    assert "LP0d4_r" in capsys.readouterr().out
