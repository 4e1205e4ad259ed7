"""The residual experiments (srmdp.paper.report.residuals): the plan's jobs, the table's arithmetic on
synthetic summaries with known z-scores, and the default preset's coverage of its own outliers."""

import json
import math
from pathlib import Path

import pytest

from srmdp.numerics.indicators import INDICATORS
from srmdp.paper.inputs.rows import paper_rows
from srmdp.paper.plan.preset import Plan, load_configs
from srmdp.paper.report.residuals import render_residuals, residuals_model

ROOT = Path(__file__).resolve().parents[1]
PAPER = next(r for r in paper_rows() if (r["table"], r["row"]) == ("LP0d4", 1))


def _plan(**residuals):
    config = load_configs([ROOT / "config/config.yaml", ROOT / "config/ci.yaml"])
    if residuals:
        config["residuals"] = residuals
    return Plan(config)


def test_variant_arguments_change_one_thing():
    plan = _plan(
        reading="paper-fit",
        rows=["LP0d4_r1", "LP0d4_r2"],
        variants=[
            {"name": "f32", "hypothesis": "h", "precision": "float32"},
            {"name": "notz", "hypothesis": "h", "trunc_z": None},
            {"name": "s", "hypothesis": "h", "seed": 7},
        ],
    )
    assert plan.residual_rows == ["LP0d4_r1"]  # LP0d4_r2 is not among ci's cases: skipped, as a reading's rows
    base = "--table LP0d4 --row 1 --outside zero --trunc-y 1"
    assert (
        plan.residual_args("f32", "LP0d4_r1") == f"{base} --trunc-z 1 --runs 8 --test-points 1000 --seed 2016"
        " --precision float32"
    )
    assert (
        plan.residual_args("notz", "LP0d4_r1") == f"{base} --runs 8 --test-points 1000 --seed 2016 --precision float64"
    )
    assert "--seed 7 " in plan.residual_args("s", "LP0d4_r1")
    assert [j[1] for j in plan.jobs() if j[0] == "resid"] == [
        f"results/ci/residuals/{v}/LP0d4_r1/cpu.json" for v in ("f32", "notz", "s")
    ]


@pytest.mark.parametrize(
    "residuals,match",
    [
        ({"reading": "nope", "rows": [], "variants": []}, "residuals.reading: unknown reading 'nope'"),
        (
            {"reading": "paper-fit", "rows": ["LP0d4_r9"], "variants": []},
            "residuals.rows: not the paper's rows: LP0d4_r9",
        ),
        ({"reading": "paper-fit", "rows": [], "variants": [{"name": "a", "hypothesis": "h"}] * 2}, "duplicate name"),
    ],
)
def test_bad_residuals_config_is_refused(residuals, match):
    with pytest.raises(ValueError, match=match):
        _plan(**residuals)


def _summary(path, values, se, literal=None, splits=None, reading=("zero", 1.0, 1.0)):
    res = {
        "case": {"table": "LP0d4", "row": 1, "precision": "float64"},
        "device": "cpu",
        "runs": 8,
        "reading": dict(zip(("outside", "trunc_y", "trunc_z"), reading, strict=True)),
    }
    for j, (k, v) in enumerate(zip(INDICATORS, values, strict=True)):
        res[k], res[k + "_se"] = v, se
        if literal is not None:
            res["literal_" + k[len("mse_") :]], res["literal_" + k[len("mse_") :] + "_se"] = literal[j], se
    if splits is not None:
        res["splits"] = splits
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res))
    return str(path)


