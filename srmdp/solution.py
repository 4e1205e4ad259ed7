"""The Python API: :func:`solve` a problem, get a :class:`Solution` (y and z on the domain, u(0, x0)), save and load it.

>>> import srmdp
>>> sol = srmdp.solve("gobet2016", d=4, runs=4)          # #C, M, dt by the paper's rules
>>> y, z = sol.evaluate(0, X)                            # y^M_0, z^M_0 at points X of shape (n, 4)
>>> sol.u0()                                             # Estimate(value=..., se=...) at the problem's x0
>>> sol.u0_error                                          # estimated total error of u0, bias included
>>> srmdp.solve("my_pde.py", d=4, tol=0.02, strata="adapted")  # refine until u0_error <= 0.02 (sol.tol_met)
>>> sol.save("sol.npz"); sol2 = srmdp.load("sol.npz")    # bit-identical evaluations

The backward iterations are those of ``srmdp run`` (:func:`srmdp.solver.run_case`, which also returns
the error indicators when the problem has an exact solution); the coefficients of each run are kept, and
every evaluation goes through the compiled estimator (:meth:`srmdp.cpu.CpuBackend.evaluate`, the kernel
``evaluate_points`` of :mod:`srmdp.cpu_kernels`): the same code as the solver's own u0 and test errors.

Runs and memory: with ``runs`` R > 1 the R independent runs are kept (``keep="all"``, the default: R
times the coefficients, N K (1+q) nb values each, checked against the memory available before anything
is computed) and y, z, u0 are their mean, u0 with its standard error over the runs at any x0.
``keep="last"`` keeps only the last run's coefficients (evaluations are that run's; ``u0()`` at the
problem's x0 is still the mean over all R runs with its standard error, recorded during the solve).

File format (``save``): one ``.npz`` (NumPy, no pickle) holding ``coef`` (R_kept x N x K x (1+q) x nb)
and ``meta``, a JSON text: format name and version, the case, the problem (its spec and the sha256 of
its source), seed, runs, the rules used, the solver's result (indicators or u0, timings, provenance),
the coefficients' sha256, and a checksum over all of it.  :func:`load` refuses, in one line
(:class:`~srmdp.exceptions.ConfigError`), a file that is unreadable, damaged (checksum, coefficient
hash), of another format version, or whose problem file has changed since it was saved; it rebuilds
the kernels from the saved problem spec.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
from collections import namedtuple
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import memory
from .adapt import adapted_spec, split_spec, xi_of
from .bases import BASES
from .cases import Z_CV_DEFAULT_FOR_USER_PROBLEMS, Case, is_int, plain, truncation_for_case
from .exceptions import ConfigError
from .problems import DEFAULT as DEFAULT_PROBLEM
from .problems import REGISTRY, Problem, load_problem
from .results import checksum_ok, seal, write_atomic
from .rules import DEFAULT_STEPS, paper_rule

FORMAT = "srmdp-solution"
SOLUTION_FORMAT_VERSION = 1
KEEP = ("all", "last")
Estimate = namedtuple("Estimate", "value se")
Estimate.__doc__ = "A Monte-Carlo estimate and its standard error over the runs (None with one run)."


# --- the problem as a spec string -------------------------------------------------------------------
def problem_spec(problem) -> str:
    """A spec string for ``problem``: a registered name, a path (``str`` or ``Path``), or a loaded Problem."""
    if isinstance(problem, Problem):
        return saved_spec(problem)
    if isinstance(problem, os.PathLike):
        return os.fspath(problem)
    if isinstance(problem, str):
        return problem
    raise ConfigError(f"invalid problem={problem!r}: a registered name ({', '.join(REGISTRY)}), a path to a"
                      " problem file, or a loaded srmdp.problems.Problem")


def saved_spec(problem: Problem) -> str:
    """The spec that finds the same file again from any working directory (absolute path for a user's file)."""
    base = problem.name if REGISTRY.get(problem.name) == problem.path else f"{problem.path}:{problem.name}"
    return adapted_spec(base, problem.adapted_d) if problem.adapted_d else base


# --- solve ----------------------------------------------------------------------------------------
def _inf(v, name):
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))):
        raise ConfigError(f"invalid {name}={v!r}: a truncation bound must be a number > 0 (None for none)")
    return float(truncation_for_case(v))


