"""What only a real GPU host runs, checked here without one: the source tree's entry points on a Python that has no
srmdp installed (bench/gpu/gpu_env.sh), and the step kernel's local-memory reading against numba-cuda 0.30's API
(a lent H200 run at c6de8c6 failed on both)."""

import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import tomllib

import srmdp.kernels.cuda as cuda_backend

ROOT = Path(__file__).resolve().parent.parent


def test_gpu_env_registers_the_source_trees_entry_points(tmp_path):
    """``python -S`` sees neither site-packages nor an installed srmdp: gpu_env.sh writes the tree's entry points
    (the ones of pyproject.toml, every group and name) and then refuses, with its message, because the paper's
    rows need numpy, which ``-S`` hides too (on the host the carried wheel provides it)."""
    site = tmp_path / "site"
    tree = tmp_path / "tree"  # what travels to the host: tracked files only (a checkout's srmdp.egg-info would
    (tree / "bench" / "gpu").mkdir(parents=True)  # register the entry points through the working directory)
    shutil.copy(ROOT / "bench" / "gpu" / "gpu_env.sh", tree / "bench" / "gpu")
    shutil.copy(ROOT / "pyproject.toml", tree)
    env = dict(os.environ, PY=f"{sys.executable} -S", SRMDP_SITE=str(site), PYTHONPATH="")
    proc = subprocess.run(
        ["bash", "-c", '. bench/gpu/gpu_env.sh; echo "sourced rc=$?"'],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "sourced rc=1" in proc.stdout and "cannot resolve the paper's rows" in proc.stdout, proc.stdout + proc.stderr
    written = (site / "srmdp-0.dist-info" / "entry_points.txt").read_text()
    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    for group, table in eps.items():
        assert f"[{group}]" in written
        for name, value in table.items():
            assert f"{name} = {value}\n" in written
    # and a Python with the dist-info on its path finds them without importing anything
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); from importlib.metadata import entry_points as e;"
        "print(sorted(x.value for x in e(group='srmdp.tables')))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(site)], cwd=tree, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == str(sorted(eps["srmdp.tables"].values())), out.stderr
    # ... and the tree's version, which the runs' provenance records (aggregate compares it)
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); from importlib.metadata import version;print(version('srmdp'))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(site)], cwd=tree, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"], out.stderr


def test_local_bytes_reads_the_compiled_kernels_not_the_signature_api(monkeypatch):
    """numba-cuda 0.30's ``overloads`` is keyed by argument tuples and ``get_local_mem_per_thread`` wants a
    Signature: local_bytes reads each compiled kernel's ``local_mem_per_thread`` (the largest) times the resident
    threads of every SM."""

    def signature_api(sig):  # numba-cuda 0.30.4: self.overloads[signature.args]
        return sig.args

    step = types.SimpleNamespace(
        overloads={
            ("a",): types.SimpleNamespace(local_mem_per_thread=48),
            ("b",): types.SimpleNamespace(local_mem_per_thread=112),
        },
        get_local_mem_per_thread=signature_api,
    )
    backend = object.__new__(cuda_backend.CudaBackend)
    backend.step, backend.info = step, {"sms": 132}
    monkeypatch.setattr(cuda_backend, "SIMULATOR", False)
    assert backend.local_bytes() == 112 * cuda_backend.GPU_RESIDENT_THREADS_PER_SM * 132
