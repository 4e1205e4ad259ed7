"""Seconds per run of a case on a GPU as a function of its shape, fitted to the measured runs in the repository.

A run of a case with K strata, M paths per stratum, N time steps and a basis of nb functions in dimension d
follows K M paths from every t_i to T: K M N (N + 1) / 2 path-steps (PS), plus N regressions of K strata.  The
model of its seconds on the reference device (the (GPU model, arithmetic) with the most measured shapes) is

    t = a N  +  b N K nb^3  +  PS (c_B + e_B d + g_B d^2)          (B = the basis: LP0, LP1)

-- a launch overhead per step, the regressions' per-stratum solves, and a cost per path-step that grows with d
(the Brownian increments, the basis and its nb^2 sums) -- fitted by least squares on the relative error,
coefficients >= 0.  Another (GPU model, arithmetic) is the reference times a factor measured on its own runs,
as a function of (basis, d): the median ratio measured at the nearest d of the same basis, interpolated in
log between two measured d.  A (GPU model, arithmetic) with no run measured has no prediction (None).

The measured runs: the GPU chunks of ``data/gpu`` (campaign chunks and ``srmdp run`` results) and the A/B
files of the GPU sessions (``data/gpu/h200-*/ab_f32.jsonl``, ``ab_f64.jsonl``: this tree's default kernels).
:func:`holdout` predicts each measured shape from a fit without it (leave one shape out) and prints the error.
"""

from __future__ import annotations

import glob
import json
import math
import os
from dataclasses import dataclass, replace

import numpy as np

from ...numerics.bases import BASES

HEAVY_PATH_STEPS = 1e10  # a "heavy" run (the validation's reported subset): >= this many path-steps
MIN_SHAPES = 8  # the reference group needs this many distinct shapes for a fit
AB_FILES = ("ab_f32.jsonl", "ab_f64.jsonl", "ab_heavy.jsonl")  # the default kernels (not the variants)
FEATURES = ("N", "N K nb^3", "PS LP0", "PS d LP0", "PS LP1", "PS d LP1", "PS d^2 LP1")


@dataclass(frozen=True)
class Point:
    """One measured shape on one (GPU model, arithmetic): seconds per run."""

    model: str
    arithmetic: str
    basis: str
    d: int
    K: int
    M: int
    N: int
    seconds: float
    label: str = ""
    source: str = ""

    @property
    def nb(self) -> int:
        return BASES[self.basis].size(self.d)

    @property
    def path_steps(self) -> float:
        return self.K * self.M * self.N * (self.N + 1) / 2

    @property
    def shape(self) -> tuple:
        return (self.basis, self.d, self.K, self.M, self.N)

    @property
    def group(self) -> tuple:
        return (self.model, self.arithmetic)


def shape_of(case) -> tuple:
    """(basis, d, K, M, N) of a case (a Case, or a case record)."""
    c = case if isinstance(case, dict) else case.as_dict()
    k = c.get("strata") or c["cells"] ** c["d"]
    return (c["basis"], int(c["d"]), int(k), int(c["paths"]), int(c["steps"]))


def point_of_result(res: dict, source: str = "") -> Point | None:
    """The measured point of a GPU result/chunk (None for a CPU result or one without its times)."""
    if res.get("device") != "gpu":
        return None
    hw = (res.get("provenance") or {}).get("hardware") or {}
    if hw.get("simulator"):
        return None
    try:
        basis, d, k, m, n = shape_of(res["case"])
        secs = float(res["seconds_per_run"])
    except (KeyError, TypeError, ValueError):
        return None
    arith = (res.get("reading") or {}).get("arithmetic") or res["case"].get("arithmetic") or "float64"
    if not secs > 0 or basis not in BASES:
        return None
    return Point(str(hw.get("model") or "?"), arith, basis, d, k, m, n, secs, str(res.get("label", "")), source)


