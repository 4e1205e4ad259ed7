"""The verdict under the paper's evaluation model (srmdp.paper.models.equivalence): the headline counts recomputed
from the
per-run data independently of the verdict module, the small-R bias of MSE_Y,max and its jackknife correction on
committed data, the causes of the undecided, table words from out-of-sample numbers only, and the sign test over
independent rows."""

import glob
import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from srmdp.paper.models.equivalence import Equivalence
from srmdp.paper.models.splits import jackknife_ln_max, split
from srmdp.paper.report.verdict import stream_group, table_word

ROOT = Path(__file__).resolve().parent.parent
T7 = sorted(glob.glob(str(ROOT / "data/summaries/default/evidence/paper-fit/LP1d4_r2/float64-s2016-*.json")))


@lru_cache(maxsize=1)
def _numbers():
    from srmdp.paper.plan.preset import Plan, load_configs
    from srmdp.paper.report.judged import cells, report_readings
    from srmdp.paper.report.tables import FIT_READING
    from srmdp.paper.report.verdict import paper_numbers

    plan = Plan(load_configs([ROOT / "config" / "config.yaml"]))
    return plan, paper_numbers(cells(plan, plan.summaries(), plan.gpu_summaries(), report_readings(plan)), FIT_READING)


def _independent_verdict(res, key, paper, delta, level, runs_points):
    """The rule recomputed here: scipy's t, our own interval, the split from the per-run moments."""
    from scipy import stats

    pr = res["per_run"]
    ey, ez, ey2, ez2 = (np.atleast_2d(np.asarray(pr[k], dtype=float)) for k in ("ey", "ez", "ey2", "ez2"))
    r, p = runs_points
    sp = split(ey, ez, ey2, ez2, res["test_points"], r, p)
    short = key[4:]
    runs, se = int(res["runs"]), res[key + "_se"]
    diff = res[key] + sp[short + "_shift"] - paper
    h = stats.t.ppf(0.5 * (1 + level), runs - 1) * math.hypot(se, sp[short + "_sd"])
    return "reproduced" if abs(diff) + h < delta else "differs" if abs(diff) - h > delta else "undecided"


@pytest.mark.slow  # every judged run set's split, twice (~20 s)
def test_the_headline_counts_are_recomputed_from_the_per_run_data_under_both_splits():
    from srmdp.paper.report.verdict import evidence_totals

    plan, numbers = _numbers()
    rule = plan.equivalence
    t = evidence_totals(numbers)
    for model, field in ((rule.model, None), (rule.sensitivity_model, "other_model")):
        for sample in ("out", "in"):
            mine = {"reproduced": 0, "differs": 0, "undecided": 0}
            for n in numbers:
                if n["in_sample"] != (sample == "in"):
                    continue
                c = n["best"]
                runs_points = tuple(int(v) for v in model.split("x"))
                ok = c.res is not None and c.se and c.runs >= 2 and (c.res.get("per_run") or {}).get("ey2")
                v = (
                    _independent_verdict(c.res, c.indicator, c.paper, rule.delta, rule.level, runs_points)
                    if ok
                    else "undecided"
                )
                mine[v] += 1
            got = t[sample] if field is None else t[sample][field]
            assert (got["reproduced"], got["differs"], got["undecided"]) == tuple(mine.values()), (model, sample)


