"""Strata where the paths are (beyond the paper; off by default and for the paper's tables).

The paper's strata are one fixed box [-L, L]^d with #C equal cells per axis, at every time step.  With
``strata="adapted"`` (:func:`srmdp.solve`, ``srmdp solve --strata adapted``) the box of time t_i is
instead centred on the law of X_{t_i} (started at x0) and its half-width is ``L`` standard deviations
of that law per axis (default :data:`HALF_WIDTH`), so the cells follow the particles: narrow near t = 0,
wider later, and shifted with the drift.

How: a change of variables of the problem, not of the kernels.  With m(t), s(t) the mean and standard
deviation per axis of X_t (floored at s(T/8), see :func:`law`), the scheme runs on the problem in
xi = (x - m(t)) / s(t):

    forward~(t, xi, dw, dt) = (F(t, m(t) + s(t) xi, dw, dt) - m(t + dt)) / s(t + dt),
    g~(xi) = g(m(T) + s(T) xi),   f~(t, xi, y, z) = f(t, m(t) + s(t) xi, y, z),
    y~_exact(t, xi) = y_exact(t, m(t) + s(t) xi),   z~_exact likewise,

and keeps the paper's box [-L, L]^d and logistic sampling measure in xi.  **Consistency.** xi_i =
(X_i - m(t_i)) / s(t_i) is a (time-inhomogeneous) Markov chain driven by the same Brownian increments,
with the same filtration as X_i; y~_i(xi) = y_i(m(t_i) + s(t_i) xi) is exactly the discrete BSDE's solution
for that chain, and z~ = z, because z is the integrand against dW (E[Y_{i+1} dW_i | X_i]/dt), which a
change of the state's coordinates does not touch.  The scheme applied to the chain xi is SRMDP as the
paper states it (strata, sampling nu restricted to the strata, least squares per stratum), for a
sampling measure nu_i = the logistic law mapped by x = m(t_i) + s(t_i) xi, which has the same
exponential tails (a different constant in the norm-stability condition of nu); so its estimators are
consistent with the same convergence theorem, only the constants change.  The Z control variate
(``z_cv``) evaluates y_{i+1} (g at i = N-1) at the point xi_i read in the coordinates of t_{i+1}; it is
still a function of x_i alone, so E[cv dW_i | x_i] = 0 and the regression's limit is unchanged.

The coordinate map is tabulated at J + 1 = 65 times t_j = j T / J per axis and interpolated linearly in
t, so the generated problem depends only on (problem, d): one compilation serves every (dt, #C, M, L),
which matters for refinement.  The law comes from the problem when it gives it (an optional plain-Python
``forward_moments(t, x0, d) -> (mean, sd)``; X = W when the file has no ``forward``), else from a pilot
simulation of the problem's own ``forward`` (4096 paths, J steps, a fixed seed: reproducible).
The wrappers map x in place and back, so a problem function's argument ``x`` may change in its last bits.
"""

from __future__ import annotations

import ast
import math

import numpy as np

HALF_WIDTH = 3.0  # the default L with adapted strata: 3 standard deviations of X_t per axis
J = 64  # tabulation points of the map in t
FLOOR_FRACTION = 0.125  # s(t) >= s(T/8): the box at t ~ 0 keeps a width (the law of X_0 is a point)
PILOT_PATHS = 4096
PILOT_SEED = 20160101
SUFFIX = "#adapted-d"  # a problem spec with adapted strata: "<spec>#adapted-d<d>"
NAMES = ("terminal", "driver", "forward", "y_exact", "z_exact", "driver_zz", "driver_yy")
ORIG = "_sa0_"

WRAPPER = """

# ---- srmdp.problems.adapt: strata where the paths are; the scheme works in xi = (x - m(t)) / s(t) (generated)
import numpy as _sa_np

_SA_D = {d}
_SA_J = {J}
_SA_INV_STEP = {inv_step!r}
_SA_M = _sa_np.array({center!r}, _sa_np.float64)
_SA_S = _sa_np.array({scale!r}, _sa_np.float64)


def _sa_map(t, l):
    # (m(t), s(t)) of axis l: the table interpolated linearly in t (exact at the table's times)
    u = t * _SA_INV_STEP
    j = int(u)
    if j > _SA_J - 1:
        j = _SA_J - 1
    if j < 0:
        j = 0
    w = u - j
    a = j * _SA_D + l
    return _SA_M[a] + w * (_SA_M[a + _SA_D] - _SA_M[a]), _SA_S[a] + w * (_SA_S[a + _SA_D] - _SA_S[a])


def _sa_to_x(t, x, d):
    for l in range(d):
        m, s = _sa_map(t, l)
        x[l] = m + s * x[l]


def _sa_to_xi(t, x, d):
    for l in range(d):
        m, s = _sa_map(t, l)
        x[l] = (x[l] - m) / s


def terminal(T, x, d):
    _sa_to_x(T, x, d)
    g = _sa0_terminal(T, x, d)
    _sa_to_xi(T, x, d)
    return g


def driver(t, x, y, z, d):
    _sa_to_x(t, x, d)
    f = _sa0_driver(t, x, y, z, d)
    _sa_to_xi(t, x, d)
    return f


def forward(t, x, dw, dt, d):
    _sa_to_x(t, x, d)
    _sa0_forward(t, x, dw, dt, d)
    _sa_to_xi(t + dt, x, d)
"""
WRAPPER_EXACT = """

def y_exact(t, x, d):
    _sa_to_x(t, x, d)
    v = _sa0_y_exact(t, x, d)
    _sa_to_xi(t, x, d)
    return v


def z_exact(t, x, out, d):
    _sa_to_x(t, x, d)
    _sa0_z_exact(t, x, out, d)
    _sa_to_xi(t, x, d)
"""

