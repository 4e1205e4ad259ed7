"""Own PDEs: adapted strata, the divergence guard, u0's error estimate, refinement to a tolerance.

Statistical tolerances are derived next to each assertion from measured standard errors; seeds are fixed.
The solves share kernels: quadratic_z at d = 2 (adapted strata) and the steep quadratic file at d = 4 (box).
"""

import math
import os
from pathlib import Path

import numpy as np
import pytest

from srmdp.exceptions import TOL_NOT_MET, ConfigError
from srmdp.kernels.divergence import GROWTH_STEP, GROWTH_TOTAL, DivergenceError, divergence, growth_of
from srmdp.problems import adapt, load_problem
from srmdp.solutions.error_estimate import BIAS_SCALE, NOISE, total_error

DATA = Path(__file__).resolve().parent / "data"
STEEP = str(DATA / "steep_quadratic.py")
QZ_EXACT = 0.6435710057  # u(0, 0) of quadratic_z, exact (srmdp/problems/README.md)


# ---------------------------------------------------------------------------------------- adapted strata
@pytest.mark.parametrize("name", ["hjb_lq", "bs_diff_rates", "bs_barenblatt", "quadratic_z"])
def test_adapted_problem_is_the_problem_in_xi_coordinates(name):
    """forward~, g~, f~, y~_exact agree with the originals at x = m(t) + s(t) xi (to rounding: 1e-12 relative)."""
    d = 3
    base = load_problem(name)
    ad = load_problem(adapt.adapted_spec(name, d))
    assert ad.adapted_d == d and ad.x0 == 0.0 and ad.half_width == adapt.HALF_WIDTH
    mod, orig = ad.module, base.module
    rng = np.random.default_rng(5)
    T = base.maturity
    for t in (0.0, 0.3 * T, 0.55 * T):
        dt = 0.1 * T
        xi = rng.normal(size=d)
        x = adapt.xi_of(ad, 0.0, np.full((1, d), base.x0))  # xi(x0) = 0 at t = 0, exactly
        assert np.array_equal(x, np.zeros((1, d)))
        m, s = np.array([mod._sa_map(t, l) for l in range(d)]).T
        x = m + s * xi
        dw = rng.normal(size=d) * math.sqrt(dt)
        z = rng.normal(size=d)
        assert mod.driver(t, xi.copy(), 0.7, z, d) == pytest.approx(orig.driver(t, x.copy(), 0.7, z, d), rel=1e-12)
        mT, sT = np.array([mod._sa_map(T, l) for l in range(d)]).T
        assert mod.terminal(T, xi.copy(), d) == pytest.approx(orig.terminal(T, mT + sT * xi, d), rel=1e-12, abs=1e-12)
        a, b = xi.copy(), x.copy()
        mod.forward(t, a, dw, dt, d)
        if hasattr(orig, "forward"):
            orig.forward(t, b, dw, dt, d)
        else:  # the default forward X = W
            b += dw
        np.testing.assert_allclose(adapt.xi_of(ad, t + dt, b[None, :])[0], a, rtol=1e-10, atol=1e-12)
        if base.has_exact:
            assert mod.y_exact(t, xi.copy(), d) == pytest.approx(orig.y_exact(t, x.copy(), d), rel=1e-12)


@pytest.mark.parametrize("name", ["hjb_lq", "bs_diff_rates", "bs_barenblatt"])
def test_forward_moments_agree_with_a_pilot_simulation(name, monkeypatch):
    """The analytic law of X_t (forward_moments) against the pilot of the compiled forward (4096 paths).

    Per axis and time, the pilot mean has s.e. sd/sqrt(P) and the pilot sd a relative s.e. of
    sqrt((kurtosis - 1)/(4 P)): 0.78 % for a Gaussian, <= 1.0 % for the log-normal of bs_barenblatt at T
    (sigma^2 T = 0.16: excess kurtosis 3.2).  Tolerance: 5 of these (the 65 x d comparisons are correlated
    along each path; a wrong drift or a sqrt(2) factor is off by >> 5 s.e.)."""
    d = 2
    prob = load_problem(name)
    _, mean, sd = adapt.law(prob, d)
    monkeypatch.delattr(prob.module, "forward_moments")
    _, pmean, psd = adapt.law(prob, d)
    P = adapt.PILOT_PATHS
    assert np.all(np.abs(pmean - mean) <= 5 * sd / math.sqrt(P))
    assert np.all(np.abs(psd / sd - 1) <= 5 * 0.010)


def test_adapted_spec_and_errors():
    assert adapt.split_spec("hjb_lq#adapted-d4") == ("hjb_lq", 4)
    assert adapt.split_spec("hjb_lq") == ("hjb_lq", None)
    from srmdp import Case

    with pytest.raises(ConfigError, match="adapted strata are for d=4"):
        Case(d=3, dt=0.2, basis="LP1", cells=3, paths=100, problem="hjb_lq#adapted-d4")
    import srmdp

    with pytest.raises(ConfigError, match="invalid strata='cells'"):
        srmdp.solve("hjb_lq", d=2, strata="cells")


@pytest.fixture(scope="module")
def qz_adapted():
    """quadratic_z, d = 2, adapted strata, the paper's rules at N = 5 (#C 3, M 75), 8 runs, with u0_error."""
    import srmdp

    return srmdp.solve("quadratic_z", d=2, strata="adapted", runs=8, seed=3, threads=1, progress=False)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_adapted_solution_evaluates_in_the_users_coordinates(qz_adapted, tmp_path):
    import srmdp

    sol = qz_adapted
    assert sol.case.problem == "quadratic_z#adapted-d2" and sol.case.half_width == adapt.HALF_WIDTH
    u = sol.u0()
    assert u.value == pytest.approx(sol.result["u0"], rel=1e-14)  # x0 maps to xi = 0, as in the solver
    # y at x0 from evaluate (original coordinates) is the solver's u0; elsewhere it follows the exact solution
    y, z = sol.evaluate(0, np.zeros((1, 2)))
    assert y[0] == pytest.approx(u.value, rel=1e-14)
    from srmdp.problems import quadratic_z

    X = np.array([[0.3, -0.2], [-0.4, 0.1]])
    ye, _ = quadratic_z.solution(0.0, X)
    # within 0.1 of the exact values near x0: the error at x0 is ~0.01 (below); 0.1 catches a wrong map
    # (xi read as x moves the point by ~1/s(0) = 2.8 times the distance, y by ~0.3)
    np.testing.assert_allclose(sol.y(0, X), ye, atol=0.1)
    path = tmp_path / "qz.npz"
    sol.save(path)
    back = srmdp.load(path)
    assert back.problem.adapted_d == 2
    assert np.array_equal(back.y(0, X), sol.y(0, X))
    assert back.u0_error == sol.u0_error


