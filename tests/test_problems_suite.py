"""The suite of problems beyond the paper (srmdp/problems/*.py), checked without the solver.

For every module: the contract (names, signatures, kernel code that references only ``math``, a few
builtins, module constants and module helpers); its kernel functions compile with ``numba.njit`` (and,
where the CUDA toolchain is installed, for sm_90) and agree with their pure-Python call and with the
vectorised ``solution``; the explicit (or quadrature) solution solves the PDE, z = sigma^T grad u, and
u(T) = g; ``forward`` has the stated law; the references are reproducible and agree with independent
computations within their stated errors.

Finite-difference tolerances.  Central differences with step e have truncation error e^2/6 |d^3u| (first
derivatives) and e^2/12 |d^4u| (second derivatives) and rounding ~ 4 eps |u| / e^2 (eps = 2.2e-16).  For
the explicit solutions here the partial derivatives of order <= 4 are bounded by ~3 (1 + |u|) (functions
of x / sqrt(d) with v >= 0.6 under the logarithm, or polynomials in x), so with e = 1e-3 each derivative is
within ~5e-7 (1 + |u|) and the residual, a sum of d + 2 such terms, within (d + 1) 1e-6 (1 + |u|): the
tolerance is ``RES_TOL (d + 1) (1 + |u|)`` with RES_TOL = 1e-6, for z ``RES_TOL (1 + |u|)``.  (Observed:
at most 6e-8 (d + 1)(1 + |u|); a driver off by 1e-4 fails.)  For the HJB quadrature solution the fourth
derivatives are larger near the origin at d = 1 (|d^4u| up to ~50), so e = 3e-4 there: truncation
<= 4e-7, rounding ~4 eps |u| / e^2 ~ 2e-8 (the quadrature's ~1e-13 error is smooth in (t, x) and
cancels in the differences); observed 5e-8 (d = 1) and 2e-9 (d = 4, 8); same tolerance RES_TOL.
"""

import importlib
import inspect
import math
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest
from numba import njit

NAMES = ["reaction_diffusion", "hjb_lq", "quadratic_z", "bs_barenblatt", "bs_diff_rates"]
EXPLICIT = ["reaction_diffusion", "quadratic_z", "bs_barenblatt"]
KERNELS = {
    "terminal": ["T", "x", "d"],
    "driver": ["t", "x", "y", "z", "d"],
    "forward": ["t", "x", "dw", "dt", "d"],
    "y_exact": ["t", "x", "d"],
    "z_exact": ["t", "x", "out", "d"],
}
REQUIRED = ("terminal", "driver")
DIMS = [1, 4, 8]
RES_TOL = 1e-6


def load(name):
    return importlib.import_module(f"srmdp.problems.{name}")


def kernel_closure(mod):
    """Names of the kernel functions a module defines and of the module-level functions they call."""
    todo = [k for k in KERNELS if hasattr(mod, k)]
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for ref in getattr(mod, name).__code__.co_names:
            obj = getattr(mod, ref, None)
            if isinstance(obj, types.FunctionType) and obj.__module__ == mod.__name__:
                todo.append(ref)
    return seen


def compile_module(mod, jit):
    """The module's kernel functions and their helpers, rebound to one fresh namespace (a copy of the
    module's globals) where every one of them is replaced by jit(function), so that compiled code calls
    compiled code, as the package's build does.  Returns {kernel name: compiled function}."""
    ns = dict(vars(mod))
    names = kernel_closure(mod)
    for name in names:
        fn = getattr(mod, name)
        ns[name] = types.FunctionType(fn.__code__, ns, name, fn.__defaults__, fn.__closure__)
    for name in names:
        ns[name] = jit(ns[name])
    return {k: ns[k] for k in KERNELS if k in ns}


@pytest.fixture(scope="module", params=NAMES)
def problem(request):
    mod = load(request.param)
    return mod, compile_module(mod, njit(cache=False))


