"""A basis is added in one place: one ``@inline`` function and one entry of ``srmdp.numerics.bases.BASES``.

The toy basis is LP1 with every local coordinate doubled, phi = (1, 2 u_1, ..., 2 u_d).  It spans the same
space as LP1, and ordinary least squares depends only on the span: on the same random streams (same seed) its
estimators, hence u0 and the error indicators, equal LP1's up to rounding (the normal equations differ by the
exact factor 4 on the linear block, so only the Cholesky's rounding differs: relative 1e-12 is ~1e4 ulps of
margin for these well-conditioned 3x3 systems).  Registered test-locally; nothing else of the package is told.
"""

import math

import pytest

import srmdp
from srmdp.numerics.bases import BASES, Basis
from srmdp.numerics.jit import inline


@inline
def toy_phi(phi, u, d):
    phi[0] = 1.0
    for l in range(d):
        phi[1 + l] = 2.0 * u[l]


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(BASES, "TOY", Basis("TOY", toy_phi, 1, True, rules="LP1"))
    return "TOY"


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_a_test_local_basis_runs_and_spans_lp1(toy):
    args = dict(d=2, dt=0.5, cells=2, paths=64, runs=2, seed=3)
    lp1 = srmdp.solve(basis="LP1", **args)
    mine = srmdp.solve(basis=toy, **args)
    assert mine.case.basis == toy and mine.case.n_basis == 3
    u, ref = mine.u0(), lp1.u0()
    assert math.isfinite(u.value) and u.se > 0
    assert u.value == pytest.approx(ref.value, rel=1e-12, abs=1e-14)
    for k in ("mse_y_max", "mse_y_av", "mse_z_av"):
        assert mine.result[k] == pytest.approx(lp1.result[k], rel=1e-10)


def test_a_test_local_basis_gets_the_rules_of_the_basis_it_names(monkeypatch):
    """#C from the rules of the paper's basis it names (LP1 or LP0), M = the paper's (d+1) N^2 scaled to its size
    nb (the statistical error term N nb / M): here nb = 2d + 1 = 13 at d = 6, N = 10."""
    from srmdp.numerics.rules import paper_rule

    for paper in ("LP1", "LP0"):
        monkeypatch.setitem(BASES, "TOY2", Basis("TOY2", toy_phi, 2, True, rules=paper))
        toy2, ref = paper_rule("TOY2", 6, 10), paper_rule(paper, 6, 10)
        assert toy2.cells == ref.cells and toy2.scope == ref.scope
        assert toy2.paths == (13 * 100 if paper == "LP1" else ref.paths)  # LP1: (d+1) N^2 -> nb N^2; LP0: N^2
