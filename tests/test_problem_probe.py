"""A problem file's out-of-bounds index or non-number return is one line before any compute, under ``srmdp solve``
(a subprocess, as a user runs it): exit status 2, no traceback, the function and the problem file's line named
(:func:`srmdp.problems.checks.check_problem`, its bounds-checked probe; :func:`srmdp.numerics.build.check_compiles`,
the return type).

Without the probe's bounds checking a 1-based loop reads past the array: a silent wrong answer, exit 0."""

import os
import subprocess
import sys

import pytest

HEAD = """import math

MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for v in x:
        s += v * v
    return 1.0 / (2.0 + 0.4 * s)


"""
HEAD_LINES = HEAD.count("\n")
# name: (the file's rest after HEAD, the line of it (1-based) that the message names, what the line must say)
MISTAKES = {
    "one_based_loop": (
        "def driver(t, x, y, z, d):\n    s = 0.0\n    for l in range(1, d + 1):\n        s += x[l]\n"
        "    return y + 0.0 * s\n",
        4,
        "index 2 is out of bounds",
    ),
    "index_d": ("def driver(t, x, y, z, d):\n    return y + 0.0 * x[d]\n", 2, "index 2 is out of bounds"),
    "helper": (
        "def _total(v, d):\n    s = 0.0\n    for l in range(d + 1):\n        s += v[l]\n    return s\n\n\n"
        "def driver(t, x, y, z, d):\n    return y + 0.0 * _total(z, d)\n",
        4,
        "(in _total)",
    ),
    "forward_write": (
        "def driver(t, x, y, z, d):\n    return y\n\n\ndef forward(t, x, dw, dt, d):\n"
        "    for l in range(1, d + 1):\n        x[l] += dw[l]\n",
        7,
        "index 2 is out of bounds",
    ),
    "tuple": ("def driver(t, x, y, z, d):\n    return y, 1.0\n", 1, "returns a tuple"),
    "complex": ("def driver(t, x, y, z, d):\n    return y + 1j\n", 1, "returns a complex number"),
    "string": ("def driver(t, x, y, z, d):\n    return 'y'\n", 1, "returns a string"),
    "no_return": ("def driver(t, x, y, z, d):\n    y = 2.0 * y\n", 1, "returns nothing"),
}


def _solve(path, out):
    argv = ["solve", "--problem", str(path), "--d", "2", "--dt", "0.125", "--basis", "LP1", "--cells", "2"]
    argv += ["--paths", "32", "--no-progress", "--out", str(out)]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", "srmdp", *argv], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_mistake_the_probe_finds_is_one_line_naming_the_line(name, tmp_path):
    rest, line, says = MISTAKES[name]
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + rest)
    out = tmp_path / "x.npz"
    res = _solve(path, out)
    err = res.stderr.strip()
    assert res.returncode == 2, err
    assert "Traceback" not in err and 1 <= len(err.splitlines()) <= 2, err
    last = err.splitlines()[-1]
    assert str(path) in last and says in last, last
    where = "the problem file's line" if "out of bounds" in says or "(in " in says else "(line"
    assert f"{where} {HEAD_LINES + line}" in last, last
    function = "forward" if name == "forward_write" else "driver"
    assert f"function {function}" in last, last
    assert not out.exists() and res.stdout == ""


def test_the_runs_kernels_keep_their_compile(root):
    """The bounds checking is the probe's only: the problem module the kernels import is compiled as before."""
    from srmdp.numerics.build import _CPU, _CPU_PROBE, cpu_probe_module, problem_source
    from srmdp.problems import load_problem

    problem = load_problem(str(root / "examples" / "allen_cahn.py"))
    assert problem_source(problem, "cpu").startswith(_CPU) and "boundscheck" not in _CPU
    probe = cpu_probe_module(problem)
    assert "boundscheck=True" in _CPU_PROBE
    assert probe.driver.targetoptions.get("boundscheck") is True
