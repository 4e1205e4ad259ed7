"""The CPU cost model: how long a run of a case takes, before it runs (:func:`run_seconds`); a solve says its
prediction before compute and refuses a level predicted over its budget (:mod:`srmdp.solutions.prediction`).

The path steps at a per-step cost a + b d, the regression's nb^2 accumulations per path and time step, and a per-step
overhead; fitted (bench/cpu/cost_fit.py) to the committed one-thread runs of the paper's rows on the 2-core
development machine, which it predicts within 30 % (tests/test_cost_model.py); n threads divide the path work by n.
"""

from __future__ import annotations

from ..numerics.bases import BASES

# Calibration of the cost model (one thread, float64 arithmetic) on the 2-core development machine
# (CALIBRATION_HOST): the per-run constants are bench/cpu/cost_fit.py's least-squares fit to the committed runs
# (bench/NOTES.md, "CPU cost model"); start-up and compilation are once per job.
CALIBRATION_HOST = "AMD EPYC"  # the hardware model its runs record (provenance.hardware.model)
COMPILE_SECONDS = 12.0  # Numba JIT compilation, once per job (process)
STARTUP_SECONDS = 3.0  # interpreter + imports
NS_PER_PATH_STEP = (7.02, 5.46)  # a + b*d ns per path step, whatever the basis
NS_PER_REGRESSION_TERM = 1.88  # per nb^2, path and regression (K M N of them a run; bases with nb > 1)
STEP_SECONDS = 2.7e-5  # per time step of a run: kernel launches, the per-step set-up
ERROR_SECONDS_PER_POINT_STEP = 1.9e-7  # the test-point errors after a run, per point and time step


def solve_seconds(case, threads: int = 1) -> float:
    """Seconds of one CPU run's solve (the backward loop, ``seconds_per_run`` of a result) of ``case`` on
    ``threads`` threads of the calibration host."""
    a, b = NS_PER_PATH_STEP
    nb = BASES[case.basis].size(case.d)
    ns = case.path_steps * (a + b * case.d)
    if nb > 1:
        ns += case.strata * case.paths * case.steps * nb**2 * NS_PER_REGRESSION_TERM
    return ns * 1e-9 / max(1, threads) + case.steps * STEP_SECONDS


def run_seconds(case, threads: int = 1, test_points: int = 1000) -> float:
    """Seconds of one CPU run: its solve (:func:`solve_seconds`) and its test-point errors."""
    return solve_seconds(case, threads) + case.steps * test_points * ERROR_SECONDS_PER_POINT_STEP


# The GPU: a run's CPU one-thread time over this factor, plus a launch cost per time step (the reproduction's job
# estimate, srmdp.paper.models.cost.estimate_seconds; its campaign planner has the measured models).
GPU_SPEEDUP_OVER_ONE_CPU_THREAD = 200.0
GPU_STEP_SECONDS = 0.02


# The calibration's runs are the paper's problem without the Z control variate or the curvature correction; a user's
# problem takes both by default, and its functions are its own: measured 2.6x the paper's problem's seconds per run
# on the same case (LP1, d = 2, #C = 8, M = 2000, N = 5, one thread: quadratic_z 0.251 s, gobet2016 0.0958 s, on the
# 2-core development machine under its usual load).  The solve's prediction takes it where either is on.
SCHEME_EXTRAS_FACTOR = 2.6


def with_scheme_extras(case, seconds: float) -> float:
    """``seconds`` of a run of the paper's scheme, times :data:`SCHEME_EXTRAS_FACTOR` where the Z control variate
    or the curvature correction is on."""
    extras = getattr(case, "z_cv", False) or getattr(case, "curvature_correction", False)
    return seconds * (SCHEME_EXTRAS_FACTOR if extras else 1.0)
