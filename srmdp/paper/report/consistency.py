"""The consistency of the paper's numbers with ours taken together: the chi^2 of the Deltas of one indicator over
the rows, carrying the measured correlation of the per-run errors between rows that share random streams
(:func:`correlated_chi2`), per stream group (:func:`consistency`).
"""

from __future__ import annotations

import math

from .latex import INDICATOR_TEX
from .verdict import per_stream_group

MIN_SHARED_RUNS = 30  # a correlation between two rows' per-run errors is measured on at least this many shared runs


def per_run_values(res, key):
    """The per-run values whose mean over runs an indicator is a smooth function of (the delta method): per run, the
    mean squared Y error at the time step where the mean over runs is largest (MSE_Y,max), or its mean over the
    steps (MSE_Y,av; MSE_Z,av with the Z errors); None without per-run errors."""
    import numpy as np

    pr = (res or {}).get("per_run") or {}
    e = pr.get("ez" if key == "mse_z_av" else "ey")
    if e is None:
        return None
    e = np.atleast_2d(np.asarray(e, dtype=float))
    return e[:, int(np.argmax(e.mean(axis=0)))] if key == "mse_y_max" else e.mean(axis=1)


def run_correlation(a, b, key):
    """(the correlation of two results' per-run values over the runs they share, the number shared): (0, 0) where
    their random streams are disjoint (another seed or test points, no run index in common); (None, n) where they
    share n < MIN_SHARED_RUNS runs (not measurable)."""
    import numpy as np

    from ..inputs.results import run_key

    (sa, pa, ra), (sb, pb, rb) = run_key(a), run_key(b)
    shared = sorted(set(ra) & set(rb)) if (sa, pa) == (sb, pb) else []
    if not shared:
        return 0.0, 0
    if len(shared) < MIN_SHARED_RUNS:
        return None, len(shared)
    va, vb = per_run_values(a, key), per_run_values(b, key)
    if va is None or vb is None:
        return None, len(shared)
    ia, ib = {r: i for i, r in enumerate(ra)}, {r: i for i, r in enumerate(rb)}
    xa, xb = va[[ia[r] for r in shared]], vb[[ib[r] for r in shared]]
    if xa.std() == 0 or xb.std() == 0:
        return 0.0, len(shared)
    return float(np.corrcoef(xa, xb)[0, 1]), len(shared)


def correlated_chi2(cells, key) -> dict:
    """chi^2 of the judged numbers ``cells`` (one per stream group) carrying the measured correlation of their
    Deltas.  Each Delta_i / spread_i is made a normal score z_i (Student's t on R_i - 1 degrees of freedom); two rows
    whose runs share n_ij runs have Cov(z_i, z_j) = rho_ij se_i se_j n_ij / sqrt(R_i R_j) / (spread_i spread_j),
    rho_ij the correlation of their per-run values over the shared runs (:func:`run_correlation`; the paper's own
    noise taken as independent between rows), and chi^2 = z' C^+ z on rank(C) degrees of freedom.  A row whose
    correlation with a row already kept cannot be measured (fewer than MIN_SHARED_RUNS shared runs) is left out, the
    rows with the most runs kept first.  Also the chi^2 without the two rows of largest |z| (how much rests on them)."""
    import numpy as np
    from scipy import stats

    kept, left_out, rho = [], [], {}
    for c in sorted(cells, key=lambda c: -c.runs):
        pairs = {id(k): run_correlation(c.res, k.res, key) for k in kept}
        if any(r is None for r, _ in pairs.values()):
            left_out.append(c)
            continue
        for k in kept:
            rho[(id(k), id(c))] = rho[(id(c), id(k))] = pairs[id(k)]
        kept.append(c)
    z = np.array(
        [
            max(min(stats.norm.ppf(stats.t.cdf(c.judgement.diff / c.judgement.spread, c.runs - 1)), 40.0), -40.0)
            for c in kept
        ]
    )
    cov = np.eye(len(kept))
    for i, a in enumerate(kept):
        for j, b in enumerate(kept):
            if i != j:
                r, n = rho[(id(a), id(b))]
                cov[i, j] = r * a.se * b.se * n / math.sqrt(a.runs * b.runs) / (a.judgement.spread * b.judgement.spread)

    def chi2(idx):  # z' C^+ z on rank(C) degrees of freedom: a row measured twice counts once
        sub = cov[np.ix_(idx, idx)]
        return float(z[idx] @ np.linalg.pinv(sub, hermitian=True) @ z[idx]), int(np.linalg.matrix_rank(sub))

    every = list(range(len(kept)))
    value, df = chi2(every)
    out = {"n": len(kept), "df": df, "chi2": value, "left_out": len(left_out)}
    out["p"] = float(stats.chi2.sf(value, df))
    shared = [rho[(id(a), id(b))][0] for i, a in enumerate(kept) for b in kept[i + 1 :] if rho[(id(a), id(b))][1]]
    out["rho_max"] = max(shared, key=abs) if shared else None
    if len(kept) > 3:
        rest = sorted(every, key=lambda i: -abs(z[i]))[2:]
        value, df = chi2(sorted(rest))
        out["without_two"] = {"chi2": value, "n": len(rest), "df": df, "p": float(stats.chi2.sf(value, df))}
        out["largest_two"] = [kept[i] for i in sorted(every, key=lambda i: -abs(z[i]))[:2]]
    return out


def consistency(numbers) -> dict:
    """Are the paper's out-of-sample numbers consistent with ours within both sides' noise?  Per indicator, one
    number per stream group (:func:`stream_group`; the most runs), and :func:`correlated_chi2` of their Deltas.  The
    three indicators of a row share runs: the p-value is the smallest of the three times 3 (Bonferroni), capped
    at 1."""

    def judged(n):
        j = n["best"].judgement
        return not n["in_sample"] and j.diff is not None and math.isfinite(j.spread) and n["best"].runs >= 2

    best = per_stream_group(numbers, judged)
    out = {"per_indicator": {}, "n": len(best)}
    for k in INDICATOR_TEX:
        cs = [c for (_, ind), c in best.items() if ind == k]
        if cs:
            out["per_indicator"][k] = correlated_chi2(cs, k)
    ps = [v["p"] for v in out["per_indicator"].values()]
    out["p"] = min(1.0, 3 * min(ps)) if ps else None
    return out