# ------------------------------------------------------------------------------------------- contract


@pytest.mark.parametrize("name", NAMES)
def test_contract(name):
    mod = load(name)
    assert (mod.__doc__ or "").count("\n") > 10, "the docstring states the PDE, BSDE, solution, source"
    assert isinstance(mod.MATURITY, float) and mod.MATURITY > 0
    assert isinstance(getattr(mod, "BOX_HALF_WIDTH", 6.5), float)
    assert isinstance(getattr(mod, "X0", 0.0), float)
    for k in REQUIRED:
        assert hasattr(mod, k)
    assert hasattr(mod, "y_exact") == hasattr(mod, "z_exact")
    for k, params in KERNELS.items():
        if hasattr(mod, k):
            assert list(inspect.signature(getattr(mod, k)).parameters) == params, k
    allowed_builtins = {"range", "min", "max", "abs"}
    for fname in kernel_closure(mod):
        for ref in getattr(mod, fname).__code__.co_names:
            obj = getattr(mod, ref, None)
            ok = (
                ref in allowed_builtins
                or obj is math
                or isinstance(obj, (float, int))
                or (isinstance(obj, types.FunctionType) and obj.__module__ == mod.__name__)
                or (ref in dir(math) and getattr(mod, "math", None) is math)
            )  # attribute names of math.*
            assert ok, f"{name}.{fname} references {ref!r}: kernel code uses math, scalars and module helpers only"


# ------------------------------------------------------------------------------- the PDE, by FD


def _pde_parts(name, mod, d):
    """(generator L u from derivatives, sigma^T grad u from grad u) for each module's forward SDE."""
    if name in ("reaction_diffusion", "quadratic_z"):  # X = W
        return (lambda x, g, h: 0.5 * np.trace(h)), (lambda x, g: g)
    if name == "hjb_lq":  # X = x + sqrt(2) W
        return (lambda x, g, h: np.trace(h)), (lambda x, g: math.sqrt(2.0) * g)
    if name == "bs_barenblatt":  # dX_l = sigma X_l dW_l
        s = mod.SIGMA
        return (lambda x, g, h: 0.5 * s * s * np.sum(x * x * np.diag(h))), (lambda x, g: s * x * g)
    if name == "bs_diff_rates":  # xi = W + b t
        b = (mod.MU - 0.5 * mod.SIGMA**2) / mod.SIGMA
        return (lambda x, g, h: b * np.sum(g) + 0.5 * np.trace(h)), (lambda x, g: g)
    raise KeyError(name)


def _derivatives(u, t, x, e, et):
    d = x.size
    u0 = u(t, x)
    ut = (u(t + et, x) - u(t - et, x)) / (2 * et)
    g = np.empty(d)
    h = np.zeros((d, d))
    for l in range(d):
        ep = np.zeros(d)
        ep[l] = e
        up, um = u(t, x + ep), u(t, x - ep)
        g[l] = (up - um) / (2 * e)
        h[l, l] = (up - 2 * u0 + um) / e**2
    return u0, ut, g, h


def _points(name, mod, d, rng, n):
    T = mod.MATURITY
    for _ in range(n):
        t = rng.uniform(0.05, 0.95) * T
        if name == "bs_barenblatt":
            x = rng.uniform(-3, 3, d)
        elif name == "bs_diff_rates":
            x = rng.uniform(-3, 3, d)
        else:
            x = rng.normal(0, 2.0, d)
        yield t, x


