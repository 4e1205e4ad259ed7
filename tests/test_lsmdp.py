"""The LSMDP baseline (srmdp.paper.lsmdp) against a direct least-squares solve (numpy.linalg.lstsq).

Both are deterministic linear algebra on the same numbers, so the tolerance is a rounding bound, not a
statistical one: the normal equations square the condition number, so |coef - lstsq| <= 1e3 eps cond(A)^2
max|coef| per stratum (eps = 2.2e-16; cond(A) of the stratum's design matrix, computed in the test).
"""

import math

import numpy as np
import pytest

from srmdp.case.cases import Case
from srmdp.paper import lsmdp

EPS = np.finfo(float).eps


def _lstsq_per_stratum(k, phi, resp, strata):
    out = np.zeros((strata, resp.shape[1], phi.shape[1]))
    tol = np.zeros(strata)
    for s in range(strata):
        rows = k == s
        if not rows.any():
            continue
        a = phi[rows]
        sol, *_ = np.linalg.lstsq(a, resp[rows], rcond=None)
        out[s] = sol.T
        sv = np.linalg.svd(a, compute_uv=False)
        cond = sv[0] / sv[-1] if sv[-1] > 0 and len(sv) == a.shape[1] else 1.0
        tol[s] = 1e3 * EPS * cond**2 * max(1.0, np.abs(sol).max())
    return out, tol


@pytest.mark.parametrize("nb", [1, 3])
def test_regress_is_the_least_squares_solution_per_stratum(nb):
    rng = np.random.default_rng(3)
    strata = 9
    k = rng.integers(-1, strata, size=400)
    k[k == 4] = 5  # stratum 4 empty: coefficients 0
    k[np.flatnonzero(k == 7)[1:]] = 6  # stratum 7 with a single point: rank-deficient for LP1
    u = rng.uniform(-0.5, 0.5, size=(400, 2))
    phi = lsmdp.basis(u, nb)
    resp = rng.normal(size=(400, 3))
    ours = lsmdp.regress(k, phi, resp, strata)
    ref, tol = _lstsq_per_stratum(k, phi, resp, strata)
    assert np.all(ours[4] == 0)
    for s in range(strata):
        if s == 7 and nb > 1:  # one point: both give the minimum-norm solution
            assert np.allclose(ours[s], ref[s], atol=1e-12)
            continue
        assert np.abs(ours[s] - ref[s]).max() <= tol[s], s


@pytest.mark.parametrize("basis", ["LP0", "LP1"])
@pytest.mark.parametrize("outside", ["zero", "unbounded"])
def test_last_time_step_matches_a_direct_lstsq_on_the_stored_paths(basis, outside):
    """At i = N-1 the responses are g(x_N) and the driver term: rebuild them from the stored paths and
    solve each stratum with lstsq, independently of the scheme's own loop."""
    case = Case(d=2, dt=0.5, basis=basis, cells=3, paths=40, outside=outside, trunc_y=1.0, trunc_z=1.0)
    coef, ey, ez = lsmdp.solve_run(case, seed=5, run=0, test_points=200)
    _, x0, dw = lsmdp.draw_paths(case, 5, 0)
    n, dt = case.steps, case.dt
    grid = lsmdp.Grid(case.d, case.cells, case.half_width, outside)
    k, u = grid.locate(x0)
    phi = lsmdp.basis(u, case.n_basis)
    s = lsmdp.terminal(1.0, x0 + dw[n - 1])
    zref, ztol = _lstsq_per_stratum(k, phi, s[:, None] * dw[n - 1] / dt, case.strata)
    assert np.all(np.abs(coef[n - 1, :, 1:, :] - zref) <= ztol[:, None, None])
    _, z = lsmdp.evaluate(coef[n - 1], k, u, case.n_basis, 1.0, 1.0)
    sy = s + dt * lsmdp.driver(x0, s, z)
    yref, ytol = _lstsq_per_stratum(k, phi, sy[:, None], case.strata)
    assert np.all(np.abs(coef[n - 1, :, :1, :] - yref) <= ytol[:, None, None])
    assert ey.shape == ez.shape == (n,) and np.all(np.isfinite(ey)) and np.all(np.isfinite(ez))


def test_memory_model_counts_all_stored_paths():
    case = Case(d=3, dt=0.25, basis="LP1", cells=2, paths=10)
    p = case.strata * case.paths
    assert lsmdp.model_bytes(case) == 8 * p * 3 * 5 + 8 * 4 * 8 * 4 * 4
    assert math.isclose(lsmdp.logistic_inverse(np.array([0.5]))[0], 0.0, abs_tol=1e-15)
