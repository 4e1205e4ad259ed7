"""The paper's three error indicators (eq. mse) and their Monte-Carlo standard errors.

Per run r and time step i the solver records e_Y[r, i] = mean_p |y_i(R_{i,p}) - y^M_i(R_{i,p})|^2
and e_Z[r, i] (Euclidean norm) over P test points R ~ nu drawn independently of the simulations.

* pooled (the ``mse_*`` fields): ln of the mean over all runs x test points, then max/mean over i:
  MSE_Y,max = ln max_i ebar_Y[i], MSE_Y,av = ln mean_i ebar_Y[i], MSE_Z,av = ln mean_i ebar_Z[i];
  standard errors by the delta method, se(ln X) = se(X) / X, with the runs as independent units
  (for the max: at the maximising i, its selection ignored).
* literal (``literal_*``): the paper's per-run formula with its P test points, ln(max_i e[r, i])
  etc., averaged over runs; its standard error is the runs' standard deviation / sqrt(R).
The expectation of the pooled value does not depend on how R x P is split; its variance does, and so
does the bias of the max and of the ln: the paper's layer estimates both for the paper's splits
(:mod:`srmdp.paper.models.splits`) from the per-run second moments e2[r, i] = mean_p |error|^4 that a result
records (``per_run``).
"""

import math

import numpy as np

INDICATORS = ("mse_y_max", "mse_y_av", "mse_z_av")  # the names of the three indicators in result files


def _se(values):
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return math.nan
    with np.errstate(invalid="ignore"):  # ln 0 = -inf in a literal indicator: its se is NaN, recorded as null
        return float(values.std(ddof=1) / math.sqrt(values.size))


def _ln(v) -> float:
    """ln v, -inf at an error of exactly 0 (a z that the scheme computes exactly, z = 0 say), which the summary
    records as null."""
    v = float(v)
    return math.log(v) if v > 0 else -math.inf if v == 0 else math.nan


def _ratio(a, b) -> float:
    """a / b, NaN where b is 0 (the delta method's se(ln X) = se(X) / X at X = 0), recorded as null."""
    b = float(b)
    return float(a) / b if b != 0 else math.nan


def indicators(ey, ez):
    """Summary dict from per-run arrays ey, ez of shape (R, N)."""
    ey = np.atleast_2d(np.asarray(ey, dtype=float))
    ez = np.atleast_2d(np.asarray(ez, dtype=float))
    ybar = ey.mean(axis=0)
    zbar = ez.mean(axis=0)
    imax = int(np.argmax(ybar))
    y_av_run = ey.mean(axis=1)
    z_av_run = ez.mean(axis=1)
    with np.errstate(divide="ignore"):
        lit_y_max = np.log(ey.max(axis=1))
        lit_y_av = np.log(y_av_run)
        lit_z_av = np.log(z_av_run)
    out = {
        "mse_y_max": _ln(ybar[imax]),
        "mse_y_av": _ln(ybar.mean()),
        "mse_z_av": _ln(zbar.mean()),
        "mse_y_max_se": _ratio(_se(ey[:, imax]), ybar[imax]),
        "mse_y_av_se": _ratio(_se(y_av_run), ybar.mean()),
        "mse_z_av_se": _ratio(_se(z_av_run), zbar.mean()),
        "mse_y_max_step": imax,
        "literal_y_max": float(lit_y_max.mean()),
        "literal_y_av": float(lit_y_av.mean()),
        "literal_z_av": float(lit_z_av.mean()),
        "literal_y_max_se": _se(lit_y_max),
        "literal_y_av_se": _se(lit_y_av),
        "literal_z_av_se": _se(lit_z_av),
        "per_step_y": ybar.tolist(),
        "per_step_z": zbar.tolist(),
    }
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}
