"""What only a real CUDA device shows (marker ``gpu``; skipped elsewhere, deselected by ``-m "not gpu"``).

The kernels' numbers are tested under numba-cuda's simulator (tests/test_cuda_sim.py, tests/test_api_cuda.py), which
also run on a device when one is present.  These tests need the device itself: ``srmdp run --device gpu`` in a
process without the simulator records the device it ran on, and agrees with the CPU within the bound the simulator
tests use on a device (1e-9 relative: FMA contraction and libdevice are the only differences).  Run on a GPU host
with ``python -m pytest -q -m gpu`` (NUMBA_ENABLE_CUDASIM unset).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.gpu

ARGS = [
    "run",
    "--d",
    "2",
    "--dt",
    "0.5",
    "--basis",
    "LP1",
    "--cells",
    "2",
    "--paths",
    "6",
    "--runs",
    "2",
    "--seed",
    "4",
    "--test-points",
    "8",
    "--no-progress",
]


def _run(device, out):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "srmdp", *ARGS, "--device", device, "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


def test_run_on_the_device_records_it_and_agrees_with_the_cpu(tmp_path):
    gpu = _run("gpu", tmp_path / "gpu.json")
    cpu = _run("cpu", tmp_path / "cpu.json")
    hw = gpu["provenance"]["hardware"]
    assert hw["device"] == "gpu" and hw["simulator"] is False and hw["model"], hw
    assert len(hw["compute_capability"]) == 2 and hw["multiprocessors"] > 0
    for key in ("ey", "ez"):
        assert gpu["per_run"][key] == pytest.approx(cpu["per_run"][key], rel=1e-9, abs=1e-11), key
