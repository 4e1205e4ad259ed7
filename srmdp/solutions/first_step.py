"""z(0, x0) from one step out of the deterministic start X_0 = x0 (``Solution.z0``).

The scheme's z^M_0 is a regression over the stratum that holds x0: its error at the point is the cells' fit
error and the regression's noise (~ (nb / (M dt))^{1/2}).  But X_0 = x0 is deterministic, so the
conditional expectation of the scheme's Z equation at i = 0 is a plain expectation (paper eq. (2.3) at
i = 0, one-step form with the explicit driver term):

    z_0(x0) = E[(y^M_1(X_1) + dt f(t_1, X_1, y^M_1(X_1), z^M_1(X_1)) - c) dW_0] / dt,   X_1 = step(x0, dW_0),

estimated here by P independent first steps per run (c = y^M_1(step(x0, 0)) is a control variate: any
constant leaves the mean unchanged).  Its bias is y^M_1's error smoothed over the spread of X_1, plus
O(dt^2) from the time discretisation (the driver term removes the O(dt) one: E[u(t_1, X_1) dW]/dt =
sigma^T grad u(t_1, x0) + (dt/2) sigma^T grad Lap... = sigma^T grad u(t_0, x0) - dt sigma^T grad f + O(dt^2)).
Per run: the mean over the P steps with that run's estimators; the value is the mean over the runs and
its s.e. their spread / sqrt(R) (which holds both the estimators' and the P steps' noise).
Plain Python/NumPy (the problem's functions are called point by point): P = 20000 costs ~1 s per run at d = 4.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import ConfigError

PATHS = 20000  # first steps per run: MC s.e. ~ |z| / sqrt(P) ~ 0.007 |z| per run
SEED_OFFSET = 0x5A0  # the first steps' stream, apart from the solver's


def _functions(problem):
    ns = dict(vars(problem.module))
    if "forward" not in ns:
        from ..problems import DEFAULT_FORWARD

        exec(DEFAULT_FORWARD, ns)  # noqa: S102 -- the project's own default forward, X = W
    return ns["forward"], ns["driver"]


def first_step_z0(sol, x0=None, paths=PATHS, streams=None):
    """(z0 mean over the runs (d,), its s.e. (d,) or None with one run, per-run values (R, d)) at ``x0``.

    ``streams``: the first steps' stream of each kept run (default: the run's index, so that a run gives the
    same value whether it is evaluated during the solve or from the saved solution)."""
    if not isinstance(paths, int) or paths < 2:
        raise ConfigError(f"invalid paths={paths!r}: an integer >= 2")
    if sol.steps < 2:
        raise ConfigError("z0 by a first step needs N >= 2 (y^M_1 is the first estimator after t_0)")
    d, dt = sol.case.d, sol.dt
    forward, driver = _functions(sol.base_problem)
    pt = sol.x0_point(x0)
    per_run = []
    for r, stream in zip(sol.kept_runs, streams or sol.kept_runs, strict=True):  # a stream per run
        dw = np.random.default_rng([sol.seed, SEED_OFFSET, stream]).standard_normal((paths, d)) * math.sqrt(dt)
        x1 = np.empty((paths + 1, d))
        for p in range(paths + 1):
            x = pt.copy()
            forward(0.0, x, dw[p] if p < paths else np.zeros(d), dt, d)
            x1[p] = x
        y1, z1 = sol.evaluate(1, x1, run=r)
        t1 = dt
        fy = np.array([driver(t1, x1[p], y1[p], z1[p], d) for p in range(paths)])
        v = y1[:paths] + dt * fy - y1[paths]
        per_run.append(v @ dw / (paths * dt))
    vals = np.array(per_run)
    se = vals.std(axis=0, ddof=1) / math.sqrt(len(vals)) if len(vals) > 1 else None
    return vals.mean(axis=0), se, vals


def z0_rho(fine, coarse) -> float:
    """The error reduction of the first-step z0 from ``coarse`` to ``fine`` (cases): orders 1/2 in dt (z's order in
    the scheme), 2 in the cell width (1 for LP0; y^M_1's fit, as for u0) and 1/2 in N/M (the noise)."""
    from ..numerics.bases import BASES

    q = 1.0 if BASES[fine.basis].rules == "LP0" else 2.0
    return min(
        math.sqrt(fine.steps / coarse.steps),
        (fine.cells / coarse.cells) ** q,
        math.sqrt(fine.paths * coarse.steps / (coarse.paths * fine.steps)),
    )


def z0_error(z, se, z_coarse, se_coarse, rho, noise=1.0):
    """Per component: bias = (|z - z'| + noise s_diff) / (rho - 1), error = (bias^2 + s^2)^{1/2} (as u0's)."""
    z, se, zc, sc = (np.asarray(a, dtype=float) for a in (z, se, z_coarse, se_coarse))
    bias = (np.abs(z - zc) + noise * np.hypot(se, sc)) / (rho - 1.0)
    return np.hypot(bias, se)