@pytest.mark.skipif(not T7, reason="the committed T.7 dt = 0.1 run set")
def test_the_jackknife_removes_most_of_the_small_r_bias_of_mse_y_max_on_committed_data():
    """T.7 dt = 0.1 (LP1d4 row 2), 800 runs: its 100 disjoint subsets of R = 8 runs.  The plain ln max over 8 runs
    lies +0.09 above the 800-run value, many standard errors of the subsets' mean (a max of noisy means); the
    jackknife over runs leaves a third of it (its 1/R term: here the bias decays like R^-0.6, so a remainder is
    left; measured +0.031 +- 0.010 with this seed), within 3.5 standard errors."""
    ey = np.asarray(json.loads(Path(T7[0]).read_text())["per_run"]["ey"], dtype=float)
    assert ey.shape[0] >= 800
    full = float(np.log(ey.mean(axis=0).max()))
    perm = np.random.default_rng(1).permutation(ey.shape[0])
    subsets = [ey[perm[j : j + 8]] for j in range(0, 800, 8)]
    raw = np.array([np.log(s.mean(axis=0).max()) for s in subsets])
    jk = np.array([jackknife_ln_max(s)[0] for s in subsets])
    se_raw, se_jk = raw.std(ddof=1) / 10, jk.std(ddof=1) / 10
    assert raw.mean() - full > 5 * se_raw  # the bias is real
    assert abs(jk.mean() - full) < 3.5 * se_jk
    assert abs(jk.mean() - full) < 0.5 * (raw.mean() - full)


def _four_runs():
    """MSE_Y,av of 4 runs with s.e. 0.05 (per-run sd 0.1), the paper's own sd 0.01 under 10^3 x 1, no shift."""
    return {
        "runs": 4,
        "mse_y_av": -3.0,
        "mse_y_av_se": 0.05,
        "_splits": {"1000x1": {"y_av_shift": 0.0, "y_av_sd": 0.01}},
    }


def test_runs_needed_come_from_the_spread_alone_and_the_paper_noise_cause():
    rule = Equivalence(0.1, 0.9973)
    # the same spread, two Deltas: the same runs needed (the level of the test holds)
    res = _four_runs()
    a = rule.judge(res, "mse_y_av", -3.02)
    b = rule.judge(res, "mse_y_av", -3.07)
    assert a.verdict == b.verdict == "undecided" and a.cause == b.cause == "our runs"
    assert a.runs_needed == b.runs_needed > 4
    # at that many runs, with the per-run spread unchanged, the half-width is at the target
    run_sd = 0.05 * 2
    r = a.runs_needed
    target = 0.5 * (0.1 + 3.0 * 0.01)
    assert rule.t(r) * math.hypot(run_sd / math.sqrt(r), 0.01) <= target * 1.001
    assert rule.t(r - 1) * math.hypot(run_sd / math.sqrt(r - 1), 0.01) > target
    # the paper's own noise alone beyond delta: no run of ours decides it
    res["_splits"]["1000x1"]["y_av_sd"] = 0.04
    c = rule.judge(res, "mse_y_av", -3.0)
    assert c.verdict == "undecided" and c.cause == "paper noise" and c.runs_needed is None


def test_runs_with_delta_held_are_the_first_that_decide_it_or_none():
    """The forecast beside the sizing: Delta held, the smallest R' whose interval leaves the margin; none where the
    half-width's limit z * sd_paper already covers the gap between |Delta| and delta."""
    rule = Equivalence(0.1, 0.9973)
    res = _four_runs()
    near, far = rule.judge(res, "mse_y_av", -3.07), rule.judge(res, "mse_y_av", -3.02)
    run_sd = 0.05 * 2
    for j, gap in ((near, 0.03), (far, 0.08)):
        r = j.runs_held
        assert rule.t(r) * math.hypot(run_sd / math.sqrt(r), 0.01) < gap
        assert rule.t(r - 1) * math.hypot(run_sd / math.sqrt(r - 1), 0.01) >= gap
    assert near.runs_held > near.runs_needed > far.runs_held  # Delta near the margin: more than the sizing says
    # |Delta| = 0.075: a gap of 0.025 below z * sd = 0.03: no number of our runs decides it at this Delta
    assert rule.judge(res, "mse_y_av", -3.075).runs_held is None


def test_a_table_word_rests_on_out_of_sample_numbers_only():
    def t(out, inn):
        keys = ("n", "reproduced", "differs", "undecided")
        return {
            "numbers": out[0] + inn[0],
            "out": dict(zip(keys, out, strict=True)),
            "in": dict(zip(keys, inn, strict=True)),
        }

    assert table_word(t((0, 0, 0, 0), (6, 6, 0, 0))) == "in sample only (not evidence)"
    assert table_word(t((6, 1, 0, 5), (3, 3, 0, 0))).startswith("undecided (1 of 6")  # one of six is not most
    assert table_word(t((6, 4, 0, 2), (0, 0, 0, 0))).startswith("reproduced (4 of 6")
    assert table_word(t((6, 3, 1, 2), (0, 0, 0, 0))).startswith("partly")


