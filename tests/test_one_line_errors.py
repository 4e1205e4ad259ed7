"""What used to be a traceback is one line, or an answer: ``--cells 1`` beyond 63 dimensions (the divergence guard's
cell centres, :func:`srmdp.kernels.divergence._cell_centres`), an error of exactly 0 (a z the scheme computes
exactly: :func:`srmdp.numerics.indicators.indicators`), and a compile error in a problem file, named by the problem
file's line rather than Numba's own (:func:`srmdp.numerics.build.check_compiles`)."""

import math
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from srmdp.kernels.divergence import _cell_centres, data_scale
from srmdp.numerics.indicators import indicators
from srmdp.problems import load_problem
from srmdp.runs.run import summary_line


def _case(cells, d, half_width=3.0):
    return SimpleNamespace(cells=cells, d=d, half_width=half_width, maturity=0.3, steps=3)


def test_every_cell_centre_in_any_dimension(root):
    """All the cells (C order, as np.indices numbers them, up to its 64 axes), and one cell at d = 100."""
    for c, d in [(1, 1), (2, 3), (3, 2), (8, 3), (2, 9)]:
        axis = -3.0 + (np.arange(c) + 0.5) * (6.0 / c)
        want = axis[np.indices((c,) * d).reshape(d, -1).T]
        np.testing.assert_array_equal(_cell_centres(_case(c, d)), want)
    assert _cell_centres(_case(1, 100)).shape == (1, 100) and not _cell_centres(_case(1, 100)).any()
    problem = load_problem(str(root / "examples" / "allen_cahn.py"))
    assert data_scale(_case(1, 100), problem) == pytest.approx(0.5 + 0.3 * 0.0)  # g(0) = 1/2, f(t, 0, 0, 0) = 0


@pytest.mark.slow  # the generic-d kernels' compile
def test_one_cell_beyond_63_dimensions_solves(root, tmp_path):
    argv = ["solve", "--problem", str(root / "examples" / "allen_cahn.py"), "--d", "65", "--cells", "1"]
    argv += ["--paths", "16", "--dt", "0.1", "--basis", "LP0", "--no-progress", "--out", str(tmp_path / "s.npz")]
    res = subprocess.run([sys.executable, "-m", "srmdp", *argv], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr


def test_an_error_of_exactly_zero_is_minus_infinity_recorded_as_null():
    ey = np.full((3, 4), 1e-6)
    ey[:, 2] = 4e-6
    ez = np.zeros((3, 4))
    out = indicators(ey, ez)
    assert out["mse_z_av"] is None and out["mse_z_av_se"] is None and out["literal_z_av"] is None
    assert out["mse_y_max"] == pytest.approx(math.log(4e-6)) and out["mse_y_max_step"] == 2
    res = dict(out, label="L", device="cpu", runs=3, test_points=10, seconds_per_run=1.0, path_steps_per_second=1.0)
    line = summary_line(res)
    assert "MSE_Z,av -inf (error 0)" in line and "MSE_Y,max -12.429" in line, line


HEAD = """import math

MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for v in x:
        s += v * v
    return 1.0 / (2.0 + 0.4 * s)


"""
COMPILE_ERRORS = {  # name: (the rest of the file, the line of it that the message names, what it must say)
    "array_product": ("def driver(t, x, y, z, d):\n    a = x * x\n    return y + a[0]\n", 2, "it allocates"),
    "dict": ("def driver(t, x, y, z, d):\n    a = {1: y}\n    return a[1]\n", 3, "it allocates"),
    "math_of_array": ("def driver(t, x, y, z, d):\n    return y + math.exp(x)\n", 2, "no implementation of exp("),
    "in_a_helper": (
        "def _norm2(v, d):\n    w = v + v\n    return w[0]\n\n\n"
        "def driver(t, x, y, z, d):\n    return y + _norm2(z, d)\n",
        2,
        "it allocates",
    ),
}


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_a_compile_error_names_the_problem_files_line(name, tmp_path):
    rest, line, says = COMPILE_ERRORS[name]
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + rest)
    argv = ["solve", "--problem", str(path), "--d", "2", "--dt", "0.125", "--basis", "LP1", "--cells", "2"]
    argv += ["--paths", "32", "--no-progress", "--out", str(tmp_path / "x.npz")]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    res = subprocess.run([sys.executable, "-m", "srmdp", *argv], capture_output=True, text=True, env=env, timeout=600)
    err = res.stderr.strip()
    assert res.returncode == 2 and "Traceback" not in err and 1 <= len(err.splitlines()) <= 2, err
    last = err.splitlines()[-1]
    want = HEAD.count("\n") + line
    code = (HEAD + rest).splitlines()[want - 1].strip()
    assert "function driver does not compile" in last and says in last, last
    assert f"(the problem file's line {want}: `{code}`)" in last, last
    assert re.findall(r"line (\d+)", last) == [str(want)], last  # no line of Numba's own
