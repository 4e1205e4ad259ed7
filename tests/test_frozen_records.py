"""The results are frozen records (issue 50): a Solution, its SolveResult, the runs' RunResult and PerRun, and the
ErrorEstimate refuse an attribute's assignment, and what they read out are copies; a changed result is a new
record (dataclasses.replace, Solution.replace) and leaves the old one as it was."""

import dataclasses

import pytest

from srmdp.runs.result import PerRun, RunResult
from srmdp.solutions.error_estimate import ErrorEstimate
from srmdp.solutions.solve_result import SolveResult


@pytest.fixture(scope="module")
def sol():
    from srmdp.solving import solve

    return solve("gobet2016", d=1, dt=0.5, cells=2, paths=8, runs=2, progress=False, threads=1)


def test_a_solution_and_its_records_refuse_assignment(sol):
    assert isinstance(sol.result, SolveResult) and isinstance(sol.result.run, RunResult)
    assert isinstance(sol.result.error_estimate, ErrorEstimate) and isinstance(sol.result.run.per_run, PerRun)
    for obj, name in (
        (sol, "result"),
        (sol, "runs"),
        (sol, "anything_new"),
        (sol.result, "error_estimate"),
        (sol.result, "run"),
        (sol.result.run, "u0"),
        (sol.result.run.per_run, "u0"),
        (sol.result.error_estimate, "u0_error"),
    ):
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
    with pytest.raises(AttributeError):
        del sol.case
    with pytest.raises(TypeError):  # the mappings inside are read-only
        sol.result.run.case["d"] = 3


def test_what_a_result_reads_out_is_a_copy_and_a_change_is_a_new_record(sol):
    u0 = sol.result["u0"]
    sol.result["per_run"]["u0"].append(1.0)
    sol.result["error_estimate"]["u0_error"] = -1.0
    assert len(sol.result["per_run"]["u0"]) == 2 and sol.u0_error != -1.0
    est = dataclasses.replace(sol.result.error_estimate, u0_error=0.5)
    other = sol.replace(result=dataclasses.replace(sol.result, error_estimate=est))
    assert other.u0_error == 0.5 and sol.u0_error != 0.5 and sol.result["u0"] == u0 == other.result["u0"]


def test_an_error_estimate_reads_and_writes_its_json_object():
    for data in (
        {"u0_error": None, "reason": "why"},
        {"u0_error": 0.1, "bias": 0.05, "rho": 2.0, "coarse_case": {"d": 1}, "z0_error": None, "z0_reason": "z"},
        {"u0_error": 0.1, "bias": 0.05, "rho": 4.0, "against": 3, "against_kind": "richardson", "richardson": True},
    ):
        est = ErrorEstimate.from_dict(data)
        assert est.to_dict() == data and ErrorEstimate.from_dict(est.to_dict()) == est


def test_a_solve_result_reads_back_its_json_object_the_extrapolated_u0_included(sol):
    """A solution file's result object reads back as the record that wrote it, with the keys in their order; an
    answer extrapolated in dt writes its extrapolated u0 where the runs' u0 is, and reads the plain one back."""
    data = sol.result.to_dict()
    assert SolveResult.from_dict(data) == sol.result and list(SolveResult.from_dict(data)) == list(data)
    ext = {"u0": 1.5, "u0_se": 0.01, "plain_u0": data["u0"], "plain_u0_se": data["u0_se"], "partners": [2, 1]}
    res = dataclasses.replace(sol.result, extrapolated=ext)
    out = res.to_dict()
    assert out["u0"] == 1.5 and res.run.u0 == data["u0"] and list(out)[: len(data)] == list(data)
    assert SolveResult.from_dict(out) == res