def test_adapted_u0_and_its_error_estimate_are_honest(qz_adapted):
    """|u0 - exact| <= 2 u0_error (the issue's criterion of honesty), and the estimate is not vacuous:
    u0_error < 0.25 |u0| (a factor 10 above the measured error, see below)."""
    sol = qz_adapted
    err = sol.u0_error
    assert err is not None and err > 0
    assert abs(sol.result["u0"] - QZ_EXACT) <= 2 * err, (sol.result["u0"], err)
    assert err < 0.25 * abs(sol.result["u0"])
    est = sol.result["error_estimate"]
    assert est["coarse_case"]["steps"] == 2 and est["coarse_case"]["problem"] == "quadratic_z#adapted-d2"


# ------------------------------------------------------------------------------------ divergence guard
def _coef(values):
    c = np.zeros((len(values), 3, 2, 2))
    c[:, 1, 0, 0] = values
    return c


class _Case:
    dt = 0.2
    d = 1
    z_cv = True
    problem = "x.py"


def test_divergence_rule_on_synthetic_estimators():
    """x30 in one step or x1000 over [0, T] is flagged with the step; growth e^{L T}, L T = 6, is not."""
    n = 20
    legit = np.exp(6.0 * (1 - np.arange(n) / n))  # A_i of y ~ e^{L (T - t)}, L T = 6: x403 in all
    assert divergence(growth_of(_coef(legit)), _Case) is None
    jump = np.ones(n)
    jump[:7] = GROWTH_STEP * 1.01
    msg = divergence(growth_of(_coef(jump)), _Case)
    assert "time step i=6" in msg and "trunc_y" in msg and "z_cv=False" in msg
    slow = np.exp(7.5 * (1 - np.arange(n) / n))  # x1800 in all, x1.45 per step
    assert "diverge" in divergence(growth_of(_coef(slow)), _Case)
    assert GROWTH_TOTAL < slow[0] / slow[-1]
    nan = np.ones(n)
    nan[3] = np.nan
    assert "non-finite estimator at time step i=3" in divergence(growth_of(_coef(nan)), _Case)


def test_total_error_formula():
    """bias = C (|u - u'| + NOISE s_diff) / (rho - 1); total = sqrt(bias^2 + se^2)."""
    err, bias = total_error(1.1, 0.03, 1.0, 0.04, math.sqrt(2))
    assert bias == pytest.approx(BIAS_SCALE * (0.1 + NOISE * 0.05) / (math.sqrt(2) - 1))
    assert err == pytest.approx(math.hypot(bias, 0.03))
    # two levels agreeing by chance still give an estimate of their noise's size
    assert total_error(1.0, 0.01, 1.0, 0.01, math.sqrt(2))[0] > 0.01 * math.sqrt(2) / (math.sqrt(2) - 1)


def test_guard_scale_from_the_data_no_false_alarm_on_g_zero():
    """g = 0 with a running cost: A_i ~ (T - t_i) F, so A_0 / A_{N-1} = N (x1000 at N = 1000 would trip the
    old rule); with the additive scale S = T F (data_scale) it never trips, at any N; a blow-up still does."""
    for n in (50, 200, 5000):
        a = (1.0 - np.arange(n) / n) * 1.5  # T = 1, F = 1.5
        assert divergence(a, _Case, scale=1.5) is None
    assert divergence((1.0 - np.arange(5000) / 5000) * 1.5, _Case, scale=0.0) is not None  # the old rule
    blow = np.ones(20)
    blow[:5] = 1e5  # the y^2 blow-up's size
    assert "diverge at time step i=4" in divergence(blow, _Case, scale=1.5)


@pytest.fixture(scope="module")
def steep_kwargs():
    return dict(d=4, runs=2, seed=0, threads=1, progress=False)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_a_quadratic_driver_without_truncation_is_never_returned_exploded(steep_kwargs):
    """The steep quadratic (tests/data/steep_quadratic.py, |u| < 1 everywhere) at the defaults, no truncation:
    the estimators reach max |y_0| ~ 1e3 (guard off: shown below), so the solve stops with the step and the
    remedies; with the remedies it names (truncation at the solution's bound, or adapted strata) it answers."""
    import srmdp

    with pytest.raises(DivergenceError, match=r"diverge at time step i=\d .*remedies: strata='adapted'"):
        srmdp.solve(STEEP, strata="box", **steep_kwargs)
    raw = srmdp.solve(STEEP, strata="box", guard=False, error=False, **steep_kwargs)
    # what the guard caught: |u| < 1 everywhere, the estimators ~1e3 (the curvature correction on, this driver's
    # default; ~3e3 without it)
    assert np.abs(raw.coefficients[:, 0, :, 0, 0]).max() > 100
    ok = srmdp.solve(STEEP, strata="box", trunc_y=1.0, trunc_z=1.0, error=False, **steep_kwargs)
    assert abs(ok.result["u0"]) < 1.0


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_quadratic_z_defaults_without_truncation_answer_within_their_estimate():
    """The suite's quadratic_z at the defaults (d = 4, N = 5, #C = 3, M = 125, no truncation): a finite u0 that
    is not exploded and whose estimated error covers the exact error (measured: u0 0.573 +- 0.009 with 4 runs,
    error -0.071, u0_error 0.72: the coarse level N = 2 is crude, so the estimate is wide but honest)."""
    import srmdp

    sol = srmdp.solve("quadratic_z", d=4, runs=4, seed=0, threads=1, progress=False)
    u = sol.result["u0"]
    assert math.isfinite(u) and abs(u) < 2.0  # |u| <= ln(2.6) = 0.96 everywhere
    assert abs(u - QZ_EXACT) <= 2 * sol.u0_error


