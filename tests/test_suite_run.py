"""Each problem of the suite (srmdp/problems/README.md) through run_case at a small size: d = 2, LP1,
dt = T/5, #C = 13, M = 200, 8 runs.

At this size the scheme is biased (first-order time discretisation; the LP1 fit of a curved u on cells of
width 1; the noise of z in drivers quadratic in z), by far more than the Monte-Carlo error of 8 runs.  The
bias b at this size was measured once with 64 other runs (seed 1; ``BIAS`` below: b and its standard
error) and the test checks u0 - reference - b against 4 standard errors of the difference (this test's
runs, the bias measurement's, the reference's).  Where the problem has an exact solution the pooled
MSE_Y,av is checked the same way against the value measured with those 64 runs.  A change in a problem
module or in the scheme that moves u0 by more than a few hundredths is caught; a legitimate change of the
random streams is not.
"""

import math

import pytest

from srmdp.case.cases import Case
from srmdp.problems import load_problem
from srmdp.runs.run import run_case

SIZE = dict(d=2, basis="LP1", cells=13, paths=200)
RUNS, SEED = 8, 0
# measured: srmdp.solve(name, d=2, cells=13, paths=200, runs=64, seed=1) (dt = T/5, default box, unbounded)
BIAS = {  # name: (u0 - reference, its s.e., MSE_Y,av, its s.e.)
    "reaction_diffusion": (+0.0965, 0.0061, -4.924, 0.011),
    "hjb_lq": (+0.0100, 0.0062, None, None),
    "quadratic_z": (+0.0249, 0.0026, -6.474, 0.014),
    "bs_barenblatt": (+0.2327, 0.0218, 0.434, 0.048),
    "bs_diff_rates": (+0.5611, 0.0503, None, None),
}


def reference(name, d):
    """u(0, x0) and its standard error: exact, quadrature (hjb_lq) or a Monte-Carlo lower bound tight to
    < 5e-5 at d = 2 (bs_diff_rates, see its module)."""
    m = load_problem(name).module
    if name == "hjb_lq":
        return m.u_quadrature(m.X0, d), 0.0
    if name == "bs_diff_rates":
        return m.u_reference(m.X0, d, n_paths=20_000)
    return m.u_reference(m.X0, d)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
@pytest.mark.parametrize("name", list(BIAS))
def test_suite_problem_small(name):
    prob = load_problem(name)
    case = Case(dt=prob.maturity / 5, problem=name, **SIZE)
    res = run_case(case, runs=RUNS, test_points=1000, seed=SEED, threads=1, progress=False)
    ref, ref_se = reference(name, SIZE["d"])
    bias, bias_se, mse, mse_se = BIAS[name]
    tol = 4 * math.sqrt(res["u0_se"] ** 2 + bias_se**2 + ref_se**2)
    assert abs(res["u0"] - ref - bias) < tol, (res["u0"], res["u0_se"], ref, bias, tol)
    assert prob.has_exact == (mse is not None) == ("mse_y_av" in res)
    if mse is not None:
        tol = 4 * math.sqrt(res["mse_y_av_se"] ** 2 + mse_se**2)
        assert abs(res["mse_y_av"] - mse) < tol, (res["mse_y_av"], res["mse_y_av_se"], mse)
