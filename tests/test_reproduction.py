"""Small-N reproduction of the paper's Tables (Δt = 0.2 rows) and reading-independent facts.

Reading.  The paper is ambiguous outside the box [-6.5, 6.5]^d.  Measured with seed 7, 30 runs x
1000 test points (pooled indicators, see srmdp.numerics.indicators), the paper's values are matched by
``outside='zero'`` with truncation of y and z at 1 ("paper-fit"):

    case      ours (zero, T_1)            paper                  theory reading (unbounded, none)
    LP0d4     -3.714 -3.789 -0.933        -3.713 -3.774 -0.965   -3.972 -4.071 -0.894
    LP0d6_0   -2.383 -2.429 -0.438        -2.392 -2.451 -0.431   -2.422 -2.477 -0.394
    LP1d4     -3.955 -4.156 -0.881        -4.021 -4.132 -0.900   -4.008 -4.284 -0.797
    LP1d6_1   -3.488 -3.661 -0.458        -3.504 -3.669 -0.461   -3.327 -3.617 -0.324

(standard errors 0.003-0.04).  The pooled form (ln of the mean over runs x points, then max over
i) fits MSE_Y,max better than the per-run literal form (LP0d4: literal -3.636): the paper's m most
likely indexes 10^3 runs with one test point each.

Tolerance.  |ours - paper| <= 3 sqrt(se_ours^2 + se_paper^2) + delta, where
* se_ours is our delta-method standard error over R runs (measured, per case);
* se_paper is not published; its run-to-run part is approximated by se_ours * sqrt(R / 1000)
  (the paper used 10^3 runs), a lower bound;
* delta = 0.05 is the stated model-discrepancy allowance: the paper computed in float32 and does
  not specify its reading or its test-point split, and at 30 runs the largest reproducible offset
  among the components above is 0.032 (LP0d4 MSE_Z,av, 10 s.e.) -- an offset we document, not tune.
The test still fails under the theory reading for LP0d4 (MSE_Y,max off by 0.26 > 3 x 0.03 + 0.05).
"""

import math

import pytest

from srmdp import Case, run_case
from srmdp.paper.inputs.rows import find_row, paper_case

RUNS = 16
POINTS = 1000
DELTA = 0.05
PAPER_FIT = dict(outside="zero", trunc_y=1.0, trunc_z=1.0)


def _tolerance(se, runs=RUNS):
    se_paper = se * math.sqrt(runs / 1000)
    return 3 * math.hypot(se, se_paper) + DELTA


@pytest.mark.slow
@pytest.mark.parametrize("table", ["LP0d4", "LP0d6_0", "LP1d4", "LP1d6_1"])
def test_paper_rows_dt_02_under_the_paper_fit_reading(table):
    ref = find_row(table, dt=0.2)
    res = run_case(paper_case(table, dt=0.2, **PAPER_FIT), runs=RUNS, test_points=POINTS, seed=11)
    for key in ("mse_y_max", "mse_y_av", "mse_z_av"):
        tol = _tolerance(res[key + "_se"])
        assert abs(res[key] - ref[key]) <= tol, f"{table} {key}: ours {res[key]:.3f} paper {ref[key]:.3f} tol {tol:.3f}"


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_theory_reading_is_distinguishable_on_lp0d4():
    """The comparison above has power: the theory reading misses the paper's MSE_Y,max on LP0d4."""
    ref = find_row("LP0d4", dt=0.2)
    res = run_case(paper_case("LP0d4", dt=0.2), runs=RUNS, test_points=POINTS, seed=11)
    assert abs(res["mse_y_max"] - ref["mse_y_max"]) > _tolerance(res["mse_y_max_se"])


@pytest.mark.slow
@pytest.mark.parametrize("outside", ["unbounded", "zero"])
def test_convergence_in_cells_and_paths(outside):
    """Reading-independent: refining #C x2 and M x4 (LP0, d = 2, Δt = 0.2) lowers every indicator.

    Bias^2 ~ h^2 and variance ~ 1/M both drop ~4x, so ln MSE should drop by ~1 or more; we ask for
    a drop of at least 0.3 beyond 3 combined standard errors.
    """
    common = dict(d=2, dt=0.2, basis="LP0", outside=outside)
    coarse = run_case(Case(cells=6, paths=25, **common), runs=8, test_points=POINTS, seed=3)
    fine = run_case(Case(cells=12, paths=100, **common), runs=8, test_points=POINTS, seed=3)
    for key in ("mse_y_max", "mse_y_av", "mse_z_av"):
        se = math.hypot(coarse[key + "_se"], fine[key + "_se"])
        assert fine[key] < coarse[key] - 0.3 - 3 * se, (key, coarse[key], fine[key])


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_lp1_beats_lp0_on_y_at_equal_cells():
    """§5: the affine basis approximates y much better than LP0 on the same strata."""
    common = dict(d=2, dt=0.2, cells=6, paths=150)
    lp0 = run_case(Case(basis="LP0", **common), runs=8, test_points=POINTS, seed=5)
    lp1 = run_case(Case(basis="LP1", **common), runs=8, test_points=POINTS, seed=5)
    se = math.hypot(lp0["mse_y_av_se"], lp1["mse_y_av_se"])
    assert lp1["mse_y_av"] < lp0["mse_y_av"] - 0.5 - 3 * se
