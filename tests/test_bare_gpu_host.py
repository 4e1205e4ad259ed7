"""The GPU campaign on a bare GPU host: the plain wheel and numba-cuda, none of the [paper] extra.

GPU hosts have the library's dependencies and numba-cuda, not the workflow's packages (snakemake, jsonschema,
PyYAML, ...).  The prepared device command (``bench/gpu/gpu_next.sh``) runs from the repository checkout there, and
its campaign phase (``srmdp campaign run``) must run too.  This test builds such a host's Python: a venv with the
wheel of this tree (a plain, non-editable ``pip install``, no extras) and numba-cuda at the ``[cuda]`` extra's
pin, checks that no [paper] package is importable, then from the checkout, under the simulator, dry-runs the
campaign on the paper's four rows with no run and runs ``bench/gpu/gpu_next.sh`` end to end on tiny cases (DRY=1).
About 2 minutes (the venv ~35 s with pip's cache, the script ~75 s on 2 cores): marked slow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11 (gpu_env.sh reads pyproject.toml with it too)

ROOT = Path(__file__).resolve().parent.parent
PAPER_MODULES = ("snakemake", "jsonschema", "yaml", "jinja2", "matplotlib", "scipy")
HEAVY = "LP0d4:4,LP1d6_1:4,LP0d6_0:4,LP0d11:3"  # the paper-fit rows with no run of ours


def _numba_cuda_pin() -> str:
    """The [cuda] extra's requirement on numba-cuda, without its own extras (the simulator needs no toolkit)."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["cuda"]
    req = next(r for r in extra if r.startswith("numba-cuda"))
    name, _, rest = req.partition("[")
    return name + (rest.split("]", 1)[1] if rest else "")


def _host_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(NUMBA_ENABLE_CUDASIM="1", **extra)
    return env


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bare")
    # the wheel is built from a copy of the package's files, so that the checkout gets no build/ or egg-info
    src = tmp / "src"
    shutil.copytree(ROOT / "srmdp", src / "srmdp", ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / f, src / f)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(src), _numba_cuda_pin()],
        capture_output=True,
        text=True,
        timeout=600,
        env=_host_env(),
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return py


@pytest.mark.slow
def test_the_bare_host_has_no_paper_package(bare_python):
    code = (
        "import importlib.util as u, sys; m = [x for x in sys.argv[1:] if u.find_spec(x)]; print(m); sys.exit(bool(m))"
    )
    proc = subprocess.run(
        [str(bare_python), "-c", code, *PAPER_MODULES],
        capture_output=True,
        text=True,
        timeout=60,
        env=_host_env(),
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = subprocess.run(
        [str(bare_python), "-c", "import numba_cuda, srmdp; print(srmdp.__file__)"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_host_env(),
        cwd="/",
    )
    assert proc.returncode == 0 and "site-packages" in proc.stdout, proc.stdout + proc.stderr  # the installed wheel


@pytest.mark.slow
def test_the_campaign_dry_run_plans_the_heavy_rows_without_the_paper_extra(bare_python, tmp_path):
    cmd = [
        str(bare_python),
        "-m",
        "srmdp",
        "campaign",
        "run",
        "--budget",
        "480",
        "--out",
        str(tmp_path / "c"),
        "--dry-run",
        "--device",
        "gpu",
        "--model",
        "NVIDIA H200",
        "--precision",
        "float32",
        "--arithmetic",
        "float32",
        "--readings",
        "paper-fit",
        "--cases",
        HEAVY,
        "--first-runs",
        "1",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_host_env(), cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "[paper] extra" not in out and "float32 storage, float32 arithmetic" in out
    assert "chunk 1:" in out and "(planned)" in out


@pytest.mark.slow
def test_gpu_next_dry_run_on_the_bare_host(bare_python, tmp_path):
    env = _host_env(DRY="1", OUT=str(tmp_path), PY=str(bare_python))
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
    assert "[paper] extra" not in log and "== done" in log
    assert "campaign chunks: 2" in log, log[-3000:]  # the campaign phase made its two tiny chunks
