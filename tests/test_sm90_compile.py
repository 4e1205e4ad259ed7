"""Every CUDA kernel compiles for sm_90 (H100) without a GPU, with no register spills and at most
48 KB of static shared memory, for d from 1 to 19 (LP0 thread and block kernels, LP1 block kernel,
the test-point kernel; float64, and float32 for a few d).

Runs ``bench/gpu/gpu_ptxas.py`` in a subprocess without NUMBA_ENABLE_CUDASIM (the simulator cannot
compile): it stubs numba-cuda's current device (compute capability 9.0), calls
``numba.cuda.compile_ptx`` and assembles with the ptxas of the nvidia-cuda-nvcc-cu12 wheel
(``ptxas -arch=sm_90 -v``).  The full sweep over every d is ``python bench/gpu/gpu_ptxas.py``.  The three tests share
their compiles through the PTX and ptxas cache of ``tests.support.sm90`` (beside the kernel modules, keyed by their
source and the toolchain): run on unchanged sources they compile nothing.
"""

import json
import os
import subprocess
import sys

import pytest

# the sizes where the kernels change shape: d = 1; specialised (constant loop bounds) up to d = 8,
# run-time bounds from d = 9; LP1 block B = 128 up to d = 11, B = 64 beyond; d = 12 once spilled; max 19
DIMS = "1,4,8,9,12,19"
FLOAT32 = "4,12,19"


def _have_toolchain():
    try:
        import numba_cuda  # noqa: F401
        import nvidia.cuda_nvcc  # noqa: F401  (ptxas, from numba-cuda[cu12])
    except ImportError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _have_toolchain(), reason="needs numba-cuda[cu12] (pip install -e .[cuda])")
def test_all_kernels_compile_for_sm90_without_spills(root, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = tmp_path / "ptxas.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "gpu" / "gpu_ptxas.py"),
            "--d",
            DIMS,
            "--float32-d",
            FLOAT32,
            "--json",
            str(out),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(out.read_text())
    bad = [r for r in rows if not r["ok"]]
    assert not bad, "\n".join(
        f"d={r['d']} {r['basis']} {r['mode']} {r['precision']} {r['kernel']}: {r['why']}" for r in bad
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = {(r["d"], r["basis"], r["mode"]) for r in rows if r["kernel"] == "step"}
    for d in map(int, DIMS.split(",")):
        assert {(d, "LP0", "thread"), (d, "LP0", "block"), (d, "LP1", "block")} <= seen
    assert max(r["smem"] for r in rows) <= 48 * 1024
    # no spills without launch bounds; under them (float32 arithmetic's default at d <= 8) the pins below hold them
    assert all(r["spill_stores"] == 0 and r["spill_loads"] == 0 for r in rows if not r["launch_bounds"])


def _allocated(registers: int) -> int:
    """The registers a thread is given on sm_90: ptxas's count rounded up to the allocation unit of 8 (a warp's 256),
    what occupancy depends on (162 and 168 occupy the same)."""
    return -(-registers // 8) * 8


# The step kernels' registers at d = 4, 8 (float32 storage), in sm_90's allocation unit of 8 (:func:`_allocated`),
# may not grow beyond the committed sweeps + 2 (ptxas's allocation moves by a register or two with unrelated code
# changes; a lost lever costs 6 or more): float64 arithmetic against its committed sweep (no launch bounds by
# default), float32 arithmetic against its default's sweep (launch bounds where
# srmdp.kernels.cuda_launch.default_min_blocks sets them: the same bounds, and spill stores at most 16 B above the
# committed ones; without bounds, LP1 d = 8, registers as above).
PINNED = {
    "float64": "data/gpu/ptxas_sm90_occupancy_gpu-occupancy-2.json",
    "float32": "data/gpu/ptxas_sm90_float32_default.json",
}


@pytest.mark.slow
@pytest.mark.skipif(not _have_toolchain(), reason="needs numba-cuda[cu12] (pip install -e .[cuda])")
def test_step_kernel_registers_stay_pinned(root, tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_ENABLE_CUDASIM", "SRMDP_CUDA_MIN_BLOCKS", "SRMDP_CUDA_PAD_ROWS")
    }
    out = tmp_path / "ptxas.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "gpu" / "gpu_ptxas.py"),
            "--d",
            "4,8",
            "--precision",
            "float32",
            "--arithmetic",
            "float64,float32",
            "--kernels",
            "step",
            "--json",
            str(out),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    got = {(r["arithmetic"], r["d"], r["basis"], r["mode"]): r for r in json.loads(out.read_text())}
    assert len(got) == 2 * 2 * 3
    for arith, path in PINNED.items():
        pinned = {
            (r["d"], r["basis"], r["mode"]): r
            for r in json.loads((root / path).read_text())
            if r["kernel"] == "step"
            and r["precision"] == "float32"
            and r["d"] in (4, 8)
            and r.get("arithmetic", "float64") == arith
        }
        assert len(pinned) == 6, (path, sorted(pinned))
        for key, pin in pinned.items():
            now = got[(arith, *key)]
            assert _allocated(now["registers"]) <= _allocated(pin["registers"] + 2), (
                arith,
                key,
                now["registers"],
                pin["registers"],
            )
            bounds = pin.get("launch_bounds")
            assert (now["launch_bounds"] and list(now["launch_bounds"])) == (bounds and list(bounds)), (arith, key)
            assert now["spill_stores"] <= pin["spill_stores"] + (16 if bounds else 0), (arith, key, now, pin)
        if arith == "float64":  # no launch bounds by default in float64 arithmetic
            assert not any(got[(arith, *key)]["launch_bounds"] for key in pinned)


@pytest.mark.slow
@pytest.mark.skipif(not _have_toolchain(), reason="needs numba-cuda[cu12] (pip install -e .[cuda])")
def test_launch_bounds_change_no_contraction(root):
    """float32's default launch bounds (a register cap, and the ziggurat's slow path as a call) leave every FMA,
    multiply and MUFU of the SASS as without them (bench/gpu/gpu_bounds_fp.py: the only value-changing freedom without
    fast-math is contraction, which moves those counts), LP0 d=4 block."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, str(root / "bench/gpu/gpu_bounds_fp.py"), "--d", "4", "--basis", "LP0", "--mode", "block"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "identical: the same contractions" in proc.stdout and "bounds (128, 8)" in proc.stdout
