"""The solution object: :class:`Solution` (y and z on the domain, u(0, x0) and what it is worth).

>>> import srmdp
>>> sol = srmdp.solve("gobet2016", d=4, runs=4)          # #C, M, dt by the paper's rules
>>> y, z = sol.evaluate(0, X)                            # y^M_0, z^M_0 at points X of shape (n, 4)
>>> sol.u0()                                             # Estimate(value=..., se=...) at the problem's x0
>>> sol.u0_error, sol.u0_error_reason                    # estimated total error of u0 (bias included), or why not
>>> sol.z0(), sol.z0_error                               # z(0, x0) by a first step from x0, its error per component
>>> srmdp.solve("my_pde.py", d=4, tol=0.02)              # refine until u0_error <= 0.02 (sol.tol_met)
>>> sol.save("sol.npz"); sol2 = srmdp.load("sol.npz")    # bit-identical evaluations

Modules: the orchestration (:func:`srmdp.solving.solve`), the file format (:mod:`srmdp.solutions.solution_file`),
the options (:class:`srmdp.options.SolveOptions`).  Every evaluation goes through the compiled estimator
(:meth:`srmdp.kernels.cpu.CpuBackend.evaluate`, the kernel ``evaluate_points`` of :mod:`srmdp.kernels.cpu_kernels`): the
same code as the solver's own u0 and test errors.

Runs and memory: with ``runs`` R > 1 the R independent runs are kept (``keep="all"``, the default: R
times the coefficients, N K (1+q) nb values each, checked against the memory available before anything
is computed) and y, z, u0 are their mean, u0 with its standard error over the runs at any x0.
``keep="last"`` keeps only the last run's coefficients (evaluations are that run's; ``u0()`` at the
problem's x0 is still the mean over all R runs with its standard error, recorded during the solve).
"""

from __future__ import annotations

import copy
import math
from collections import namedtuple

import numpy as np

from ..case.cases import is_int, plain
from ..exceptions import TOL_NOT_MET, ConfigError
from ..problems import load_problem
from ..problems.adapt import split_spec, xi_of
from ..runs.result import thaw
from . import solution_file
from .solution_file import saved_spec
from .solve_result import SolveResult

Estimate = namedtuple("Estimate", "value se")
Estimate.__doc__ = "A Monte-Carlo estimate and its standard error over the runs (None with one run)."


def _read_only(coef):
    coef.flags.writeable = False
    return coef


def _kept(runs, keep) -> list:
    """The run indices whose coefficients a solve of ``runs`` runs keeps."""
    return list(range(runs)) if keep == "all" else [runs - 1]


