"""The arrays a problem's functions receive are exactly d long, on both backends: a terminal and a driver written with
``for v in x``, ``len(z)`` or a NumPy reduction compute what their indexed twins compute, bit for bit, on every rerun.

(The kernels once passed scratch arrays of d + 1 elements with the last one never set: a loop over ``x`` read an
uninitialised value, so the answer changed from run to run.)  The twins differ only in how they walk the arrays, and
the sums are formed in the same order, so their u0 agree exactly; a loop that reached an extra element would add a
value that is not there in the indexed twin and break the equality."""

import numpy as np
import pytest
from conftest import cuda_usable

from srmdp.case.cases import Case
from srmdp.runs.run import run_case

pytestmark = pytest.mark.slow  # compile-dominated: six kernel builds (~2 min on 2 cores)

INDEXED = """
import math
MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for l in range(d):
        s += x[l] * x[l]
    return 1.0 / (2.0 + 0.4 * s) + 0.01 * d


def driver(t, x, y, z, d):
    s = 0.0
    for l in range(d):
        s += z[l] * z[l]
    return y - y * y * y - 0.1 * s
"""

LOOPED = """
import math
MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for v in x:
        s += v * v
    return 1.0 / (2.0 + 0.4 * s) + 0.01 * len(x)


def driver(t, x, y, z, d):
    s = 0.0
    for v in z:
        s += v * v
    return y - y * y * y - 0.1 * s
"""

# a NumPy reduction over the arrays (no allocation; Numba sums in the loop's order): the CPU's kernels.  Its twin is
# INDEXED with the terminal's and the driver's sums of x_l and z_l written as indexed loops.
SUMMED = INDEXED.replace("s += x[l] * x[l]", "s += x[l]").replace("s += z[l] * z[l]", "s += z[l]")
REDUCED = (
    INDEXED.replace("import math", "import math\nimport numpy as np")
    .replace("    s = 0.0\n    for l in range(d):\n        s += x[l] * x[l]\n", "    s = np.sum(x)\n")
    .replace("    s = 0.0\n    for l in range(d):\n        s += z[l] * z[l]\n", "    s = np.sum(z)\n")
)


def _u0(path, device, runs=2):
    case = Case(d=3, dt=0.125, basis="LP1", cells=2, paths=16, problem=str(path))
    kw = {"threads": 1} if device == "cpu" else {}
    res = run_case(case, runs=runs, test_points=2, seed=7, device=device, **kw)
    return res["per_run"]["u0"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("arrays")
    out = {}
    for name, text in (("indexed", INDEXED), ("looped", LOOPED), ("summed", SUMMED), ("reduced", REDUCED)):
        (root / f"{name}.py").write_text(text)
        out[name] = root / f"{name}.py"
    return out


def test_loops_and_len_over_x_and_z_equal_the_indexed_twin_on_the_cpu(files):
    base = _u0(files["indexed"], "cpu")
    assert all(np.isfinite(base))
    assert _u0(files["looped"], "cpu") == base
    assert _u0(files["looped"], "cpu") == base  # every rerun


def test_a_numpy_reduction_over_x_and_z_sees_d_values(files):
    assert "np.sum(x)" in REDUCED and "np.sum(z)" in REDUCED and "s += x[l]\n" in SUMMED
    assert _u0(files["reduced"], "cpu") == _u0(files["summed"], "cpu")


@pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU")
@pytest.mark.usefixtures("fast_simulator")
def test_loops_and_len_over_x_and_z_equal_the_indexed_twin_on_the_gpu(files):
    base = _u0(files["indexed"], "gpu", runs=1)
    assert _u0(files["looped"], "gpu", runs=1) == base
