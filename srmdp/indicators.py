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
does the bias of the max and of the ln: :func:`split` estimates both for another split (the paper's
10^3 runs with one test point each, or with 10^3 each) from the per-run second moments e2[r, i] =
mean_p |error|^4 (issue 10 item 5).
"""

import math

import numpy as np

INDICATORS = ("mse_y_max", "mse_y_av", "mse_z_av")  # the names of the three indicators in result files


def _se(values):
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return math.nan
    return float(values.std(ddof=1) / math.sqrt(values.size))


# the splits of the paper's evaluations that its text allows (section 5): 10^3 runs, each with one test
# point per time step (R_{i,m}, m = run), or each with 10^3 test points
PAPER_SPLITS = ((1000, 1), (1000, 1000))


def indicators(ey, ez, ey2=None, ez2=None, test_points=None):
    """Summary dict from per-run arrays ey, ez of shape (R, N).

    With the second moments ey2, ez2 (same shape) and the number of test points P per run, also the
    ``splits``: per split in :data:`PAPER_SPLITS`, :func:`split`'s shift and spread of each indicator."""
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
        "mse_y_max": math.log(ybar[imax]),
        "mse_y_av": math.log(ybar.mean()),
        "mse_z_av": math.log(zbar.mean()),
        "mse_y_max_se": _se(ey[:, imax]) / ybar[imax],
        "mse_y_av_se": _se(y_av_run) / ybar.mean(),
        "mse_z_av_se": _se(z_av_run) / zbar.mean(),
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
    if ey2 is not None and test_points is not None and test_points > 1 and ey.shape[0] > 1:
        out["splits"] = {f"{r}x{p}": split(ey, ez, ey2, ez2, test_points, r, p) for r, p in PAPER_SPLITS}
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}


def _split_cov(e, e2, points_ours, points):
    """Covariance of the per-step pooled means S_i of one run with ``points`` test points (see split)."""
    within = np.maximum(np.asarray(e2) - e * e, 0.0).mean(axis=0) * points_ours / (points_ours - 1)  # W_i
    cov = np.cov(e, rowvar=False).reshape(e.shape[1], e.shape[1])  # C_ij = Cov_r(e[r,i], e[r,j])
    between = np.maximum(np.diag(cov) - within / points_ours, 0.0)  # V_i = Var_r(m_i)
    cov[np.diag_indices_from(cov)] = between + within / points
    return cov


def split(ey, ez, ey2, ez2, points_ours, runs, points, draws=20000, seed=0) -> dict:
    """Shift and spread of the three pooled indicators had the evaluations been split as runs x points.

    Per time step i, the pooled mean S_i of the squared errors over ``runs`` x ``points`` evaluations has
    mean mu_i, variance (V_i + W_i / points) / runs and covariance C_ij / runs (i != j), with
    W_i = mean_r (e2[r,i] - e[r,i]^2) P/(P-1) the variance between test points within a run,
    V_i = Var_r(e[r,i]) - W_i / P that of the runs' conditional means, C_ij = Cov_r(e[r,i], e[r,j]),
    all estimated from our R runs x P points (P = ``points_ours``).  With S ~ N(mu, .) (central limit;
    mu = our per-step means) the same ``draws`` give E and sd of ln max_i S_i, ln mean_i S_i under that
    split and under ours; ``*_shift`` = E(that split) - E(ours) (the bias of the max and the ln differ,
    not mu), ``*_sd`` = the spread of a value obtained with that split (its own Monte-Carlo error).
    """
    ey, ez = np.atleast_2d(ey), np.atleast_2d(ez)
    r_ours = ey.shape[0]
    rng = np.random.default_rng(seed)
    out = {"runs": runs, "points": points}
    for name, e, e2, stat in (("y_max", ey, ey2, np.max), ("y_av", ey, ey2, np.mean), ("z_av", ez, ez2, np.mean)):
        mu = e.mean(axis=0)
        z = rng.standard_normal((draws, mu.size))  # the same normals for both splits
        vals = []
        for r, p in ((runs, points), (r_ours, points_ours)):
            cov = _split_cov(e, e2, points_ours, p) / r
            w, v = np.linalg.eigh(cov)
            s = np.maximum(mu + z @ (v * np.sqrt(np.maximum(w, 0.0))).T, 1e-3 * mu)
            vals.append(np.log(stat(s, axis=1)))
        out[f"{name}_shift"] = float(vals[0].mean() - vals[1].mean())
        out[f"{name}_sd"] = float(vals[0].std())
    return out
