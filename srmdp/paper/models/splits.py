"""The paper's splits of its evaluations (section 5), for the residual table: how the pooled indicators would
shift and spread had our R runs x P test points been the paper's 10^3 runs x 1 point (or x 10^3 points).

Computed from the per-run means and second moments a result records (``per_run``: ey, ez, ey2, ez2), only where
the paper's tables need them (:func:`paper_splits`); summaries written before this module existed carry them as
``splits``.
"""

import numpy as np

PAPER_RUNS = 1000  # "the average mean squared error over 10^3 independent runs" (section 5.1)
# the splits of the paper's evaluations that its text allows (section 5): 10^3 runs, each with one test
# point per time step (R_{i,m}, m = run), or each with 10^3 test points
PAPER_SPLITS = ((PAPER_RUNS, 1), (PAPER_RUNS, 1000))


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


def _moments(res: dict):
    """(ey, ez, ey2, ez2, our test points) of a result, or None without the second moments or with fewer than 2
    runs or test points."""
    pr, points = res.get("per_run") or {}, res.get("test_points")
    if pr.get("ey2") is None or pr.get("ez2") is None or points is None or points <= 1 or len(pr["ey"]) <= 1:
        return None
    return (*(np.atleast_2d(np.asarray(pr[k], dtype=float)) for k in ("ey", "ez", "ey2", "ez2")), points)


def paper_splits(res: dict) -> dict:
    """{"1000x1": split(...), "1000x1000": ...} of a result or summary; {} without the second moments or with
    fewer than 2 runs or test points (the stored ``splits`` of older summaries first, the same values)."""
    if res.get("splits"):
        return res["splits"]
    m = _moments(res)
    return {} if m is None else {f"{r}x{p}": split(*m, r, p) for r, p in PAPER_SPLITS}


def paper_sd(res: dict, key: str, points: int) -> float | None:
    """The standard deviation of indicator ``key`` (``mse_y_max`` ...) had the paper's 10^3 runs had ``points`` test
    points each (:func:`split`), or None without per-run moments; kept per result in its private ``_paper_sd``."""
    cache = res.setdefault("_paper_sd", {})
    if points not in cache:
        m = _moments(res)
        cache[points] = None if m is None else split(*m, PAPER_RUNS, points)
    sp = cache[points]
    return None if sp is None else float(sp[key[len("mse_") :] + "_sd"])


def jackknife_ln_max(ey) -> tuple[float, float]:
    """MSE_Y,max = ln max_i mean_r ey[r, i] with its small-R bias removed by the jackknife over runs: (R theta -
    (R - 1) mean of the leave-one-run-out thetas, the jackknife standard error).  The max of noisy means is biased
    upward (+0.22 at R = 2, +0.10 at 8 on T.7 dt = 0.1); the jackknife removes its 1/R term."""
    e = np.atleast_2d(np.asarray(ey, dtype=float))
    r = e.shape[0]
    full = float(np.log(e.mean(axis=0).max()))
    if r < 2:
        return full, float("nan")
    loo = np.log(((e.sum(axis=0) - e) / (r - 1)).max(axis=1))
    corrected = r * full - (r - 1) * float(loo.mean())
    return corrected, float(np.sqrt((r - 1) / r * ((loo - loo.mean()) ** 2).sum()))
