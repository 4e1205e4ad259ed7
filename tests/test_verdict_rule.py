"""The report's one verdict (srmdp.paper.models.equivalence), one test per class of defect it had: an asymmetric rule
(|z| <= 3 for "agrees" at any number of runs, a t-limit for "disagrees"), "rejected" where the rule does not reject,
sensitivity counts that do not add up, in-sample agreement counted as evidence, bold meaning two things."""

import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from srmdp.paper.models.equivalence import Equivalence
from srmdp.paper.models.splits import PAPER_RUNS
from srmdp.paper.models.student import t_quantile

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "tables"
RULE = Equivalence(0.1, 0.9973)


@lru_cache(maxsize=1)
def _plan():
    from srmdp.paper.plan.preset import Plan, load_configs

    return Plan(load_configs([ROOT / "config" / "config.yaml"]))


@lru_cache(maxsize=1)
def _cells():
    from srmdp.paper.report.judged import cells, report_readings

    plan = _plan()
    return cells(plan, plan.summaries(), plan.gpu_summaries(), report_readings(plan))


def _verdict(diff, se, runs, delta=0.1, level=0.9973):
    """The rule written out again from its definition (not through the module): the interval of Delta, Student's t
    on runs - 1 degrees of freedom, the paper's error at its 10^3 runs added to ours."""
    if runs < 2 or not se:
        return "undecided"
    h = t_quantile(0.5 * (1 + level), runs - 1) * se * math.sqrt(1 + runs / 1000)
    lo, hi = diff - h, diff + h
    if -delta < lo and hi < delta:
        return "reproduced"
    if hi < -delta or lo > delta:
        return "differs"
    return "undecided"


# --- the rule: symmetric, both sides from the same interval -----------------------------------------------------
def test_a_two_run_set_is_reproduced_only_with_a_standard_error_below_delta_over_236():
    t2 = RULE.t(2)
    assert 235 < t2 < 236.5  # R - 1 = 1: the two-sided 3-sigma quantile of Student's t
    limit = RULE.delta / t2 / math.sqrt(1 + 2 / PAPER_RUNS)
    for diff in (0.0, 0.01, -0.05):
        assert RULE.verdict(diff, 1.01 * limit, 2) != "reproduced"
    assert RULE.verdict(0.0, 0.99 * limit, 2) == "reproduced"  # the formula, not a special case of 2 runs


def test_no_committed_two_run_set_is_reproduced():
    """Every 2-run set of ours has a standard error above delta / 236 (the smallest is about 1e-3), so none can be
    called reproduced, whatever its value: the asymmetry of the old rule (|z| <= 3 said "agrees" at 2 runs)."""
    two = [c for c in _cells() if c.runs == 2 and c.se]
    assert two
    assert all(c.verdict != "reproduced" for c in two)
    assert min(c.se for c in two) > RULE.delta / RULE.t(2)


@pytest.mark.parametrize("runs", [2, 3, 8, 32, 100, 1000])
def test_the_rule_is_symmetric_and_is_its_definition(runs):
    rng = np.random.default_rng(runs)
    for diff, se in zip(rng.normal(0, 0.2, 300), rng.exponential(0.03, 300), strict=True):
        v = RULE.verdict(diff, se, runs)
        assert v == RULE.verdict(-diff, se, runs)  # the sign of Delta does not matter
        assert v == _verdict(diff, se, runs)
        h = RULE.half_width(se, runs)
        if h >= RULE.delta:  # an interval wider than the margin can differ, never reproduce
            assert v != "reproduced"
        if abs(diff) <= RULE.delta:  # a Delta inside the margin can never differ
            assert v != "differs"


def test_the_papers_own_error_widens_the_interval_and_one_run_decides_nothing():
    assert RULE.verdict(0.0, None, 1) == "undecided" and RULE.verdict(5.0, None, 1) == "undecided"
    se, runs = 0.01, 1000
    assert math.isclose(RULE.half_width(se, runs), RULE.t(runs) * se * math.sqrt(2))  # at 10^3 runs: ours = paper's
    assert RULE.half_width(se, 8) < RULE.half_width(se, 4) < RULE.half_width(se, 2)


