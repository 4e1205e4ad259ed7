"""One case's runs of Algorithm SRMDP (:func:`run_case`, what ``srmdp run`` computes): runs x backward time steps on
a backend, then the errors; the checks before any compute (:func:`validate_run`) and the result's summary line.

The backends are :mod:`srmdp.kernels.backends`' (its protocol ``Backend`` and registry ``BACKENDS``); ``rec`` is the
case record (:meth:`srmdp.case.cases.Case.record`).
"""

import math
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..case import memory
from ..case.cases import Case, check_seed_run, is_int, plain
from ..case.defaults import DEFAULTS
from ..case.readings import result_reading
from ..case.results import identity_hash, peak_rss_bytes, provenance
from ..exceptions import ConfigError, Interrupted, NumericalError, ProblemFunctionError
from ..kernels import stop
from ..kernels.backends import backend_spec, make_backend
from ..numerics.rng import PATH_BITS
from ..options import DEVICES
from ..problems import load_problem
from ..problems.checks import check_problem, nonfinite_function, raised_in_problem
from .result import PerRun, RunResult

__all__ = ["run_case", "validate_run", "NumericalError", "ConfigError", "DEVICES"]


def validate_run(case: Case, runs: int, run_start: int, test_points: int, seed: int, device: str, threads=None):
    """Refuse (ConfigError, one line naming the argument) anything invalid before any compute."""
    if not isinstance(case, Case):
        raise ConfigError(f"invalid case={case!r}: must be a srmdp.Case")
    if not is_int(runs) or runs < 1:
        raise ConfigError(f"invalid runs={plain(runs)!r}: must be an integer >= 1")
    if not is_int(test_points) or not 1 <= test_points < 2**PATH_BITS:
        raise ConfigError(
            f"invalid test_points={plain(test_points)!r}: must be an integer in [1, 2^{PATH_BITS})"
            " (the test points use the path field of the RNG counter)"
        )
    check_seed_run(seed, run_start, runs)
    if device not in DEVICES:
        raise ConfigError(f"invalid device={device!r}: allowed values are {', '.join(DEVICES)}")
    problem = load_problem(case.problem)
    if not problem.shipped:  # a user's file: one line naming the function that does not compile or raises
        check_problem(problem, case.d, case.arithmetic)
    check_threads(threads)


@contextmanager
def problem_raises(where: str):
    """A problem function that raises inside a kernel (Numba reports a SystemError) is a NumericalError naming the
    function, what it raised and ``where`` (:func:`srmdp.problems.checks.raised_in_problem`)."""
    try:
        yield
    except SystemError as exc:
        raised = raised_in_problem(exc)
        if raised is None:
            raise
        raise ProblemFunctionError(
            f"function {raised[0]} of the problem raised {raised[1]} in {where}; kernel code cannot raise: return a"
            " value (math.nan stops the run at its step)"
        ) from None


def check_threads(threads):
    """None (all threads) or an integer in 1..NUMBA_NUM_THREADS; returns it."""
    if threads is None:
        return None
    import numba

    top = numba.config.NUMBA_NUM_THREADS
    if not is_int(threads) or not 1 <= threads <= top:
        raise ConfigError(
            f"invalid threads={plain(threads)!r}: must be an integer in 1..{top}"
            " (NUMBA_NUM_THREADS; set that variable to allow more)"
        )
    return int(threads)


def first_nonfinite_stratum(coef, i, block=1 << 16) -> int:
    """First stratum k with a non-finite coefficient at time step i of a host array coef[i, k, c, a]
    (-1 if none, or if coef is not a host array).  The kernels check their float64 solutions; this
    also catches a finite float64 value that overflows when stored in float32 coefficients."""
    if not isinstance(coef, np.ndarray) or coef.ndim != 4:
        return -1
    c = coef[i]
    for lo in range(0, c.shape[0], block):
        part = c[lo : lo + block]
        ok = np.isfinite(part).reshape(part.shape[0], -1).all(axis=1)
        if not ok.all():
            return lo + int(np.argmin(ok))
    return -1


# The files progress lines go to besides the bar (:func:`progress_log`): (file, its clock at the last line) each.
_LOGS: list = []
LOG_EVERY_SECONDS = 5.0  # a time step's line at most this often (a run's end always has its line)


@contextmanager
def progress_log(path):
    """Progress lines (one per run, and within a run one per time step at most every :data:`LOG_EVERY_SECONDS`)
    appended to ``path``, each flushed as it is written, inside the block (the command line's ``OUT.log``).  The file
    is opened at its first line: a solve refused before any line leaves none."""
    entry = [path, None, 0.0]
    _LOGS.append(entry)
    try:
        yield entry
    finally:
        _LOGS.remove(entry)
        if entry[1] is not None:
            entry[1].close()


