"""Numerical safety: logistic tails, the exact solution far out, non-finite coefficients, singular LP1.

* Sampling in the outer (unbounded) cells at the extreme uniforms the generator can return
  (2^-53 and 1), inverse CDF accuracy far in the tails (no cancellation), and the estimator
  evaluated there with float64 and float32 coefficients.
* y, z, g = sigmoid forms at t + sum x up to +/-800 in float64 and float32 (e^{t + sum x} would
  overflow float32 beyond 88 and float64 beyond 709).
* A problem whose driver returns NaN in one stratum: the run stops with NumericalError naming
  the time step and the stratum, and the CLI exits with status 3 without writing a result.
* Numerically singular LP1 normal equations (degenerate samples) drop directions, still fit
  the data like a dense least-squares solve, and the drops are counted in the diagnostics.
"""

import contextlib
import io
import math
from pathlib import Path
from unittest import mock

import mpmath
import numpy as np
import pytest
from numba import njit

from srmdp.case.cases import Case
from srmdp.case.results import write_json_atomic
from srmdp.exceptions import NumericalError
from srmdp.problems.gobet2016 import solution as paper_solution
from srmdp.runs.aggregate import aggregate
from srmdp.runs.run import first_nonfinite_stratum, run_case

HALF = 6.5
U_MIN, U_MAX = 2.0**-53, 1.0  # the extreme values of rng.uniform: (k + 1) 2^-53, k < 2^53


# --- logistic sampling in the tails -----------------------------------------------------------------
@pytest.fixture(scope="module")
def fixed_uniform_strata():
    """The strata functions with a 'uniform' that returns the state s0 itself: extreme draws on demand
    (the plain-Python kernel code of srmdp.numerics.strata, its uniform_s replaced)."""
    import srmdp.numerics.strata as strata

    with mock.patch.object(strata, "uniform_s", lambda s0, s1: (s0, s0, s1)):

        def draw(k, d, ncell, unbounded, v):
            h = 2 * HALF / ncell
            cell = np.empty(3 * d)
            strata.cell_setup(k, cell, d, ncell, HALF, h, unbounded)
            x = np.empty(d)
            u = np.empty(d)
            strata.sample_cell(v, 0.0, cell, x, u, d, HALF, h, True)
            return x, u

        yield draw, strata.logistic_in, strata.logistic_cdf


def _bounds(c, ncell, unbounded):
    h = 2 * HALF / ncell
    a, b = -HALF + c * h, -HALF + (c + 1) * h
    if unbounded and c == 0:
        a = -math.inf
    if unbounded and c == ncell - 1:
        b = math.inf
    return a, b