def test_the_margin_is_declared_once_in_the_config_with_its_reason():
    eq = _plan().equivalence
    assert (eq.delta, eq.level) == (0.1, 0.9973) and len(eq.reason) > 40
    for src in ROOT.glob("srmdp/paper/*.py"):  # no other home of the margin
        assert not re.search(r"\bdelta\s*=\s*0\.1\b", src.read_text()), src.name


# --- "rejected" only where the rule rejects -------------------------------------------------------------------
@pytest.mark.slow  # the residuals model on the committed files (~5 s)
def test_a_hypothesis_is_rejected_exactly_where_the_rule_says_differs_under_it():
    from srmdp.paper.report.residuals import residuals_model

    plan = _plan()
    m = residuals_model(plan, plan.summaries(), plan.residual_files(), plan.gpu_summaries())
    assert m["cells"]
    for c in m["cells"]:
        for h, x in zip(m["headers"], c["h"], strict=True):
            if x is None:
                assert h not in c["rejected"] and h not in c["explained"]
                continue
            assert (h in c["rejected"]) == (x[1] == "differs"), (c["table"], c["indicator"], h)
            assert (h in c["explained"]) == (x[1] != "differs")
        assert c["verdict"] != "reproduced"  # only numbers to explain are listed
    text = (TABLES / "residuals.tex").read_text()
    for line in text.splitlines():
        if "rejected by all" in line:  # every hypothesis column of that line is bold (differs) or has no data
            cols = line.split("&")[6:-1]
            assert all("mathbf" in x or x.strip() == "--" for x in cols), line


def test_the_old_three_sigma_rejections_are_not_rejections():
    """seed-2017 on LP1d4_r2 (8 runs): z = -4.2 against the paper, |Delta| = 0.31 with an interval of +-0.34 at 8
    runs: the rule leaves it undecided, so the hypothesis is not rejected there."""
    import json

    res = json.loads((ROOT / "data/summaries/default/residuals/seed-2017/LP1d4_r2.json").read_text())
    from srmdp.paper.inputs.rows import paper_rows

    paper = next(r for r in paper_rows() if (r["table"], r["row"]) == ("LP1d4", 2))
    d, se = res["mse_y_max"] - paper["mse_y_max"], res["mse_y_max_se"]
    assert abs(d / se) > 3 and RULE.verdict(d, se, res["runs"]) == "undecided"


# --- the counts: in and out of sample, at delta/2, delta and 2 delta --------------------------------------------
def _numbers():
    from srmdp.paper.report.verdict import paper_numbers

    return paper_numbers(_cells(), "paper-fit")


def test_sensitivity_counts_add_up_and_move_the_right_way():
    from srmdp.paper.report.verdict import evidence_totals

    t = evidence_totals(_numbers())
    for s in ("out", "in"):
        x = t[s]
        half, double = x["sensitivity"]["half"], x["sensitivity"]["double"]
        for y in (x, half, double):
            assert y["reproduced"] + y["differs"] + y["undecided"] == x["n"]
        assert half["reproduced"] <= x["reproduced"] <= double["reproduced"]
        assert half["differs"] >= x["differs"] >= double["differs"]
    assert t["out"]["n"] + t["in"]["n"] == t["numbers"] == 3 * t["rows"]


def test_in_sample_is_exactly_the_fitted_reading_at_its_fitted_step():
    from srmdp.paper.report.tables import FIT_DT, FIT_READING

    for n in _numbers():
        assert n["in_sample"] == (n["reading"] == FIT_READING and math.isclose(n["dt"], FIT_DT)), n


