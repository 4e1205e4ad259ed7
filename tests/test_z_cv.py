"""The Z control variate (beyond the paper): E[cv(x_i) Delta W_i | x_i] = 0, so the Z regression keeps its
limit and loses most of its variance; off, nothing changes (tests/test_bit_identity.py: z_cv is off there)."""

import dataclasses

import numpy as np
import pytest

from srmdp.build import kernels
from srmdp.cases import Case
from srmdp.problems import load_problem
from srmdp.solver import run_case


def _responses(case, coef, i, seed=3):
    k = kernels(load_problem("gobet2016"), case.basis, case.d, "cpu")
    out = np.zeros((case.strata * case.paths, 2 + case.d))
    k.path_responses(coef, i, case.record(seed, 0, 0), out)
    return out


@pytest.fixture(scope="module")
def solved():
    """Coefficients of a solved LP1 d=2 case (the estimates the control variate uses)."""
    from srmdp.cpu import CpuBackend

    case = Case(d=2, dt=0.1, basis="LP1", cells=4, paths=400)
    b = CpuBackend(load_problem("gobet2016"))
    run_case(case, runs=1, test_points=10, seed=2, backend=b)
    return case, b.coef.copy()


@pytest.mark.parametrize("i", [9, 4])  # i = N-1: cv = g(x_i); i < N-1: cv = y_{i+1}(x_i)
def test_same_limit_and_smaller_variance(solved, i):
    """Per path, the two Z responses differ by exactly cv(x_i) Delta W_i / dt, whose mean is 0: over the
    K M = 6400 paths, |mean| < 4 of its standard errors.  Same paths (same streams) for S_Y."""
    case, coef = solved
    off = _responses(case, coef, i)
    on = _responses(dataclasses.replace(case, z_cv=True), coef, i)
    assert np.array_equal(off[:, 0], on[:, 0]) and np.array_equal(off[:, 2:], on[:, 2:])
    dw = off[:, 2:]
    z_off = off[:, 1:2] * dw
    z_on = on[:, 1:2] * dw
    diff = z_off - z_on  # = cv(x_i) dW / dt
    se = diff.std(axis=0, ddof=1) / np.sqrt(diff.shape[0])
    assert np.all(np.abs(diff.mean(axis=0)) < 4 * se)
    # variance of the response: measured ratio (off / on) on these streams ~ 1/dt-scale; the relative s.e.
    # of a sample variance with n = 6400 is ~ sqrt(2/n) = 1.8 %, so a factor > 5 is far from chance
    ratio = z_off.var(axis=0) / z_on.var(axis=0)
    assert np.all(ratio > 5), ratio


@pytest.mark.slow
def test_z_error_drops_and_y_is_unchanged():
    """LP1 d=4 dt=0.1 (the paper's row: #C=5, M=500), theory reading: ln MSE_Z,av falls from about -1.6 to
    below -3.5 with the control variate; the Y indicators stay within 3 combined s.e."""
    kw = dict(runs=4, test_points=300, seed=2016)
    from srmdp.cases import paper_case

    off = run_case(paper_case("LP1d4", dt=0.1), **kw)
    on = run_case(paper_case("LP1d4", dt=0.1, z_cv=True), **kw)
    assert on["reading"]["z_cv"] is True and off["reading"]["z_cv"] is False
    assert off["mse_z_av"] > -2.0 and on["mse_z_av"] <= -3.5, (off["mse_z_av"], on["mse_z_av"])
    for key in ("mse_y_max", "mse_y_av"):
        se = np.hypot(off[key + "_se"], on[key + "_se"])
        assert abs(on[key] - off[key]) <= 3 * se, (key, off[key], on[key], se)
