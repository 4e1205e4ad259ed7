"""Static checks that CI enforces: ruff on the package, tests, benchmarks and workflow scripts."""

import shutil
import subprocess
import sys

import pytest


def test_ruff_clean(root):
    if (
        shutil.which("ruff") is None
        and subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0
    ):
        pytest.skip("ruff is not installed (pip install -e .[test])")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