@pytest.mark.slow  # the whole summary model (~10 s)
def test_page_one_gives_out_of_sample_first_and_each_number_once():
    from test_report_evidence import _model

    m = _model()
    t = m["totals"]
    s = m["sentences"]["agreement"]
    o, i = t["out"], t["in"]
    head = f"of {o['n']} numbers"
    assert head in s and f"{o['reproduced']} are reproduced and {o['differs']} differ" in s
    assert s.index("Out of sample") < s.index("In sample")
    assert f"{i['reproduced']} reproduced, {i['differs']} differ, {i['undecided']} undecided of {i['n']}" in s
    half, double = o["sensitivity"]["half"], o["sensitivity"]["double"]
    assert f"at $\\delta/2$: {half['reproduced']} reproduced" in s and f"at $2\\delta$: {double['reproduced']}" in s
    assert sum(r["totals"]["out"]["n"] + r["totals"]["in"]["n"] for r in m["scorecard"]) == t["numbers"]
    assert "within three standard errors" not in s and "weak evidence" not in s


# --- bold means one thing -----------------------------------------------------------------------------------
def test_bold_is_the_rules_differs_and_nothing_else_in_the_formatters():
    from srmdp.paper.report import latex

    assert "mathbf" not in latex.fmt_z(25.0) + latex.fmt_sigma(25.0)
    assert latex.fmt_delta(-0.4, "differs") == "$\\mathbf{-0.400}$"
    assert latex.fmt_delta(-0.4, "undecided") == latex.fmt_delta(-0.4) == "$-0.400$"


@pytest.mark.slow  # every cell of the default preset (~10 s)
def test_the_result_tables_print_delta_as_the_rule_and_the_forest_plot_judge_it():
    """Every judged cell of Tables 3-13 prints the Delta that the rule judges (ours + the model's shift - paper, the
    forest plot's), read back from the committed .tex by its source comment, and z = Delta / its spread; a dagger
    only where a line has no per-run moments."""
    column = {"mse_y_max": 9, "mse_y_av": 12, "mse_z_av": 15}  # the Delta column of each indicator
    printed = {}
    for tex in sorted(TABLES.glob("LP*.tex")):
        for line in tex.read_text().splitlines():
            if "% source: data/" not in line:
                continue
            body, source = line.split("\\\\ % source: ")
            printed[(tex.stem, source.split()[0])] = [c.strip() for c in body.split("&")]
    checked = 0
    for c in _cells():
        cols = printed.get((c.table, c.path))
        if cols is None or not math.isfinite(c.judgement.spread):
            continue
        delta, z = cols[column[c.indicator]], cols[column[c.indicator] + 1]
        assert delta.replace("\\mathbf{", "").replace("}", "") == f"${c.judgement.diff:+.3f}$", (c.table, c.path)
        assert z == f"${c.judgement.diff / c.judgement.spread:+.1f}$", (c.table, c.path)
        checked += 1
    assert checked > 100
    daggers = sum(len(re.findall(r"\\dagger", t.read_text())) for t in TABLES.glob("LP*.tex"))
    raw = [c for c in _cells() if not math.isfinite(c.judgement.spread) and (c.table, c.path) in printed]
    assert raw and daggers == len(raw)


@pytest.mark.slow  # every table model (~10 s)
def test_every_bold_number_of_the_result_tables_is_a_difference_the_rule_calls_differs():
    """Tables 3-13 as rendered: the bold numbers are exactly the Deltas of the lines the rule calls differs."""
    from srmdp.numerics.indicators import INDICATORS
    from srmdp.paper.report.tables import table_model

    plan = _plan()
    for tex in sorted(TABLES.glob("LP*.tex")):
        m = table_model(plan, tex.stem, plan.summaries(), plan.timings(), plan.gpu_files(), plan.gpu_summaries())
        want = sorted(
            f"{line[k + '_d']:+.3f}"
            for r in m["rows"]
            for line in r["lines"]
            if line.get("run")
            for k in INDICATORS
            if line.get(k + "_v") == "differs"
        )
        got = sorted(re.findall(r"\\mathbf\{([-+]\d+\.\d+)\}", tex.read_text()))
        assert got == want, tex.name
    agreement = (TABLES / "agreement.tex").read_text()
    residuals = (TABLES / "residuals.tex").read_text()
    for text in (agreement, residuals):  # the captions say what bold means
        assert "Bold, as in every" in text
