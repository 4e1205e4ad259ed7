"""The curvature correction of the driver (srmdp.problems.curvature, beyond the paper): its variances are those of the
regressions, it changes nothing where the second derivatives are 0, central differences stand in for driver_zz, and
its default follows the problem.  Its effect on u0's c N/M term is measured in bench/own_pde/curvature.py
(data/own_pde/curvature.json); off, tests/test_bit_identity.py holds the paper's numbers."""

import dataclasses

import numpy as np
import pytest

from srmdp.case.cases import Case
from srmdp.kernels.cpu import CpuBackend
from srmdp.numerics.build import kernels
from srmdp.problems import REGISTRY, load_problem
from srmdp.problems.curvature import default, driver_is_curved
from srmdp.runs.run import run_case

FLAT = "\n\ndef driver_zz(t, x, y, z, l, d):\n    return 0.0\n\n\ndef driver_yy(t, x, y, z, d):\n    return 0.0\n"
QUADRATIC = "import math\n\nMATURITY = 1.0\n\n\ndef terminal(T, x, d):\n    return math.sin(x[0])\n\n\n" + (
    "def driver(t, x, y, z, d):\n    return 0.5 * z[0] * z[0] - 0.25 * z[d - 1] * z[d - 1] + 0.3 * y * y\n"
)
SECOND = "\n\ndef driver_zz(t, x, y, z, l, d):\n    return (1.0 if l == 0 else 0.0) - (0.5 if l == d - 1 else 0.0)\n"
SECOND += "\n\ndef driver_yy(t, x, y, z, d):\n    return 0.6\n"


