"""The GPU scripts of bench/ on tiny cases under numba-cuda's simulator (or a GPU), so that they cannot break
unnoticed: gpu_bench.py in both launch modes with its CPU comparison.

Under the simulator the kernels run the CPU's arithmetic: the CPU comparison must find every coefficient
bitwise equal.  On a real GPU (FMA contraction, libdevice) the difference is bounded as in test_cuda_sim.py.
"""

import json
import os
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import cuda_usable

ROOT = Path(__file__).resolve().parent.parent
SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
pytestmark = pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU")


def _gpu_bench():
    sys.path.insert(0, str(ROOT / "bench" / "gpu"))
    try:
        import gpu_bench
    finally:
        sys.path.remove(str(ROOT / "bench" / "gpu"))
    return gpu_bench


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_gpu_bench_both_modes_against_the_cpu(tmp_path, capsys):
    summary = tmp_path / "bench.jsonl"
    rc = _gpu_bench().main(
        [
            "--cases",
            "LP0d4:0.05",
            "--set",
            "dt=0.5,cells=1,paths=5",
            "--precision",
            "float64",
            "--modes",
            "thread,block",
            "--test-points",
            "8",
            "--compare-cpu",
            "--no-write",
            "--summary",
            str(summary),
        ]
    )
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


def test_gpu_warm_selects_the_kernels_of_the_rows():
    sys.path.insert(0, str(ROOT / "bench" / "gpu"))
    try:
        import gpu_warm
    finally:
        sys.path.remove(str(ROOT / "bench" / "gpu"))
    # LP0d4 row 3: K = 17^4 = 83 521 strata -> thread mode on a 64-SM GPU (>= 1024 per SM), block on 132 SMs
    assert gpu_warm.kernels_needed("LP0d4:3,LP1d4:3", 64) == [("LP0", 4, "thread"), ("LP1", 4, "block")]
    assert gpu_warm.kernels_needed("LP0d4:3,LP1d4:3", 132) == [("LP0", 4, "block"), ("LP1", 4, "block")]
    assert {k[1] for k in gpu_warm.kernels_needed("LP1d15_19", 132)} == {15, 16, 17, 18, 19}


@pytest.mark.slow
def test_gpu_next_dry_run(tmp_path):
    """bench/gpu/gpu_next.sh end to end on tiny cases (DRY=1): every phase's commands run, nothing fails."""
    import subprocess

    env = dict(os.environ, DRY="1", OUT=str(tmp_path), PY=sys.executable)
    proc = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu" / "gpu_next.sh"), "400"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    assert "rc=" not in log.replace("rc=0", ""), log[-3000:]  # a failing command prints its rc
    assert "== done" in log
    # the campaign phase: `srmdp campaign run --arithmetic float32 --readings paper-fit` on 2 tiny free cases, one
    # run per chunk
    assert "campaign chunks: 2" in log and "float32 storage, float32 arithmetic" in log
    with tarfile.open(tmp_path / "campaign.tgz") as tgz:
        names = sorted(Path(n).name for n in tgz.getnames())
    assert names == [f"tiny_r{r}.paper-fit.float32.f32a.gpu.seed0.tp8.runs0000-0000.json" for r in (1, 2)], names
    # the A/B: the heavy shapes (paths reduced) in float32 arithmetic, thread and block; the d = 4 series in both
    rows = [json.loads(line) for line in (tmp_path / "ab_heavy.jsonl").read_text().splitlines()]
    assert [(r["label"], r["mode"]) for r in rows] == [
        ("LP0d4_r4", "thread"),
        ("LP0d4_r4", "block"),
        ("LP1d6_1_r4", "block"),
        ("LP1d6_1_r4", "thread"),
        ("LP0d11_r3", "thread"),
        ("LP0d4_r3", "thread"),
        ("LP0d4_r3", "block"),
    ]
    assert {r["arithmetic"] for r in rows} == {"float32"}
    for tag, arith in (("ab_f64", "float64"), ("ab_f32", "float32")):
        rows = [json.loads(line) for line in (tmp_path / f"{tag}.jsonl").read_text().splitlines()]
        assert [r["mode"] for r in rows] == ["thread", "block", "block"]
        assert {r["arithmetic"] for r in rows} == {arith}
    # the source-level profile: its commands (ncu itself is printed, not run), the lineinfo runs made
    assert log.count("ncu (dry run):") == 2 and "--section SourceCounters" in log and "--import-source yes" in log
    assert (tmp_path / "ncu_LP0d4_r4_dry.json").is_file() and (tmp_path / "ncu_LP1d6_1_r4_dry.json").is_file()
