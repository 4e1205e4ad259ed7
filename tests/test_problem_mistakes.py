"""Every mistake in a user's problem file is one line naming the function, exit status 2 before any compute or 3 when
a run meets it, under ``srmdp solve``, ``srmdp run`` and :func:`srmdp.solve`: never a traceback
(:mod:`srmdp.problems.checks`).

The mistakes: a driver that raises everywhere (the probes find it: exit 2), one that raises only far out (beyond the
probes, x_1 > 4: the run meets it, exit 3 naming the function and the time step), an undefined name, a list (kernel
code cannot allocate), a NaN returned (exit 3, named as the driver's), a wrong signature."""

import contextlib
import io

import pytest

from srmdp.cli.commands import main
from srmdp.exceptions import ConfigError, NumericalError

HEAD = """import math

MATURITY = 0.5


def terminal(T, x, d):
    s = 0.0
    for v in x:
        s += v * v
    return 1.0 / (2.0 + 0.4 * s)


"""
MISTAKES = {  # name: (driver, exit status, what the line must say besides the function's name)
    "raises": ("def driver(t, x, y, z, d):\n    raise ValueError('negative')\n", 2, "raised ValueError: negative"),
    "raises_far": (
        "def driver(t, x, y, z, d):\n    if x[0] > 4.0:\n        raise ValueError('far out')\n    return y\n",
        3,
        "raised ValueError: far out in case",
    ),
    "undefined": ("def driver(t, x, y, z, d):\n    return y + foo\n", 2, "name 'foo' is not defined"),
    "list": ("def driver(t, x, y, z, d):\n    a = [y, 1.0]\n    return a[0]\n", 2, "allocates"),
    "nan": ("def driver(t, x, y, z, d):\n    return math.nan\n", 3, "driver returns nan"),
    "signature": ("def driver(t, x, y, z):\n    return y\n", 2, "the contract is driver(t, x, y, z, d)"),
}
SMALL = ["--d", "2", "--dt", "0.125", "--basis", "LP1", "--cells", "2", "--paths", "32"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("mistakes")
    out = {}
    for name, (driver, _, _) in MISTAKES.items():
        out[name] = root / f"{name}.py"
        out[name].write_text(HEAD + driver)
    return out


def _cli(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


def _check_line(err, name, status, want_status):
    lines = err.splitlines()
    assert status == want_status, err
    assert "Traceback" not in err and 1 <= len(lines) <= 2, err
    assert "driver" in lines[-1] and MISTAKES[name][2] in lines[-1], err


@pytest.mark.slow  # two kernel builds (the mistakes that a run meets)
@pytest.mark.parametrize("name", sorted(MISTAKES))
@pytest.mark.parametrize("command", ["solve", "run"])
def test_a_mistake_is_one_line_naming_the_function(files, name, command, tmp_path):
    out = tmp_path / ("x.npz" if command == "solve" else "x.json")
    extra = ["--runs", "2"] if command == "run" else []
    status, err = _cli([command, *SMALL, *extra, "--problem", str(files[name]), "--no-progress", "--out", str(out)])
    _check_line(err, name, status, MISTAKES[name][1])
    assert not out.exists()


@pytest.mark.parametrize("name", ["raises", "undefined", "list", "signature"])
def test_a_mistake_found_before_compute_is_a_config_error_from_the_api(files, name):
    from srmdp.solving import solve

    with pytest.raises(ConfigError) as err:
        solve(str(files[name]), d=2, dt=0.125, cells=2, paths=32, progress=False)
    assert "\n" not in str(err.value) and "driver" in str(err.value) and MISTAKES[name][2] in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["raises_far", "nan"])
def test_a_mistake_a_run_meets_is_a_numerical_error_from_the_api(files, name):
    from srmdp.solving import solve

    with pytest.raises(NumericalError) as err:
        solve(str(files[name]), d=2, dt=0.125, cells=2, paths=32, progress=False)
    assert "\n" not in str(err.value) and "driver" in str(err.value) and MISTAKES[name][2] in str(err.value)


def test_a_non_finite_number_in_the_metadata_is_saved_as_null(tmp_path):
    """Nothing lost on save: a NaN or inf diagnostic is written as null, and the file reads back."""
    from dataclasses import replace

    from srmdp.solutions.solution import load
    from srmdp.solving import solve

    sol = solve("gobet2016", d=1, dt=0.5, cells=2, paths=8, runs=2, progress=False, error=False)
    run = sol.result.run
    run = replace(run, diagnostics={**run.diagnostics, "probe": [float("nan"), float("inf"), 1.5]})
    sol = sol.replace(result=replace(sol.result, run=run))
    sol.save(tmp_path / "s.npz")
    back = load(tmp_path / "s.npz")
    assert back.result["diagnostics"]["probe"] == [None, None, 1.5] and back.u0() == sol.u0()


def test_the_runs_done_before_a_numerical_error_are_kept():
    """A run that fails after others completed: the exception carries their result (``srmdp run`` writes it beside
    its output as OUT.partial.json), equal to a run of that many runs."""
    from srmdp.case.cases import Case
    from srmdp.runs.run import run_case

    case = Case(d=1, dt=0.5, basis="LP1", cells=2, paths=8)

    def fail_at_third(r, backend):
        if r == 2:
            raise NumericalError("a run that fails")

    with pytest.raises(NumericalError) as err:
        run_case(case, runs=4, test_points=5, seed=3, threads=1, on_run=fail_at_third)
    part = err.value.partial
    full = run_case(case, runs=2, test_points=5, seed=3, threads=1)
    assert part["runs"] == 2 and part["per_run"] == full["per_run"] and part["mse_y_max"] == full["mse_y_max"]