def _file(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return str(path)


def _coefficients(case, seed=3):
    b = CpuBackend(load_problem(case.problem), threads=2)
    run_case(case, runs=1, test_points=1, seed=seed, backend=b)
    return b.coef.copy(), b.cvar.copy()


@pytest.mark.slow  # compile-dominated
def test_zero_second_derivatives_change_nothing(tmp_path):
    """The paper's driver with driver_zz = driver_yy = 0: every driver value loses 1/2 (0 Var) = 0, so the
    coefficients with the correction are those without it, bit for bit (and the variances were computed)."""
    spec = _file(tmp_path, "flat", REGISTRY["gobet2016"].read_text() + FLAT)
    case = Case(d=2, dt=0.25, basis="LP1", cells=3, paths=12, problem=spec, z_cv=True)
    off, _ = _coefficients(case)
    on, cvar = _coefficients(dataclasses.replace(case, curvature_correction=True))
    assert np.array_equal(on, off)
    assert cvar.shape == (4, 9, 3 + 6) and (cvar[:, :, :3] > 0).all()


@pytest.mark.slow
def test_variances_are_the_regressions_residual_variances():
    """LP0 (phi = 1): sigma^2_c is the responses' sample variance (M - 1 degrees of freedom) and L^{-1} = 1/sqrt(M);
    the responses are read back by the diagnostics kernel from the same coefficients (rtol 1e-10: sums in another
    order)."""
    case = Case(d=2, dt=0.25, basis="LP0", cells=2, paths=40, problem="quadratic_z", curvature_correction=True)
    coef, cvar = _coefficients(case)
    k = kernels(load_problem("quadratic_z"), "LP0", 2, "cpu", case.kernel_bindings)
    i = 1
    out = np.zeros((case.strata * case.paths, 2 + case.d))
    k.path_responses(coef, cvar, i, case.record(3, 0, 0), out)
    resp = out.reshape(case.strata, case.paths, -1)
    want = np.stack([resp[:, :, 0]] + [resp[:, :, 1] * resp[:, :, 2 + l] for l in range(case.d)], axis=2)
    np.testing.assert_allclose(cvar[i, :, :3], want.var(axis=1, ddof=1), rtol=1e-10)
    np.testing.assert_allclose(cvar[i, :, 3], 1 / np.sqrt(case.paths), rtol=1e-14)


@pytest.mark.slow
def test_central_differences_stand_in_for_the_second_derivatives(tmp_path):
    """A driver quadratic in y and z: its central differences are its second derivatives up to rounding
    (eps |f| / h^2 ~ 1e-8 relative at h = 2^-13), so the coefficients with driver_zz/driver_yy and without agree to
    1e-6; and the correction moves them (by far more)."""
    own = _file(tmp_path, "own", QUADRATIC + SECOND)
    fd = _file(tmp_path, "fd", QUADRATIC)
    base = dict(d=2, dt=0.25, basis="LP1", cells=3, paths=12, z_cv=True)
    with_own, _ = _coefficients(Case(problem=own, curvature_correction=True, **base))
    with_fd, _ = _coefficients(Case(problem=fd, curvature_correction=True, **base))
    off, _ = _coefficients(Case(problem=own, **base))
    np.testing.assert_allclose(with_fd, with_own, rtol=1e-6, atol=1e-9)
    assert np.abs(with_own - off).max() > 1e3 * np.abs(with_fd - with_own).max()


def test_default_follows_the_problem(tmp_path):
    """Off for the paper's problem; the file's CURVATURE_CORRECTION where set; else on where the driver is curved
    (second derivatives given, or probed on the compiled driver: a driver curved in y only counts, a linear one
    does not)."""
    assert not default(load_problem("gobet2016"), 4, paper=True)
    assert default(load_problem("hjb_lq"), 4, paper=False) and default(load_problem("quadratic_z"), 8, paper=False)
    assert not driver_is_curved(load_problem("gobet2016"), 3)  # bilinear in (y, z): no diagonal curvature
    assert driver_is_curved(load_problem(_file(tmp_path, "fd", QUADRATIC)), 2)
    linear = QUADRATIC.replace("0.5 * z[0] * z[0] - 0.25 * z[d - 1] * z[d - 1] + 0.3 * y * y", "z[0] - 2.0 * y")
    assert not driver_is_curved(load_problem(_file(tmp_path, "linear", linear)), 2)
    in_y = QUADRATIC.replace("0.5 * z[0] * z[0] - 0.25 * z[d - 1] * z[d - 1] + 0.3 * y * y", "z[0] + y * y")
    assert driver_is_curved(load_problem(_file(tmp_path, "in_y", in_y)), 2)
    off = load_problem(_file(tmp_path, "off", QUADRATIC + "\nCURVATURE_CORRECTION = False\n"))
    assert not default(off, 2, paper=False)


def test_solve_requests_carry_the_default_and_an_explicit_choice():
    from srmdp.options import SolveOptions
    from srmdp.solutions.solve_request import SolveRequest

    def chosen(problem, **kw):
        return SolveRequest.make(problem, SolveOptions(d=2, **kw)).case_options["curvature_correction"]

    assert chosen("hjb_lq") is True and chosen("gobet2016") is False
    assert chosen("hjb_lq", curvature_correction=False) is False and chosen("gobet2016", curvature_correction=True)


def test_a_file_with_a_bad_flag_is_one_line(tmp_path):
    from srmdp.exceptions import ConfigError

    with pytest.raises(ConfigError, match="CURVATURE_CORRECTION = 1: True or False"):
        load_problem(_file(tmp_path, "bad", QUADRATIC + "\nCURVATURE_CORRECTION = 1\n"))


def test_the_record_and_the_reading_name_the_correction_only_when_on():
    from srmdp.case.readings import ReadingKey, same_reading

    case = Case(d=2, dt=0.5, basis="LP0", cells=2, paths=4, problem="hjb_lq")
    assert "curvature_correction" not in case.as_dict()
    assert dataclasses.replace(case, curvature_correction=True).as_dict()["curvature_correction"] is True
    assert not same_reading(
        ReadingKey("unbounded", None, None), ReadingKey("unbounded", None, None, *[False] * 2, "float64", True)
    )
