"""The workflow's reading with the Z control variate: config keys z_cv and rows, which jobs
and summaries it makes, how results are told apart from the paper's readings, and tables/zcv.tex."""

import json
import math
from pathlib import Path

import pytest

from srmdp.case import readings
from srmdp.numerics import indicators
from srmdp.paper.plan.preset import Plan, load_configs
from srmdp.paper.report import figures, switch_tables, tables

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def plan():
    return Plan(load_configs([ROOT / "config/config.yaml"]))


def test_default_preset_has_a_zcv_reading_on_some_rows(plan):
    names = [r.name for r in plan.readings]
    assert names[:2] == ["paper-fit", "theory"]  # the paper's two readings are unchanged ...
    assert [r.name for r in plan.paper_readings] == ["paper-fit", "theory"]
    assert not any(r.z_cv for r in plan.paper_readings)
    (zr,) = plan.zcv_readings  # ... and one more, beyond the paper
    assert zr.cli() == "--outside unbounded --z-cv" and zr.options()["z_cv"] is True
    assert plan.base_reading(zr).name == "theory"
    assert zr.runs_row("LP1d4_r2") and not zr.runs_row("LP1d11_r1")
    sums = plan.summaries()
    assert f"{plan.published}/theory-zcv/LP1d4_r2/cpu.json" in sums
    assert f"{plan.published}/theory-zcv/LP1d11_r1/cpu.json" not in sums
    assert f"{plan.published}/theory/LP1d11_r1/cpu.json" in sums
    solves = [t for kind, t, *_ in plan.jobs(cores=2) if kind == "solve" and "/theory-zcv/" in t]
    assert len(solves) == len(zr.rows)
    zs = plan.zcv_summaries()
    assert len(zs) == 2 * len(zr.rows) and all("/theory/" in p or "/theory-zcv/" in p for p in zs)


def test_paper_preset_zcv_rows_exist():
    paper = Plan(load_configs([ROOT / "config/config.yaml", ROOT / "config/paper.yaml"]))
    (zr,) = paper.zcv_readings
    assert set(zr.rows) <= set(paper.by_key) and "LP1d4_r3" in zr.rows


def test_a_reading_rows_filter_names_paper_rows():
    cfg = load_configs([ROOT / "config/config.yaml"])
    cfg["readings"][2]["rows"] = ["LP1d4_r2", "LP1d4_r9"]  # no such row in the paper
    with pytest.raises(ValueError, match="LP1d4_r9"):
        Plan(cfg)
    cfg["readings"][2]["rows"] = ["LP1d4_r2", "LP1d4_r4"]  # LP1d4 dt=0.02: a paper row the preset does not run
    cfg["cases"] = [{"table": "LP1d6_1", "rows": [1]}]  # a preset narrowing cases: the filter selects nothing
    plan = Plan(cfg)
    assert [s.key for s in plan.selected] == ["LP1d6_1_r1"]
    assert not any("/theory-zcv/" in p for p in plan.summaries()) and plan.zcv_summaries() == []
    cfg = load_configs([ROOT / "config/config.yaml"])
    cfg["lsmdp"]["reading"] = "theory-zcv"
    with pytest.raises(ValueError, match="lsmdp.reading"):
        Plan(cfg)


def _summary(path, key, reading, z_cv, values, ses, seconds=1.0):
    table, _, row = key.rpartition("_r")
    res = {
        "case": {"table": table, "row": int(row)},
        "device": "cpu",
        "runs": 8,
        "test_points": 1000,
        "seconds_per_run": seconds,
        "reading": {"outside": reading[0], "trunc_y": reading[1], "trunc_z": reading[2]},
    }
    if z_cv is not None:
        res["reading"]["z_cv"] = z_cv
    res.update(dict(zip(indicators.INDICATORS, values, strict=True)))
    res.update({k + "_se": s for k, s in zip(indicators.INDICATORS, ses, strict=True)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res))
    return str(path)


def test_results_are_told_apart_by_z_cv(plan):
    theory, zr = plan.reading("theory"), plan.reading("theory-zcv")
    old = {"reading": {"outside": "unbounded", "trunc_y": None, "trunc_z": None}}  # written before z_cv existed
    on = {"reading": {"outside": "unbounded", "trunc_y": None, "trunc_z": None, "z_cv": True}}
    assert readings.matches(old, theory) and not readings.matches(old, zr)
    assert readings.matches(on, zr) and not readings.matches(on, theory)
    assert readings.reading_name(old, plan.readings) == "theory"
    assert readings.reading_name(on, plan.readings) == "theory-zcv"
    assert not readings.same_reading(readings.reading_of(old), readings.reading_of(on))


def test_zcv_table_and_paper_tables(plan, tmp_path):
    unb = ("unbounded", None, None)
    off = _summary(tmp_path / "theory.json", "LP1d4_r2", unb, None, (-5.47, -5.62, -1.58), (0.03, 0.01, 0.008), 1.8)
    on = _summary(tmp_path / "zcv.json", "LP1d4_r2", unb, True, (-5.50, -5.65, -3.74), (0.03, 0.01, 0.01), 1.9)
    model = switch_tables.zcv_model(plan, [off, on])
    row = next(r for r in model["rows"] if r["table"] == "LP1d4" and r["row"] == 2)
    diff = row["diff"]
    assert math.isclose(diff["mse_z_av"], -2.16) and math.isclose(diff["mse_z_av_se"], math.hypot(0.008, 0.01))
    assert math.isclose(diff["gain"], math.exp(2.16))
    assert math.isclose(diff["mse_y_av_z"], -0.03 / math.hypot(0.01, 0.01))
    assert row["paper"]["mse_z_av"] == pytest.approx(-1.551480)
    out = tmp_path / "zcv.tex"
    switch_tables.render_zcv(plan, [off, on], ROOT / "workflow/templates", out)
    text = out.read_text()
    assert r"\toprule" in text and r"\bottomrule" in text and r"\label{tab:zcv}" in text
    assert f"% source: {off} {on}" in text and "-2.160" in text and r"\div8.7" in text
    assert "not run" in text  # the rows of the reading without a summary here
    # the paper's table LP1d4 shows the paper's two readings only
    tables.render_table(plan, "LP1d4", [off, on], [], [], ROOT / "workflow/templates", tmp_path / "LP1d4.tex")
    t = (tmp_path / "LP1d4.tex").read_text()
    assert "theory-zcv" not in t and "& theory & CPU" in t and str(on) not in t


def test_zcv_table_without_a_zcv_reading(tmp_path):
    ci = Plan(load_configs([ROOT / "config/config.yaml", ROOT / "config/ci.yaml"]))
    assert not ci.zcv_readings and ci.zcv_summaries() == []
    switch_tables.render_zcv(ci, [], ROOT / "workflow/templates", tmp_path / "zcv.tex")
    assert "No reading with the $Z$ control variate" in (tmp_path / "zcv.tex").read_text()


def test_convergence_figure_draws_the_zcv_reading(plan, tmp_path):
    unb = ("unbounded", None, None)
    off = _summary(tmp_path / "a.json", "LP1d4_r2", unb, None, (-5.47, -5.62, -1.58), (0.03, 0.01, 0.008))
    on = _summary(tmp_path / "b.json", "LP1d4_r2", unb, True, (-5.50, -5.65, -3.74), (0.03, 0.01, 0.01))
    figures.figure_convergence(plan, [off, on], str(tmp_path / "conv"))
    assert (tmp_path / "conv.pdf").stat().st_size > 1000 and (tmp_path / "conv.png").is_file()