def point_of_bench(row: dict, source: str = "") -> Point | None:
    """The measured point of one A/B line (bench/gpu/gpu_bench.py --summary)."""
    try:
        n = round(float(row.get("T", 1.0)) / float(row["dt"]))
        ps = float(row["path_steps"])
        k, m = int(row["K"]), int(row["M"])
        if abs(k * m * n * (n + 1) / 2 - ps) > 1e-6 * ps:  # the steps from the path-steps where T is not 1
            n = round((math.sqrt(1 + 8 * ps / (k * m)) - 1) / 2)
        return Point(
            str(row["gpu"]),
            str(row.get("arithmetic") or "float64"),
            str(row["basis"]),
            int(row["d"]),
            k,
            m,
            n,
            float(row["seconds"]),
            str(row.get("label", "")),
            source,
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def measured_points(*folders) -> list:
    """Every measured GPU point under the folders: result/chunk JSONs and the A/B files (AB_FILES)."""
    from ..inputs import chunks

    out = []
    for p in chunks.result_paths(*folders):
        res = chunks._light_load(p)
        if res is not None and (pt := point_of_result(res, p)) is not None:
            out.append(pt)
    return out + bench_points(*folders)


def bench_points(*folders) -> list:
    """The measured GPU points of the A/B files (AB_FILES) under the folders."""
    out = []
    for folder in folders:
        if folder is None or not os.path.isdir(folder):
            continue
        for name in AB_FILES:
            for p in sorted(glob.glob(os.path.join(str(folder), "**", name), recursive=True)):
                with open(p) as fh:
                    for line in fh:
                        line = line.strip()
                        if line and (pt := point_of_bench(json.loads(line), p)) is not None:
                            out.append(pt)
    return out


def _features(basis, d, k, m, n) -> np.ndarray:
    nb = BASES[basis].size(d)
    ps = k * m * n * (n + 1) / 2
    lp0, lp1 = (1.0, 0.0) if basis == "LP0" else (0.0, 1.0)
    return np.array([n, n * k * nb**3, ps * lp0, ps * d * lp0, ps * lp1, ps * d * lp1, ps * d * d * lp1], float)


def _nonnegative_lstsq(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min |a x - y| with x >= 0: least squares on the free columns, dropping the most negative until none is."""
    scale = np.linalg.norm(a, axis=0)
    scale[scale == 0] = 1.0
    a = a / scale
    free = [j for j in range(a.shape[1]) if np.any(a[:, j] != 0)]
    x = np.zeros(a.shape[1])
    while free:
        sol, *_ = np.linalg.lstsq(a[:, free], y, rcond=None)
        if np.all(sol >= 0):
            x[free] = sol
            break
        free.pop(int(np.argmin(sol)))
    return x / scale


class ShapeModel:
    """The fit of the module docstring over a list of :class:`Point`."""

    def __init__(self, points):
        # one value per (group, shape): the median of its measurements (a row measured 30 times counts once)
        by: dict = {}
        for p in points:
            by.setdefault((p.group, p.shape), []).append(p)
        self.points = [replace(ps[0], seconds=float(np.median([p.seconds for p in ps]))) for ps in by.values()]
        groups: dict = {}
        for p in self.points:
            groups.setdefault(p.group, []).append(p)
        self.groups = groups
        self.reference = max(groups, key=lambda g: (len(groups[g]), g)) if groups else None
        self.coef = None
        if self.reference is not None and len(groups[self.reference]) >= MIN_SHAPES:
            ref = groups[self.reference]
            a = np.array([_features(*p.shape) / p.seconds for p in ref])
            self.coef = _nonnegative_lstsq(a, np.ones(len(ref)))
        self.factors: dict = {}  # group -> {(basis, d): ratio to the reference}
        if self.coef is not None:
            for g, ps in groups.items():
                by_d: dict = {}
                for p in ps:
                    by_d.setdefault((p.basis, p.d), []).append(p.seconds / self.reference_seconds(p.shape))
                self.factors[g] = {k: float(np.median(v)) for k, v in by_d.items()}

    @property
    def ok(self) -> bool:
        return self.coef is not None

    def reference_seconds(self, shape) -> float:
        return float(_features(*shape) @ self.coef)

    def factor(self, group, basis, d) -> float | None:
        f = self.factors.get(tuple(group))
        if not f:
            return None
        same = sorted((dd, r) for (b, dd), r in f.items() if b == basis) or sorted((dd, r) for (_, dd), r in f.items())
        below = [x for x in same if x[0] <= d]
        above = [x for x in same if x[0] >= d]
        if not below:
            return above[0][1]
        if not above:
            return below[-1][1]
        (d0, r0), (d1, r1) = below[-1], above[0]
        if d1 == d0:
            return r0
        w = (d - d0) / (d1 - d0)
        return math.exp((1 - w) * math.log(r0) + w * math.log(r1))

    def predict(self, group, shape) -> float | None:
        """Seconds per run of ``shape`` (basis, d, K, M, N) on ``group`` (GPU model, arithmetic), or None."""
        if not self.ok:
            return None
        f = self.factor(group, shape[0], shape[1])
        return None if f is None else f * self.reference_seconds(shape)

    def describe(self) -> str:
        if not self.ok:
            return "shape model: too few measured shapes"
        terms = ", ".join(f"{n} {c:.3g}" for n, c in zip(FEATURES, self.coef, strict=True) if c > 0)
        return (
            f"shape model: reference {self.reference[0]} {self.reference[1]} arithmetic"
            f" ({len(self.groups[self.reference])} shapes): seconds = {terms}; {len(self.groups)} groups"
        )


def holdout(points) -> list:
    """[(point, predicted seconds)]: each measured shape predicted by a fit without any run of that shape."""
    model_all = ShapeModel(points)
    out = []
    for p in model_all.points:
        rest = [q for q in points if q.shape != p.shape]
        pred = ShapeModel(rest).predict(p.group, p.shape)
        if pred is not None:
            out.append((p, pred))
    return out


def holdout_report(points) -> tuple[str, float | None]:
    """The holdout as text (one line per heavy point, and the median and largest errors), and the largest error
    on the heavy shapes (None: none measured)."""
    pairs = holdout(points)
    lines = [
        ShapeModel(points).describe(),
        f"leave-one-shape-out prediction of {len(pairs)} measured (shape, GPU, arithmetic) points:",
    ]
    errs = [(pred / p.seconds - 1.0, p, pred) for p, pred in pairs]
    heavy = [e for e in errs if e[1].path_steps >= HEAVY_PATH_STEPS]
    for err, p, pred in sorted(heavy, key=lambda e: -e[1].path_steps):
        lines.append(
            f"  {p.label or p.shape!s:<16} {p.model:<22} {p.arithmetic} K={p.K:<8} M={p.M:<6} N={p.N:<3}"
            f" {p.path_steps:.3g} path-steps: measured {p.seconds:.3g} s, predicted {pred:.3g} s"
            f" ({100 * err:+.0f} %)"
        )
    if errs:
        a = np.abs([e[0] for e in errs])
        lines.append(
            f"  all {len(errs)} points: median |error| {100 * np.median(a):.0f} %, largest {100 * a.max():.0f} %"
        )
    worst = max((abs(e[0]) for e in heavy), default=None)
    if heavy:
        lines.append(
            f"  heavy (>= {HEAVY_PATH_STEPS:.0e} path-steps) {len(heavy)} points: largest |error| {100 * worst:.0f} %"
        )
    return "\n".join(lines), worst
