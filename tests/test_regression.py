"""LP0/LP1 regressions (§4.1) with O((d+1)^2) accumulators, against dense least squares."""

import numpy as np
import pytest
from numba import njit
from scipy import integrate, stats


@pytest.fixture(scope="module")
def ols(cpu_kernels):
    accumulate_gram, accumulate, cholesky, solve_into = (
        cpu_kernels.accumulate_gram,
        cpu_kernels.accumulate,
        cpu_kernels.cholesky,
        cpu_kernels.solve_into,
    )

    @njit
    def fit(u, s):
        """Coefficients of the OLS of responses s (M x C) on phi = (1, u) (u: M x (nb-1))."""
        m, nb = u.shape[0], u.shape[1] + 1
        nc = s.shape[1]
        G = np.zeros(nb * nb)
        acc = np.zeros(nc * nb)
        phi = np.empty(nb)
        for j in range(m):
            phi[0] = 1.0
            phi[1:] = u[j]
            accumulate_gram(G, phi, nb)
            for c in range(nc):
                accumulate(acc, c, phi, s[j, c], nb)
        dropped = cholesky(G, nb)
        coef = np.zeros((1, 1, nc, nb))
        tmp = np.empty(nb)
        for c in range(nc):
            solve_into(G, acc, c, nb, coef, 0, 0, tmp)
        return coef[0, 0], dropped

    return fit


@pytest.mark.parametrize("d", [1, 4, 19])
def test_lp1_recovers_an_affine_function_exactly(ols, d):
    rng = np.random.default_rng(d)
    m = 3 * (d + 1)
    u = rng.uniform(-0.5, 0.5, (m, d))
    beta = rng.normal(size=(3, d + 1))
    s = beta[:, 0] + u @ beta[:, 1:].T
    coef, dropped = ols(u, s)
    assert dropped == 0
    np.testing.assert_allclose(coef, beta, atol=1e-10)


@pytest.mark.parametrize("d,m", [(4, 125), (11, 2000), (19, 3200)])
def test_lp1_matches_dense_lstsq_on_noisy_data(ols, d, m):
    rng = np.random.default_rng(m)
    u = rng.uniform(-0.5, 0.5, (m, d))
    s = rng.normal(size=(m, 2)) + np.sin(3 * u[:, :1])
    coef, _ = ols(u, s)
    a = np.hstack([np.ones((m, 1)), u])
    ref, *_ = np.linalg.lstsq(a, s, rcond=None)
    # normal equations on centred/scaled local coordinates: cond(G) ~ 12, so the loss of accuracy
    # against a QR-based dense solve stays ~1e-14 relative
    np.testing.assert_allclose(coef, ref.T, rtol=1e-9, atol=1e-11)


def test_lp0_is_the_mean(ols):
    s = np.random.default_rng(3).normal(size=(25, 1))
    coef, _ = ols(np.empty((25, 0)), s)
    assert coef[0, 0] == pytest.approx(s.mean(), rel=1e-14)


def test_unbounded_outer_cell_coordinates(ols):
    # an outer unbounded cell holds local coordinates well beyond +/-1/2 (tail samples); the solve
    # must stay as accurate as a dense one
    rng = np.random.default_rng(5)
    u = np.abs(stats.logistic.rvs(size=(400, 3), random_state=rng)) / 1.625
    s = 1.0 + u @ np.array([0.5, -0.2, 0.1]) + 0.01 * rng.normal(size=400)
    coef, _ = ols(u, s[:, None])
    ref, *_ = np.linalg.lstsq(np.hstack([np.ones((400, 1)), u]), s, rcond=None)
    np.testing.assert_allclose(coef[0], ref, rtol=1e-10)


@pytest.fixture(scope="module")
def cell_projection(cpu_kernels, ols):
    cell_setup, sample_cell, seed_stream = cpu_kernels.cell_setup, cpu_kernels.sample_cell, cpu_kernels.seed_stream

    @njit
    def draw(k, ncell, m):
        half, h = 6.5, 13.0 / ncell
        cell = np.empty(3)
        cell_setup(k, cell, 1, ncell, half, h, True)
        st = np.empty(2, np.uint64)
        x = np.empty(m)
        u = np.empty(m)
        xx = np.empty(1)
        uu = np.empty(1)
        for j in range(m):
            seed_stream(st, 4, 0, 0, 0, k, j)
            sample_cell(st, cell, xx, uu, 1, half, h)
            x[j] = xx[0]
            u[j] = uu[0]
        return x, u

    return draw


def test_lp0_lp1_converge_to_the_l2_projection(ols, cell_projection):
    """With M -> large the empirical OLS tends to the L2(nu_k) projection of the response.

    Cell k = 5 of #C = 8 on [-6.5, 6.5] (x in [-0.0125, 1.6125)), response h(x) = y_0(x) = sigmoid(x).
    The projection is computed by quadrature.  Tolerance: 5 standard errors of the OLS coefficients,
    estimated from the M = 2e5 residuals (sigma^2 (A^T A)^{-1}).
    """
    ncell, k, m = 8, 5, 200_000
    x, u = cell_projection(k, ncell, m)
    resp = 1 / (1 + np.exp(-x))
    a, b = -6.5 + k * 13 / ncell, -6.5 + (k + 1) * 13 / ncell
    h = 13 / ncell
    dens = lambda t: stats.logistic.pdf(t) / (stats.logistic.cdf(b) - stats.logistic.cdf(a))  # noqa: E731
    sig = lambda t: 1 / (1 + np.exp(-t))  # noqa: E731
    loc = lambda t: (t + 6.5) / h - k - 0.5  # noqa: E731
    mom = [integrate.quad(lambda t, p=p: loc(t) ** p * dens(t), a, b)[0] for p in range(3)]
    rhs = [integrate.quad(lambda t, p=p: loc(t) ** p * sig(t) * dens(t), a, b)[0] for p in range(2)]
    proj1 = np.linalg.solve([[mom[0], mom[1]], [mom[1], mom[2]]], rhs)
    proj0 = rhs[0] / mom[0]

    c0, _ = ols(np.empty((m, 0)), resp[:, None])
    se0 = resp.std() / np.sqrt(m)
    assert abs(c0[0, 0] - proj0) < 5 * se0

    c1, _ = ols(u[:, None], resp[:, None])
    design = np.column_stack([np.ones(m), u])
    resid = resp - design @ c1[0]
    cov = resid.var() * np.linalg.inv(design.T @ design)
    assert np.all(np.abs(c1[0] - proj1) < 5 * np.sqrt(np.diag(cov)) + 1e-12)
    # and the projection is not trivially matched: LP1 differs from LP0 by much more than its s.e.
    assert abs(proj1[1]) > 50 * np.sqrt(cov[1, 1])
