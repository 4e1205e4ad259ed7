"""Problems as plain Python files: the contract checked before anything runs (one line naming the file and
the function), an unknown exact solution gives u(0, x0) instead of the indicators, a user's file is used
exactly as a registered problem."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import HEAT_PROBLEM

from srmdp.case.cases import Case
from srmdp.exceptions import ConfigError
from srmdp.problems import REGISTRY, load_problem
from srmdp.runs.run import run_case

PAPER_FILE = REGISTRY["gobet2016"]
GOOD_HEAT = HEAT_PROBLEM


def _write(tmp_path, text, name="prob.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


BAD = {
    "missing driver": (
        "import math\nMATURITY = 1.0\ndef terminal(T, x, d):\n    return 0.0\n",
        r"function driver\(t, x, y, z, d\) is missing",
    ),
    "wrong signature": (
        GOOD_HEAT.replace("def driver(t, x, y, z, d):", "def driver(t, x, y, z):"),
        r"function driver takes \(t, x, y, z\); the contract is driver\(t, x, y, z, d\)",
    ),
    "no maturity": (GOOD_HEAT.replace("MATURITY = 0.5", ""), r"MATURITY = None: must be a number > 0"),
    "negative maturity": (GOOD_HEAT.replace("MATURITY = 0.5", "MATURITY = -1"), r"MATURITY = -1: must be a number"),
    "only y_exact": (GOOD_HEAT + "\ndef y_exact(t, x, d):\n    return 0.0\n", r"define both y_exact and z_exact"),
    "syntax error": (GOOD_HEAT + "\ndef oops(:\n", r"importing it raised SyntaxError at line"),
    "raises on import": (GOOD_HEAT + "\nraise RuntimeError('boom')\n", r"importing it raised RuntimeError"),
    "not compilable": (
        GOOD_HEAT.replace("return 0.0", "return [0.0]"),
        r"function driver does not compile as kernel code",
    ),
}


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_problem_file_is_one_line_before_anything_runs(tmp_path, kind):
    text, pattern = BAD[kind]
    path = _write(tmp_path, text, f"bad_{kind.replace(' ', '_')}.py")
    with pytest.raises(ConfigError, match=pattern) as err:
        run_case(Case(d=2, dt=0.25, basis="LP0", cells=2, paths=2, problem=path), runs=1, test_points=2)
    msg = str(err.value)
    assert "\n" not in msg and path in msg


def test_bad_problem_through_the_cli_exits_2(tmp_path):
    path = _write(tmp_path, BAD["wrong signature"][0])
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "srmdp",
            "run",
            "--problem",
            path,
            "--d",
            "2",
            "--dt",
            "0.25",
            "--basis",
            "LP0",
            "--cells",
            "2",
            "--paths",
            "2",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("srmdp: error: invalid problem file")
    assert "driver" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_problem_name():
    with pytest.raises(ConfigError, match=r"invalid problem='nope': allowed values are .*gobet2016"):
        Case(d=2, dt=0.25, basis="LP0", cells=2, paths=2, problem="nope")


def test_maturity_and_box_come_from_the_problem(tmp_path):
    path = _write(tmp_path, GOOD_HEAT + "\nBOX_HALF_WIDTH = 4.0\n")
    case = Case(d=1, dt=0.25, basis="LP1", cells=2, paths=4, problem=path)
    assert case.maturity == 0.5 and case.steps == 2 and case.half_width == 4.0
    with pytest.raises(ConfigError, match=r"invalid dt=0.3: the time step must divide T=0.5"):
        Case(d=1, dt=0.3, basis="LP1", cells=2, paths=4, problem=path)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_without_exact_solution_u0_is_reported(tmp_path):
    """The heat equation u_t + Delta u / 2 = 0 with g = sum cos(x_l / 4): u(0, 0) = d e^{-T/32} exactly;
    u0 over 6 runs lies within 4 standard errors of it + 0.02 (the LP1 bias on cells of width 13/8: the
    curvature 1/16 of g times the cell's h^2/12 ~ 0.013 for d = 2)."""
    path = _write(tmp_path, GOOD_HEAT)
    res = run_case(Case(d=2, dt=0.25, basis="LP1", cells=8, paths=200, problem=path), runs=6, test_points=10, seed=5)
    assert "mse_y_max" not in res and "ey" not in res["per_run"]
    assert res["problem"] == "prob" and len(res["per_run"]["u0"]) == 6
    exact = 2 * np.exp(-0.5 / 32)
    assert abs(res["u0"] - exact) < 4 * res["u0_se"] + 0.02, (res["u0"], res["u0_se"], exact)


@pytest.mark.slow
def test_a_copy_of_the_paper_problem_gives_the_paper_problem_numbers(tmp_path):
    """A user's file is compiled exactly as a registered one: a copy of gobet2016.py, bit for bit."""
    path = _write(tmp_path, Path(PAPER_FILE).read_text(), "copy.py")
    kw = dict(d=2, dt=0.25, basis="LP1", cells=2, paths=6)
    a = run_case(Case(**kw), runs=2, test_points=20, seed=1)
    b = run_case(Case(problem=path, **kw), runs=2, test_points=20, seed=1)
    assert a["per_run"] == b["per_run"]


def test_problem_name_from_spec(tmp_path):
    path = _write(tmp_path, GOOD_HEAT, "heat.py")
    assert load_problem(path).name == "heat" and load_problem(path + ":heat").name == "heat"
    with pytest.raises(ConfigError, match="names found: heat"):  # NAME is a name the file answers to
        load_problem(path + ":my-heat")
    named = _write(tmp_path, GOOD_HEAT + '\nNAME = "my-heat"\n', "heat2.py")
    assert load_problem(named + ":my-heat").name == "my-heat"
    assert load_problem("gobet2016").has_exact and not load_problem(path).has_exact