STRATA = ("box", "adapted")


def solve(problem="gobet2016", *, d=None, dt=None, basis="LP1", cells=None, paths=None, outside="unbounded",
          trunc_y=None, trunc_z=None, half_width=None, strata="box", precision="float64", device="cpu", seed=0,
          runs=None, z_cv=None, threads=None, test_points=1000, keep="all", error=True, tol=None, budget_s=None,
          guard=True, progress=None, report=None, arithmetic="float64") -> Solution:
    """Solve the BSDE / semilinear PDE ``problem`` by SRMDP; returns a :class:`Solution`.

    ``problem``: a registered name (:data:`srmdp.problems.REGISTRY`), a path ``file.py[:NAME]`` to a
    problem file (the contract of :mod:`srmdp.problems`), or a loaded :class:`~srmdp.problems.Problem`.
    ``d`` (required): the dimension.  Defaults (the paper's rules, :mod:`srmdp.rules`): ``dt`` = T/5,
    ``basis`` LP1, ``cells`` (#C per axis) and ``paths`` (M per stratum) from the formulas of the paper's
    table for that basis and dimension.  ``outside``: reading outside the strata box (``unbounded``, the
    theory's; ``zero``; ``clamp``), ``trunc_y``/``trunc_z``: truncation bounds (None: none),
    ``strata``: ``"box"`` (the paper's: one box [-L, L]^d at every step) or ``"adapted"`` (beyond the
    paper, :mod:`srmdp.adapt`: at each t_i a box centred on the law of X_{t_i}, L of its standard deviations
    per axis), ``half_width`` L (box: default the problem's ``BOX_HALF_WIDTH``; adapted: default
    :data:`srmdp.adapt.HALF_WIDTH` standard deviations; the cells have width 2L/#C), ``precision`` of the
    stored coefficients, ``arithmetic`` the type the kernels compute in (``"float32"``: the paper's),
    ``device`` ``cpu`` or ``gpu``, ``seed``, ``runs`` independent runs (u0's
    standard error needs >= 2; default 1, 4 with ``tol``), ``z_cv`` the Z control variate (beyond the
    paper; None: off for the paper's problem, :data:`srmdp.cases.Z_CV_DEFAULT_FOR_USER_PROBLEMS` for the
    others), ``threads`` (CPU; default all), ``test_points`` per run and time step for the error
    indicators (problems with an exact solution), ``keep`` ``"all"`` or ``"last"`` runs' coefficients.

    ``error`` (default True): also solve one refinement level below (N/2 steps, #C and M by the rules at
    N/2, or scaled from the given ones by the rules' exponents; about 1/8 of the cost or less) and set
    ``Solution.u0_error``, an estimate of the total error of u0, bias included (:mod:`srmdp.estimate`).
    ``tol`` (absolute, in the units of u) with ``budget_s`` (seconds, default 900): refine instead -- climb a
    ladder of (dt, #C, M) by the paper's rules, N = N0, 2 N0, 4 N0, ... until ``u0_error <= tol`` or the budget
    or memory ends (:mod:`srmdp.refine`); ``Solution.tol_met`` says whether it was reached and
    ``Solution.refinement`` holds the ladder.  ``guard`` (default True): stop with
    :class:`srmdp.estimate.DivergenceError` (a NumericalError naming the time step and the remedies) when the
    estimators blow up; an exploded run is never returned as an answer.  ``report(line)``: called with a
    line per refinement level (the CLI prints them).

    Everything is checked before anything is compiled or computed (one-line ConfigError), including the
    memory model: R kept runs x the coefficients + the solver's work space must fit in the memory available.
    """
    if runs is None:  # a refinement needs standard errors
        runs = 1 if tol is None else 4
    plan = Plan.make(problem, d=d, dt=dt, basis=basis, cells=cells, paths=paths, outside=outside, trunc_y=trunc_y,
                     trunc_z=trunc_z, half_width=half_width, strata=strata, precision=precision, device=device,
                     seed=seed, runs=runs, z_cv=z_cv, threads=threads, test_points=test_points, keep=keep,
                     guard=guard, progress=progress, arithmetic=arithmetic)
    if tol is not None:
        from .refine import refine

        return refine(plan, tol, budget_s, report=report)
    if budget_s is not None:
        raise ConfigError("invalid budget_s: a budget goes with a tolerance (tol=...)")
    if not isinstance(error, bool):
        raise ConfigError(f"invalid error={error!r}: True (estimate u0's total error) or False")
    case, rules = plan.case_at(plan.steps)
    plan.check(case)
    coarse = None
    if error and plan.steps >= 2:
        coarse = plan.case_at(plan.steps // 2)[0]
        plan.check(coarse, keep="last")
    sol = plan.run(case, rules)
    if coarse is not None:
        from .estimate import DivergenceError, total_error

        try:
            low = plan.run(coarse, {}, keep="last")
        except DivergenceError as exc:  # the answer stands; its error cannot be estimated this way
            sol.result["error_estimate"] = {"u0_error": None, "coarse_case": coarse.as_dict(),
                                            "note": f"the level below diverged: {exc}"}
            return sol
        err, bias = total_error(sol.result["u0"], sol.result["u0_se"], low.result["u0"], case.steps / coarse.steps)
        sol.result["error_estimate"] = {"u0_error": err, "bias": bias, "coarse_case": coarse.as_dict(),
                                        "coarse_u0": low.result["u0"], "coarse_u0_se": low.result["u0_se"],
                                        "coarse_seconds": low.result["seconds_per_run"] * low.runs}
    return sol


@dataclass
class Plan:
    """A validated solve request: the problem, the options, and how (dt, #C, M) follow N (the rules).

    ``case_at(N)`` is the case with N time steps: the given dt's N0 with the given #C, M; other N with #C
    and M by the paper's rules at N, or -- where #C or M were given -- scaled from them by the rules'
    exponents (#C ~ N^{1/4} for LP1/LP2d, N^{1/2} for LP0; M ~ N^2)."""

    spec: str
    problem: Problem
    d: int
    basis: str
    steps: int
    cells: int | None
    paths: int | None
    dt_given: bool
    options: dict
    runs: int
    seed: int
    device: str
    threads: int | None
    test_points: int
    keep: str
    guard: bool
    progress: object

    @classmethod
    def make(cls, problem, *, d, dt, basis, cells, paths, outside, trunc_y, trunc_z, half_width, strata, precision,
             device, seed, runs, z_cv, threads, test_points, keep, guard, progress, arithmetic="float64"):
        spec = problem_spec(problem)
        prob = load_problem(spec)
        if isinstance(problem, Problem) and prob.source_hash != problem.source_hash:
            raise ConfigError(f"invalid problem: the file {problem.path} changed since it was loaded; load it again")
        if d is None:
            raise ConfigError("invalid d=None: give the dimension d (an integer >= 1)")
        if not is_int(d) or d < 1:
            raise ConfigError(f"invalid d={plain(d)!r}: the dimension must be an integer >= 1")
        if keep not in KEEP:
            raise ConfigError(f"invalid keep={keep!r}: allowed values are {', '.join(KEEP)}")
        if strata not in STRATA:
            raise ConfigError(f"invalid strata={strata!r}: allowed values are {', '.join(STRATA)}")
        if not isinstance(guard, bool):
            raise ConfigError(f"invalid guard={guard!r}: True or False")
        if basis not in BASES:
            raise ConfigError(f"invalid basis={basis!r}: allowed values are {', '.join(BASES)}")
        if strata == "adapted" and not prob.adapted_d:
            spec = adapted_spec(spec, d)
        if z_cv is None:  # the paper's problem keeps the paper's scheme; other problems take the measured default
            z_cv = Z_CV_DEFAULT_FOR_USER_PROBLEMS and prob.name != DEFAULT_PROBLEM
        dt_given = dt is not None
        dt = prob.maturity / DEFAULT_STEPS if dt is None else dt
        options = dict(outside=outside, trunc_y=_inf(trunc_y, "trunc_y"), trunc_z=_inf(trunc_z, "trunc_z"),
                       precision=precision, problem=spec, z_cv=z_cv, half_width=half_width, arithmetic=arithmetic)
        # validate d, dt, basis and the options first (placeholders where the rules will decide)
        probe = Case(d=d, dt=dt, basis=basis, cells=1 if cells is None else cells,
                     paths=2**20 if paths is None else paths, **options)
        plan = cls(spec, load_problem(spec), int(d), basis, probe.steps, cells, paths, dt_given, options, runs, seed,
                   device, threads, test_points, keep, guard, progress)
        from .solver import validate_run

        validate_run(probe, runs, 0, test_points, seed, device, threads)
        return plan

    def case_at(self, steps: int):
        """(the case with ``steps`` time steps, the rules used: {parameter: how})."""
        rule = paper_rule(self.basis, self.d, steps)
        rules = {}
        r = steps / self.steps
        if not self.dt_given or steps != self.steps:
            rules["dt"] = f"T/{steps} = {self.problem.maturity / steps:g} (N = {steps})"
        if self.cells is None:
            cells = rule.cells
            rules["cells"] = f"{rule.cells_formula} (paper's {rule.table}) = {cells}"
        elif steps == self.steps:
            cells = self.cells
        else:
            a = 0.5 if BASES[self.basis].rules == "LP0" else 0.25  # the paper: #C ~ N^(1/2) (LP0), N^(1/4) (LP1)
            cells = max(1, round(self.cells * r**a))
            rules["cells"] = f"the given {self.cells} x (N/{self.steps})^{a} = {cells}"
        if self.paths is None:
            paths = rule.paths
            rules["paths"] = f"{rule.paths_formula} (paper's {rule.table}) = {paths}"
        elif steps == self.steps:
            paths = self.paths
        else:
            paths = max(BASES[self.basis].size(self.d), round(self.paths * r * r))
            rules["paths"] = f"the given {self.paths} x (N/{self.steps})^2 = {paths}"
        dt = self.problem.maturity / steps
        return Case(d=self.d, dt=dt, basis=self.basis, cells=cells, paths=paths, **self.options), rules

    def check(self, case, keep=None):
        """Memory first (one-line ConfigError)."""
        return check_memory(case, self.runs, keep or self.keep, self.test_points, self.device)

    def run(self, case, rules, keep=None):
        """Solve ``case`` (every run checked by the divergence detector when ``guard``): a :class:`Solution`."""
        from .estimate import DivergenceError, divergence
        from .solver import NumericalError, run_case

        keep = keep or self.keep
        store = {}
        kept = list(range(self.runs)) if keep == "all" else [self.runs - 1]

        def keep_coefficients(r, backend):
            c = backend.coefficients() if (self.guard or r in kept) else None
            if self.guard:
                why = divergence(c, case)
                if why:
                    raise DivergenceError(f"case {case.label}, run {r}: {why}")
            if r not in kept:
                return
            if "coef" not in store:
                store["coef"] = np.empty((len(kept),) + c.shape, c.dtype)
            store["coef"][kept.index(r)] = c

        try:
            result = run_case(case, runs=self.runs, run_start=0, test_points=self.test_points, seed=self.seed,
                              device=self.device, threads=self.threads, progress=self.progress,
                              on_run=keep_coefficients)
        except DivergenceError:
            raise
        except NumericalError as exc:
            from .estimate import remedies

            raise DivergenceError(f"{exc}; {remedies(case)}") from None
        return Solution(case, store["coef"], result, seed=self.seed, runs=self.runs, keep=keep, rules=rules,
                        threads=self.threads)


def check_memory(case, runs, keep, test_points=1000, device="cpu", available=None):
    """Refuse (one-line ConfigError) a solve whose kept coefficients and solver work space exceed host memory."""
    kept = runs if keep == "all" else 1
    coef = memory.coefficient_bytes(case)
    solver = memory.required_bytes(case, test_points, runs=runs) if device == "cpu" else memory.result_bytes(case,
                                                                                                              runs)
    need = kept * coef + solver
    have = memory.available_bytes() if available is None else available
    if need > have:
        hint = ""
        if kept > 1 and coef + solver <= have:
            hint = "; keep='last' (--keep last) keeps one run's coefficients and fits"
        raise ConfigError(
            f"case {case.label} needs {need / memory.GIB:.2f} GiB of host memory ({kept} kept run(s) x coefficients"
            f" {coef / memory.GIB:.3g} GiB = N {case.steps} x K {case.strata} x (1+q) {case.d + 1} x basis"
            f" {case.n_basis} x {memory.itemsize(case.precision)} B, plus the solver's"
            f" {solver / memory.GIB:.3g} GiB) but only {have / memory.GIB:.2f} GiB is available{hint}")
    return need


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
        self.case = case
        self.problem = problem or load_problem(case.problem)
        self.coefficients = coef
        self.coefficients.flags.writeable = False
        self.result = result
        self.seed = seed
        self.runs = runs
        self.keep = keep
        self.kept_runs = list(range(runs)) if keep == "all" else [runs - 1]
        self.rules = dict(rules or {})
        self.threads = threads
        self._backend = None
        base, adapted_d = split_spec(saved_spec(self.problem))
        self.base_problem = load_problem(base) if adapted_d else self.problem

    # --- what the answer is worth
    @property
    def u0_error(self):
        """Estimated total error of u0 (bias included; :mod:`srmdp.estimate`), None if not estimated (error=False)."""
        return (self.result.get("error_estimate") or {}).get("u0_error")

    @property
    def tol(self):
        return self.result.get("tol")

    @property
    def tol_met(self):
        """With ``tol``: whether u0_error <= tol was reached (None without tol)."""
        return self.result.get("tol_met")

    @property
    def refinement(self) -> list:
        """With ``tol``: the ladder, one dict per level (N, dt, cells, paths, u0, u0_se, u0_error, seconds, ...)."""
        return list(self.result.get("refinement") or [])

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
            raise ConfigError(f"invalid t={t!r}: must be a time t_i = i dt of the grid, dt = {self.dt:g},"
                              f" i = 0..{self.steps - 1}")
        return i

    @property
    def provenance(self) -> dict:
        return self.result["provenance"]

    # --- evaluation (the compiled estimator)
    def _engine(self):
        if self._backend is None:
            from .cpu import CpuBackend
            from .solver import check_threads

            self._backend = CpuBackend(self.problem, threads=check_threads(self.threads))
            self._rec = self.case.record(self.seed, 0, 0)
        return self._backend

    def _check(self, i, X, run):
        if not is_int(i) or not 0 <= i < self.steps:
            raise ConfigError(f"invalid step i={plain(i)!r}: must be an integer in 0..{self.steps - 1}"
                              f" (t_i = i dt, dt = {self.dt:g}; y_N = g is the terminal condition)")
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

        ``run``: one kept run's estimators; None: the mean over the kept runs."""
        pts = self._check(i, X, run)
        if self.problem.adapted_d:  # adapted strata: the estimators live in xi = (x - m(t_i)) / s(t_i)
            pts = np.ascontiguousarray(xi_of(self.problem, int(i) * (self.case.maturity / self.case.steps), pts))
        backend = self._engine()
        runs = self.kept_runs if run is None else [run]
        y = np.zeros(pts.shape[0])
        z = np.zeros(pts.shape)
        for r in runs:
            backend.attach(self.case, self.coefficients[self.kept_runs.index(r)])
            yr, zr = backend.evaluate(int(i), self._rec, pts)
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
        ``keep="last"`` and another x0 than the problem's, only the last run is there: se is None."""
        if x0 is None and self.keep == "last":
            return Estimate(self.result["u0"], self.result["u0_se"])
        pt = self.x0_point(x0)
        vals = np.array([self.evaluate(0, pt, run=r)[0][0] for r in self.kept_runs])
        se = float(np.std(vals, ddof=1) / math.sqrt(vals.size)) if vals.size > 1 else None
        return Estimate(float(np.mean(vals)), se)

    def __repr__(self):
        c = self.case
        u = self.u0()
        se = "" if u.se is None else f" ± {u.se:.2g}"
        err = "" if self.u0_error is None else f" (estimated error {self.u0_error:.2g})"
        strata = " adapted strata" if self.problem.adapted_d else ""
        return (f"<srmdp.Solution {self.problem.name} d={c.d} dt={c.dt:g} {c.basis} #C={c.cells} M={c.paths}{strata}"
                f" runs={self.runs} (kept {len(self.kept_runs)}): u(0, x0) ≈ {u.value:.6g}{se}{err}>")

    # --- files
    def metadata(self) -> dict:
        coef = self.coefficients
        return {
            "format": FORMAT,
            "format_version": SOLUTION_FORMAT_VERSION,
            "problem": {"name": self.problem.name, "spec": saved_spec(self.problem), "path": str(self.problem.path),
                        "source_hash": self.problem.source_hash},
            "case": self.case.as_dict(),
            "seed": self.seed,
            "runs": self.runs,
            "keep": self.keep,
            "kept_runs": self.kept_runs,
            "rules": self.rules,
            "coef": {"shape": list(coef.shape), "dtype": coef.dtype.name, "sha256": _sha256(coef)},
            "result": self.result,
        }

    def save(self, path):
        """Write the solution to ``path`` (.npz: coefficients + JSON metadata, checksummed), atomically."""
        meta = seal(self.metadata())
        text = json.dumps(meta, allow_nan=False)
        return write_atomic(path, lambda fh: np.savez(fh, coef=self.coefficients, meta=np.array(text)), binary=True)


def _sha256(a: np.ndarray) -> str:
    h = hashlib.sha256()
    flat = np.ascontiguousarray(a).reshape(-1)
    step = 1 << 22
    for lo in range(0, flat.size, step):
        h.update(flat[lo:lo + step].tobytes())
    return h.hexdigest()


def load(path, threads=None) -> Solution:
    """Read a solution written by :meth:`Solution.save`; refuses a damaged file, another format version or a
    problem file changed since, in one line (ConfigError), and rebuilds the kernels from the problem spec."""
    where = f"invalid solution file {path}"
    if not Path(path).is_file():
        raise ConfigError(f"{where}: no such file")
    try:
        with np.load(path, allow_pickle=False) as f:
            if set(f.files) != {"coef", "meta"}:
                raise ConfigError(f"{where}: not an srmdp solution (arrays {', '.join(sorted(f.files))})")
            meta = json.loads(str(f["meta"][()]))
            coef = f["coef"]
    except ConfigError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        reason = " ".join(str(exc).split())[:120]
        raise ConfigError(f"{where}: damaged or not an srmdp solution ({type(exc).__name__}: {reason})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ConfigError(f"{where}: not an srmdp solution (no '{FORMAT}' metadata)")
    if meta.get("format_version") != SOLUTION_FORMAT_VERSION:
        raise ConfigError(f"{where}: format version {meta.get('format_version')!r}, this srmdp reads version"
                          f" {SOLUTION_FORMAT_VERSION}; solve again with this version")
    if "checksum" not in meta or not checksum_ok(meta):
        raise ConfigError(f"{where}: damaged (the metadata checksum does not match its content)")
    info = meta["coef"]
    if list(coef.shape) != info["shape"] or coef.dtype.name != info["dtype"] or _sha256(coef) != info["sha256"]:
        raise ConfigError(f"{where}: damaged (the coefficients do not match their recorded sha256, shape or type)")
    spec, saved = meta["problem"]["spec"], meta["problem"]["source_hash"]
    try:
        fresh = load_problem.__wrapped__(spec)  # the file as it is now (load_problem caches per process)
    except ConfigError as exc:
        raise ConfigError(f"{where}: its problem cannot be loaded: {' '.join(str(exc).split())}") from None
    if fresh.source_hash != saved:
        raise ConfigError(f"{where}: the problem {spec} changed since the solution was saved (source hash"
                          f" {fresh.source_hash}, saved {saved}); solve again")
    problem = load_problem(spec)
    if problem.source_hash != saved:  # this process loaded an older version of the file before
        problem = fresh
    case = Case.from_dict(dict(meta["case"], problem=spec))
    return Solution(case, coef, meta["result"], seed=meta["seed"], runs=meta["runs"], keep=meta["keep"],
                    rules=meta.get("rules"), threads=threads, problem=problem)
