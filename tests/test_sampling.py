"""Conditional logistic sampling (Algorithm 3): samples stay in their stratum and follow nu_k."""

import numpy as np
import pytest
from numba import njit
from scipy import stats

HALF = 6.5


@pytest.fixture(scope="module")
def sampler(cpu_kernels):
    cell_setup, sample_cell, seed_stream, locate = (
        cpu_kernels.cell_setup,
        cpu_kernels.sample_cell,
        cpu_kernels.seed_stream,
        cpu_kernels.locate,
    )

    @njit
    def sample(k, d, ncell, unbounded, n, mode):
        h = 2 * HALF / ncell
        cell = np.empty(3 * d)
        cell_setup(k, cell, d, ncell, HALF, h, unbounded)
        st = np.empty(2, np.uint64)
        x = np.empty((n, d))
        u = np.empty((n, d))
        loc = np.empty(n, np.int64)
        uu = np.empty(d)
        for m in range(n):
            seed_stream(st, 99, 0, 0, 0, k, m)
            sample_cell(st, cell, x[m], u[m], d, HALF, h)
            loc[m] = locate(x[m], uu, d, ncell, HALF, h, mode)
        return x, u, loc

    return sample


def _axis_cdf(a, b):
    """CDF of the logistic law restricted to [a, b), accurate in both tails."""
    lg = stats.logistic
    if a >= 0:  # right half-line: use survival functions
        return lambda x: (lg.sf(a) - lg.sf(x)) / (lg.sf(a) - lg.sf(b))
    return lambda x: (lg.cdf(x) - lg.cdf(a)) / (lg.cdf(b) - lg.cdf(a))


@pytest.mark.parametrize(
    "ncell,unbounded,mode", [(4, True, 0), (5, True, 0), (4, False, 1), (28, True, 0), (1, True, 0)]
)
def test_samples_in_stratum_and_distributed_as_nu_k(sampler, ncell, unbounded, mode):
    d = 3
    h = 2 * HALF / ncell
    n = 4000
    rng = np.random.default_rng(0)
    corners = [0, ncell**d - 1, int(rng.integers(ncell**d))]  # the two outermost cells and one at random
    for k in corners:
        x, u, loc = sampler(k, d, ncell, unbounded, n, mode)
        assert np.all(np.isfinite(x))
        assert np.all(loc == k), "locate() must find the stratum a sample was drawn in"
        c = [(k // ncell**l) % ncell for l in range(d)]
        for l in range(d):
            a = -HALF + c[l] * h
            b = -HALF + (c[l] + 1) * h
            if unbounded and c[l] == 0:
                a = -np.inf
            if unbounded and c[l] == ncell - 1:
                b = np.inf
            assert np.all(x[:, l] >= a) and np.all(x[:, l] <= b)
            # KS at the 1e-3 level, fixed seed: a wrong inverse CDF (e.g. without the tail reflection
            # or the cell offsets) gives p-values < 1e-20 at this n.
            assert stats.kstest(x[:, l], _axis_cdf(a, b)).pvalue > 1e-3, (k, l)
            np.testing.assert_allclose(u[:, l], (x[:, l] + HALF) / h - c[l] - 0.5, atol=1e-12)


def test_far_tail_cell_has_no_cancellation(sampler):
    # outer unbounded cell [6.5 - h, inf) with #C = 2: P(X > 0) = 1/2; with #C = 40 the cell starts at
    # 6.175 where 1 - F = 2e-3; the reflected sampler draws exactly the exponential-like tail law.
    x, _, _ = sampler(39, 1, 40, True, 20000, 0)
    a = -HALF + 39 * (2 * HALF / 40)
    excess = x[:, 0] - a
    # beyond a, the logistic tail is P(X - a > t | X > a) = S(a + t)/S(a) ~ e^{-t}: mean excess ~ 1
    mean_exact = stats.logistic.expect(lambda t: t - a, lb=a, conditional=True)
    assert abs(excess.mean() - mean_exact) < 5 * excess.std() / np.sqrt(excess.size)
    assert stats.kstest(x[:, 0], _axis_cdf(a, np.inf)).pvalue > 1e-3
