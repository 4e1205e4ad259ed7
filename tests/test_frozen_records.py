"""The results are frozen records: a Solution, its SolveResult, the runs' RunResult and PerRun, the ErrorEstimate, a
refinement's Row and its state (Climb) refuse an attribute's assignment, and what they read out are copies; a
changed result is a new record (dataclasses.replace, Solution.replace) and leaves the old one as it was."""

import dataclasses

import pytest

from srmdp.refine.climb import Climb
from srmdp.runs.result import PerRun, RunResult
from srmdp.solutions.error_estimate import ErrorEstimate
from srmdp.solutions.row import Row
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


# a refinement's rows as a solution file has them: the level's keys, then what the climb learned, in its order
ROWS = [
    {"level": 0, "kind": "rule", "steps": 2, "dt": 0.5, "cells": 1, "paths": 50, "runs": 4, "u0": 1.2,
     "u0_se": 0.01, "u0_error": None, "seconds": 0.1, "status": "ok", "remedies": [], "best": None},
    {"level": 1, "kind": "dt-partner", "steps": 5, "dt": 0.2, "cells": 3, "paths": 200, "runs": 4, "u0": 1.1,
     "u0_se": 0.01, "u0_error": 0.2, "seconds": 0.2, "status": "pooled", "remedies": ["adapted strata"],
     "best": {"kind": "plain", "u0": 1.1, "u0_se": 0.01, "u0_error": 0.2}, "bias": 0.19, "against": 0},
    {"level": 2, "kind": "fill-runs", "steps": 10, "dt": 0.1, "cells": 3, "paths": 200, "runs": 8, "u0": 1.05,
     "u0_se": 0.007, "u0_error": None, "seconds": 0.3, "status": "ok", "remedies": ["adapted strata"],
     "best": {"kind": "richardson", "u0": 1.0, "u0_se": 0.02, "u0_error": 0.05, "next_order": 0.0},
     "pooled_with": 1,
     "richardson": {"u0": 1.0, "u0_se": 0.02, "partners": [1], "partner_steps": [5], "order_confirmed": True},
     "dt_part": 0.05, "plain_best": None},
    {"level": 3, "kind": "rule", "steps": 20, "dt": 0.05, "cells": 5, "paths": 800, "runs": 4, "u0": None,
     "u0_se": None, "u0_error": None, "seconds": 1.0, "status": "diverged", "remedies": [], "best": None,
     "message": "divergence"},
]  # fmt: skip


def test_a_refinement_row_and_the_climb_refuse_assignment_and_a_new_version_replaces_its_level():
    row = Row.from_dict(ROWS[2])
    for obj, name in ((row, "u0"), (row, "best"), (Climb(), "rate"), (Climb(), "rows")):
        with pytest.raises(AttributeError):
            setattr(obj, name, None)
    with pytest.raises(TypeError):  # the mappings inside are read-only
        row.best["u0"] = 0.0
    rows = [Row.from_dict(r) for r in ROWS]
    state = Climb(rows=rows, done=[("case", r, "sol") for r in rows[:3]], answer=("sol", rows[2]))
    new = dataclasses.replace(rows[2], status="pooled")
    after = state.with_row(new)
    assert after.rows[2] is new and after.done[2][1] is new and after.answer[1] is new
    assert state.rows[2] is rows[2] and state.answer[1].status == "ok"  # the old state as it was


def test_a_refinement_s_rows_read_back_from_a_solution_file_as_they_were_written(sol):
    """A file's rows read as Rows and write back the same JSON objects, key for key in their order (a plain best
    recorded as None included); the solution's refinement is the Rows."""
    data = {**sol.result.to_dict(), "tol": 0.1, "budget_s": 10.0, "tol_met": False, "refinement": ROWS}
    res = SolveResult.from_dict(data)
    assert all(isinstance(r, Row) for r in res.refinement)
    out = res.to_dict()["refinement"]
    assert out == ROWS and [list(r) for r in out] == [list(r) for r in ROWS]
    assert SolveResult.from_dict(res.to_dict()) == res
    assert sol.replace(result=res).refinement[2].richardson["partner_steps"] == (5,)
