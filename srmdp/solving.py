""":func:`srmdp.solve`: one level and its error estimate (the level below, :mod:`srmdp.solutions.error_estimate`), or a
refinement to ``tol`` (:mod:`srmdp.refine.refine`).  The request it validates is
:class:`srmdp.solutions.solve_request.SolveRequest`;
the object it returns is :class:`srmdp.solutions.solution.Solution`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .case.defaults import DEFAULTS
from .exceptions import Interrupted
from .kernels.backends import backend_spec
from .options import SolveOptions
from .solutions.error_estimate import ErrorEstimate
from .solutions.prediction import budget_of, check_budget, estimate_hint
from .solutions.solution import Solution
from .solutions.solve_request import SolveRequest


def solve(
    problem=DEFAULTS["problem"], *, options: SolveOptions | None = None, progress=None, report=None, **kwargs
) -> Solution:
    """Solve the BSDE / semilinear PDE ``problem`` by SRMDP; returns a :class:`~srmdp.solutions.solution.Solution`.

    ``problem``: a registered name (:data:`srmdp.problems.REGISTRY`), a path ``file.py[:NAME]`` to a
    problem file (the contract of :mod:`srmdp.problems`), or a loaded :class:`~srmdp.problems.Problem`.
    The options (``d`` required; ``dt``, ``basis``, ``cells``, ``paths``, ``outside``, ``trunc_y``,
    ``trunc_z``, ``half_width``, ``strata``, ``precision``, ``arithmetic``, ``device``, ``seed``, ``runs``,
    ``z_cv``, ``martingale_cv``, ``curvature_correction``, ``threads``, ``test_points``, ``keep``, ``error``, ``tol``,
    ``budget_s``, ``guard``) are the fields of :class:`srmdp.options.SolveOptions` (pass them as keywords, or
    ``options=`` a record).
    Defaults: the paper's rules for dt (T/5), #C and M (:mod:`srmdp.numerics.rules`); 2 runs (4 with ``tol``).

    ``error`` (default True): also solve one level below, strictly coarser in N, #C and M, and set
    ``Solution.u0_error`` (:mod:`srmdp.solutions.error_estimate`; None with ``Solution.u0_error_reason`` when it
    cannot be estimated honestly).  ``tol``: refine instead (:mod:`srmdp.refine.refine`).  ``guard``: stop a run
    whose estimators blow up (:mod:`srmdp.kernels.divergence`).  ``report(line)``: a line per refinement level.
    Everything is checked before anything is compiled or computed (one-line ConfigError), the memory included.
    """
    opts = replace(options, **kwargs) if options is not None else SolveOptions(**kwargs)
    req = SolveRequest.make(problem, opts, progress)
    if opts.tol is not None:
        from .refine.refine import refine

        return refine(req, opts.tol, opts.budget_s, report=report)
    case, rules = req.case_at(req.steps)
    req.check(case)
    coarse, why = None, None
    if opts.error:
        coarse, rho, why = req.below(case)
        if coarse is not None:
            req.check(coarse, keep="last")
    # the cost said before compute, and a solve predicted over its budget refused (srmdp.solutions.prediction)
    pred = check_budget(req, case, coarse, say=report)
    # z0 by the first step needs N >= 2 at both levels, and every run's coefficients on the host (on the GPU only
    # the guard's N values cross per run: the level below keeps one run)
    host = backend_spec(req.device).host_coefficients
    want_z0 = coarse is not None and coarse.steps >= 2 and host
    sol = req.run(case, rules, z0=want_z0)
    level = replace(
        sol.result, prediction={"seconds": pred["seconds"], "bytes": pred["bytes"], "budget_s": budget_of(req)}
    )
    if coarse is None:
        est = ErrorEstimate(u0_error=None, reason=why, hint=estimate_hint(req, case, why) or None) if why else None
        return sol.replace(result=replace(level, error_estimate=est))
    from .kernels.divergence import DivergenceError
    from .solutions.error_estimate import total_error

    try:
        low = req.run(coarse, {}, keep="last", z0=want_z0)
    except Interrupted as exc:  # the answer's level is done: it is the partial answer (its error not estimated)
        exc.levels.insert(0, level)
        exc.answer = level
        exc.stage = f"the level below ({coarse.label}, the error estimate) of the answer's level {case.label}"
        raise
    except DivergenceError as exc:  # the answer stands; its error cannot be estimated this way
        est = ErrorEstimate(u0_error=None, coarse_case=coarse.as_dict(), reason=f"the level below diverged: {exc}")
        return sol.replace(result=replace(level, error_estimate=est))
    fine, below = sol.result, low.result
    err, bias = total_error(fine["u0"], fine["u0_se"], below["u0"], below["u0_se"], rho)
    z0 = {}
    if want_z0:
        z0, z0_est = z0_estimate(fine, below, case, coarse)
    else:
        where = f"not estimated on the {req.device.upper()} (Solution.z0() gives z0 from the kept runs)"
        z0_est = {"z0_error": None, "z0_reason": "N = 1 at the level below: no first step" if host else where}
    est = ErrorEstimate(
        u0_error=err,
        bias=bias,
        rho=rho,
        coarse_case=coarse.as_dict(),
        coarse_u0=below["u0"],
        coarse_u0_se=below["u0_se"],
        coarse_seconds=below["seconds_per_run"] * low.runs,
        **z0_est,
    )
    return sol.replace(result=replace(level, error_estimate=est, **z0))


def z0_estimate(fine, coarse_result, case, coarse):
    """({z0: the first step's, mean over the runs; z0_se: its s.e.}, {z0_error per component from the level below
    (:func:`srmdp.solutions.first_step.z0_error`), or None with the reason})."""
    from .solutions.error_estimate import RHO_MIN
    from .solutions.first_step import z0_error, z0_rho

    zf, zc = np.array(fine["z0_runs"]), np.array(coarse_result["z0_runs"])
    sf, sc = (a.std(axis=0, ddof=1) / np.sqrt(len(a)) for a in (zf, zc))
    z0 = {"z0": zf.mean(axis=0).tolist(), "z0_se": sf.tolist()}
    rho = z0_rho(case, coarse)
    if rho < RHO_MIN:
        return z0, {
            "z0_error": None,
            "z0_reason": f"the level below is too close for z (reduction {rho:.3g} < {RHO_MIN:g})",
        }
    return z0, {
        "z0_error": z0_error(zf.mean(axis=0), sf, zc.mean(axis=0), sc, rho).tolist(),
        "z0_rho": rho,
        "coarse_z0": zc.mean(axis=0).tolist(),
    }
