"""The paper's test problem (§5.1): the explicit solution solves the semilinear PDE."""

import numpy as np
import pytest
from numba import njit

from srmdp.problems.gobet2016 import solution as paper_solution


@pytest.fixture(scope="module")
def exact(cpu_kernels):
    y_exact, z_exact, driver, terminal = (
        cpu_kernels.y_exact,
        cpu_kernels.z_exact,
        cpu_kernels.driver,
        cpu_kernels.terminal,
    )

    @njit
    def y(t, x):
        return y_exact(t, x, x.size)

    @njit
    def z(t, x):
        out = np.empty(x.size)
        z_exact(t, x, out, x.size)
        return out

    @njit
    def f(t, x, yv, zv):
        return driver(t, x, yv, zv, x.size)

    @njit
    def g(x):
        return terminal(1.0, x, x.size)

    return y, z, f, g


@pytest.mark.parametrize("d", [1, 4, 11])
def test_exact_solution_satisfies_the_pde(exact, d):
    """du/dt + 1/2 Laplacian u + f(t, x, u, grad u) = 0 (X = W), z = grad u, u(T) = g, by finite
    differences: central differences with step e = 1e-3 have truncation error ~ e^2 |u'''| ~ 1e-7 and
    rounding ~ 1e-16 / e^2 = 1e-10 for the second derivatives: tolerance 1e-5."""
    y, z, f, g = exact
    rng = np.random.default_rng(d)
    e = 1e-3
    for _ in range(20):
        t = rng.uniform(0.05, 0.95)
        x = rng.normal(0, 1.5 / np.sqrt(d), d)
        u = y(t, x)
        ut = (y(t + e, x) - y(t - e, x)) / (2 * e)
        grad = np.empty(d)
        lap = 0.0
        for l in range(d):
            ep = np.zeros(d)
            ep[l] = e
            grad[l] = (y(t, x + ep) - y(t, x - ep)) / (2 * e)
            lap += (y(t, x + ep) - 2 * u + y(t, x - ep)) / e**2
        np.testing.assert_allclose(z(t, x), grad, atol=1e-6)
        assert abs(ut + 0.5 * lap + f(t, x, u, z(t, x))) < 1e-5
    x = rng.normal(size=d)
    assert y(1.0, x) == pytest.approx(g(x), abs=1e-15)


def test_exact_solution_matches_the_vectorised_form(exact):
    y, z, _, _ = exact
    x = np.random.default_rng(1).normal(size=(50, 5))
    yv, zv = paper_solution(0.4, x)
    np.testing.assert_allclose([y(0.4, p) for p in x], yv, rtol=1e-13)
    np.testing.assert_allclose([z(0.4, p) for p in x], zv, rtol=1e-12)


@pytest.mark.parametrize("s", [-800.0, -90.0, 90.0, 800.0])
def test_no_overflow_far_in_the_tails(exact, s):
    y, z, _, g = exact
    x = np.array([s, 0.0])
    assert np.isfinite(y(0.0, x)) and np.all(np.isfinite(z(0.0, x))) and np.isfinite(g(x))
    assert y(0.0, x) == pytest.approx(1.0 if s > 0 else 0.0, abs=1e-30)
