"""float32 arithmetic (``Case.arithmetic``): the same streams, the same draws rounded, the same answers
within the standard errors, the same numbers on the CUDA simulator within a stated bound."""

import math
import warnings

import numpy as np
import pytest
from conftest import cuda_usable
from numba import njit

from srmdp.case.cases import Case
from srmdp.numerics.build import kernels, single_precision_source
from srmdp.paper.inputs.rows import paper_case
from srmdp.problems import load_problem


def _sampler(arithmetic):
    k = kernels(load_problem("gobet2016"), "LP0", 0, "cpu", arithmetic=arithmetic)
    seed_state, normal_s = k.seed_state, k.normal_s

    @njit
    def sample(n_streams, per_stream):
        out = np.empty(n_streams * per_stream)
        states = np.empty((n_streams * per_stream, 2), np.uint64)
        for s in range(n_streams):
            s0, s1 = seed_state(7, 0, 1, 2, s, 3)
            for j in range(per_stream):
                v, s0, s1 = normal_s(s0, s1)
                out[s * per_stream + j] = v
                states[s * per_stream + j, 0] = s0
                states[s * per_stream + j, 1] = s1
        return out, states

    return sample


def test_float32_normals_are_the_float64_draws_rounded():
    """Stream unchanged: after every normal the state is the same, the ziggurat took the same branch (the rectangle
    test as integers, exact); the float32 normal is float32(n) * float32(X_idx 2^-52): three roundings of 2^-24
    relative each (n, the table entry, the product) against the float64 one (its error ~2^-53), so
    |n32 - n64| <= 3 2^-24 |n64| (wedges and tail: one rounding)."""
    n64, st64 = _sampler("float64")(400, 100)
    n32, st32 = _sampler("float32")(400, 100)
    assert np.array_equal(st64, st32)
    rel = np.abs(n32 - n64) / np.abs(n64)
    assert rel.max() <= 3 * 2.0**-24, rel.max()
    assert np.count_nonzero(n32 != n64) > 0.5 * n64.size  # float32 values indeed (not float64 ones copied)
    assert np.all(n32 == n32.astype(np.float32))


def test_problem_rewrite_makes_constants_float32():
    """The problem file is unchanged; its kernel functions compile with float32 constants (no float64 promotion)."""
    src = single_precision_source(load_problem("gobet2016"))
    assert "_srmdp_real(2.0) + _srmdp_real(d)" in src and "zs = _srmdp_real(0.0)" in src
    from srmdp.numerics.build import cpu_problem_module

    mod = cpu_problem_module(load_problem("gobet2016"), "float32")
    x = np.array([0.1, -0.2], np.float32)
    z = np.array([0.05, 0.07], np.float32)
    f = mod.driver(np.float32(0.2), x, np.float32(0.3), z, 2)
    g = mod.terminal(np.float32(1.0), x, 2)
    from numba import types

    for fn in (mod.driver, mod.terminal):  # typed float32 end to end (Python sees the boxed float)
        assert fn.nopython_signatures[-1].return_type == types.float32, fn.nopython_signatures
    assert math.isclose(f, 0.12 * (0.3 - 1.0), rel_tol=1e-6) and math.isclose(g, 1 / (1 + math.exp(-0.9)), rel_tol=1e-6)


def test_arithmetic_is_a_reading_and_a_case_field():
    from srmdp.case.readings import reading_of, same_reading

    c32 = Case(d=1, dt=0.5, basis="LP0", cells=2, paths=4, arithmetic="float32")
    c64 = Case(d=1, dt=0.5, basis="LP0", cells=2, paths=4)
    assert "arithmetic" not in c64.as_dict() and c32.as_dict()["arithmetic"] == "float32"
    old = {"reading": {"outside": "unbounded", "trunc_y": None, "trunc_z": None}}
    new64 = {"reading": dict(old["reading"], arithmetic="float64")}
    new32 = {"reading": dict(old["reading"], arithmetic="float32")}
    assert reading_of(old)[5] == "float64" and same_reading(reading_of(old), reading_of(new64))
    assert not same_reading(reading_of(old), reading_of(new32))
    from srmdp.exceptions import ConfigError

    with pytest.raises(ConfigError, match="arithmetic"):
        Case(d=1, dt=0.5, basis="LP0", cells=2, paths=4, arithmetic="float16")


# Small paper rows on the CPU, float32 against float64 arithmetic, R runs each.  Both use the same streams, so the
# difference of an indicator is not sampling noise between independent runs but the effect of rounding along the
# paths; the test asks that it be below the indicator's own standard error (1 s.e.: an independent run pair would
# differ by ~1.4 s.e. already; a wrong cast -- a float64 value truncated, a step in float16 -- moves the
# indicators by many s.e.).  u0 likewise, against the s.e. of the mean over the runs.
ROWS = [("LP0d4", 0.2, {}), ("LP0d6_0", 0.2, {}), ("LP1d4", 0.2, {})]


@pytest.mark.slow
@pytest.mark.parametrize("table,dt,over", ROWS, ids=[r[0] for r in ROWS])
def test_float32_indicators_agree_with_float64_within_their_standard_errors(table, dt, over):
    from dataclasses import replace

    from srmdp.runs.run import run_case

    res = {}
    for arithmetic in ("float64", "float32"):
        case = replace(paper_case(table, dt=dt), arithmetic=arithmetic, **over)
        res[arithmetic] = run_case(case, runs=8, test_points=200, seed=3, threads=1, progress=False)
    a, b = res["float64"], res["float32"]
    assert b["reading"]["arithmetic"] == "float32" and a["reading"]["arithmetic"] == "float64"
    for key in ("mse_y_max", "mse_y_av", "mse_z_av"):
        assert abs(a[key] - b[key]) <= a[f"{key}_se"], (key, a[key], b[key], a[f"{key}_se"])
    u_se = np.std(a["per_run"]["u0"], ddof=1) / math.sqrt(8)
    assert abs(a["u0"] - b["u0"]) <= u_se


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
@pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU")
def test_float32_gpu_matches_cpu_within_the_rounding_bound():
    """float32 arithmetic on the CUDA path against the CPU's.  Not bit for bit under the simulator: its kernels run
    as Python, where math.exp/log of a float32 return a float64 (the CPU calls expf/logf), so a value can differ by
    an ulp of float32 and the coefficient, a mean of M such values, by a few: bound 1e-5 relative to the largest
    coefficient, 80 float32 ulps (float64 arithmetic stays bit for bit, tests/test_cuda_sim.py)."""
    from srmdp.runs.run import run_case

    case = Case(d=2, dt=0.5, basis="LP1", cells=2, paths=6, arithmetic="float32")  # 1 run, 8 test points
    coefs = {}

    def keep(device):
        def on_run(r, backend):
            coefs[device, r] = np.array(backend.coefficients(), np.float64)

        return on_run

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around in numpy scalars (simulator)
        res = {
            dev: run_case(case, runs=1, test_points=8, seed=4, device=dev, progress=False, on_run=keep(dev))
            for dev in ("cpu", "gpu")
        }
    for r in range(1):
        ref, got = coefs["cpu", r], coefs["gpu", r]
        assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max(), np.abs(got - ref).max()
    for key in ("mse_y_max", "mse_y_av", "mse_z_av"):
        assert math.isclose(res["gpu"][key], res["cpu"][key], rel_tol=1e-4, abs_tol=1e-6), key