@pytest.mark.parametrize("ncell", [1, 2, 3, 40])
@pytest.mark.parametrize("unbounded", [True, False])
def test_outer_cells_at_extreme_uniforms(fixed_uniform_strata, ncell, unbounded):
    draw = fixed_uniform_strata[0]
    d = 2
    for k in {0, ncell - 1, ncell * ncell - 1, ncell * (ncell - 1)}:  # the corner cells
        cs = [(k // ncell**l) % ncell for l in range(d)]
        for v in (U_MIN, 2 * U_MIN, 1e-9, 0.5, 1 - 1e-9, U_MAX):
            x, u = draw(k, d, ncell, unbounded, v)
            assert np.all(np.isfinite(x)) and np.all(np.isfinite(u)), (k, v, x)
            for l in range(d):
                a, b = _bounds(cs[l], ncell, unbounded)
                tol = 1e-12 * max(1.0, abs(x[l]))
                assert a - tol <= x[l] <= b + tol, (k, l, v, a, x[l], b)
            if unbounded and cs[0] == 0 and v == U_MIN:
                # the farthest point the sampler can reach: ~ln(2^-53 F(b)) ~ -37 - |ln F(b)|, finite
                assert x[0] < -36.0


def test_inverse_cdf_has_full_precision_far_in_the_tails(fixed_uniform_strata):
    """Conditional quantiles of nu on [a, b) against 50-digit arithmetic, in both tails up to |x| = 700."""
    logistic_in = fixed_uniform_strata[1]
    mpmath.mp.dps = 50

    def exact(a, b, v):
        if a >= 0.0:  # the sampler reflects right-half intervals (same law, v -> mirrored quantile)
            return -exact(-b, -a, v)
        F = lambda x: 1 / (1 + mpmath.exp(-mpmath.mpf(x)))  # noqa: E731
        fa = mpmath.mpf(0) if a == -math.inf else F(a)
        fb = mpmath.mpf(1) if b == math.inf else F(b)
        p = fa + mpmath.mpf(v) * (fb - fa)
        return float(mpmath.log(p) - mpmath.log(1 - p))

    for a, b in [
        (-700.0, -699.0),
        (-40.0, -39.5),
        (-6.5, -6.175),
        (6.175, 6.5),
        (30.0, 31.0),
        (699.0, 700.0),
        (-math.inf, -6.175),
        (6.175, math.inf),
        (-math.inf, -30.0),
        (30.0, math.inf),
        (-0.5, 0.5),
        (-math.inf, math.inf),
    ]:
        for v in (U_MIN, 1e-6, 0.25, 0.5, 0.75, 1 - 2**-52, U_MAX):
            got = logistic_in(a, b, v)
            want = exact(a, b, v)
            if v == U_MAX and (a, b) == (-math.inf, math.inf):
                # p = 1 exactly is clipped to 1 - 2^-53: the farthest test point is ~ +36.7, finite
                assert got == pytest.approx(36.7368005696771)
                continue
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (a, b, v, got, want)


@pytest.mark.parametrize("x", [-800.0, -745.0, -100.0, -36.0, 0.0, 36.0, 100.0, 745.0, 800.0])
def test_logistic_cdf_is_stable(fixed_uniform_strata, x):
    cdf = fixed_uniform_strata[2]
    want = float(1 / (1 + mpmath.exp(-mpmath.mpf(x))))
    assert cdf(x) == pytest.approx(want, rel=1e-14, abs=1e-320)


@pytest.fixture(scope="module")
def estimate_at(cpu_kernels):
    from conftest import case_record

    estimate_at = cpu_kernels.estimate_at

    @njit
    def at_rec(coef, x, rec):
        d = x.shape[0]
        u = np.empty(d)
        ph = np.empty(coef.shape[3])
        z = np.empty(d)
        y = estimate_at(coef, 0, x, u, ph, z, rec)
        return y, z.copy()

    def at(coef, x, ncell, mode, bound):
        h = 2 * HALF / ncell
        rec = case_record(
            d=x.shape[0],
            nb=coef.shape[3],
            cells=ncell,
            outside=mode,
            half_width=HALF,
            h=h,
            inv_h=1.0 / h,
            trunc_y=bound,
            trunc_z=bound,
        )
        return at_rec(coef, x, rec)

    return at


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", [0, 1, 2])  # unbounded, zero, clamp
def test_estimator_far_in_the_tails(estimate_at, dtype, mode):
    """LP1 estimators evaluated at points far outside the box, with float64 and float32 coefficients:
    finite everywhere, 0 outside the box in mode zero, and truncation bounds them when set."""
    d, ncell = 2, 3
    rng = np.random.default_rng(3)
    coef = rng.normal(size=(1, ncell**d, d + 1, d + 1)).astype(dtype)
    coef[..., 1:] *= 0.1
    for s in (-800.0, -90.0, -36.7, 36.7, 90.0, 800.0):
        for x in (np.array([s, 0.0]), np.array([s, -s]), np.array([s, s])):
            y, z = estimate_at(coef, x, ncell, mode, math.inf)
            assert math.isfinite(y) and np.all(np.isfinite(z)), (s, x, y, z)
            if mode == 1:
                assert y == 0.0 and np.all(z == 0.0)
            y1, z1 = estimate_at(coef, x, ncell, mode, 1.0)
            assert abs(y1) <= 1.0 and np.all(np.abs(z1) <= 1.0)


# --- the exact solution far in the tails ----------------------------------------------------------
@pytest.fixture(scope="module")
def solution(cpu_kernels):
    y_exact, z_exact, terminal = cpu_kernels.y_exact, cpu_kernels.z_exact, cpu_kernels.terminal

    @njit
    def at(t, x):
        d = x.shape[0]
        out = np.empty(d, x.dtype)
        z_exact(t, x, out, d)
        return y_exact(t, x, d), out, terminal(t, x, d)

    return at


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("s", [-800.0, -710.0, -100.0, -89.0, -88.0, -20.0, 0.0, 20.0, 88.0, 89.0, 100.0, 710.0, 800.0])
def test_exact_solution_in_the_tails(solution, dtype, s):
    """y = w/(1+w), z_l = w/(1+w)^2 with w = e^{t + sum x}: no overflow, no NaN, correct limits."""
    d = 4
    t = dtype(0.5)
    x = np.full(d, (s - 0.5) / d, dtype=dtype)  # t + sum x = s
    y, z, g = solution(t, x)
    ss = mpmath.mpf(float(t)) + mpmath.fsum(mpmath.mpf(float(v)) for v in x)
    w = mpmath.exp(ss)
    y_want, z_want = float(w / (1 + w)), float(w / (1 + w) ** 2)
    # relative accuracy down to the smallest normal number of the precision (denormals hold fewer bits)
    tol, tiny = (1e-6, float(np.finfo(np.float32).tiny)) if dtype == np.float32 else (1e-14, 1e-300)
    assert math.isfinite(y) and np.all(np.isfinite(z)) and math.isfinite(g)
    assert 0.0 <= y <= 1.0 and np.all(z >= 0.0) and np.all(z <= 0.25)
    assert y == pytest.approx(y_want, rel=tol, abs=tiny)
    assert g == pytest.approx(y_want, rel=tol, abs=tiny)
    np.testing.assert_allclose(z, z_want, rtol=tol, atol=tiny)
    with np.errstate(all="raise"):  # the vectorised form too, with floating-point exceptions trapped
        yv, zv = paper_solution(float(t), x.astype(np.float64)[None, :])
    # (tanh form: absolute accuracy only, 0 instead of e^-100 far out; the kernels keep relative accuracy)
    assert np.isfinite(yv[0]) and np.all(np.isfinite(zv)) and abs(yv[0] - y_want) < 1e-15


# --- a non-finite coefficient is reported with its time step and stratum --------------------------
# the paper's problem (a user's file must hold its kernel functions itself), with a NaN in the driver
NAN_DRIVER = (
    (Path(__file__).resolve().parent.parent / "srmdp" / "problems" / "gobet2016.py")
    .read_text()
    .replace(
        "def driver(t, x, y, z, d):",
        """def driver(t, x, y, z, d):
    if t == 0.5 and x[0] > 3.0:  # NaN only at time 0.5, for points of the upper cell [13/6, inf)
        return math.nan""",
    )
)


@pytest.fixture(scope="module")
def nan_problem(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("nan")) / "nan_driver.py"
    path.write_text(NAN_DRIVER)
    return str(path)


def nan_case(problem):
    return dict(d=1, dt=0.5, basis="LP1", cells=3, paths=20, problem=problem)


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_nan_in_a_coefficient_names_time_step_and_stratum(nan_problem):
    # N = 2: the backward loop starts at i = 1, whose y regression integrates f(0.5, x_1, ...) dt over
    # x_1 ~ nu_k: NaN exactly in stratum k = 2, the upper cell [-6.5 + 2 h, inf) = [2.17, inf), h = 13/3
    case = Case(**nan_case(nan_problem))
    with pytest.raises(NumericalError, match=r"run 0, time step i=1, stratum k=2$"):
        run_case(case, runs=1, test_points=10, seed=1)


@pytest.mark.slow
def test_nan_through_the_cli_exits_3_without_a_result(nan_problem, tmp_path):
    from srmdp.cli.commands import main

    out = tmp_path / "nan.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(
            [
                "run",
                "--d",
                "1",
                "--dt",
                "0.5",
                "--basis",
                "LP1",
                "--cells",
                "3",
                "--paths",
                "20",
                "--runs",
                "2",
                "--test-points",
                "10",
                "--problem",
                nan_problem,
                "--out",
                str(out),
            ]
        )
    assert status == 3
    said = err.getvalue().splitlines()
    # the one line of the error, after the cost said before compute (srmdp.solutions.prediction.run_line)
    assert len(said) == 2 and said[0].startswith("srmdp: case N = 2, #C = 3, M = 20, K = 3, 2 runs: predicted ")
    lines = said[1:]
    assert lines[0].startswith("srmdp: numerical error: ") and "Traceback" not in err.getvalue()
    assert "time step i=1, stratum k=2" in lines[0]
    assert not out.exists() and not list(tmp_path.iterdir())


def test_nonfinite_scan_finds_the_first_bad_stratum():
    coef = np.zeros((3, 70000, 3, 3), np.float32)
    assert first_nonfinite_stratum(coef, 1) == -1
    coef[1, 65537, 2, 1] = np.inf  # in the second block of the scan
    coef[1, 69999, 0, 0] = np.nan
    coef[2, 5, 0, 0] = np.nan
    assert first_nonfinite_stratum(coef, 1) == 65537
    assert first_nonfinite_stratum(coef, 2) == 5
    assert first_nonfinite_stratum(coef, 0) == -1
    assert first_nonfinite_stratum(None, 0) == -1


# --- a backend double: plumbing of the checks without a compile -----------------------------------
class FakeBackend:
    """Writes given coefficients (e.g. a float32 overflow the kernel's float64 check cannot see)."""

    device = "cpu"

    def __init__(self, poison=None, dropped=0):
        self.poison, self.dropped = poison, dropped

    def check_fits(self, case, test_points, runs=1):
        pass

    def allocate(self, case):
        self.coef = np.zeros(
            (case.steps, case.strata, case.d + 1, case.n_basis),
            np.float32 if case.precision == "float32" else np.float64,
        )

    def warm_up(self, rec):
        pass

    def backward_step(self, i, rec):
        if self.poison and self.poison[0] == i:
            self.coef[i, self.poison[1], 0, 0] = np.float32(3e38) * np.float32(10)  # overflows to inf
        return -1

    def errors(self, rec):
        n = self.coef.shape[0]
        return np.full(n, 0.01), np.full(n, 0.02), np.full(n, 2e-4), np.full(n, 8e-4)

    def evaluate(self, j, rec, points):
        return np.zeros(points.shape[0]), np.zeros(points.shape)

    def memory_report(self, test_points):
        return {}

    def fallbacks(self):
        return self.dropped

    def hardware(self):
        return {"device": "cpu", "model": "fake", "threads": 1}


def test_float32_overflow_in_a_stored_coefficient_is_reported():
    case = Case(d=2, dt=0.25, basis="LP0", cells=3, paths=4, precision="float32")
    with np.errstate(over="ignore"):
        with pytest.raises(NumericalError, match=r"time step i=2, stratum k=7$"):
            run_case(case, runs=1, test_points=5, backend=FakeBackend(poison=(2, 7)))


# --- numerically singular LP1 systems --------------------------------------------------------------
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
        m, nb = u.shape[0], u.shape[1] + 1
        G = np.zeros(nb * nb)
        acc = np.zeros(nb)
        phi = np.empty(nb)
        for j in range(m):
            phi[0] = 1.0
            phi[1:] = u[j]
            accumulate_gram(G, phi, nb)
            accumulate(acc, 0, phi, s[j], nb)
        dropped = cholesky(G, nb)
        coef = np.zeros((1, 1, 1, nb))
        tmp = np.empty(nb)
        ok = solve_into(G, acc, 0, nb, coef, 0, 0, tmp)
        return coef[0, 0, 0], dropped, ok

    return fit


def _degenerate(kind, rng, m=50, d=3):
    u = rng.uniform(-0.5, 0.5, size=(m, d))
    if kind == "one point":
        u[:] = u[0]
    elif kind == "collinear":
        u[:, 1] = u[:, 0]
    elif kind == "nearly collinear":
        u[:, 2] = u[:, 0] + 1e-10 * rng.normal(size=m)
    elif kind == "constant axis":
        u[:, 1] = 0.3
    elif kind == "fewer paths than basis":
        u = u[:2]
    return u


@pytest.mark.parametrize(
    "kind, dropped",
    [("one point", 3), ("collinear", 1), ("nearly collinear", 1), ("constant axis", 1), ("fewer paths than basis", 2)],
)
def test_singular_lp1_drops_directions_and_still_fits(ols, kind, dropped):
    rng = np.random.default_rng(11)
    u = _degenerate(kind, rng)
    s = 0.3 + u @ np.array([0.5, -0.2, 0.1]) + 0.01 * rng.normal(size=u.shape[0])
    a, nd, ok = ols(u, s)
    assert ok and np.all(np.isfinite(a))
    assert nd == dropped
    design = np.hstack([np.ones((u.shape[0], 1)), u])
    lstsq = np.linalg.lstsq(design, s, rcond=1e-9)[0]
    # the fitted values are those of the (rank-revealing) dense least-squares solve
    np.testing.assert_allclose(design @ a, design @ lstsq, atol=1e-6)
    # and the coefficients stay of the size of the data (no 1/pivot blow-up)
    assert np.max(np.abs(a)) < 10.0


def test_dropped_directions_are_counted_in_results_and_aggregate(tmp_path):
    case = Case(d=2, dt=0.5, basis="LP1", cells=2, paths=3)
    paths = []
    for j, (start, dropped) in enumerate([(0, 4), (2, 3)]):
        res = run_case(case, runs=2, run_start=start, test_points=5, backend=FakeBackend(dropped=dropped))
        assert res["diagnostics"]["dropped_directions"] == dropped
        paths.append(tmp_path / f"c{j}.json")
        write_json_atomic(paths[-1], res)
    assert aggregate(paths, expect_runs=4)["diagnostics"]["dropped_directions"] == 7


def test_nonfinite_test_point_error_names_run_and_step():
    class NanErrors(FakeBackend):
        def errors(self, rec):
            ey, ez, ey2, ez2 = super().errors(rec)
            ez[1] = np.nan
            return ey, ez, ey2, ez2

    case = Case(d=1, dt=0.25, basis="LP0", cells=2, paths=2)
    with pytest.raises(NumericalError, match=r"test-point error .* run 3, time step i=1$"):
        run_case(case, runs=1, run_start=3, test_points=5, backend=NanErrors())
