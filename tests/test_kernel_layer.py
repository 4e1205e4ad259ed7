"""The kernel layer: built once per (problem, basis, d, target), loaded from the disk cache afterwards;
a change of any source makes another build; the Basis is the one place a basis lives (LP2d shows it).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from srmdp.case.cases import Case
from srmdp.numerics.bases import BASES
from srmdp.numerics.build import kernel_source, kernels
from srmdp.problems import load_problem

PROBE = textwrap.dedent("""
    import json, sys
    from srmdp.case.cases import Case
    from srmdp.runs.run import run_case
    from srmdp.numerics.build import kernels
    from srmdp.problems import load_problem
    res = run_case(Case(d=2, dt=0.5, basis="LP1", cells=2, paths=8), runs=1, test_points=5, threads=1)
    k = kernels(load_problem("gobet2016"), "LP1", 2, "cpu")
    stats = {n: [len(getattr(k, n).stats.cache_hits), len(getattr(k, n).stats.cache_misses)]
             for n in ("backward_step", "test_errors", "evaluate_points")}
    print(json.dumps({"stats": stats, "ey": res["per_run"]["ey"]}))
""")


def _probe(cache_dir):
    env = dict(os.environ, SRMDP_KERNEL_CACHE=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.slow
def test_second_process_loads_every_kernel_from_the_disk_cache(tmp_path):
    first = _probe(tmp_path)
    second = _probe(tmp_path)
    for name, (hits, misses) in first["stats"].items():
        assert misses == 1 and hits == 0, (name, first["stats"])  # compiled in the first process
    for name, (hits, misses) in second["stats"].items():
        assert hits == 1 and misses == 0, (name, second["stats"])  # loaded, not compiled, in the second
    assert first["ey"] == second["ey"]  # and the cached code computes the same numbers
    # one build folder, and the problem compiled alone for the divergence guard's probes (its check module)
    folders = sorted(p.name.split("-")[0] for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert folders in (["cpu"], ["check", "cpu"]), folders


def test_the_build_key_covers_every_source(tmp_path, monkeypatch):
    """Another problem text, basis or d gives another generated module (a stale kernel is never run)."""
    import srmdp.numerics.build as build

    paper = load_problem("gobet2016")
    base = kernel_source(paper, "LP1", 3, "cpu", "P")
    assert kernel_source(paper, "LP0", 3, "cpu", "P") != base
    assert kernel_source(paper, "LP1", 4, "cpu", "P") != base
    assert build.problem_source(paper, "cpu") != build.problem_source(paper, "cudasim")
    # a kernel module's text is part of the generated source (not only its time stamp, as for Numba)
    monkeypatch.setattr(build, "_module_source", lambda name: f"# {name} changed\n")
    assert kernel_source(paper, "LP1", 3, "cpu", "P") != base


def test_the_build_key_is_the_same_in_every_checkout(tmp_path):
    """The generated text holds no checkout path: a clone elsewhere (CI's, a wheel's) finds the kernels built."""
    import srmdp.numerics.build as build

    paper = load_problem("gobet2016")
    copy = tmp_path / "elsewhere" / "gobet2016.py"
    copy.parent.mkdir()
    copy.write_text(paper.path.read_text())
    assert str(paper.path.parent) not in build.problem_source(paper, "cpu")
    assert build.problem_source(load_problem(str(copy)), "cpu") == build.problem_source(paper, "cpu")
    assert kernel_source(load_problem(str(copy)), "LP1", 3, "cpu", "P") == kernel_source(paper, "LP1", 3, "cpu", "P")


def test_generated_module_binds_the_case_sizes_and_basis():
    src = kernel_source(load_problem("gobet2016"), "LP2d", 3, "cpu", "P")
    assert "\nD = 3\nNB = 7\nNEEDS_U = True\nREPLAY = False\n" in src
    assert "\nbasis_phi = lp2d_phi\n" in src
    generic = kernel_source(load_problem("gobet2016"), "LP1", 13, "cpu", "P")
    assert "\nD = 0\nNB = 0\n" in generic  # beyond SPECIALISE_MAX_D: sizes from the case record


# --- the bases ----------------------------------------------------------------------------------
def test_basis_sizes():
    assert [BASES[b].size(5) for b in ("LP0", "LP1", "LP2d")] == [1, 6, 11]
    assert Case(d=3, dt=0.5, basis="LP2d", cells=2, paths=7).n_basis == 7
    with pytest.raises(ValueError, match=r"invalid paths=6: M must be an integer >= 7 \(the LP2d dimension in d=3\)"):
        Case(d=3, dt=0.5, basis="LP2d", cells=2, paths=6)


@pytest.fixture(scope="module")
def fit():
    """OLS with the compiled regression and the compiled basis of ``basis`` (the solver's code)."""
    mods = {b: kernels(load_problem("gobet2016"), b, 0, "cpu") for b in BASES}

    def make(k):
        basis_phi, accumulate_gram, accumulate, cholesky, solve_into = (
            k.basis_phi,
            k.accumulate_gram,
            k.accumulate,
            k.cholesky,
            k.solve_into,
        )

        @njit
        def run(u, s, nb):
            m, d = u.shape
            G = np.zeros(nb * nb)
            acc = np.zeros(nb)
            phi = np.empty(nb)
            for j in range(m):
                basis_phi(phi, u[j], d)
                accumulate_gram(G, phi, nb)
                accumulate(acc, 0, phi, s[j], nb)
            dropped = cholesky(G, nb)
            coef = np.zeros((1, 1, 1, nb))
            tmp = np.empty(nb)
            solve_into(G, acc, 0, nb, coef, 0, 0, tmp)
            return coef[0, 0, 0], dropped

        return run

    runs = {b: make(k) for b, k in mods.items()}
    return lambda basis, u, s: runs[basis](u, s, BASES[basis].size(u.shape[1]))


@pytest.mark.parametrize("d", [1, 3, 8])
def test_lp2d_is_exact_on_separable_quadratics(fit, d):
    rng = np.random.default_rng(d)
    u = rng.uniform(-0.5, 0.5, size=(200, d))
    a, b, c = 0.7, rng.normal(size=d), rng.normal(size=d)
    s = a + u @ b + (u**2) @ c
    coef, dropped = fit("LP2d", u, s)
    assert dropped == 0
    np.testing.assert_allclose(coef, np.concatenate([[a], b, c]), rtol=1e-9, atol=1e-11)
    # LP1 cannot represent it (a check that the test has power)
    lin, _ = fit("LP1", u, s)
    assert np.abs(np.c_[np.ones(200), u] @ lin - s).max() > 1e-3


def test_lp2d_converges_to_the_l2_projection(fit, cpu_kernels):
    """M -> large: the empirical LP2d OLS on samples from nu_k tends to the L2(nu_k) projection of the
    response (computed by quadrature).  Tolerance: 5 standard errors of the OLS coefficients,
    sigma^2 (A^T A)^{-1} estimated from the residuals of M = 2e5 samples."""
    from scipy import integrate, stats

    ncell, k, m = 8, 5, 200_000
    half, h = 6.5, 13.0 / ncell
    cell_setup, sample_cell, seed_stream = cpu_kernels.cell_setup, cpu_kernels.sample_cell, cpu_kernels.seed_stream

    @njit
    def draw():
        cell = np.empty(3)
        cell_setup(k, cell, 1, ncell, half, h, True)
        st = np.empty(2, np.uint64)
        x, u = np.empty(m), np.empty(m)
        xx, uu = np.empty(1), np.empty(1)
        for j in range(m):
            seed_stream(st, 9, 0, 0, 0, k, j)
            sample_cell(st, cell, xx, uu, 1, half, h)
            x[j], u[j] = xx[0], uu[0]
        return x, u

    x, u = draw()
    resp = 1 / (1 + np.exp(-x))
    a, b = -6.5 + k * h, -6.5 + (k + 1) * h
    dens = lambda t: stats.logistic.pdf(t) / (stats.logistic.cdf(b) - stats.logistic.cdf(a))  # noqa: E731
    loc = lambda t: (t + 6.5) / h - k - 0.5  # noqa: E731
    basis = lambda t: np.array([1.0, loc(t), loc(t) ** 2])  # noqa: E731
    gram = np.array(
        [
            [integrate.quad(lambda t, p=p, q=q: basis(t)[p] * basis(t)[q] * dens(t), a, b)[0] for q in range(3)]
            for p in range(3)
        ]
    )
    rhs = np.array([integrate.quad(lambda t, p=p: basis(t)[p] / (1 + np.exp(-t)) * dens(t), a, b)[0] for p in range(3)])
    proj = np.linalg.solve(gram, rhs)
    coef, _ = fit("LP2d", u[:, None], resp)
    design = np.column_stack([np.ones(m), u, u**2])
    cov = (resp - design @ coef).var() * np.linalg.inv(design.T @ design)
    assert np.all(np.abs(coef - proj) < 5 * np.sqrt(np.diag(cov)) + 1e-12)
    assert abs(proj[2]) > 50 * np.sqrt(cov[2, 2])  # the quadratic term is really there


@pytest.mark.slow
def test_lp2d_solves_the_paper_problem_at_least_as_well_as_lp1():
    """Same cells, paths and streams: LP2d's pooled MSE_Y,av is not worse than LP1's beyond 3 s.e."""
    from srmdp.runs.run import run_case

    kw = dict(d=2, dt=0.25, cells=3, paths=60)
    lp1 = run_case(Case(basis="LP1", **kw), runs=6, test_points=200, seed=3)
    lp2 = run_case(Case(basis="LP2d", **kw), runs=6, test_points=200, seed=3)
    se = np.hypot(lp1["mse_y_av_se"], lp2["mse_y_av_se"])
    assert lp2["mse_y_av"] <= lp1["mse_y_av"] + 3 * se
