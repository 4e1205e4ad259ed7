"""A user's problem file checked before anything calls it: compiled (:func:`srmdp.numerics.build.check_compiles`),
then every function called at a few fixed points, so that a mistake is one line naming the function and the cause
before any compute, and before the curvature default, the strata's pilot or the guard's data scale call them.

Kernel code cannot raise (Numba's kernels have no way to report an exception from a parallel loop or a GPU thread): a
function that raises at a probe point is refused here (exit status 2).  One that raises only where the probes do not
look is reported by the run that meets it (:func:`raised_in_problem`, exit status 3).  A non-finite value is not an
error here (``math.sqrt(y)`` is NaN at a probe's negative y and may be fine on the solution's range); a run whose
coefficients become non-finite names the function that returns one (:func:`nonfinite_function`).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import ConfigError

PROBE_POINTS = 8  # fixed points (t, x, y, z, dw) per function, drawn with PROBE_SEED
PROBE_SEED = 0
PROBE_SCALE = 2.0  # x ~ N(0, PROBE_SCALE^2): the strata's box and beyond


def _points(problem, d: int, dtype):
    """PROBE_POINTS argument sets (t, x, y, z, dw, dt) in the arithmetic's type, reproducibly."""
    rng = np.random.default_rng(PROBE_SEED)
    T = problem.maturity
    for j in range(PROBE_POINTS):
        x = (PROBE_SCALE * rng.standard_normal(d)).astype(dtype)
        z = rng.standard_normal(d).astype(dtype)
        dt = T / PROBE_POINTS
        dw = (math.sqrt(dt) * rng.standard_normal(d)).astype(dtype)
        yield dtype(T * j / PROBE_POINTS), x, dtype(rng.standard_normal()), z, dw, dtype(dt)


def calls(mod, problem, d: int, dtype):
    """(function name, argument tuple) of every probe call of the compiled module ``mod``'s functions."""
    T = dtype(problem.maturity)
    for t, x, y, z, dw, dt in _points(problem, d, dtype):
        yield "terminal", (T, x.copy(), d)
        yield "driver", (t, x.copy(), y, z.copy(), d)
        yield "forward", (t, x.copy(), dw.copy(), dt, d)
        if hasattr(mod, "y_exact"):
            yield "y_exact", (t, x.copy(), d)
            yield "z_exact", (t, x.copy(), np.zeros(d, dtype), d)
        if hasattr(mod, "driver_zz"):
            for l in range(d):
                yield "driver_zz", (t, x.copy(), y, z.copy(), l, d)
        if hasattr(mod, "driver_yy"):
            yield "driver_yy", (t, x.copy(), y, z.copy(), d)


def _where(name, args) -> str:
    """The probe's arguments by the contract's parameter names (d left out), rounded."""
    from . import CONTRACT

    return ", ".join(
        f"{p}={np.round(np.asarray(v, dtype=float), 3).tolist()!r}"
        for p, v in zip(CONTRACT[name][0], args, strict=True)
        if p not in ("d", "out")
    )


def check_problem(problem, d: int, arithmetic: str = "float64"):
    """Compile the problem's functions and call each at the probe points: one ConfigError line (file, function,
    cause) for the first that does not compile or that raises."""
    from ..numerics.build import check_compiles, cpu_problem_module

    check_compiles(problem, arithmetic)
    mod = cpu_problem_module(problem, arithmetic)
    dtype = np.float32 if arithmetic == "float32" else np.float64
    for name, args in calls(mod, problem, int(d), dtype):
        try:
            getattr(mod, name)(*args)
        except Exception as exc:
            raise ConfigError(
                f"invalid problem file {problem.path}: function {name} raised {type(exc).__name__}: {exc} at"
                f" {_where(name, args)}; kernel code cannot raise: return a value (math.nan stops the run at its step)"
            ) from None


def raised_in_problem(exc: BaseException):
    """(function name, 'Type: message') when ``exc`` (a kernel's SystemError) was raised inside a problem file's
    function, else None: the innermost frame of its context in a generated problem module names the function."""
    inner = exc.__context__ or exc.__cause__
    if inner is None:
        return None
    tb, name = inner.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.endswith("problem.py"):
            name = code.co_name
        tb = tb.tb_next
    if name is None:
        return None
    from .adapt import ORIG

    return name.removeprefix(ORIG), f"{type(inner).__name__}: {inner}"


def nonfinite_function(problem, d: int, arithmetic: str = "float64"):
    """The first function of the problem that returns a non-finite value at finite probe arguments, as
    'driver returns nan at t=..., ...', else None (a run's non-finite coefficients then come from the scheme)."""
    from ..numerics.build import cpu_problem_module

    mod = cpu_problem_module(problem, arithmetic)
    dtype = np.float32 if arithmetic == "float32" else np.float64
    for name, args in calls(mod, problem, int(d), dtype):
        if name in ("forward", "z_exact"):
            continue
        try:
            v = float(getattr(mod, name)(*args))
        except Exception:
            continue
        if not math.isfinite(v):
            return f"function {name} returns {v} at {_where(name, args)}"
    return None
