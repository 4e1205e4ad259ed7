"""The divergence guard: stop a run whose estimators blow up, with the step and the remedies.

A scheme that blows up (typically a driver growing fast in z, whose estimates in the outer cells feed
back through the driver, step after step) shows as geometric growth of the estimators across the
backward steps.  For each run, A_i = max over the strata of |y^M_i| at the cells' centres (the constant
coefficient of every basis).  The run has diverged at the first step i (backwards from N-2) where

    A_i > GROWTH_STEP (A_{i+1} + S)   or   A_i > GROWTH_TOTAL (A_{N-1} + S),

with S the problem's own scale, an additive floor taken from the data (:func:`data_scale`): max |g| at
the strata's centres plus T max |f(t, x, 0, 0)| at the centres and a few times.  A bounded solution has
|y| <= max|g| + T max|f(., 0, 0)| + (Lipschitz growth), so it never trips the test whatever its terminal
value (g = 0 with a running cost included), while a blow-up (10^4-10^6 and more) still does.  A
Lipschitz driver lets A grow by about e^{L dt} per step and e^{L T} in all: the factors (x30 a step,
x1000 over [0, T]) are far above that for L T < 6.9.  ``guard=False`` in :func:`srmdp.solve` turns the
guard off (a solution that really grows x1000 over [0, T]).

The guard reads N numbers per run (:func:`growth`): on the GPU a small reduction kernel
(:mod:`srmdp.kernels.divergence_cuda`) computes A_i on the device and only those N values are copied to the host
(:data:`GUARD_BYTES_PER_STEP`, counted by the memory model of :func:`srmdp.solutions.solve_request.check_memory`).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import NumericalError

GROWTH_STEP = 30.0
GROWTH_TOTAL = 1000.0
SCALE_POINTS = 512  # strata centres (at most) where g and f(t, x, 0, 0) are evaluated for the scale S
SCALE_TIMES = 4  # times t_i (at most) where f(t, x, 0, 0) is evaluated
GUARD_BYTES_PER_STEP = 8  # the guard's host copy per run: A_i, i = 0..N-1


class DivergenceError(NumericalError):
    """The estimators of a run blew up (or a coefficient is not finite); the message names the step and remedies."""


def remedies(case) -> str:
    """What to try when a solve diverges (one line), in the order :mod:`srmdp.refine.refine` applies them."""
    from ..problems.adapt import split_spec

    zcv = "z_cv=False (--no-z-cv)" if case.z_cv else "z_cv=True (--z-cv)"
    adapted = "" if split_spec(case.problem)[1] else "strata='adapted' (--strata adapted), "
    return (
        f"remedies: {adapted}truncation bounds on y and z (trunc_y=, trunc_z= / --trunc-y, --trunc-z: the range of"
        " the solution and of sigma^T grad u, e.g. from the terminal condition's), more paths M per stratum,"
        f" {zcv}"
    )


def _cell_centres(case, limit=SCALE_POINTS):
    """At most ``limit`` centres of the box's cells (all of them if there are few; else a fixed-seed sample)."""
    c, d, L = case.cells, case.d, case.half_width
    axis = -L + (np.arange(c) + 0.5) * (2.0 * L / c)
    if c**d <= limit:  # every cell, in C order (the last axis fastest); digits, not np.indices (at most 64 axes)
        k = np.arange(c**d)
        idx = np.stack([(k // c ** (d - 1 - j)) % c for j in range(d)], axis=1)
    else:
        idx = np.random.default_rng(0).integers(0, c, size=(limit, d))
    return np.ascontiguousarray(axis[idx])


def kernel_functions(problem):
    """The problem's functions as the kernels compute them (compiled, :func:`srmdp.numerics.build.cpu_problem_module`):
    a
    driver that fails where the guard looks (``math.sqrt`` of a negative, a division by zero) gives NaN or inf
    there as it does in the kernels, not a Python exception; the run then stops on its non-finite coefficients
    with the kernels' one-line error (exit status 3)."""
    from ..numerics.build import cpu_problem_module

    return cpu_problem_module(problem)


def data_scale(case, problem) -> float:
    """S = max |g| at the strata's centres + T max |f(t, x, 0, 0)| at the centres and up to SCALE_TIMES times
    t_i (the problem's functions as the kernels compute them, :func:`kernel_functions`, non-finite values left
    out; in the strata's coordinates for adapted strata)."""
    mod = kernel_functions(problem)
    T, d = case.maturity, case.d
    pts = _cell_centres(case)
    zero = np.zeros(d)
    times = np.unique(np.linspace(0, case.steps - 1, SCALE_TIMES).round().astype(int)) * (T / case.steps)
    g = f = 0.0
    for x in pts:
        g = _finite_max(g, float(mod.terminal(T, x.copy(), d)))
        for t in times:
            f = _finite_max(f, float(mod.driver(float(t), x.copy(), 0.0, zero.copy(), d)))
    s = g + T * f
    return s if math.isfinite(s) else 0.0


def _finite_max(m, v):
    """max(m, |v|), v left out where it is not finite."""
    return max(m, abs(v)) if math.isfinite(v) else m


WIDEN = 2.0  # data-derived truncation bounds: WIDEN x the data's range (refinement's second remedy)


def data_bounds(case, problem):
    """Truncation bounds from the data, for a diverging refinement (:mod:`srmdp.refine.refine`): (trunc_y, trunc_z) =
    WIDEN x (max |g| + T max |f(t, x, 0, 0)|, max_l |(sigma^T grad g)_l|) at the strata's centres, with
    sigma^T grad g from the problem's own forward step: (g(F(x, +h e_l)) - g(F(x, -h e_l))) / (2h), and at
    least the y bound / sqrt(T) for z (a g that is flat where the strata are, with a running cost).  The problem's
    functions as the kernels compute them (:func:`kernel_functions`)."""
    mod = kernel_functions(problem)
    T, d = case.maturity, case.d
    h = 1e-4
    zmax = 0.0
    for x in _cell_centres(case, SCALE_POINTS // 4):
        for l in range(d):
            vals = []
            for sgn in (1.0, -1.0):
                xx, dw = x.copy(), np.zeros(d)
                dw[l] = sgn * h
                mod.forward(T - h * h, xx, dw, h * h, d)
                vals.append(float(mod.terminal(T, xx, d)))
            zmax = _finite_max(zmax, (vals[0] - vals[1]) / (2 * h))
    ybound = WIDEN * data_scale(case, problem)
    zbound = WIDEN * max(zmax, ybound / WIDEN / math.sqrt(T))
    if not (math.isfinite(ybound) and ybound > 0 and math.isfinite(zbound) and zbound > 0):
        return None
    return ybound, zbound


def growth(backend) -> np.ndarray:
    """A_i = max over the strata of |y^M_i| at the cell centres, i = 0..N-1, for the run the backend holds."""
    coef = getattr(backend, "coef", None)
    if coef is not None and not isinstance(coef, np.ndarray) and hasattr(coef, "copy_to_host"):
        from .divergence_cuda import growth as device_growth

        return device_growth(coef)
    return growth_of(backend.coefficients())


def growth_of(coef) -> np.ndarray:
    """A_i for one run's host coefficients coef[i, k, c, a]."""
    return np.abs(np.asarray(coef)[:, :, 0, 0]).max(axis=1)


def divergence(a, case, scale=0.0):
    """None, or a message naming the first diverged time step (the module docstring's rule) and the remedies.

    ``a``: A_i (:func:`growth`), ``scale``: S (:func:`data_scale`)."""
    a = np.asarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        i = int(np.flatnonzero(~np.isfinite(a))[-1])
        return f"non-finite estimator at time step i={i} (t={i * case.dt:g}); {remedies(case)}"
    n = a.size
    floor = max(float(scale), 1e-300)
    ref = a[-1] + floor
    for i in range(n - 2, -1, -1):
        step = a[i] > GROWTH_STEP * (a[i + 1] + floor)
        total = a[i] > GROWTH_TOTAL * ref
        if step or total:
            why = f"x{a[i] / (a[i + 1] + floor):.3g} in one step" if step else f"x{a[i] / ref:.3g} since i={n - 1}"
            last = "" if i + 1 == n - 1 else f" and {a[-1]:.3g} at i={n - 1}"  # i+1 = N-1: said once
            return (
                f"the estimators diverge at time step i={i} (t={i * case.dt:g}): max |y_i| over the strata"
                f" {a[i]:.3g} against {a[i + 1]:.3g} at i={i + 1}{last}, data scale"
                f" {scale:.3g} ({why}); {remedies(case)}"
            )
    return None