WRAPPER_SECOND = {
    "driver_zz": """

def driver_zz(t, x, y, z, l, d):
    _sa_to_x(t, x, d)
    f = _sa0_driver_zz(t, x, y, z, l, d)
    _sa_to_xi(t, x, d)
    return f
""",
    "driver_yy": """

def driver_yy(t, x, y, z, d):
    _sa_to_x(t, x, d)
    f = _sa0_driver_yy(t, x, y, z, d)
    _sa_to_xi(t, x, d)
    return f
""",
}


def split_spec(spec: str):
    """(base spec, d) of an adapted-strata spec ``<spec>#adapted-d<d>``, or (spec, None)."""
    if isinstance(spec, str) and SUFFIX in spec:
        base, _, d = spec.rpartition(SUFFIX)
        if d.isdigit() and int(d) >= 1:
            return base, int(d)
    return spec, None


def adapted_spec(spec: str, d: int) -> str:
    return f"{split_spec(spec)[0]}{SUFFIX}{int(d)}"


def law(problem, d: int):
    """(times (J+1,), mean (J+1, d), sd (J+1, d)) of X_t from x0 = (X0, ..., X0): analytic where the problem
    gives it (``forward_moments``, or X = W without a ``forward``), else a pilot simulation; sd floored at
    its value at T/8 (and at 1e-12 relative to its maximum, then 1 if all zero)."""
    T = problem.maturity
    times = np.arange(J + 1) * (T / J)
    x0 = problem.x0
    moments = getattr(problem.module, "forward_moments", None)
    if moments is not None:
        mean, sd = np.empty((J + 1, d)), np.empty((J + 1, d))
        for j, t in enumerate(times):
            m, s = moments(float(t), x0, d)
            mean[j], sd[j] = np.broadcast_to(np.asarray(m, float), d), np.broadcast_to(np.asarray(s, float), d)
    elif "forward" not in problem.module.__dict__:  # the default forward X = W
        mean = np.full((J + 1, d), float(x0))
        sd = np.repeat(np.sqrt(times)[:, None], d, axis=1)
    else:
        mean, sd = _pilot(problem, d, times)
    mean[0] = x0  # exact: X_0 = x0, so xi(x0) = 0 at t = 0
    if not (np.isfinite(mean).all() and np.isfinite(sd).all()):
        from ..exceptions import ConfigError

        raise ConfigError(
            f"invalid problem {problem.path}: the law of X_t (mean, sd) is not finite; its forward"
            " step diverges from x0, so strata='adapted' cannot place the strata (use strata='box')"
        )
    sd = np.abs(sd)
    top = sd.max(initial=0.0)
    floor_row = int(math.ceil(FLOOR_FRACTION * J))
    sd = np.maximum(sd, sd[floor_row][None, :])
    sd = np.maximum(sd, 1e-12 * top) if top > 0 else np.ones_like(sd)
    return times, mean, sd


def _pilot(problem, d, times):
    """Mean and sd of X_{t_j} from PILOT_PATHS paths of the problem's compiled forward (fixed seed)."""
    from ..numerics.build import cpu_problem_module

    fwd = cpu_problem_module(problem).forward
    rng = np.random.default_rng(PILOT_SEED)
    dt = float(times[1] - times[0])
    X = np.full((PILOT_PATHS, d), float(problem.x0))
    mean, sd = np.empty((J + 1, d)), np.empty((J + 1, d))
    mean[0], sd[0] = X[0], 0.0
    for j in range(J):
        dw = rng.standard_normal((PILOT_PATHS, d)) * math.sqrt(dt)
        t = float(times[j])
        for p in range(PILOT_PATHS):
            fwd(t, X[p], dw[p], dt, d)
        mean[j + 1], sd[j + 1] = X.mean(axis=0), X.std(axis=0, ddof=1)
    return mean, sd


class _Rename(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        if node.name in NAMES:
            node.name = ORIG + node.name
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in NAMES:
            node.id = ORIG + node.id
        return node


def adapted_source(problem, d: int) -> str:
    """The problem's source with its contract functions renamed ``_sa0_*`` and the xi-wrappers appended."""
    _, mean, sd = law(problem, d)
    tree = _Rename().visit(ast.parse(problem.source))
    text = ast.unparse(ast.fix_missing_locations(tree))
    wrap = WRAPPER.format(
        d=int(d),
        J=J,
        inv_step=J / problem.maturity,
        center=[float(v) for v in mean.ravel()],
        scale=[float(v) for v in sd.ravel()],
    )
    second = "".join(w for n, w in WRAPPER_SECOND.items() if n in problem.module.__dict__)
    return text + "\n" + wrap + (WRAPPER_EXACT if problem.has_exact else "") + second


def xi_of(problem, t: float, X: np.ndarray) -> np.ndarray:
    """The points X (n, d) of the original coordinates in the adapted ones at time t (as the kernels map)."""
    mod = problem.module
    u = t * mod._SA_INV_STEP
    j = min(max(int(u), 0), mod._SA_J - 1)
    w = u - j
    d = mod._SA_D
    M, S = mod._SA_M.reshape(-1, d), mod._SA_S.reshape(-1, d)
    m = M[j] + w * (M[j + 1] - M[j])
    s = S[j] + w * (S[j + 1] - S[j])
    return (np.asarray(X, np.float64) - m) / s
