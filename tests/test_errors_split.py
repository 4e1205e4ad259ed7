"""srmdp.paper.models.splits.split: the shift and spread of the indicators under another split of runs x test points.

A synthetic model with a known law stands in for the solver: run r has conditional mean errors
m[r, i] = mu_i (1 + 0.1 g_r + 0.05 h_ri) (g, h standard normal: correlated across time steps through g),
and a single test point's squared error is m[r, i] times an Exp(1) variable (within-run variance m^2).
``split`` sees only what a result records (per-run means and second moments over P points) and predicts
ln max_i / ln mean_i of the pooled per-step means under the paper's split 10^3 runs x 1 point; direct
simulation of that split gives the truth.
"""

import numpy as np

from srmdp.paper.models.splits import paper_splits, split

MU = 0.02 * np.array([1.0, 1.04, 1.02, 0.98, 1.0])  # close steps: the max's bias matters


def _runs(rng, runs, points):
    """(ey, ey2): per run and step, the mean over ``points`` of the squared errors and of their squares."""
    m = MU * (1 + 0.1 * rng.standard_normal((runs, 1)) + 0.05 * rng.standard_normal((runs, MU.size)))
    e = m[:, :, None] * rng.exponential(size=(runs, MU.size, points))
    return e.mean(axis=2), (e * e).mean(axis=2)


def _direct(rng, runs, points, reps):
    """ln max_i, ln mean_i of the pooled per-step means over ``reps`` independent repetitions of a split."""
    out = np.empty((reps, 2))
    for k in range(reps):
        s = _runs(rng, runs, points)[0].mean(axis=0)
        out[k] = np.log(s.max()), np.log(s.mean())
    return out


def test_split_of_our_own_design_has_no_shift():
    rng = np.random.default_rng(1)
    ey, ey2 = _runs(rng, 16, 50)
    res = split(ey, ey, ey2, ey2, 50, 16, 50)
    assert res["y_max_shift"] == 0.0 and res["y_av_shift"] == 0.0 and res["z_av_shift"] == 0.0


def test_split_predicts_the_paper_split_of_a_known_model():
    rng = np.random.default_rng(2016)
    ours_runs, ours_points = 64, 200
    ey, ey2 = _runs(rng, ours_runs, ours_points)
    pred = split(ey, ey, ey2, ey2, ours_points, 1000, 1)
    paper = _direct(rng, 1000, 1, 400)
    ours = _direct(rng, ours_runs, ours_points, 400)
    shift = paper.mean(axis=0) - ours.mean(axis=0)
    sd = paper.std(axis=0)
    # tolerance: the direct simulation's Monte-Carlo error (400 repetitions of each split: se of the shift
    # = sqrt(sd_paper^2 + sd_ours^2 / ...)/sqrt(400), 4 of them) plus what split() inherits from estimating
    # variances from 64 runs: relative error ~ sqrt(2/64) = 0.18 on variances, so <= 25 % on shift and sd
    se = np.sqrt(paper.var(axis=0) + ours.var(axis=0)) / np.sqrt(400)
    for j, name in enumerate(("y_max", "y_av")):
        assert abs(pred[f"{name}_shift"] - shift[j]) <= 4 * se[j] + 0.25 * abs(shift[j]), (name, pred, shift)
        assert abs(pred[f"{name}_sd"] / sd[j] - 1) <= 0.25, (name, pred, sd)
    # the max over steps is biased upward more with fewer evaluations per step: a positive shift,
    # many standard errors away from 0 in this model (measured: direct 0.012, predicted 0.017, se 0.0014)
    assert shift[0] > 4 * se[0] and pred["y_max_shift"] > 4 * se[0]


def test_paper_splits_need_the_moments_and_read_the_stored_ones_first():
    rng = np.random.default_rng(3)
    ey, ey2 = _runs(rng, 8, 20)
    per_run = {"ey": ey.tolist(), "ez": ey.tolist()}
    assert paper_splits({"per_run": per_run, "test_points": 20}) == {}  # no second moments
    res = {"per_run": dict(per_run, ey2=ey2.tolist(), ez2=ey2.tolist()), "test_points": 20}
    out = paper_splits(res)
    assert set(out) == {"1000x1", "1000x1000"}
    assert out["1000x1"]["y_av_sd"] > out["1000x1000"]["y_av_sd"] > 0
    assert out["1000x1"] == split(ey, ey, ey2, ey2, 20, 1000, 1)  # the same draws (seed 0)
    assert paper_splits({**res, "splits": {"1000x1": "stored"}}) == {"1000x1": "stored"}  # older summaries
    assert paper_splits({**res, "test_points": 1}) == {}