@pytest.mark.parametrize("name", EXPLICIT)
@pytest.mark.parametrize("d", DIMS)
def test_explicit_solution_solves_the_pde(name, d):
    mod = load(name)
    k = compile_module(mod, njit(cache=False))
    y_exact, z_exact, driver, terminal = k["y_exact"], k["z_exact"], k["driver"], k["terminal"]
    gen, sig_grad = _pde_parts(name, mod, d)
    rng = np.random.default_rng(100 + d)
    e = et = 1e-3

    def u(t, x):
        return y_exact(t, x, d)

    z = np.empty(d)
    for t, x in _points(name, mod, d, rng, 20):
        u0, ut, g, h = _derivatives(u, t, x, e, et)
        z_exact(t, x, z, d)
        scale = 1.0 + abs(u0)
        np.testing.assert_allclose(z, sig_grad(x, g), atol=RES_TOL * scale)
        res = ut + gen(x, g, h) + driver(t, x, u0, z, d)
        assert abs(res) < RES_TOL * (d + 1) * scale, (name, d, t, x, res)
    x = rng.normal(size=d)
    assert y_exact(mod.MATURITY, x, d) == pytest.approx(terminal(mod.MATURITY, x, d), rel=1e-14, abs=1e-14)


@pytest.mark.parametrize("d", DIMS)
def test_hjb_quadrature_solution_solves_the_pde(d):
    """The Cole-Hopf quadrature (not a kernel) solves du/dt + Lap u - lam |grad u|^2 = 0 with the
    module's driver, and its z is sqrt(2) grad u."""
    mod = load("hjb_lq")
    k = compile_module(mod, njit(cache=False))
    gen, sig_grad = _pde_parts("hjb_lq", mod, d)
    rng = np.random.default_rng(200 + d)
    e = et = 3e-4

    def u(t, x):
        return mod.reference_solution(t, x[None, :])[0][0]

    for t, x in _points("hjb_lq", mod, d, rng, 10):
        u0, ut, g, h = _derivatives(u, t, x, e, et)
        z = mod.reference_solution(t, x[None, :])[1][0]
        scale = 1.0 + abs(u0)
        np.testing.assert_allclose(z, sig_grad(x, g), atol=RES_TOL * scale)
        res = ut + gen(x, g, h) + k["driver"](t, x, u0, z, d)
        assert abs(res) < RES_TOL * (d + 1) * scale, (d, t, x, res)
    x = rng.normal(size=d)
    y_T, z_T = mod.reference_solution(mod.MATURITY, x[None, :])
    assert y_T[0] == pytest.approx(k["terminal"](mod.MATURITY, x, d), rel=1e-14)
    near, _ = mod.reference_solution(mod.MATURITY - 1e-9, x[None, :])
    assert near[0] == pytest.approx(y_T[0], abs=1e-7)


@pytest.mark.parametrize("d", [1, 3])
def test_bs_diff_rates_operator_is_bergmans_in_log_coordinates(d):
    """For a smooth test function phi(S), the module's generator in xi = ln(S/S0)/sigma plus its driver
    equal Bergman's operator 1/2 sigma^2 sum S^2 phi_SS + max_r r (sum S phi_S - phi) (time part
    excluded): checks the change of coordinates, the forward drift and the driver together."""
    mod = load("bs_diff_rates")
    k = compile_module(mod, njit(cache=False))
    gen, sig_grad = _pde_parts("bs_diff_rates", mod, d)
    rng = np.random.default_rng(d)
    w = rng.normal(size=d)

    def phi_s(s):  # smooth, both signs of s.grad phi - phi occur
        return 10.0 * math.sin(float(w @ np.log(s))) + 0.05 * float(np.sum(s)) - 3.0

    def phi_xi(t, xi):
        return phi_s(mod.to_price(xi))

    for _ in range(20):
        xi = rng.uniform(-3, 3, d)
        s = mod.to_price(xi)
        u0, _, g, h = _derivatives(phi_xi, 0.0, xi, 1e-3, 1e-3)
        lhs = gen(xi, g, h) + k["driver"](0.0, xi, u0, sig_grad(xi, g), d)
        # Bergman in S, by finite differences in S
        gs = np.empty(d)
        hs = np.empty(d)
        for l in range(d):
            es = np.zeros(d)
            es[l] = 1e-3 * s[l]
            p, m = phi_s(s + es), phi_s(s - es)
            gs[l] = (p - m) / (2 * es[l])
            hs[l] = (p - 2 * u0 + m) / es[l] ** 2
        a = float(np.sum(s * gs)) - u0
        rhs = 0.5 * mod.SIGMA**2 * float(np.sum(s * s * hs)) + max(mod.R_L * a, mod.R_B * a)
        assert lhs == pytest.approx(rhs, abs=1e-5 * (1 + abs(u0)))