def log_line(line: str, force: bool = True):
    """Append ``line`` to the progress logs (:func:`progress_log`); ``force=False``: only where the last line is
    :data:`LOG_EVERY_SECONDS` old."""
    now = time.monotonic()
    for entry in _LOGS:
        if force or now - entry[2] >= LOG_EVERY_SECONDS:
            if entry[1] is None:  # beside the output, whose directory --out may name before it exists
                Path(entry[0]).parent.mkdir(parents=True, exist_ok=True)
                entry[1] = open(entry[0], "a", buffering=1)  # noqa: SIM115 (closed by progress_log)
            entry[1].write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
            entry[1].flush()
            entry[2] = now


class _Progress:
    """Progress bar (time steps x runs) on a terminal, silent otherwise; and lines in the progress logs
    (:func:`progress_log`)."""

    def __init__(self, total, label, enabled=None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.bar = None
        self.total, self.done, self.label, self.t0 = total, 0, label, time.monotonic()
        if self.enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="step", file=sys.stderr, leave=False)
            except ImportError:
                self.enabled = False

    def update(self, n=1):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        log_line(self._line("time step"), force=False)

    def run_done(self, r, runs):
        log_line(self._line(f"run {r + 1}/{runs} done:"))

    def _line(self, what):
        return (
            f"progress {self.label}: {what} {self.done}/{self.total} time steps x runs,"
            f" {time.monotonic() - self.t0:.1f} s"
        )

    def close(self):
        if self.bar is not None:
            self.bar.close()