# --- the solution ---------------------------------------------------------------------------------
class Solution:
    """The estimators y^M_i, z^M_i (i = 0..N-1) of a solve, kept as their regression coefficients.

    Attributes: ``case`` (:class:`srmdp.Case`), ``problem`` (:class:`srmdp.problems.Problem`),
    ``coefficients`` (R_kept x N x K x (1+q) x nb, read-only), ``runs``, ``kept_runs`` (run indices kept),
    ``seed``, ``keep``, ``rules`` (which parameters came from the paper's rules, and how), ``result`` (the
    solver's result dictionary: error indicators with their s.e. when the problem has an exact solution,
    u0 and u0_se, timings), ``provenance`` (seed, versions, hardware, git commit).
    """

    def __init__(self, case, coef, result, *, seed, runs, keep="all", rules=None, threads=None, problem=None):
        self._set(
            case=case,
            problem=problem or load_problem(case.problem),
            coefficients=_read_only(coef),
            result=SolveResult.of(result),
            seed=seed,
            runs=runs,
            keep=keep,
            kept_runs=_kept(runs, keep),
            rules=dict(rules or {}),
            threads=threads,
            _cache={},  # the compiled estimator, built at the first evaluation
        )
        base, adapted_d = split_spec(saved_spec(self.problem))
        self._set(base_problem=load_problem(base) if adapted_d else self.problem)

    def _set(self, **values):
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Solution is frozen: {name!r} cannot be set (Solution.replace makes a new one)")

    def __delattr__(self, name):
        raise AttributeError(f"a Solution is frozen: {name!r} cannot be deleted")

    def replace(self, **changes) -> Solution:
        """A new solution: this one with ``changes`` (``result``: a record or its JSON object; ``runs``,
        ``coefficients``; its kept runs follow its runs and keep)."""
        out = copy.copy(self)
        if "result" in changes:
            changes["result"] = SolveResult.of(changes["result"])
        if "coefficients" in changes:
            changes["coefficients"] = _read_only(changes["coefficients"])
        if "runs" in changes:
            changes["kept_runs"] = _kept(changes["runs"], changes.get("keep", getattr(self, "keep", "all")))
        out._set(**changes, _cache={})
        return out

    # --- what the answer is worth
    @property
    def u0_error(self):
        """Estimated total error of u0 (bias included; :mod:`srmdp.solutions.error_estimate`); None if not estimated
        (``error=False``, or no honest estimate: :attr:`u0_error_reason` says why)."""
        est = self.result.error_estimate
        return None if est is None else est.u0_error

    @property
    def u0_error_reason(self):
        """Why :attr:`u0_error` is None (one line), else None."""
        est = self.result.error_estimate
        if est is None:
            return "not estimated (error=False)"
        return est.reason if est.u0_error is None else None

    @property
    def z0_error(self):
        """Estimated error of z(0, x0) per component (a list of d; the first-step z0 of :meth:`z0`, against the
        level below like :attr:`u0_error`; ``bench/own_pde/own_pde_z0.py`` measures its coverage), or None
        (:attr:`z0_error_reason`).  Only a solve without ``tol`` and with ``error`` estimates it."""
        est = self.result.error_estimate
        return None if est is None or est.z0_error is None else list(est.z0_error)

    @property
    def z0_error_reason(self):
        """Why :attr:`z0_error` is None (one line), else None."""
        est = self.result.error_estimate
        if est is None:
            return "not estimated (error=False)" if self.tol is None else "not estimated with tol"
        if est.z0_error is not None:
            return None
        return est.z0_reason or est.reason or "not estimated with tol"

    @property
    def tol(self):
        return self.result.tol

    @property
    def tol_met(self):
        """With ``tol``: whether u0_error <= tol was reached (None without tol)."""
        return self.result.tol_met

    # --- the outcome, as SciPy's results say it (OdeResult, OptimizeResult)
    @property
    def success(self) -> bool:
        """False where a tolerance was asked for and not met within the budget (the answer is then the finest
        level reached), and where u0's error is not estimated (:attr:`u0_error` None: its standard error is the
        runs' noise only, not its accuracy; :attr:`message` says so first)."""
        return self.tol_met is not False and self.u0_error is not None

    @property
    def status(self) -> int:
        """The exit status ``srmdp solve`` gives this solution: 0, or 4 where the tolerance was not met
        (:data:`TOL_NOT_MET`)."""
        return TOL_NOT_MET if self.tol_met is False else 0

    @property
    def u0_error_hint(self):
        """Where :attr:`u0_error` is None because #C cannot be coarsened: the smallest #C that gives an estimate and
        its predicted time and memory, or that it is beyond reach (:func:`srmdp.solutions.prediction.estimate_hint`)."""
        est = self.result.error_estimate
        return None if est is None else thaw(est.hint)

    @property
    def message(self) -> str:
        """One line: what was solved, and what its error estimate says or why there is none."""
        c = self.case
        level = f"N = {c.steps}, #C = {c.cells}, M = {c.paths}"
        if self.tol is not None:
            if self.success:
                return f"tol = {self.tol:g} met at {level} (u0_error {self.u0_error:.3g})"
            return f"tol = {self.tol:g} NOT met ({self.result.refinement_stop}); the finest answer, {level}"
        if self.u0_error is None:
            return (
                f"error NOT estimated ({self.u0_error_reason}): u0's standard error is the runs' noise only, not its"
                f" accuracy (its bias is unknown); solved at {level}"
            )
        return f"solved at {level}; estimated total error of u0 {self.u0_error:.3g}"

    @property
    def refinement(self) -> list:
        """With ``tol``: the ladder, one :class:`srmdp.solutions.row.Row` per level (N, dt, cells, paths, u0, u0_se,
        u0_error, seconds, ...; ``result["refinement"]`` has them as JSON objects)."""
        return list(self.result.refinement or [])

    # --- time grid
    @property
    def steps(self) -> int:
        """N, the number of time steps (estimators exist at i = 0..N-1)."""
        return self.case.steps

    @property
    def dt(self) -> float:
        return self.case.time_step

    @property
    def times(self) -> np.ndarray:
        """t_i = i dt for i = 0..N-1."""
        return np.arange(self.steps) * self.dt

    def step_of(self, t) -> int:
        """The index i with t_i = t (t on the grid, to 1e-9 relative); ConfigError otherwise."""
        x = float(t) / self.dt
        i = int(round(x))
        if not (math.isfinite(x) and abs(x - i) <= 1e-9 * max(1.0, abs(x)) and 0 <= i < self.steps):
            raise ConfigError(
                f"invalid t={t!r}: must be a time t_i = i dt of the grid, dt = {self.dt:g}, i = 0..{self.steps - 1}"
            )
        return i

    @property
    def provenance(self) -> dict:
        return self.result["provenance"]

    # --- evaluation (the compiled estimator)
    def _engine(self):
        if "backend" not in self._cache:
            from ..kernels.cpu import CpuBackend
            from ..runs.run import check_threads

            self._cache["backend"] = CpuBackend(self.problem, threads=check_threads(self.threads))
            self._cache["rec"] = self.case.record(self.seed, 0, 0)
        return self._cache["backend"]

    def _check(self, i, X, run):
        if not is_int(i) or not 0 <= i < self.steps:
            raise ConfigError(
                f"invalid step i={plain(i)!r}: must be an integer in 0..{self.steps - 1}"
                f" (t_i = i dt, dt = {self.dt:g}; y_N = g is the terminal condition)"
            )
        try:
            pts = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"invalid points: not an array of numbers, shape (n, {self.case.d})") from None
        if pts.ndim == 1 and pts.size == self.case.d:
            pts = pts[None, :]
        if pts.ndim != 2 or pts.shape[1] != self.case.d:
            raise ConfigError(f"invalid points of shape {pts.shape}: must be (n, d) with d = {self.case.d}")
        if not np.isfinite(pts).all():
            bad = int(np.argwhere(~np.isfinite(pts))[0][0])
            raise ConfigError(f"invalid points: point {bad} is not finite")
        if run is not None and run not in self.kept_runs:
            raise ConfigError(f"invalid run={run!r}: the runs kept are {self.kept_runs}")
        return np.ascontiguousarray(pts)

    def evaluate(self, i, X, run=None):
        """(y^M_i(X) of shape (n,), z^M_i(X) of shape (n, d)) at points X of shape (n, d).

        ``run``: one kept run's estimators; None: the mean over the kept runs.  At i = 0, z is the cells' regression:
        at x0, :meth:`z0` (first steps out of x0) is the better estimate of z(0, x0)."""
        pts = self._check(i, X, run)
        if self.problem.adapted_d:  # adapted strata: the estimators live in xi = (x - m(t_i)) / s(t_i)
            pts = np.ascontiguousarray(xi_of(self.problem, int(i) * (self.case.maturity / self.case.steps), pts))
        backend = self._engine()
        runs = self.kept_runs if run is None else [run]
        y = np.zeros(pts.shape[0])
        z = np.zeros(pts.shape)
        for r in runs:
            backend.attach(self.case, self.coefficients[self.kept_runs.index(r)])
            yr, zr = backend.evaluate(int(i), self._cache["rec"], pts)
            y += yr
            z += zr
        if len(runs) > 1:
            y /= len(runs)
            z /= len(runs)
        return y, z

    def y(self, i, X, run=None) -> np.ndarray:
        """y^M_i at points X (n, d): the approximation of u(t_i, X)."""
        return self.evaluate(i, X, run)[0]

    def z(self, i, X, run=None) -> np.ndarray:
        """z^M_i at points X (n, d): the approximation of sigma^T grad u(t_i, X) (n, d)."""
        return self.evaluate(i, X, run)[1]

    def x0_point(self, x0=None) -> np.ndarray:
        """x0 as a point of R^d: None -> the problem's X0 in every coordinate, a number -> that in every one."""
        if x0 is None:
            x0 = self.base_problem.x0
        pt = np.asarray(x0, dtype=np.float64)
        if pt.ndim == 0:
            pt = np.full(self.case.d, float(pt))
        return pt

    def u0(self, x0=None) -> Estimate:
        """u(0, x0) ~ y^M_0(x0): the mean over the runs and its standard error (None with one run).

        ``x0``: None (the problem's X0 in every coordinate), a number, or a point of length d.  With
        ``keep="last"`` and another x0 than the problem's, only the last run is there: se is None.  A refinement
        whose answer is extrapolated in dt (``result["extrapolated"]``, :mod:`srmdp.refine.refine`) gives that value at
        the problem's x0; elsewhere, and in ``y``/``z``, the estimators are the answer level's own."""
        if x0 is None and (self.keep == "last" or self.result.extrapolated is not None):
            return Estimate(self.result.u0, self.result.u0_se)
        pt = self.x0_point(x0)
        vals = np.array([self.evaluate(0, pt, run=r)[0][0] for r in self.kept_runs])
        se = float(np.std(vals, ddof=1) / math.sqrt(vals.size)) if vals.size > 1 else None
        return Estimate(float(np.mean(vals)), se)

    def z0(self, x0=None, method="first_step", paths=None):
        """z(0, x0) ~ sigma^T grad u: (the mean over the runs (d,), its s.e. (d,) or None with one run).

        ``method``: "first_step" (default; :mod:`srmdp.solutions.first_step`, one step out of the deterministic
        X_0 = x0 with the estimators of t_1, ``paths`` steps per run) or "regression" (z^M_0(x0), the
        scheme's own estimator; its error at a point is the cells' fit and the regression noise)."""
        if method == "regression":
            pt = self.x0_point(x0)
            vals = np.array([self.evaluate(0, pt, run=r)[1][0] for r in self.kept_runs])
            se = vals.std(axis=0, ddof=1) / math.sqrt(len(vals)) if len(vals) > 1 else None
            return vals.mean(axis=0), se
        if method != "first_step":
            raise ConfigError(f"invalid method={method!r}: 'first_step' or 'regression'")
        if x0 is None and paths is None and self.result.z0 is not None:  # recorded during the solve, over all runs
            return np.array(self.result.z0), np.array(self.result.z0_se)
        from .first_step import PATHS, first_step_z0

        value, se, _ = first_step_z0(self, x0, PATHS if paths is None else paths)
        return value, se

    def __repr__(self):
        c = self.case
        u = self.u0()
        se = "" if u.se is None else f" ± {u.se:.2g}"
        err = "" if self.u0_error is None else f" (estimated error {self.u0_error:.2g})"
        strata = " adapted strata" if self.problem.adapted_d else ""
        return (
            f"<srmdp.Solution {self.problem.name} d={c.d} dt={c.dt:g} {c.basis} #C={c.cells} M={c.paths}{strata}"
            f" runs={self.runs} (kept {len(self.kept_runs)}): u(0, x0) ≈ {u.value:.6g}{se}{err}>"
        )

    # --- files
    def metadata(self) -> dict:
        return solution_file.metadata(self)

    def save(self, path):
        """Write the solution to ``path`` (.npz: coefficients + JSON metadata, checksummed), atomically
        (:mod:`srmdp.solutions.solution_file`)."""
        return solution_file.save(self, path)


def load(path, threads=None) -> Solution:
    """Read a solution written by :meth:`Solution.save` (:func:`srmdp.solutions.solution_file.read`: refuses a damaged
    file,
    another format version or a problem file changed since, in one line) and rebuild its kernels."""
    case, coef, meta, problem = solution_file.read(path)
    return Solution(
        case,
        coef,
        meta["result"],
        seed=meta["seed"],
        runs=meta["runs"],
        keep=meta["keep"],
        rules=meta.get("rules"),
        threads=threads,
        problem=problem,
    )
