"""The workflow's reading in float32 path arithmetic, the paper's precision (config ``arithmetic``): the jobs and
summaries it makes, how its results are told apart from float64 ones, tables/arithmetic.tex and the sentences
that cite it."""

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from srmdp.case import readings
from srmdp.numerics import indicators
from srmdp.paper.plan.preset import Plan, load_configs
from srmdp.paper.report import switch_tables
from srmdp.paper.report.sentences import runs as run_sentences

ROOT = Path(__file__).resolve().parent.parent
UNBOUNDED = {"outside": "unbounded", "trunc_y": None, "trunc_z": None}


@pytest.fixture(scope="module")
def plan():
    return Plan(load_configs([ROOT / "config/config.yaml"]))


def test_the_float32_reading_runs_its_rows_and_stays_out_of_the_paper_tables(plan):
    fr = next(r for r in plan.arithmetic_readings if r.name == "theory-f32a")  # (paper-fit-f32a: the GPU's runs)
    assert fr not in plan.paper_readings and fr not in plan.zcv_readings
    assert fr.cli() == "--outside unbounded --arithmetic float32" and fr.options()["arithmetic"] == "float32"
    assert plan.base_reading(fr).name == "theory"
    assert "float32 path arithmetic" in fr.describe()
    solves = [t for kind, t, *_ in plan.jobs(cores=2) if kind == "solve" and f"/{fr.name}/" in t]
    assert len(solves) == len(fr.rows)
    assert len(plan.arithmetic_summaries()) == 2 * sum(len(r.rows) for r in plan.arithmetic_readings)
    assert plan.switch_summaries("arithmetic") == plan.arithmetic_summaries()
    assert plan.case(fr.rows[0], fr.name).arithmetic == "float32"
    assert plan.case(fr.rows[0], "theory").arithmetic == "float64"


def test_results_are_told_apart_by_their_arithmetic(plan):
    f64 = {"reading": dict(UNBOUNDED)}  # a result written before the field existed is float64
    f32 = {"reading": dict(UNBOUNDED, arithmetic="float32")}
    assert readings.reading_name(f64, plan.readings) == "theory"
    assert readings.reading_name(f32, plan.readings) == "theory-f32a"


def test_the_lsmdp_and_residual_readings_must_be_float64(plan):
    for section in ("lsmdp", "residuals"):
        cfg = load_configs([ROOT / "config/config.yaml"])
        cfg.setdefault(section, {})["reading"] = "theory-f32a"
        with pytest.raises(ValueError, match=f"{section}.reading"):
            Plan(cfg)


def _summary(path, key, arithmetic, values, ses):
    table, _, row = key.rpartition("_r")
    res = {
        "case": {"table": table, "row": int(row)},
        "device": "cpu",
        "runs": 32,
        "test_points": 1000,
        "seconds_per_run": 1.0,
        "reading": dict(UNBOUNDED, arithmetic=arithmetic),
    }
    res.update(dict(zip(indicators.INDICATORS, values, strict=True)))
    res.update({k + "_se": s for k, s in zip(indicators.INDICATORS, ses, strict=True)})
    path.write_text(json.dumps(res))
    return str(path)


def test_the_arithmetic_table_gives_each_difference_in_standard_errors(plan, tmp_path):
    ses = (0.04, 0.02, 0.01)
    off = _summary(tmp_path / "f64.json", "LP1d4_r1", "float64", (-5.0, -6.0, -2.0), ses)
    on = _summary(tmp_path / "f32.json", "LP1d4_r1", "float32", (-5.0 + 2e-7, -6.0 - 1e-7, -2.0 + 4e-8), ses)
    model = switch_tables.arithmetic_model(plan, [off, on])
    row = next(r for r in model["rows"] if r["table"] == "LP1d4" and r["row"] == 1)
    diff = row["diff"]
    assert diff["sources"] == [off, on]
    for k, d, se in zip(indicators.INDICATORS, (2e-7, -1e-7, 4e-8), ses, strict=True):
        assert math.isclose(diff[k], d, rel_tol=1e-6) and math.isclose(diff[k + "_rel"], abs(d) / se, rel_tol=1e-6)
    (worst,) = [w for w in model["worst"] if "Y,\\max" in w["indicator"]]
    assert math.isclose(worst["rel"], 5e-6, rel_tol=1e-6) and "LP1d4" in worst["where"]
    # the rows of the reading without both summaries: no difference
    assert sum(r["diff"] is not None for r in model["rows"]) == 1
    out = tmp_path / "arithmetic.tex"
    switch_tables.render_arithmetic(plan, [off, on], ROOT / "workflow/templates", out)
    text = out.read_text()
    assert r"\label{tab:arithmetic}" in text and f"% source: {off} {on}" in text
    assert r"difference &  & $2.0\times10^{-7}$ &" in text and r"\sigma$ &  & $5.0\times10^{-6}$ &" in text
    assert "not run" in text
    # ... and the sentences of the report cite the measurement instead of "not measured"
    measured = run_sentences.arithmetic_measured(model)
    assert measured.startswith("1 row on the CPU") and "5.0e-06 of its standard error" in measured
    cpu = [SimpleNamespace(arithmetic="float64", storage="float64", device="CPU")]
    assert "float32 arithmetic is measured on 1 row" in run_sentences.arithmetic_sentence(cpu, measured)
    assert "float32 arithmetic is not measured" in run_sentences.arithmetic_sentence(cpu, "")


def test_the_arithmetic_table_without_a_float32_reading(tmp_path):
    ci = Plan(load_configs([ROOT / "config/config.yaml", ROOT / "config/ci.yaml"]))
    assert not ci.arithmetic_readings and ci.arithmetic_summaries() == []
    switch_tables.render_arithmetic(ci, [], ROOT / "workflow/templates", tmp_path / "arithmetic.tex")
    assert "No reading in float32 arithmetic" in (tmp_path / "arithmetic.tex").read_text()
    assert run_sentences.arithmetic_measured(switch_tables.arithmetic_model(ci, [])) == ""