def test_rows_that_differ_only_in_m_are_one_group_of_the_sign_test():
    assert stream_group("LP1d13", 1) == stream_group("LP1d13", 2)  # K 8192, M 3000 / 4000: shared streams
    assert stream_group("LP1d14", 1) == stream_group("LP1d14", 2)
    assert stream_group("LP1d11", 1) != stream_group("LP1d11", 2)  # K differs
    assert stream_group("LP0d4", 1) != stream_group("LP1d4", 1)


def _fake(seed, runs, scale=1.0, start=0, storage="float64"):
    from srmdp.numerics.indicators import indicators

    rng = np.random.default_rng(seed)
    ey = scale * np.exp(rng.normal(-4.0, 0.3, size=(runs, 5)))
    ez = np.exp(rng.normal(-5.0, 0.3, size=(runs, 5)))
    res = {
        "case": {"precision": storage},
        "reading": {"arithmetic": "float64"},
        "device": "cpu",
        "seed": seed,
        "run_start": start,
        "runs": runs,
        "test_points": 1000,
        "per_run": {"ey": ey.tolist(), "ez": ez.tolist(), "ey2": (2 * ey**2).tolist(), "ez2": (2 * ez**2).tolist()},
        "_path": f"fake-{seed}-{start}-{storage}.json",
    }
    res["per_run"]["u0"] = [0.5] * runs
    res.update(indicators(ey, ez))
    return res


def test_independent_run_sets_of_one_setting_are_pooled_and_no_others():
    from srmdp.numerics.indicators import indicators
    from srmdp.paper.report.pooling import pooled

    rule = Equivalence(0.1, 0.9973)
    a, b = _fake(1, 12), _fake(2, 8)
    (p,) = pooled([a, b], rule)
    both = indicators(
        np.vstack([a["per_run"]["ey"], b["per_run"]["ey"]]), np.vstack([a["per_run"]["ez"], b["per_run"]["ez"]])
    )
    assert p["runs"] == 20 and p["mse_y_max"] == both["mse_y_max"] and p["mse_z_av_se"] == both["mse_z_av_se"]
    assert pooled([a, _fake(1, 8, start=4)], rule) == []  # one seed, overlapping runs: the same streams
    assert len(pooled([a, _fake(1, 8, start=12)], rule)) == 1  # one seed, disjoint runs: independent
    assert pooled([a, _fake(2, 8, storage="float32")], rule) == []  # another storage: another setting
    assert pooled([a, _fake(2, 8, scale=3.0)], rule) == []  # a difference beyond both standard errors


def test_pools_read_the_run_ranges_a_summary_records():
    """Summaries of chunks whose names carry no run range (the evidence campaign's) say which runs they hold in
    ``run_ranges``; two of one seed whose ranges do not meet are pooled, one that overlaps either is not."""
    from srmdp.paper.report.pooling import pooled

    rule = Equivalence(0.1, 0.9973)

    def ranged(values_seed, ranges):
        res = _fake(values_seed, sum(b - a for a, b in ranges))
        res.update(seed=2016, run_ranges=ranges, _path=f"ranged-{values_seed}.json")
        return res

    a = ranged(1, [[100, 102], [400, 402]])
    b = ranged(2, [[102, 104], [800, 802]])  # disjoint from a, interleaved with it
    c = ranged(3, [[401, 403], [900, 902]])  # run 401 is a's too
    (p,) = pooled([a, b], rule)
    assert p["runs"] == 8 and p["pooled_from"] == [a["_path"], b["_path"]]
    assert pooled([a, c], rule) == []
    (p,) = pooled([a, b, c], rule)  # c overlaps a: left out, a and b pooled
    assert p["runs"] == 8 and c["_path"] not in p["pooled_from"]