# ----------------------------------------------------------------------------------------- refinement
# --------------------------------------------------------------------- the level of the error estimate
def _request(problem="quadratic_z", **kw):
    from srmdp.options import SolveOptions
    from srmdp.solutions.solve_request import SolveRequest

    return SolveRequest.make(problem, SolveOptions(**{"d": 2, "threads": 1, **kw}))


def test_the_level_below_is_strictly_coarser_in_n_cells_and_paths():
    """User-given #C 3 (scaled 3 x 2^-1/4 -> 3) is forced below, to 1 (the same parity: x0 stays at a cell's
    centre, srmdp.solutions.error_estimate), so the cells' bias enters."""
    req = _request(cells=3, paths=300, dt=0.1)
    case = req.case_at(req.steps)[0]
    low, rho, why = req.below(case)
    assert why is None and (low.steps, low.cells, low.paths) == (5, 1, 75) and rho == pytest.approx(2.0)
    one = _request(cells=1, paths=300, dt=0.1)
    low, rho, why = one.below(one.case_at(one.steps)[0])
    assert low is None and "#C = 1 cannot be coarsened" in why
    r1 = _request(runs=1)
    assert "runs=1" in r1.below(r1.case_at(r1.steps)[0])[2]


def test_tol_refused_with_one_run_and_where_the_rules_are_constant():
    import srmdp

    with pytest.raises(ConfigError, match="invalid runs=1 with tol"):
        srmdp.solve("quadratic_z", d=2, tol=0.1, runs=1)
    with pytest.raises(ConfigError, match="keep #C and M constant in N"):
        srmdp.solve("quadratic_z", d=12, tol=0.1)


# ----------------------------------------------------------------------------------------- refinement
class _Fake:
    """A stand-in for SolveRequest.run: u0 per (N, #C, M) from a table, or a divergence, never compiled."""

    def __init__(self, u0, diverge=(), seconds=0.0):
        self.u0, self.diverge, self.seconds, self.calls = u0, set(diverge), seconds, []

    def __call__(self, req, case, rules, keep=None, run_start=0):
        import time

        self.calls.append((case.steps, case.cells, case.paths, req.remedies))
        time.sleep(self.seconds)
        if self.u0(case) is None or (case.steps, case.cells, case.paths) in self.diverge:
            err = DivergenceError(f"case {case.label}: the estimators diverge")
            err.runs_done = 1
            raise err
        res = {
            "u0": self.u0(case),
            "u0_se": 1e-4,
            "seconds_per_run": max(self.seconds, 1e-3) / req.runs,
            "error_seconds_per_run": 0.0,
        }
        return _thin_solution(case, res)


def _thin_solution(case, res):
    """A Solution of ``case`` whose result is ``res`` (u0, its s.e., timings; per-run u0 where pooled) and no
    coefficients: what the refinement reads of a level.  A Solution is frozen: its fields set as its constructor
    sets them, the run result's identity fields a fake's."""
    from srmdp.solutions.solution import Solution
    from srmdp.solutions.solve_result import SolveResult

    fake = {"case_hash": "fake", "case": {}, "device": "cpu", "seed": 0, "test_points": 0, "per_run": {}}
    sol = Solution.__new__(Solution)
    runs = res.get("runs", 1)
    fields = {"case": case, "result": SolveResult.of({**fake, "runs": runs, **res}), "rules": {}, "keep": "last"}
    for k, v in {**fields, "runs": runs, "kept_runs": [runs - 1], "_cache": {}}.items():
        object.__setattr__(sol, k, v)
    return sol


def _refine(monkeypatch, fake, **kw):
    import srmdp
    from srmdp.solutions.solve_request import SolveRequest

    def run(self, case, rules, keep=None, **kw):  # (a pooling step passes runs= and run_start=)
        return fake(self, case, rules, keep, **kw)

    monkeypatch.setattr(SolveRequest, "run", run)
    lines = []
    sol = srmdp.solve(
        "quadratic_z", **{"d": 2, "strata": "adapted", "tol": 0.01, "threads": 1, **kw}, report=lines.append
    )
    return sol, lines


def _exact_like(case):  # an error C N^-1/2 + cells' h^2 term: the model's behaviour
    return 1.0 + 0.2 / math.sqrt(case.steps) + 0.5 / case.cells**2


def test_refine_needs_two_consecutive_estimates_and_returns_the_finest(monkeypatch):
    """Coarse levels agreeing by chance (N = 2 and 5 give the same u0) do not end the climb: tol met needs two
    estimated levels in a row <= tol, and the answer is the finest level computed."""

    def u0(case):
        if case.steps <= 5 and case.cells <= 3:
            return 1.3  # the two coarsest levels agree by chance
        return _exact_like(case)

    fake = _Fake(u0)
    sol, lines = _refine(monkeypatch, fake, tol=0.06)
    rows = sol.result["refinement"]
    est = [r for r in rows if r["u0_error"] is not None]
    assert sol.result["tol_met"] is True and est[-1]["u0_error"] <= 0.06 and est[-2]["u0_error"] <= 0.06
    assert sol.success and sol.status == 0 and sol.message.startswith("tol = 0.06 met at N = ")
    assert sol.result["chosen_level"] == rows[-1]["level"]  # the finest level, the last computed
    assert any(r["kind"] in ("dt", "cells", "paths") for r in rows)  # one parameter at a time between rules


def test_refine_steps_cost_at_most_about_8x():
    from srmdp.refine.ladder import ladder

    req = _request(d=4)
    levels, _ = ladder(req)
    cost = [c.path_steps for c, _, kind in levels if kind != "below"]  # a level below is a side level (cheap)
    assert max(b / a for a, b in zip(cost[1:], cost[2:], strict=False)) < 10


