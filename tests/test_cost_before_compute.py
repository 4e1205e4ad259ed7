"""The cost said before compute, a budget that holds for every solve, and no unknown error shown as accuracy
(issue 54 items 1 and 3).  The refusals compute nothing (no kernel is compiled: the run is replaced by one that fails
the test); the #C = 1 answer solves a tiny case (the kernels of tests/test_stop_and_keep.py's case)."""

from __future__ import annotations

import pytest

import srmdp
from srmdp.cli.commands import main
from srmdp.exceptions import ConfigError
from srmdp.options import SolveOptions
from srmdp.solutions.prediction import DEFAULT_BUDGET_S, check_budget, estimate_hint, solve_cost
from srmdp.solutions.solve_request import SolveRequest

TINY = ["--problem", "quadratic_z", "--d", "2", "--cells", "8", "--paths", "2000", "--threads", "1", "--no-progress"]


@pytest.fixture
def no_compute(monkeypatch):
    """Any run or kernel build fails the test: a refusal must come before them."""
    import srmdp.numerics.build
    import srmdp.runs.run

    def computed(*a, **k):
        raise AssertionError("computed before the refusal")

    monkeypatch.setattr(srmdp.runs.run, "run_case", computed)
    monkeypatch.setattr(srmdp.numerics.build, "kernels", computed)


def test_a_solve_without_tol_predicted_over_its_budget_is_refused_before_compute(no_compute, tmp_path, capsys):
    out = tmp_path / "s.npz"
    rc = main(["solve", *TINY, "--runs", "3", "--budget", "0.05", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    line = err.strip().splitlines()[-1]
    assert line.startswith("srmdp: error: case N = 5, #C = 8, M = 2000, K = 64, 3 runs: predicted ")
    assert "GiB of host memory" in line and "over the budget of 0.05 s" in line
    assert "fits instead: --paths " in line and "--cells " in line  # what fits, priced
    with pytest.raises(ConfigError, match="over the budget of 0.01 s"):
        srmdp.solve("quadratic_z", d=2, cells=8, paths=2000, runs=3, budget_s=0.01, threads=1)


def test_the_default_budget_bounds_a_solve_too(no_compute):
    """A case the cost model puts far over 900 s is refused with the default budget, naming it."""
    with pytest.raises(ConfigError, match=f"over the default budget of {DEFAULT_BUDGET_S:g} s") as exc:
        srmdp.solve("quadratic_z", d=5, cells=12, paths=20000, threads=1)
    assert "predicted " in str(exc.value) and "\n" not in str(exc.value)


def test_a_refinement_refuses_a_first_level_over_its_budget(no_compute):
    with pytest.raises(ConfigError, match="over the budget of 0.001 s"):
        srmdp.solve("quadratic_z", d=2, cells=8, paths=2000, tol=0.01, budget_s=0.001, threads=1)


def test_the_prediction_line_comes_before_the_first_run(monkeypatch):
    """srmdp.solve says the case and its predicted time and memory (report) before it runs anything."""
    said = []

    def first_run(*a, **k):
        said.append("RUN")
        raise KeyboardInterrupt

    monkeypatch.setattr(SolveRequest, "run", first_run)
    with pytest.raises(KeyboardInterrupt):
        srmdp.solve("quadratic_z", d=2, cells=8, paths=2000, runs=3, threads=1, report=said.append)
    assert said[-1] == "RUN" and len(said) == 2
    assert said[0].startswith("case N = 5, #C = 8, M = 2000, K = 64, 3 runs: predicted ")
    assert "of which the error estimate's level below (N = 2, " in said[0]


def test_the_prediction_grows_with_the_work():
    req = SolveRequest.make("quadratic_z", SolveOptions(d=2, cells=8, paths=2000, runs=2, threads=1))
    case = req.case_at(req.steps)[0]
    small, big = (solve_cost(req, c, None) for c in (case, case.__class__(**{**vars(case), "paths": 4000})))
    assert 1.8 < big["seconds"] / small["seconds"] < 2.2 and big["bytes"] > small["bytes"]
    assert check_budget(req, case, None)["seconds"] == small["seconds"]


def test_beyond_reach_is_said_with_its_size():
    """At d = 100 no #C >= 2 exists (K = 2^100): the hint says what an estimate would need and that it is beyond."""
    req = SolveRequest.make("quadratic_z", SolveOptions(d=100, cells=1, threads=1))
    case = req.case_at(req.steps)[0]
    why = req.below(case)[2]
    assert why.startswith("#C = 1 cannot be coarsened")
    hint = estimate_hint(req, case, why)
    assert hint.startswith("an error estimate needs a level below: --cells 3 (K = 3^100 = 5.15e+47 strata)")
    assert hint.endswith("beyond this method's reach on this machine")


@pytest.mark.slow
def test_an_answer_at_one_stratum_says_first_that_its_error_is_not_estimated(tmp_path, capsys):
    sol = srmdp.solve("quadratic_z", d=2, cells=1, paths=2000, runs=3, threads=1, progress=False)
    assert sol.u0_error is None and not sol.success and sol.status == 0
    assert sol.message.startswith("error NOT estimated (#C = 1 cannot be coarsened")
    assert "not its accuracy" in sol.message
    assert sol.u0_error_hint.startswith("an error estimate needs a level below: --cells 3 (K = 3^2 = 9 strata)")
    assert " is predicted at " in sol.u0_error_hint
    rc = main(["solve", *TINY[:4], "--cells", "1", *TINY[6:], "--runs", "3", "--out", str(tmp_path / "s.npz")])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    assert out[0].startswith("srmdp: error NOT estimated (#C = 1") and "--cells 3" in out[1]
    assert "±" in out[2]  # the standard error comes after what it is not


def test_srmdp_run_says_its_case_and_prediction_before_compute(monkeypatch, tmp_path, capsys):
    import srmdp.cli.commands

    said = []

    def first_run(*a, before_compute, **k):  # the checks passed: what run_case does before compiling
        before_compute()
        said.append(capsys.readouterr().err)
        raise KeyboardInterrupt

    monkeypatch.setattr(srmdp.cli.commands, "run_case", first_run)
    argv = "run --table LP0d4 --dt 0.2 --runs 3 --threads 1 --out".split() + [str(tmp_path / "r.json")]
    assert main(argv) != 0 and not (tmp_path / "r.json").exists()
    line = said[0].strip()
    assert line.startswith("srmdp: case N = 5, #C = 8, M = 25, K = 4,096, 3 runs: predicted ") and "\n" not in line
    assert "of compute on 1 thread (srmdp.case.cost)" in line and "GiB of host memory" in line


def test_a_dimension_beyond_the_stratum_field_is_refused_in_one_line_saying_what_runs(no_compute, capsys):
    """d = 100 with the defaults: the paper's rule's #C = 2 makes K = 2^100 strata; one line, exit 2, says where
    the method stops and what --cells 1 would give (no error estimate)."""
    rc = main(["solve", "--problem", "quadratic_z", "--d", "100", "--no-progress", "--out", "never.npz"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err
    assert err.startswith("srmdp: error: d = 100 is beyond this method's reach")
    assert "#C = 2 stops at d = 47" in err and "at d = 30" in err and "--cells 1" in err
