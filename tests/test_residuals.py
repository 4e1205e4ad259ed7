"""The residual experiments (srmdp.paper.residuals): the plan's jobs, the table's arithmetic on
synthetic summaries with known z-scores, and the default preset's coverage of its own outliers."""

import json
import math
from pathlib import Path

import pytest

from srmdp.indicators import INDICATORS
from srmdp.paper.plan import Plan, load_configs
from srmdp.paper.residuals import render_residuals, residuals_model
from srmdp.paper.rows import paper_rows

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


def test_table_counts_what_each_hypothesis_explains_and_breaks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = _plan(
        reading="paper-fit",
        threshold=3,
        rows=["LP0d4_r1"],
        variants=[{"name": "seed-2", "hypothesis": "another seed", "seed": 2}],
    )
    p = [PAPER[k] for k in INDICATORS]
    se = 0.01
    # ours: Y,max 5 s.e. above the paper (beyond), Y,av and Z,av 1 s.e. (within)
    split = {
        "y_max_shift": -0.04,
        "y_max_sd": 0.02,
        "y_av_shift": 0.0,
        "y_av_sd": 0.05,
        "z_av_shift": 0.0,
        "z_av_sd": 0.001,
    }
    ours = [p[0] + 0.05, p[1] + 0.01, p[2] + 0.01]
    base = _summary(
        Path(plan.summary_path("paper-fit", "LP0d4_r1", "cpu")),
        ours,
        se,
        literal=[p[0] + 0.045, p[1], p[2]],
        splits={"1000x1": split, "1000x1000": dict(split, y_max_shift=0.0, y_max_sd=0.001)},
    )
    other = _summary(
        Path(plan.summary_path("theory", "LP0d4_r1", "cpu")),
        [p[0] + 1, p[1] + 1, p[2] + 1],
        se,
        reading=("unbounded", None, None),
    )  # another reading: not analysed
    var = _summary(Path(plan.residual_path("seed-2", "LP0d4_r1")), [p[0] + 0.06, p[1] + 0.05, p[2]], se)
    m = residuals_model(plan, [base, other], [var])
    assert [c["indicator"] for c in m["cells"]] == [r"$\mathrm{MSE}_{Y,\max}$"] and m["n_within"] == 2
    cell = m["cells"][0]
    assert math.isclose(cell["z0"], 5.0) and math.isclose(cell["diff"], 0.05)
    lit, s1, s2, seed = cell["z"]
    assert math.isclose(lit, 4.5)  # literal: (p + 0.045 - p) / 0.01
    assert math.isclose(s1, (0.05 - 0.04) / math.hypot(0.01, 0.02))  # shifted by the split's bias, combined spread
    assert math.isclose(s2, 0.05 / math.hypot(0.01, 0.001))
    assert math.isclose(seed, 6.0)
    assert cell["explained"] == ["$10^3{\\times}1$"]
    # tally per column (literal, 10^3x1, 10^3x10^3, seed-2): explains of 1 beyond, breaks of the 2 within
    assert [(t["explains"], t["of"]) for t in m["tally"]] == [(0, 1), (1, 1), (0, 1), (0, 1)]
    assert [(t["breaks"], t["within"]) for t in m["tally"]] == [(0, 2), (0, 2), (0, 2), (1, 2)]  # seed: Y,av 5 s.e.
    out = tmp_path / "residuals.tex"
    render_residuals(plan, [base, other], [var], ROOT / "workflow/templates", out)
    text = out.read_text()
    assert r"$\mathbf{+0.4}$" in text and "$+4.5$" in text and r"\emph{unexplained}" not in text
    line = next(x for x in text.splitlines() if x.startswith("LP0d4 &"))
    assert line.endswith(f"% source: {base} {var}")


def test_default_preset_reruns_every_row_with_an_outlier():
    """Every paper-fit row of the committed default summaries with a cell beyond the threshold is rerun by the
    residual variants (or the table says 'unexplained' for want of trying)."""
    plan = Plan(load_configs([ROOT / "config/config.yaml"]))
    reading = plan.residual_reading
    outliers = []
    for s in plan.selected:
        res = json.loads((ROOT / plan.summary_path(reading, s.key, "cpu")).read_text())
        paper = next(r for r in paper_rows() if (r["table"], r["row"]) == (s.table, s.row))
        if any(abs(res[k] - paper[k]) > plan.residual_threshold * res[k + "_se"] for k in INDICATORS):
            outliers.append(s.key)
    assert outliers and set(outliers) <= set(plan.residual_rows), (outliers, plan.residual_rows)