def test_a_mid_ladder_divergence_applies_the_remedies_then_stops(monkeypatch):
    """A level that diverges whatever the remedies: adapted strata (already), then truncation from the data, then
    the climb stops, saying what to set; the answer is the finest level that completed."""
    fake = _Fake(lambda c: None if c.steps >= 10 else _exact_like(c))
    sol, lines = _refine(monkeypatch, fake)
    assert sol.result["tol_met"] is False and "set trunc_y and trunc_z" in sol.result["refinement_stop"]
    # the outcome as SciPy's results say it: not a success, the CLI's exit status, the reason in one line
    assert not sol.success and sol.status == TOL_NOT_MET == 4
    assert "NOT met (" in sol.message and "set trunc_y and trunc_z" in sol.message and "\n" not in sol.message
    assert any(any("truncation from the data" in r for r in c[3]) for c in fake.calls)
    assert sol.case.steps == 5 and [r for r in sol.result["refinement"] if r["status"] == "diverged"]


def test_every_level_diverging_raises(monkeypatch):
    with pytest.raises(DivergenceError, match="no level of the refinement gave an answer"):
        _refine(monkeypatch, _Fake(lambda c: None))


def test_a_ladder_ended_by_memory(monkeypatch):
    from srmdp.case import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 2 * 2**20)
    sol, _ = _refine(monkeypatch, _Fake(_exact_like), tol=1e-9)
    assert sol.result["tol_met"] is False and sol.result["refinement_stop"].startswith("memory")


def test_a_ladder_ended_by_the_budget(monkeypatch):
    """Each fake level reports 0.05 s for its work: the rate predicts the next levels (each a few times the work of
    the one before), and the first whose prediction overruns the budget is not started (no timed assertion:
    the stop reason and the predicted level are checked)."""
    sol, _ = _refine(monkeypatch, _Fake(_exact_like, seconds=0.05), tol=1e-9, budget_s=0.5)
    stop = sol.result["refinement_stop"]
    assert sol.result["tol_met"] is False and stop.startswith("budget: level N =") and "would take about" in stop
    assert len(sol.result["refinement"]) < 19  # the ladder had more levels than were run


def test_a_first_level_diverging_during_its_compilation_gives_no_rate(monkeypatch):
    """The first level diverges in its first run after 0.3 s (standing in for its compilation: 225 s measured on
    tests/data/steep_quadratic.py, d = 4, for 0.1 s of runs).  Those seconds are not a rate: the remedy's ladder
    starts (before half the budget) instead of being stopped by a prediction of 4 runs x 0.3 s > what is left."""
    import time

    fake = _Fake(_exact_like)

    def call(req, case, rules, keep=None, run_start=0):
        if not req.remedies:  # the first level, before any remedy (which cures it)
            time.sleep(0.3)
            err = DivergenceError(f"case {case.label}: the estimators diverge")
            err.runs_done, err.seconds_per_run = 1, None
            raise err
        return fake(req, case, rules, keep)

    sol, _ = _refine(monkeypatch, call, tol=0.06, budget_s=1.0)
    rows = sol.result["refinement"]
    assert rows[0]["status"] == "diverged" and len(rows) > 1 and rows[1]["status"] == "ok"
    assert rows[1]["remedies"]  # the level after the remedy ran


@pytest.mark.slow
def test_g_zero_with_a_running_cost_never_trips_the_guard():
    """tests/data/running_cost.py (|u| <= T, g = 0) at N = 50 and 200, box strata, no truncation: no
    DivergenceError (the old rule flagged x1000 growth since i = N-1)."""
    import srmdp

    for n in (50, 200):
        s = srmdp.solve(
            str(DATA / "running_cost.py"),
            d=2,
            dt=1.0 / n,
            cells=3,
            paths=40,
            runs=2,
            error=False,
            threads=1,
            progress=False,
            strata="box",
        )
        assert abs(s.result["u0"]) <= 1.0 + 5 * s.result["u0_se"]