# --------------------------------------------------------------- compiled == Python == vectorised


def test_compiled_agrees_with_python_and_vectorised(problem):
    mod, k = problem
    rng = np.random.default_rng(7)
    for d in (1, 5):
        for _ in range(10):
            t = rng.uniform(0, mod.MATURITY)
            x = rng.normal(0, 1.5, d)
            y = rng.normal()
            z = rng.normal(size=d)
            assert k["terminal"](mod.MATURITY, x, d) == pytest.approx(mod.terminal(mod.MATURITY, x, d), rel=1e-13)
            assert k["driver"](t, x, y, z, d) == pytest.approx(mod.driver(t, x, y, z, d), rel=1e-13, abs=1e-15)
            if "forward" in k:
                dw = rng.normal(0, 0.1, d)
                a, b = x.copy(), x.copy()
                k["forward"](t, a, dw, 0.01, d)
                mod.forward(t, b, dw, 0.01, d)
                np.testing.assert_allclose(a, b, rtol=1e-13)
            if "y_exact" in k:
                yv, zv = mod.solution(t, x[None, :])
                assert k["y_exact"](t, x, d) == pytest.approx(mod.y_exact(t, x, d), rel=1e-13)
                assert k["y_exact"](t, x, d) == pytest.approx(yv[0], rel=1e-12)
                out = np.empty(d)
                k["z_exact"](t, x, out, d)
                np.testing.assert_allclose(out, zv[0], rtol=1e-12, atol=1e-15)
                out2 = np.empty(d)
                mod.z_exact(t, x, out2, d)
                np.testing.assert_allclose(out, out2, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", EXPLICIT)
def test_u_reference_at_x0_exact_problems(name):
    mod = load(name)
    v, se = mod.u_reference(getattr(mod, "X0", 0.0), 4)
    assert se == 0.0
    assert v == pytest.approx(mod.solution(0.0, np.full((1, 4), getattr(mod, "X0", 0.0)))[0][0])


def test_known_values():
    assert load("reaction_diffusion").u_reference(0.0, 100)[0] == pytest.approx(1.6, abs=1e-15)
    assert load("quadratic_z").u_reference(0.0, 8)[0] == pytest.approx(math.log(1.6 + 0.5 * math.exp(-0.5)))
    bsb = load("bs_barenblatt")
    x = np.where(np.arange(100) % 2 == 0, 1.0, 0.5)  # Raissi's X0
    assert bsb.solution(0.0, x[None, :])[0][0] == pytest.approx(62.5 * math.exp(0.21))
    assert bsb.u_reference(1.0, 12)[0] == pytest.approx(12 * math.exp(0.21))


# ------------------------------------------------------------------------------- forward steps


@njit(cache=False)
def _run_paths(forward, x, t0, dt, n_steps, seed):
    np.random.seed(seed)
    n, d = x.shape
    dw = np.empty(d)
    sq = math.sqrt(dt)
    for p in range(n):
        t = t0
        for _ in range(n_steps):
            for l in range(d):
                dw[l] = sq * np.random.standard_normal()
            forward(t, x[p], dw, dt, d)
            t += dt


def _moment_ok(sample, expected, n_se=5.0):
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    assert abs(sample.mean() - expected) < n_se * se + 1e-12, (sample.mean(), expected, se)


def test_forward_bs_barenblatt_is_geometric_brownian_motion():
    """200 000 paths x 2 coordinates, 50 exact steps to T = 1, from x0 = 1 and x0 = -0.5: E X_T = x0
    (martingale), E X_T^2 = x0^2 e^{sigma^2 T}, ln|X_T| ~ N(ln|x0| - sigma^2 T/2, sigma^2 T); the sign is
    kept; every moment within 5 standard errors."""
    mod = load("bs_barenblatt")
    fwd = compile_module(mod, njit(cache=False))["forward"]
    n, T, s = 200_000, mod.MATURITY, mod.SIGMA
    x = np.empty((n, 2))
    x[:, 0], x[:, 1] = 1.0, -0.5
    _run_paths(fwd, x, 0.0, T / 50, 50, 1)
    for l, x0 in enumerate((1.0, -0.5)):
        assert np.all(np.sign(x[:, l]) == np.sign(x0))
        _moment_ok(x[:, l], x0)
        _moment_ok(x[:, l] ** 2, x0**2 * math.exp(s * s * T))
        lg = np.log(np.abs(x[:, l]))
        _moment_ok(lg, math.log(abs(x0)) - 0.5 * s * s * T)
        _moment_ok((lg - (math.log(abs(x0)) - 0.5 * s * s * T)) ** 2, s * s * T)


@pytest.mark.parametrize("name, mean_rate, var_rate", [("hjb_lq", 0.0, 2.0), ("bs_diff_rates", None, 1.0)])
def test_forward_other_problems(name, mean_rate, var_rate):
    mod = load(name)
    if mean_rate is None:
        mean_rate = (mod.MU - 0.5 * mod.SIGMA**2) / mod.SIGMA
    fwd = compile_module(mod, njit(cache=False))["forward"]
    n, T = 100_000, mod.MATURITY
    x = np.full((n, 3), 0.3)
    _run_paths(fwd, x, 0.0, T / 20, 20, 2)
    for l in range(3):
        _moment_ok(x[:, l], 0.3 + mean_rate * T)
        _moment_ok((x[:, l] - 0.3 - mean_rate * T) ** 2, var_rate * T)


# ----------------------------------------------------------------------------- CUDA (sm_90 PTX)


def _have_toolchain():
    try:
        import numba_cuda  # noqa: F401
        import nvidia.cuda_nvcc  # noqa: F401
    except ImportError:
        return False
    return True


CUDA_SCRIPT = textwrap.dedent("""
    import importlib, sys
    root = sys.argv[1]
    sys.path[:0] = [root, root + "/tests"]
    from tests.support.sm90 import stub_current_device
    stub_current_device()
    from numba import cuda, float64
    from test_problems_suite import NAMES, compile_module
    D = 4
    for name in NAMES:
        mod = importlib.import_module("srmdp.problems." + name)
        k = compile_module(mod, cuda.jit(device=True))
        lines = [
            "def body(out, xs):",
            "    i = cuda.grid(1)",
            "    if i < xs.shape[0]:",
            "        x = cuda.local.array(D, float64)",
            "        z = cuda.local.array(D, float64)",
            "        for l in range(D):",
            "            x[l] = xs[i, l]",
            "            z[l] = 0.1 * xs[i, l]",
            "        acc = terminal(1.0, x, D) + driver(0.5, x, 0.3, z, D)",
        ]
        if "forward" in k:
            lines.append("        forward(0.5, x, z, 0.01, D)")
        if "y_exact" in k:
            lines += ["        acc += y_exact(0.5, x, D)", "        z_exact(0.5, x, z, D)", "        acc += z[0]"]
        lines.append("        out[i] = acc + x[0]")
        ns = dict(k, cuda=cuda, float64=float64, D=D)
        exec("\\n".join(lines), ns)
        ptx, _ = cuda.compile_ptx(ns["body"], (float64[:], float64[:, :]), cc=(9, 0))
        assert ".visible .entry" in ptx
        print(name, "ok", len(ptx))
""")


@pytest.mark.skipif(not _have_toolchain(), reason="needs numba-cuda[cu12] (pip install -e .[cuda])")
def test_kernels_compile_for_sm90(root, tmp_path):
    """Every problem's kernel functions compile as CUDA device functions (PTX for sm_90, no GPU)."""
    script = tmp_path / "ptx.py"
    script.write_text(CUDA_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, str(script), str(root)], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count(" ok ") == len(NAMES)


# ------------------------------------------------------------------------------------ references


def test_hjb_references():
    """Quadrature == scipy's adaptive quadrature of the non-central chi-square law (1e-10); the Monte-Carlo
    reference is reproducible and within 4 standard errors of the quadrature; d = 100 gives PNAS's 4.5901."""
    from scipy import integrate, stats

    mod = load("hjb_lq")
    for d in (1, 4, 8, 12):
        for x0 in (0.0, 0.7):
            nc = d * x0**2 / 2.0
            law = stats.ncx2(d, nc) if nc > 0 else stats.chi2(d)
            m, _ = integrate.quad(
                lambda q, law=law: 2.0 / (1.0 + 2.0 * q) * law.pdf(q), 0, np.inf, limit=500, epsabs=0, epsrel=1e-13
            )
            assert mod.u_quadrature(x0, d) == pytest.approx(-math.log(m), abs=1e-10)
    for d in (1, 4, 8, 12):
        v, se = mod.u_reference(0.0, d, n_paths=200_000)
        assert (v, se) == mod.u_reference(0.0, d, n_paths=200_000)
        assert 0 < se < 2e-3
        assert abs(v - mod.u_quadrature(0.0, d)) < 4 * se
    assert mod.u_quadrature(0.0, 100) == pytest.approx(4.5901, abs=1e-4)


def test_bs_diff_rates_linear_prices():
    """The single-rate price (one 1-d integral) against plain Monte-Carlo (4 s.e.), d = 1 and 5."""
    mod = load("bs_diff_rates")
    rng = np.random.default_rng(3)
    for d in (1, 5):
        for r in (mod.R_L, mod.R_B):
            ls = (
                math.log(mod.S0)
                + (r - 0.5 * mod.SIGMA**2) * mod.MATURITY
                + mod.SIGMA * math.sqrt(mod.MATURITY) * rng.standard_normal((400_000, d))
            )
            m = np.exp(ls.max(axis=1))
            v = math.exp(-r * mod.MATURITY) * (np.maximum(m - 120, 0) - 2 * np.maximum(m - 150, 0))
            assert abs(v.mean() - mod.linear_price(0.0, d, r)) < 4 * v.std() / math.sqrt(v.size)


def test_bs_diff_rates_references_d1_d2():
    """d = 1: finite differences (error estimate < 1e-6) above both linear prices, and the Monte-Carlo
    lower bound (reproducible) within 4 s.e. of it.  d = 2: the 2-d finite-difference solution at a
    coarse resolution (its own error estimate) against the lower bound."""
    mod = load("bs_diff_rates")
    fd, err = mod.u_reference_fd(0.0)
    assert err < 1e-6
    assert fd == pytest.approx(1.0525712, abs=2e-7)
    assert fd > max(mod.linear_price(0.0, 1, mod.R_L), mod.linear_price(0.0, 1, mod.R_B)) + 5e-4
    lb, se = mod.u_reference(0.0, 1, n_paths=100_000, n_steps=50)
    assert (lb, se) == mod.u_reference(0.0, 1, n_paths=100_000, n_steps=50)
    assert se < 1e-4
    assert abs(lb - fd) < 4 * se
    fd2, err2 = mod.u_reference_fd2(0.0, n_space=100, n_time=50)
    lb2, se2 = mod.u_reference(0.0, 2, n_paths=50_000, n_steps=50)
    assert abs(fd2 - lb2) < 4 * se2 + err2, (fd2, err2, lb2, se2)
    assert lb2 > mod.linear_price(0.0, 2, mod.R_B)