def run_case(
    case: Case,
    runs: int = 1,  # a chunk's (a workflow job's runs are given)
    run_start: int = DEFAULTS["run_start"],
    test_points: int = DEFAULTS["test_points"],
    seed: int = DEFAULTS["seed"],
    device: str = DEFAULTS["device"],
    threads=DEFAULTS["threads"],
    progress=None,
    backend=None,
    on_run=None,
    before_compute=None,
) -> RunResult:
    """Run ``runs`` independent runs of ``case``; returns their result (a chunk: :class:`RunResult`).

    ``on_run(r, backend)``, if given, is called after each run r (0-based in this call) while the
    backend holds that run's coefficients (:func:`srmdp.solving.solve` keeps them); ``before_compute()``, once
    every check has passed, before the compilation (``srmdp run`` says its prediction there).

    All checks (arguments, memory model) happen before any allocation or compilation.  With an exact
    solution the result holds the error indicators (eq. mse); without one, u(0, x0) = y^M_0(x0) per
    run and its mean and standard error.
    """
    validate_run(case, runs, run_start, test_points, seed, device, threads)
    backend_spec(device).check_host(case, test_points, runs)  # the memory models, before anything is allocated
    problem = load_problem(case.problem)
    backend = backend or make_backend(device, problem, threads)
    backend.check_fits(case, test_points, runs)
    if before_compute is not None:
        before_compute()
    backend.allocate(case)
    n = case.steps
    rec = case.record(seed, run_start, test_points)
    t0 = time.perf_counter()
    backend.warm_up(rec)
    compile_seconds = time.perf_counter() - t0
    stop.check()  # a signal during the compilation: nothing computed yet
    rss_before_runs = peak_rss_bytes()  # the process's baseline: its arrays are allocated but untouched

    x0 = np.full((1, case.d), problem.x0)
    ey, ez, ey2, ez2 = (np.empty((runs, n)) for _ in range(4))
    u0 = np.empty(runs)
    solve_seconds = []
    error_seconds = []
    bar = _Progress(runs * n, case.label, progress)

    def result(done: int) -> RunResult:
        """The result of the first ``done`` runs (what ``srmdp run`` writes), built once."""
        run_u0, run_ey, run_ez, run_ey2, run_ez2 = (a[:done] for a in (u0, ey, ez, ey2, ez2))
        d = case.as_dict()
        if problem.has_exact:
            per_run = PerRun.of(ey=run_ey, ez=run_ez, ey2=run_ey2, ez2=run_ez2, u0=run_u0)
        else:
            per_run = PerRun.of(u0=run_u0)
        return RunResult(
            case_hash=identity_hash(d, seed, test_points),
            case=d,
            label=case.label,
            problem=problem.name,
            reading=result_reading(case),
            device=backend.device,
            seed=seed,
            run_start=run_start,
            runs=done,
            test_points=test_points,
            path_steps_per_run=case.path_steps,
            seconds_per_run=float(np.mean(solve_seconds)),
            seconds_per_run_min=float(np.min(solve_seconds)),
            seconds_per_run_max=float(np.max(solve_seconds)),
            path_steps_per_second=case.path_steps / float(np.min(solve_seconds)),
            error_seconds_per_run=float(np.mean(error_seconds)),
            compile_seconds=compile_seconds,
            memory_bytes=memory.required_bytes(case, test_points, runs=done),  # the model (srmdp.case.memory)
            peak_rss_bytes=peak_rss_bytes(),  # measured: the process's peak RSS after the runs
            peak_rss_before_runs_bytes=rss_before_runs,  # ... and before the first run (after warm-up)
            **backend.memory_report(test_points),  # GPU: the device memory model and the measured use
            diagnostics={"dropped_directions": backend.fallbacks()},
            x0=problem.x0,
            u0=float(np.mean(run_u0)),
            u0_se=float(np.std(run_u0, ddof=1) / math.sqrt(done)) if done > 1 else None,
            per_run=per_run,
            provenance=provenance(seed, backend.hardware()),
            indicators=per_run.indicators(),  # the paper's indicators, where the runs recorded errors
        )

    try:
        for r in range(runs):
            rec = case.record(seed, run_start + r, test_points)
            t0 = time.perf_counter()
            for i in range(n - 1, -1, -1):  # backward iteration i = N-1 ... 0
                where = f"case {case.label}, run {run_start + r}, time step i={i}"
                with problem_raises(where):
                    bad = backend.backward_step(i, rec)
                if bad < 0:
                    bad = first_nonfinite_stratum(getattr(backend, "coef", None), i)
                if bad >= 0:
                    culprit = nonfinite_function(problem, case.d, case.arithmetic)
                    raise (ProblemFunctionError if culprit else NumericalError)(
                        f"non-finite regression coefficient in {where}, stratum k={bad}"
                        + (f"; the problem's {culprit}" if culprit else "")
                    )
                bar.update()
                stop.check()  # a signal's stop (srmdp.kernels.stop): between time steps (the CPU also between slices)
            t1 = time.perf_counter()
            if problem.has_exact:
                with problem_raises(f"case {case.label}, run {run_start + r}, the test points"):
                    ey[r], ez[r], ey2[r], ez2[r] = backend.errors(rec)
                bad_steps = np.flatnonzero(~(np.isfinite(ey[r]) & np.isfinite(ez[r])))
                if bad_steps.size:
                    raise NumericalError(
                        f"non-finite test-point error in case {case.label}, run {run_start + r},"
                        f" time step i={int(bad_steps[0])}"
                    )
            u0[r] = backend.evaluate(0, rec, x0)[0][0]
            if on_run is not None:
                on_run(r, backend)
            solve_seconds.append(t1 - t0)
            error_seconds.append(time.perf_counter() - t1)
            bar.run_done(r, runs)
            if r + 1 < runs:
                stop.check()
    except (NumericalError, Interrupted) as exc:  # the runs completed before it stand: the caller may keep them
        if solve_seconds:  # (exc.partial)
            exc.partial = result(len(solve_seconds)).to_dict()  # plain JSON, as the partial file writes it
        if isinstance(exc, Interrupted):
            exc.stage = exc.stage or f"case {case.label}: {len(solve_seconds)} of {runs} runs done"
        raise
    finally:
        bar.close()
    return result(runs)


def summary_line(res: dict) -> str:
    def fmt(key):
        v, se = res.get(key), res.get(key + "_se")
        if v is None:  # null: ln 0 (every error exactly 0, a z the scheme computes exactly) or not a number
            per_step = res.get("per_step_z" if key == "mse_z_av" else "per_step_y") or [math.nan]
            return "-inf (error 0)" if all(e == 0 for e in per_step) else "nan"
        return f"{v:.3f}" + ("" if se is None or math.isnan(se) else f"±{se:.3f}")

    if "mse_y_max" in res:
        what = f"MSE_Y,max {fmt('mse_y_max')}  MSE_Y,av {fmt('mse_y_av')}  MSE_Z,av {fmt('mse_z_av')}"
    else:
        what = f"u(0, x0={res['x0']:g}) {res['u0']:.6g}" + (f"±{res['u0_se']:.2g}" if res["runs"] > 1 else "")
    return (
        f"{res['label']} [{res['device']}, {res['runs']} runs x {res['test_points']} points]: {what}  "
        f"{res['seconds_per_run']:.3g} s/run  {res['path_steps_per_second']:.3g} path-steps/s"
    )