def test_table_judges_each_hypothesis_by_the_equivalence_rule(tmp_path, monkeypatch):
    """8 runs, se 0.01: the interval is +-4.55 se = +-0.0455 (t on 7 d.o.f. at the 3-sigma level, times
    sqrt(1 + 8/1000)), the margin 0.1 (config equivalence)."""
    monkeypatch.chdir(tmp_path)
    plan = _plan(
        reading="paper-fit",
        rows=["LP0d4_r1"],
        variants=[{"name": "seed-2", "hypothesis": "another seed", "seed": 2}],
    )
    p = [PAPER[k] for k in INDICATORS]
    se = 0.01
    # ours: Y,max Delta +0.20 (differs: 0.20 - 0.0455 > 0.1), Y,av and Z,av +0.01 (reproduced)
    split = {
        "y_max_shift": -0.04,
        "y_max_sd": 0.02,
        "y_av_shift": 0.0,
        "y_av_sd": 0.05,
        "z_av_shift": 0.0,
        "z_av_sd": 0.001,
    }
    ours = [p[0] + 0.2, p[1] + 0.01, p[2] + 0.01]
    base = _summary(
        Path(plan.summary_path("paper-fit", "LP0d4_r1", "cpu")),
        ours,
        se,
        literal=[p[0] + 0.19, p[1], p[2]],
        splits={"1000x1": split, "1000x1000": dict(split, y_max_shift=0.0, y_max_sd=0.001, y_av_sd=0.001)},
    )
    other = _summary(
        Path(plan.summary_path("theory", "LP0d4_r1", "cpu")),
        [p[0] + 1, p[1] + 1, p[2] + 1],
        se,
        reading=("unbounded", None, None),
    )  # another reading: not analysed
    var = _summary(Path(plan.residual_path("seed-2", "LP0d4_r1")), [p[0] + 0.05, p[1] + 0.2, p[2]], se)
    m = residuals_model(plan, [base, other], [var])
    assert [c["indicator"] for c in m["cells"]] == [r"$\mathrm{MSE}_{Y,\max}$"] and m["n_within"] == 2
    cell = m["cells"][0]
    assert cell["verdict"] == "differs" and math.isclose(cell["diff"], 0.2)
    lit, s1, s2, seed = cell["h"]
    assert math.isclose(lit[0], 0.19) and lit[1] == "differs"  # literal: rejected
    # 10^3 x 1: shifted by the split's bias (0.16), spread sqrt(0.01^2 + 0.02^2): interval +-0.10, undecided
    assert math.isclose(s1[0], 0.16) and s1[1] == "undecided"
    assert math.isclose(s2[0], 0.2) and s2[1] == "differs"  # 10^3 x 10^3: the paper's error 0.001, rejected
    assert math.isclose(seed[0], 0.05) and seed[1] == "reproduced"  # the rerun accounts for it
    assert cell["rejected"] == ["literal", "$10^3{\\times}10^3$"]
    assert cell["explained"] == ["$10^3{\\times}1$", "seed-2"] and cell["accounts"] == ["seed-2"]
    # per column (literal, 10^3x1, 10^3x10^3, seed-2): rejects / reproduces of the 1 listed, breaks of the 2 reproduced
    assert [(t["rejects"], t["accounts"], t["of"]) for t in m["tally"]] == [(1, 0, 1), (0, 0, 1), (1, 0, 1), (0, 1, 1)]
    assert [(t["breaks"], t["within"]) for t in m["tally"]] == [(0, 2), (0, 2), (0, 2), (1, 2)]  # seed: Y,av +0.2
    out = tmp_path / "residuals.tex"
    render_residuals(plan, [base, other], [var], ROOT / "workflow/templates", out)
    text = out.read_text()
    assert r"$\mathbf{+0.190}$" in text and "$+0.160$" in text and "$+0.050$" in text
    assert r"$\mathbf{+0.160}$" not in text  # bold is differs only
    line = next(x for x in text.splitlines() if x.startswith("LP0d4 &"))
    assert line.endswith(f"% source: {base} {var}")


def test_default_preset_reruns_every_row_with_a_difference():
    """Every paper-fit row of the committed default summaries with a number the rule calls differs is rerun by the
    residual variants (or the table says 'not tested' for want of trying)."""
    plan = Plan(load_configs([ROOT / "config/config.yaml"]))
    reading = plan.residual_reading
    outliers = []
    for s in plan.selected:
        res = json.loads((ROOT / plan.summary_path(reading, s.key, "cpu")).read_text())
        paper = next(r for r in paper_rows() if (r["table"], r["row"]) == (s.table, s.row))
        rule = plan.equivalence
        if any(rule.verdict(res[k] - paper[k], res[k + "_se"], res["runs"]) == "differs" for k in INDICATORS):
            outliers.append(s.key)
    assert outliers and set(outliers) <= set(plan.residual_rows), (outliers, plan.residual_rows)


def test_a_variant_with_its_own_rows_and_runs_and_rows_outside_the_cases():
    plan = Plan(load_configs([ROOT / "config/config.yaml"]))
    assert {"LP1d12_r1", "LP1d13_r1"} <= set(plan.residual_rows) and "LP1d12_r1" not in plan.by_key
    assert plan.variant_rows("f32-paths") == ["LP1d4_r2"] and plan.variant("f32-paths").predicted
    assert "--arithmetic float32 --runs 32" in plan.residual_args("f32-paths", "LP1d4_r2")
    assert f"--runs {plan.residual_runs}" in plan.residual_args("float32", "LP1d13_r1")
    jobs = [j[1] for j in plan.jobs(2) if j[0] == "resid"]
    assert "results/default/residuals/f32-paths/LP1d4_r2/cpu.json" in jobs
    assert "results/default/residuals/f32-paths/LP1d4_r1/cpu.json" not in jobs
    assert len(jobs) == len(plan.residual_files())
