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
    cause) for the first that does not compile, does not return a number, indexes an array outside 0 ... d - 1 or
    raises.

    The probe calls a bounds-checked compile of the functions (:func:`srmdp.numerics.build.cpu_probe_module`): the
    runs' kernels do not check bounds (an index past the array reads memory beyond it, a silent wrong answer)."""
    from ..numerics.build import check_compiles, check_returns, cpu_probe_module

    check_compiles(problem, arithmetic)
    mod = cpu_probe_module(problem, arithmetic)
    dtype = np.float32 if arithmetic == "float32" else np.float64
    for name, args in calls(mod, problem, int(d), dtype):
        try:
            getattr(mod, name)(*args)
        except IndexError as exc:
            if str(exc) != BOUNDS_MESSAGE:  # the user's own raise IndexError(...)
                raise ConfigError(_raised(problem, name, args, exc)) from None
            raise ConfigError(_out_of_bounds(problem, name, args, int(d))) from None
        except Exception as exc:
            raise ConfigError(_raised(problem, name, args, exc)) from None
    check_returns(problem, arithmetic)


BOUNDS_MESSAGE = "index is out of bounds"  # Numba's IndexError under boundscheck (it names neither index nor line)


def _raised(problem, name, args, exc) -> str:
    return (
        f"invalid problem file {problem.path}: function {name} raised {type(exc).__name__}: {exc} at"
        f" {_where(name, args)}; kernel code cannot raise: return a value (math.nan stops the run at its step)"
    )


def _out_of_bounds(problem, name, args, d: int) -> str:
    """The line for an out-of-bounds index found by the bounds-checked probe: the file's line and the index, from
    the same call of the plain Python function (NumPy names the index; the traceback, the line)."""
    head = f"invalid problem file {problem.path}: function {name}"
    tail = (
        f"; its arrays hold d = {d} values, indices 0 ... d - 1 (a 1-based loop is range(d), not range(1, d + 1));"
        " the compiled code does not check bounds and would read past the array"
    )
    fn = getattr(problem.module, name, None)
    if fn is None:
        return f"{head} indexes an array out of bounds at {_where(name, args)}{tail}"
    replay = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    try:
        with np.errstate(all="ignore"):
            fn(*replay)
    except IndexError as exc:
        found = _frame_in_file(exc.__traceback__, str(problem.path))
        if found is not None:
            func, line = found
            inner = "" if func == name else f" (in {func})"
            code = _source_line(problem, line)
            return f"{head}{inner}, the problem file's line {line}{code}: {exc}{tail}"
    except Exception:  # Python's semantics differ from the kernels' (ZeroDivisionError, math domain errors)
        pass
    return f"{head} indexes an array out of bounds at {_where(name, args)}{tail}"


def _frame_in_file(tb, filename: str):
    """(function name, line) of the innermost traceback frame in ``filename``, else None."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb.tb_frame.f_code.co_name, tb.tb_lineno
        tb = tb.tb_next
    return found


def _source_line(problem, line: int) -> str:
    """' `text`': the problem file's line ``line``, stripped, or '' where the file has no such line."""
    lines = problem.source.splitlines()
    return f" `{lines[line - 1].strip()}`" if 0 < line <= len(lines) else ""


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
