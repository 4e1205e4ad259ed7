"""A driver that raises in Python (``math.sqrt`` of a negative, a division by zero) is one line and exit status 3
(after the refinement's report of its levels, with ``--tol``) under every command and option: ``srmdp solve`` with
the divergence guard on and off, with and without the curvature correction and with a tolerance, and ``srmdp run``.
The kernels compute the driver without Python exceptions (NaN, inf); the guard's data scale and the refinement's
data bounds evaluate it as the kernels do (:func:`srmdp.kernels.divergence.kernel_functions`), so the run stops on its
non-finite coefficients with the kernels' message, never a traceback."""

import contextlib
import io

import pytest

from srmdp.cli.commands import main

DRIVERS = {
    "sqrt_negative": "    return math.sqrt(-1.0 - y * y)",
    "divide_by_zero": "    return 1.0 / (y - y)",
}
SMALL = ["--d", "1", "--dt", "0.5", "--basis", "LP1", "--cells", "3", "--paths", "20"]


@pytest.fixture(scope="module", params=sorted(DRIVERS))
def raising(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("raising") / f"{request.param}.py"
    path.write_text(
        "import math\n\nMATURITY = 1.0\n\n\ndef terminal(T, x, d):\n    return 1.0\n\n\n"
        f"def driver(t, x, y, z, d):\n{DRIVERS[request.param]}\n"
    )
    with pytest.raises(ValueError if "sqrt" in request.param else ZeroDivisionError):  # it does raise in Python
        ns = {}
        exec(path.read_text(), ns)
        ns["driver"](0.0, [0.0], 0.0, [0.0], 1)
    return str(path)


def _status(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


@pytest.mark.slow  # compile-dominated: 4 kernel builds per driver
@pytest.mark.parametrize(
    "command",
    [
        ["solve", "--strata", "box"],
        ["solve", "--strata", "box", "--no-guard"],
        ["solve", "--strata", "box", "--curvature-correction"],
        ["solve", "--strata", "box", "--curvature-correction", "--no-guard"],
        ["solve", "--strata", "box", "--tol", "0.5", "--budget", "30"],
        ["run", "--runs", "2"],
        ["run", "--runs", "2", "--curvature-correction"],
    ],
    ids=lambda c: " ".join(c),
)
def test_a_raising_driver_is_one_line_and_exit_3(raising, command, tmp_path):
    out = tmp_path / ("x.npz" if command[0] == "solve" else "x.json")
    status, err = _status(command + SMALL + ["--problem", raising, "--out", str(out)])
    lines = err.splitlines()
    assert status == 3, err
    assert "Traceback" not in err and all(line.startswith("srmdp: ") for line in lines), err
    # one line; with --tol the refinement's own report comes first (a line per level and per remedy tried)
    report = [
        line
        for line in lines[:-1]
        if line.startswith("srmdp: case N = ")  # the cost said before compute (srmdp.solutions.prediction)
        or ("--tol" in command and line.startswith(("srmdp: refining", "srmdp: level")))
    ]
    assert len(lines) == 1 + len(report), err
    assert lines[-1].startswith("srmdp: numerical error: ") and "non-finite" in lines[-1], err
    assert not out.exists()