@pytest.mark.slow
def test_cli_tol_prints_the_ladder(tmp_path, capsys):
    from srmdp.cli.commands import main

    out = tmp_path / "s.npz"
    rc = main(
        [
            "solve",
            "--problem",
            "quadratic_z",
            "--d",
            "2",
            "--strata",
            "adapted",
            "--tol",
            "0.1",
            "--budget",
            "300",
            "--seed",
            "3",
            "--threads",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    cap = capsys.readouterr()
    assert rc == 0 and out.is_file()
    assert "level 0: N =   2" in cap.err and "refining to tol" in cap.err
    assert "estimated total error of u0" in cap.out


# ------------------------------------------------------------------------------------------ real GPU code
PTX_SCRIPT = """
import importlib.util, os, sys, tempfile
root = sys.argv[1]
sys.path[:0] = [root]
from tests.support.sm90 import stub_current_device
stub_current_device()
from numba import cuda, float64
from srmdp.numerics.build import problem_source
from srmdp.problems import load_problem
D = 4
for name in ("bs_diff_rates", "quadratic_z"):
    prob = load_problem(f"{name}#adapted-d{D}")
    path = os.path.join(tempfile.mkdtemp(), f"p_{name}.py")
    with open(path, "w") as fh:
        fh.write(problem_source(prob, "cuda"))
    spec = importlib.util.spec_from_file_location(f"p_{name}", path)
    k = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(k)
    lines = ["def body(out, xs):", "    i = cuda.grid(1)", "    if i < xs.shape[0]:",
             "        x = cuda.local.array(D, float64)", "        z = cuda.local.array(D, float64)",
             "        for l in range(D):", "            x[l] = xs[i, l]", "            z[l] = 0.1 * xs[i, l]",
             "        acc = k.terminal(1.0, x, D) + k.driver(0.5, x, 0.3, z, D)",
             "        k.forward(0.5, x, z, 0.01, D)"]
    if prob.has_exact:
        lines += ["        acc += k.y_exact(0.5, x, D)", "        k.z_exact(0.5, x, z, D)", "        acc += z[0]"]
    lines.append("        out[i] = acc + x[0]")
    ns = dict(k=k, cuda=cuda, float64=float64, D=D)
    exec("\\n".join(lines), ns)
    ptx, _ = cuda.compile_ptx(ns["body"], (float64[:], float64[:, :]), cc=(9, 0))
    assert ".visible .entry" in ptx
    print(name, "ok")
"""


def _have_toolchain():
    try:
        import numba_cuda  # noqa: F401
        import nvidia.cuda_nvcc  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _have_toolchain(), reason="needs numba-cuda[cu12] (pip install -e .[cuda])")
def test_adapted_problems_compile_for_sm90(root, tmp_path):
    """The generated problem (tables as global arrays: CUDA constant memory) compiles for sm_90 without a GPU."""
    import os
    import subprocess
    import sys

    script = tmp_path / "ptx.py"
    script.write_text(PTX_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, str(script), str(root)], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count(" ok") == 2


def test_a_level_that_jumps_by_orders_of_magnitude_is_not_an_answer():
    """refine's rule: s.e. x100 and u0 off by > 100 s.e. of the level below -> exploded (never returned)."""
    from srmdp.refine.refine import _jumped
    from srmdp.solutions.row import Row

    below = Row(u0=0.6, u0_se=0.01)
    assert _jumped(below, Row(u0=1.0e6, u0_se=9.6e5))  # the exploded run
    assert not _jumped(below, Row(u0=0.65, u0_se=0.02))  # a level that moved, within reason
    assert not _jumped(below, Row(u0=5.0, u0_se=0.5))  # moved far, but its noise did not explode
    assert not _jumped(Row(u0=0.6, u0_se=None), Row(u0=1e6, u0_se=1e6))  # one run: no s.e. to compare


def test_the_gpu_guard_reads_n_values_from_the_device():
    """The device reduction (srmdp.kernels.divergence_cuda.growth, CUDA simulator here) gives the host's A_i."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        pytest.skip("needs the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) or a GPU")
    from types import SimpleNamespace

    from numba import cuda

    from srmdp.kernels.divergence import growth

    c = np.random.default_rng(1).standard_normal((4, 7, 2, 3))
    c[2, 5, 0, 0] = np.nan
    dev = SimpleNamespace(coef=cuda.to_device(c), coefficients=lambda: pytest.fail("copied the coefficients"))
    a = growth(dev)
    want = growth_of(c)
    assert a.shape == (4,) and np.array_equal(a[[0, 1, 3]], want[[0, 1, 3]]) and not np.isfinite(a[2])


def test_an_edited_problem_file_is_reloaded(tmp_path):
    """The cache of load_problem is keyed by the file's content: an edit in a running process is seen."""
    f = tmp_path / "p.py"
    text = (DATA / "running_cost.py").read_text()
    f.write_text(text)
    a = load_problem(str(f))
    assert load_problem(str(f)) is a  # unchanged: cached
    f.write_text(text.replace("MATURITY = 1.0", "MATURITY = 0.5"))
    b = load_problem(str(f))
    assert b.maturity == 0.5 and b.source_hash != a.source_hash
    assert load_problem(str(f) + "#adapted-d2").maturity == 0.5


def _binomial_floor(n, p, alpha=0.01):
    """The largest k with P(X < k) <= alpha for X ~ Binomial(n, p): a count below it rejects coverage >= p."""
    cdf, k = 0.0, 0
    while k <= n:
        nxt = cdf + math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if nxt > alpha:
            return k
        cdf, k = nxt, k + 1
    return n


@pytest.mark.slow
def test_u0_error_coverage_on_a_cheap_subset():
    """quadratic_z, d = 2, the defaults (rules' #C and M) and user-given #C 3, M 100, 12 seeds each, 4 runs:
    the issue's targets are coverage >= 80 % at 1x and >= 95 % at 2x; the counts must not fall below the
    binomial floor that rejects those targets at the 1 % level (n = 24: >= 14 at 1x, >= 20 at 2x), and the
    estimate must not be vacuous (median u0_error / |error| < 50; measured 15-27 on 20 seeds)."""
    import srmdp

    n, hit1, hit2, ratios = 0, 0, 0, []
    for kw in ({}, {"cells": 3, "paths": 100}):
        for seed in range(12):
            s = srmdp.solve("quadratic_z", d=2, runs=4, seed=seed, threads=1, progress=False, **kw)
            err = abs(s.result["u0"] - QZ_EXACT)
            n += 1
            hit1 += err <= s.u0_error
            hit2 += err <= 2 * s.u0_error
            ratios.append(s.u0_error / max(err, 1e-12))
    assert hit1 >= _binomial_floor(n, 0.80) and hit2 >= _binomial_floor(n, 0.95), (hit1, hit2, n)
    assert np.median(ratios) < 50


# ------------------------------------------------------------------ budget use and Richardson (a fake clock)
class _Clock:
    """The refinement's clock, advanced by the fake runs: each run's seconds are its work / RATE (no timing)."""

    RATE = 2e5  # path steps per second

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _timed_fake(clock, u0, se=1e-4, noise=None):
    """A stand-in for SolveRequest.run on the fake clock: per-run values u0(case) + noise, run r of a level from its
    own stream (run_start + r), so that runs pooled from batches equal one solve's; ``noise`` None: a fixed
    pattern of +-se sqrt(3) (the mean exact, s.e. ``se`` at 4 runs), else N(0, noise^2) per run."""

    def per_run(case, k):
        if noise is None:
            return se * math.sqrt(3.0) * (1.0 if k % 2 == 0 else -1.0)
        return noise * np.random.default_rng([case.steps, case.cells, case.paths, k]).standard_normal()

    def call(req, case, rules, keep=None, run_start=0, runs=None):
        runs = req.runs if runs is None else runs
        secs = case.path_steps * runs / clock.RATE
        clock.now += secs
        vals = [u0(case) + per_run(case, run_start + r) for r in range(runs)]
        spread = float(np.std(vals, ddof=1) / math.sqrt(runs)) if runs > 1 else None  # (run_case's: None at 1 run)
        res = {
            "u0": float(np.mean(vals)),
            "u0_se": spread,
            "runs": runs,
            "run_start": run_start,
            "per_run": {"u0": vals},
            "seconds_per_run": secs / runs,
            "error_seconds_per_run": 0.0,
        }
        return _thin_solution(case, res)

    return call


def _first_order(case):  # a dt error a/N and a cells' error h^2: the scheme's model for smooth data
    return 1.0 + 0.3 / case.steps + 0.4 / case.cells**2


@pytest.mark.parametrize("budget", [3.0, 20.0, 75.0])
def test_a_refinement_uses_its_budget_while_a_step_fits(monkeypatch, budget):
    """An unreachable tol: the refinement may stop only when no step from its answer fits in what is left
    (srmdp.refine.fill_steps.fill_steps, priced at the measured rate, or one more run of the answer's level, pooled),
    whatever the budget; the clock is fake (each level advances it by its work / rate), so nothing is timed."""
    from srmdp.refine import refine as refine_mod
    from srmdp.refine.fill_steps import fill_steps
    from srmdp.solutions.solve_request import SolveRequest

    clock = _Clock()
    monkeypatch.setattr(refine_mod, "_clock", clock)
    sol, _ = _refine(monkeypatch, _timed_fake(clock, _first_order), tol=1e-12, budget_s=budget)
    assert sol.result["tol_met"] is False and clock.now <= budget
    left = budget - clock.now
    req = SolveRequest.make(
        "quadratic_z", __import__("srmdp").SolveOptions(d=2, strata="adapted", threads=1, tol=1e-12)
    )
    ran = {(r["steps"], r["cells"], r["paths"]) for r in sol.result["refinement"]}
    costs = [
        sum(c.path_steps for c in cs if (c.steps, c.cells, c.paths) not in ran) * req.runs / _Clock.RATE
        for _, cs in fill_steps(req, sol.case)
    ]
    costs.append(sol.case.path_steps / _Clock.RATE)  # one more run of the answer's level
    cheapest = min(c for c in costs if c > 0)
    assert cheapest > left, (cheapest, left, sol.result["refinement_stop"])


def test_richardson_in_dt_removes_a_first_order_time_error(monkeypatch):
    """u0 = 1 + 0.3/N + 0.4/#C^2 (first order in dt): the answer is extrapolated in dt, its error is the cells'
    part only, and its estimate covers it; with a dt error 0.3/sqrt(N) (not first order) the three-level check
    refuses the extrapolation."""
    from srmdp.refine import refine as refine_mod

    clock = _Clock()
    monkeypatch.setattr(refine_mod, "_clock", clock)
    sol, lines = _refine(monkeypatch, _timed_fake(clock, _first_order), tol=1e-12, budget_s=75.0)
    ext = sol.result.get("extrapolated")
    assert ext is not None and sol.result["error_estimate"]["richardson"]
    err = abs(sol.result["u0"] - (1.0 + 0.4 / sol.case.cells**2))  # the dt part removed exactly (+ noise)
    assert err < 1e-3 and abs(ext["plain_u0"] - sol.result["u0"]) > 10 * err
    true_err = abs(sol.result["u0"] - 1.0)
    assert true_err <= sol.result["error_estimate"]["u0_error"]
    assert sol.result["error_estimate"]["against_kind"] == "richardson"  # a coarser Richardson value exists here
    assert any("Richardson in dt" in line for line in lines)

    def half_order(case):
        return 1.0 + 0.3 / math.sqrt(case.steps) + 0.4 / case.cells**2

    clock.now = 0.0
    sol, _ = _refine(monkeypatch, _timed_fake(clock, half_order), tol=1e-12, budget_s=75.0)
    assert "extrapolated" not in sol.result
    rows = sol.result["refinement"]
    checked = [r["richardson"] for r in rows if len(r.get("richardson", {}).get("partners", [])) > 1]
    assert checked and not any(e["order_confirmed"] for e in checked)


def test_richardson_order_check():
    from srmdp.refine.richardson import richardson
    from srmdp.solutions.row import Row

    def row(n, u, level):
        return Row(steps=n, u0=u, u0_se=1e-4, level=level)

    first = [row(n, 1.0 + 0.5 / n, i) for i, n in enumerate((2, 5, 10))]
    out = richardson(first[2], first[1], first[0])
    assert out["order_confirmed"] and out["u0"] == pytest.approx(1.0)
    assert out["u0_se"] == pytest.approx(math.hypot(10e-4, 5e-4) / 5)  # noise amplified, (N s, N1 s1) / (N - N1)
    flat = [row(n, 1.0 + 1e-5 / n, i) for i, n in enumerate((2, 5, 10))]  # a dt term below the noise
    assert not richardson(flat[2], flat[1], flat[0])["order_confirmed"]
    assert not richardson(first[2], first[1])["order_confirmed"]  # two levels: not checked


def test_a_richardson_value_without_a_coarser_one_is_estimated_against_a_corrected_plain_level():
    """u0 = 1 + 0.5/N + 0.4/#C^2: the fine triple N = 2, 5, 10 at #C 5, M 400 has no coarser Richardson value, only
    the plain level N = 5, #C 3, M 100; its dt term removed by the pair's slope leaves 1 + 0.4/9 exactly, so the
    estimate is the cells' difference / (rho - 1), rho = min((5/3)^2, 400 x 5 / (100 x 10)) = 2, plus the noise
    term, and covers the error 0.4/25.  With N' = N1 the corrected value is u1 itself (the weight of u is 0)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from srmdp.refine.richardson import corrected, extrapolate
    from srmdp.refine.step_choice import estimable
    from srmdp.solutions.row import Row

    def u0(n, c):
        return 1.0 + 0.5 / n + 0.4 / c**2

    se = 1e-4
    done = []
    for i, (n, c, m) in enumerate([(5, 3, 100), (2, 5, 400), (5, 5, 400), (10, 5, 400)]):
        case = SimpleNamespace(steps=n, cells=c, paths=m, basis="LP1")
        row = extrapolate(case, Row(level=i, steps=n, cells=c, paths=m, u0=u0(n, c), u0_se=se), done)
        done.append((case, row, None))
    ext = done[-1][1].richardson
    assert ext["order_confirmed"] and ext["against_kind"] == "corrected plain" and ext["rho"] == pytest.approx(2.0)
    diff = 0.4 / 9 - 0.4 / 25
    assert ext["bias"] == pytest.approx(diff, rel=0.05) and ext["u0_error"] >= abs(ext["u0"] - 1.0) >= 0.4 / 25 - 1e-3
    assert done[-1][1].best["kind"] == "richardson"  # the plain value has no estimate here: N = 5 is not coarser
    fine, p1 = done[-1][1], done[-2][1]
    ref, diff_se = corrected(fine, p1, replace(p1, u0=p1.u0 + 0.1))  # N' = N1 = 5
    assert ext["u0"] - ref == pytest.approx(-0.1, rel=1e-9) and diff_se == pytest.approx(math.hypot(se, se))
    # the refinement's step choice knows it: a Richardson value at (10, 5, 400) is estimable from the plain level
    rows = [done[0][1]]
    assert estimable(done[-1][0], rows, richardson=True) and not estimable(done[-1][0], [], richardson=True)


# ------------------------------------------------------------------ the error model that chooses the steps
def _rows(u0, cases, se=1e-4):
    from srmdp.solutions.row import Row

    return [Row(steps=n, cells=c, paths=m, u0=u0(n, c, m), u0_se=se, level=i) for i, (n, c, m) in enumerate(cases)]


def test_the_error_model_recovers_its_terms_with_their_signs():
    """u0 = 1 + 0.36/N + 0.3/#C^2 - 3 N/M (the signs measured on hjb_lq, d = 4): the fit recovers each term from
    levels that vary in it; odd #C only (x0's place in its cell), N = 1 and #C = 1 are left out; a term the levels
    do not vary in is not identified (None), and too few levels give no model."""
    from srmdp.refine.error_model import fit, predicted_error

    def u0(n, c, m):
        return 1.0 + 0.36 / n + 0.3 / c**2 - 3.0 * n / m

    cases = [
        (2, 3, 500),
        (5, 3, 500),
        (10, 3, 500),
        (10, 5, 500),
        (5, 5, 2000),
        (10, 5, 2000),
        (1, 3, 500),
        (10, 4, 500),
        (5, 1, 125),
    ]
    model = fit(_rows(u0, cases), parity=1, q=2.0)
    assert model["levels"] == 6
    assert model["coef"]["dt"] == pytest.approx(0.36, abs=1e-3)
    assert model["coef"]["cells"] == pytest.approx(0.3, abs=1e-3)
    assert model["coef"]["paths"] == pytest.approx(-3.0, abs=1e-2)
    assert model["u_inf"] == pytest.approx(1.0, abs=1e-4)
    # the terms' absolute values are summed (no cancellation counted on); Richardson removes dt, keeps c (N + N1) / M
    assert predicted_error(model, 10, 5, 2000, 0.0) == pytest.approx(0.036 + 0.012 + 0.015, abs=1e-3)
    assert predicted_error(model, 10, 5, 2000, 0.0, partner=5) == pytest.approx(0.012 + 0.0225, abs=1e-3)
    fixed_n = fit(_rows(u0, [(10, 3, 500), (10, 5, 500), (10, 3, 2000), (10, 7, 500), (10, 5, 1000)]), 1, 2.0)
    assert fixed_n["coef"]["dt"] is None and fixed_n["coef"]["paths"] is not None
    assert fit(_rows(u0, cases[:2]), 1, 2.0) is None


def test_the_model_fits_the_cells_order_where_the_levels_identify_it_and_works_with_c_zero():
    """u0 = 1 + 0.36/N + 0.3/#C^3 with no N/M term (the driver's curvature corrected: c = 0): with #C 3, 5, 7 and a
    degree of freedom to spare the fit finds p = 3 and c = 0, and predicts the Richardson value's error as the cells'
    term alone; with two values of #C p is the basis's q = 2, not fitted."""
    from srmdp.refine.error_model import fit, predicted_error

    def u0(n, c, m):
        return 1.0 + 0.36 / n + 0.3 / c**3

    cases = [(2, 3, 500), (5, 3, 500), (10, 3, 500), (10, 5, 500), (5, 5, 2000), (10, 7, 2000), (5, 7, 1000)]
    model = fit(_rows(u0, cases), parity=1, q=2.0)
    assert model["p"] == 3.0 and model["coef"]["cells"] == pytest.approx(0.3, abs=1e-6)
    assert model["coef"]["paths"] == pytest.approx(0.0, abs=1e-6)
    assert predicted_error(model, 10, 7, 2000, 0.0, partner=5) == pytest.approx(0.3 / 7**3, abs=1e-6)
    assert fit(_rows(u0, [c for c in cases if c[1] != 7]), parity=1, q=2.0)["p"] == 2.0


def test_the_model_prices_a_step_that_cannot_be_estimated_at_zero():
    """A step whose value has no strictly coarser level (dt halved at a fixed M: rho_M = 1) could not become the
    answer: no gain; 2 M where the M term dominates (hjb_lq's sign and size) is the step with the largest gain."""
    from dataclasses import replace

    from srmdp.refine.error_model import fit
    from srmdp.refine.step_choice import model_gain

    def u0(n, c, m):
        return 1.0 + 0.02 / n + 0.01 / c**2 - 3.0 * n / m

    cases = [(2, 3, 125), (5, 3, 200), (2, 3, 500), (10, 3, 500), (10, 5, 500), (5, 5, 500)]
    rows = _rows(u0, cases)
    model = fit(rows, 1, 2.0)
    case = replace(_request(d=2).case_at(10)[0], cells=5, paths=500)
    row, best = rows[4], {"kind": "plain", "u0_error": 0.1, "u0_se": 1e-4}
    gains = {k: model_gain(model, k, case, row, best, rows) for k in ("dt", "paths", "cells")}
    assert gains["dt"] == 0.0  # (20, 5, 500): no level coarser in M by more than rho 1.1
    assert gains["paths"] > gains["cells"] > 0.0


def _m_dominated(case):  # hjb_lq's signs (d = 4): dt and cells up, the regression's N/M term down and largest
    return 1.0 + 0.05 / case.steps + 0.1 / case.cells**2 - 3.0 * case.steps / case.paths


@pytest.mark.parametrize("budget", [75.0, 300.0])
def test_steps_chosen_by_the_model_beat_the_fixed_ladder(monkeypatch, budget):
    """Where the N/M term dominates, the model takes steps from the answer (2 M) before the ladder's next level
    (which refines N too, and so grows that term at a fixed M): the same fake clock and budget give a smaller
    error than the fixed ladder (the ladder's order with the fill steps at its end, prefer_step disabled)."""
    from srmdp.refine import refine as refine_mod

    errors = {}
    for prefer in (True, False):
        with monkeypatch.context() as mp:
            clock = _Clock()
            mp.setattr(refine_mod, "_clock", clock)
            if not prefer:
                mp.setattr(refine_mod, "prefer_step", lambda *a, **k: None)
            sol, lines = _refine(mp, _timed_fake(clock, _m_dominated), tol=1e-12, budget_s=budget)
            assert clock.now <= budget
            errors[prefer] = abs(sol.result["u0"] - 1.0)
            if prefer:
                assert any(r["kind"].startswith("step-") for r in sol.result["refinement"])
    assert errors[True] < 0.6 * errors[False], errors


def test_every_rule_level_of_the_ladder_has_a_level_below_of_its_parity():
    """d = 8: #C 2 -> 3 changes the parity, and #C 1 is the only odd #C below 3; the ladder runs the solve's own
    level below (N/2, #C 1, M by the rules) before it, so that the level can be estimated."""
    from srmdp.refine.ladder import ladder
    from srmdp.solutions.error_estimate import coarser

    for d in (4, 8):
        levels, _ = ladder(_request(d=d))
        for i, (case, _, kind) in enumerate(levels):
            if kind == "rule" and i > 0:
                assert any(coarser(case, c)[0] for c, _, _ in levels[:i]), (d, case.steps, case.cells)
        assert any(kind == "below" and c.cells == 1 for c, _, kind in levels)


def test_the_model_fits_only_the_levels_of_the_answers_remedies():
    """A remedy (other strata, truncation) restarts the ladder on another problem: the levels before it are left
    out of the model's fit and of the estimability check."""
    from dataclasses import replace
    from types import SimpleNamespace

    from srmdp.refine.climb import Climb
    from srmdp.refine.step_choice import answer_model, same_ladder

    def u0(n, c, m):
        return 1.0 + 0.3 / n + 0.2 / c**2 - 2.0 * n / m

    cases = [(2, 3, 125), (5, 3, 500), (10, 3, 500), (10, 5, 500), (5, 5, 2000)]
    before = [replace(r, u0=r.u0 + 5.0) for r in _rows(u0, cases)]  # another problem: off by 5
    after = [replace(r, level=r.level + len(cases), remedies=("truncation",)) for r in _rows(u0, cases)]
    row = replace(after[3], best={"kind": "plain", "u0_error": 0.1, "u0_se": 1e-4})
    state = Climb(rows=before + after, answer=(SimpleNamespace(case=_request(d=2).case_at(10)[0]), row))
    assert same_ladder(state) == after
    assert answer_model(state)["u_inf"] == pytest.approx(1.0, abs=1e-3)


# ------------------------------------------------------------------ more runs of a level, pooled (a fake clock)
def _noisy(case):  # biases far below the runs' noise (0.05 per run): the error is the noise
    return 1.0 + 1e-4 / case.steps + 1e-4 / case.cells**2


def test_a_noise_dominated_refinement_pools_runs_into_its_answer(monkeypatch):
    """Per-run noise 0.05 (s.e. 0.025 at 4 runs) against biases < 1e-4: when the next level does not fit, the rest
    of the budget buys more runs of the answer's level (and its Richardson partners'), pooled: the answer's runs
    grow past the request's 4 and its u0 and s.e. are those of one solve with all of its runs -- the same streams
    (run indices 0 .. R-1), so equal bit for bit -- and the budget holds (the clock is fake: nothing timed)."""
    from srmdp.refine import refine as refine_mod
    from srmdp.solutions.solve_request import SolveRequest

    clock = _Clock()
    monkeypatch.setattr(refine_mod, "_clock", clock)
    fake = _timed_fake(clock, _noisy, noise=0.05)
    sol, lines = _refine(monkeypatch, fake, tol=1e-12, budget_s=20.0)
    rows = sol.result["refinement"]
    pooled = [r for r in rows if r["kind"] in ("fill-runs", "fill-runs-partners")]
    assert pooled and clock.now <= 20.0
    assert sol.result["runs"] > 4 and any(r["status"] == "pooled" for r in rows)
    req = SolveRequest.make("quadratic_z", __import__("srmdp").SolveOptions(d=2, strata="adapted", threads=1))
    one = fake(req, sol.case, {}, runs=sol.result["runs"]).result  # one solve of all the runs (the clock aside)
    assert sol.result["u0"] == one["u0"] and sol.result["u0_se"] == one["u0_se"]
    assert sol.result["per_run"]["u0"] == one["per_run"]["u0"]
    ans = rows[sol.result["chosen_level"]]
    assert ans["runs"] == sol.result["runs"] and ans["u0"] == sol.result["u0"]
    # the pooled rows replace their levels: one row per level in the estimates and the model's fit
    live = [(r["steps"], r["cells"], r["paths"]) for r in rows if r["status"] == "ok"]
    assert len(live) == len(set(live))


def test_pooled_runs_equal_one_solve_of_as_many_runs():
    """The solver itself: 2 runs, then 2 more from run index 2, pooled, give the u0 and s.e. of one solve of 4 runs
    bit for bit (the runs' streams are their run indices), and the kept coefficients of its last run."""
    import srmdp
    from srmdp.refine.pooled_runs import pooled
    from srmdp.solutions.solve_request import SolveRequest

    opts = srmdp.SolveOptions(d=2, strata="adapted", threads=1, runs=4, dt=0.25, cells=3, paths=64)
    req = SolveRequest.make("quadratic_z", opts)
    case, rules = req.case_at(req.steps)
    one = req.run(case, rules)
    both = pooled(req.run(case, rules, runs=2), req.run(case, rules, runs=2, run_start=2))
    assert both.result["u0"] == one.result["u0"] and both.result["u0_se"] == one.result["u0_se"]
    assert both.result["per_run"]["u0"] == one.result["per_run"]["u0"] and both.runs == 4
    assert np.array_equal(both.coefficients, one.coefficients) and both.kept_runs == one.kept_runs
