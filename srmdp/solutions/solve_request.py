"""A validated solve request (:class:`SolveRequest`): the problem, the options (the one record
:class:`srmdp.options.SolveOptions`) and how dt, #C and M follow N; and the memory check of a case before it runs
(:func:`check_memory`).  :func:`srmdp.solve` makes one and runs its levels.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, replace

import numpy as np

from ..case import memory
from ..case.cases import Z_CV_DEFAULT_FOR_USER_PROBLEMS
from ..exceptions import ConfigError, ProblemFunctionError
from ..numerics.bases import BASES
from ..numerics.rng import STRATUM_BITS
from ..numerics.rules import DEFAULT_STEPS, paper_rule
from ..options import SolveOptions, make_case, on
from ..problems import DEFAULT as DEFAULT_PROBLEM
from ..problems import REGISTRY, Problem, load_problem
from ..problems.adapt import adapted_spec, split_spec
from ..problems.checks import check_problem
from ..problems.curvature import default as curvature_default
from .solution import Solution
from .solution_file import saved_spec
from .solve_result import SolveResult

# strata for problems other than the paper's when the user does not choose (the paper's problem keeps the
# paper's box): decided by measurement, bench/own_pde/NOTES.md ("Defaults decided by measurement").
STRATA_DEFAULT_FOR_USER_PROBLEMS = "adapted"
# The case options a request takes from its record as given; d, dt, basis, #C and M are the level's (case_at).
_GIVEN_BY_LEVEL_OR_OPTS = ("outside", "trunc_y", "trunc_z", "precision", "arithmetic", "half_width", "martingale_cv")


def problem_spec(problem) -> str:
    """A spec string for ``problem``: a registered name, a path (``str`` or ``Path``), or a loaded Problem."""
    if isinstance(problem, Problem):
        return saved_spec(problem)
    if isinstance(problem, os.PathLike):
        return os.fspath(problem)
    if isinstance(problem, str):
        return problem
    raise ConfigError(
        f"invalid problem={problem!r}: a registered name ({', '.join(REGISTRY)}), a path to a"
        " problem file, or a loaded srmdp.problems.Problem"
    )


@dataclass
class SolveRequest:
    """A validated solve request: the problem, the options, and how (dt, #C, M) follow N (the rules).

    ``case_at(N)`` is the case with N time steps: the given dt's N0 with the given #C, M; other N with #C
    and M by the paper's rules at N, or -- where #C or M were given -- scaled from them by the rules'
    exponents (#C ~ N^{1/4} for LP1/LP2d, N^{1/2} for LP0; M ~ N^2).  ``below(case)`` is the level of
    the error estimate, strictly coarser in N, #C and M."""

    spec: str
    problem: Problem
    opts: SolveOptions
    steps: int
    case_options: dict
    progress: object
    remedies: tuple = ()

    # the options the orchestration reads
    d = property(lambda self: int(self.opts.d))
    basis = property(lambda self: self.opts.basis)
    cells = property(lambda self: self.opts.cells)
    paths = property(lambda self: self.opts.paths)
    runs = property(lambda self: self.opts.run_count)
    seed = property(lambda self: self.opts.seed)
    device = property(lambda self: self.opts.device)
    threads = property(lambda self: self.opts.threads)
    test_points = property(lambda self: self.opts.test_points)
    keep = property(lambda self: self.opts.keep)
    guard = property(lambda self: self.opts.guard)
    adapted = property(lambda self: bool(self.problem.adapted_d))

    @classmethod
    def make(cls, problem, opts: SolveOptions, progress=None, remedies=()):
        spec = problem_spec(problem)
        prob = load_problem(spec)
        if isinstance(problem, Problem) and prob.source_hash != problem.source_hash:
            raise ConfigError(f"invalid problem: the file {problem.path} changed since it was loaded; load it again")
        if not prob.shipped:  # before anything below calls its functions (the curvature default, the strata's pilot)
            check_problem(prob, opts.d, opts.arithmetic)
        base_name = load_problem(split_spec(spec)[0]).name
        strata = opts.strata
        if strata is None:  # the paper's problem keeps the paper's box; the others take the measured default
            strata = "box" if base_name == DEFAULT_PROBLEM else STRATA_DEFAULT_FOR_USER_PROBLEMS
        if strata == "adapted" and not prob.adapted_d:
            spec = adapted_spec(spec, opts.d)
        z_cv = opts.z_cv
        if z_cv is None:  # the paper's problem keeps the paper's scheme; other problems take the measured default
            z_cv = Z_CV_DEFAULT_FOR_USER_PROBLEMS and base_name != DEFAULT_PROBLEM
        curvature = opts.curvature_correction
        if curvature is None:  # off for the paper's problem; else the problem's, or on where its driver is curved
            curvature = curvature_default(prob, opts.d, base_name == DEFAULT_PROBLEM)
        dt = prob.maturity / DEFAULT_STEPS if opts.dt is None else opts.dt
        case_values = {o.name: getattr(opts, o.name) for o in on("case") if o.name in _GIVEN_BY_LEVEL_OR_OPTS}
        case_values.update(problem=spec, z_cv=z_cv, curvature_correction=curvature)
        case_options = dict(case_values)  # the level's d, dt, #C, M join them (case_at)
        # validate dt and the options first (placeholders where the rules will decide)
        probe = make_case(
            dict(
                case_values,
                d=opts.d,
                dt=dt,
                basis=opts.basis,
                cells=1 if opts.cells is None else opts.cells,
                paths=2**20 if opts.paths is None else opts.paths,
            )
        )
        req = cls(spec, load_problem(spec), opts, probe.steps, case_options, progress, tuple(remedies))
        from ..runs.run import validate_run

        validate_run(probe, req.runs, 0, opts.test_points, opts.seed, opts.device, opts.threads)
        return req

    def with_remedy(self, name, **changes):
        """The same request with adapted strata (``name`` "adapted strata") or truncation bounds (trunc_y, trunc_z)."""
        opts = replace(self.opts, **changes)
        problem = split_spec(self.spec)[0]
        return SolveRequest.make(problem, opts, self.progress, self.remedies + (name,))

    def case_at(self, steps: int):
        """(the case with ``steps`` time steps, the rules used: {parameter: how})."""
        rule = paper_rule(self.basis, self.d, steps)
        rules = {}
        r = steps / self.steps
        if self.opts.dt is None or steps != self.steps:
            rules["dt"] = f"T/{steps} = {self.problem.maturity / steps:g} (N = {steps})"
        if self.cells is None:
            cells = rule.cells
            rules["cells"] = f"{rule.cells_formula} (paper's rule, {rule.scope}) = {cells}"
        elif steps == self.steps:
            cells = self.cells
        else:
            a = 0.5 if BASES[self.basis].rules == "LP0" else 0.25  # the paper: #C ~ N^(1/2) (LP0), N^(1/4) (LP1)
            cells = max(1, round(self.cells * r**a))
            rules["cells"] = f"the given {self.cells} x (N/{self.steps})^{a} = {cells}"
        if self.paths is None:
            paths = rule.paths
            rules["paths"] = f"{rule.paths_formula} (paper's rule, {rule.scope}) = {paths}"
        elif steps == self.steps:
            paths = self.paths
        else:
            paths = max(BASES[self.basis].size(self.d), round(self.paths * r * r))
            rules["paths"] = f"the given {self.paths} x (N/{self.steps})^2 = {paths}"
        dt = self.problem.maturity / steps
        if self.cells is None and cells >= 2 and self.d * math.log2(cells) >= STRATUM_BITS:
            raise ConfigError(beyond_reach(self.d, cells))
        return make_case(dict(self.case_options, d=self.d, dt=dt, basis=self.basis, cells=cells, paths=paths)), rules

    def below(self, case):
        """(the error estimate's level for ``case``, rho, None) or (None, None, why not): N/2 steps, #C and M by
        the rules (or scaled) at N/2, each forced strictly below ``case``'s, #C of the same parity
        (:mod:`srmdp.solutions.error_estimate`)."""
        from .error_estimate import coarser

        if self.runs < 2:
            return (
                None,
                None,
                ("runs=1: an error estimate needs the standard errors of both levels (runs >= 2; the default is 2)"),
            )
        n = case.steps // 2
        if n < 1:
            return None, None, "N = 1: there is no coarser time grid"
        low = self.case_at(n)[0]
        cells, paths = min(low.cells, case.cells - 1), min(low.paths, case.paths - 1)
        cells -= (case.cells - cells) % 2  # the same parity: x0 keeps its place in its cell (error_estimate)
        if cells < 1:
            return (
                None,
                None,
                (
                    f"#C = {case.cells} cannot be coarsened keeping x0's place in its cell (the cells'"
                    " bias would cancel, or be of another size at an even #C)"
                ),
            )
        if paths < BASES[self.basis].size(self.d):
            return None, None, f"M = {case.paths} cannot be coarsened below the basis size"
        low = replace(low, cells=cells, paths=paths)
        rho, why = coarser(case, low)
        return (low, rho, None) if rho else (None, None, why)

    def check(self, case, keep=None):
        """Memory first (one-line ConfigError)."""
        return check_memory(case, self.runs, keep or self.keep, self.test_points, self.device)

    def run(self, case, rules, keep=None, z0=False, runs=None, run_start=0):
        """Solve ``case`` (every run checked by the divergence guard when ``guard``): a :class:`Solution`.
        ``runs`` runs (default the request's) from run index ``run_start`` (the runs' streams: a later call with
        ``run_start`` = the runs done gives runs independent of them, :mod:`srmdp.refine.pooled_runs` pools them).
        A :class:`~srmdp.kernels.divergence.DivergenceError` carries ``runs_done`` (runs computed, the failing one
        included) and ``seconds_per_run`` for the refinement's time model.  ``z0``: also z(0, x0) of every run
        by its first step (:mod:`srmdp.solutions.first_step`), in ``result["z0_runs"]`` (kept or not)."""
        from ..kernels.divergence import DivergenceError, data_scale, divergence, growth, remedies
        from ..runs.run import NumericalError, run_case

        keep = keep or self.keep
        runs = self.runs if runs is None else runs
        store = {}
        kept = list(range(runs)) if keep == "all" else [runs - 1]
        scale = data_scale(case, self.problem) if self.guard else 0.0
        done = [0]
        stamps = []  # the end of each run: their differences are runs' seconds without the compilation
        z0_runs = []

        def keep_coefficients(r, backend):
            done[0] = r + 1
            stamps.append(time.perf_counter())
            if self.guard:
                why = divergence(growth(backend), case, scale)
                if why:
                    raise DivergenceError(f"case {case.label}, run {r}: {why}")
            if z0:
                z0_runs.append(self.first_step_z0(case, backend.coefficients(), r))
            if r not in kept:
                return
            c = backend.coefficients()
            if "coef" not in store:
                store["coef"] = np.empty((len(kept),) + c.shape, c.dtype)
            store["coef"][kept.index(r)] = c

        try:
            result = run_case(
                case,
                runs=runs,
                run_start=run_start,
                test_points=self.test_points,
                seed=self.seed,
                device=self.device,
                threads=self.threads,
                progress=self.progress,
                on_run=keep_coefficients,
            )
        except (DivergenceError, ProblemFunctionError) as exc:
            exc.runs_done = done[0]
            exc.seconds_per_run = min(np.diff(stamps)) if len(stamps) > 1 else None
            raise
        except NumericalError as exc:
            err = DivergenceError(f"{exc}; {remedies(case)}")
            err.runs_done = done[0] + 1
            err.seconds_per_run = min(np.diff(stamps)) if len(stamps) > 1 else None
            raise err from None
        solved = SolveResult(
            run=result,
            data_scale=scale,
            z0_runs=np.array(z0_runs).tolist() if z0 else None,
            remedies=list(self.remedies) or None,
        )
        return Solution(
            case, store["coef"], solved, seed=self.seed, runs=runs, keep=keep, rules=rules, threads=self.threads
        )

    def first_step_z0(self, case, coef, r):
        """z(0, x0) of run r from its coefficients (N x K x (1+q) x nb), by the first step
        (:mod:`srmdp.solutions.first_step`)."""
        from .first_step import first_step_z0

        one = Solution(
            case, np.asarray(coef)[None], {}, seed=self.seed, runs=1, problem=self.problem, threads=self.threads
        )
        return first_step_z0(one, streams=[r])[2][0]


def check_memory(case, runs, keep, test_points=1000, device="cpu", available=None):
    """Refuse (one-line ConfigError) a solve whose kept coefficients and solver work space exceed host memory
    (on the GPU: the result and the divergence guard's N values per run cross to the host)."""
    kept = runs if keep == "all" else 1
    coef = memory.coefficient_bytes(case)
    solver = memory_need(case, runs, keep, test_points, device) - kept * coef
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
            f" {solver / memory.GIB:.3g} GiB) but only {have / memory.GIB:.2f} GiB is available{hint}"
        )
    return need


def memory_need(case, runs, keep, test_points=1000, device="cpu") -> int:
    """Host bytes of a solve's runs of ``case`` (:func:`check_memory`'s need): kept coefficients and the solver's."""
    from ..kernels.backends import backend_spec

    kept = runs if keep == "all" else 1
    return kept * memory.coefficient_bytes(case) + backend_spec(device).host_bytes(case, test_points, runs)


def beyond_reach(d, cells) -> str:
    """The one line for a dimension whose stratification by the paper's rule (``cells`` per axis, K = cells^d)
    exceeds the random streams' stratum field: what the method can and cannot do there."""

    def reach(c):  # the largest d with c^d < 2^STRATUM_BITS
        return next(k for k in range(STRATUM_BITS, 0, -1) if c**k < 2**STRATUM_BITS)

    return (
        f"d = {d} is beyond this method's reach: the paper's rule gives #C = {cells} per axis, K = {cells}^{d}"
        f" strata, over the random streams' stratum field (K < 2^{STRATUM_BITS}: #C = 2 stops at d = {reach(2)},"
        f" #C = 3, the least whose level below estimates the error, at d = {reach(3)}); --cells 1 runs one"
        " stratum (the paths' average, whose bias cannot be estimated: no error estimate)"
    )
