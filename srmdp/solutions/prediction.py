"""What a solve or a run will cost, said before compute: the case chosen (N, #C, M, K), its predicted time (the cost
model, :mod:`srmdp.case.cost`) and host memory (the memory model, :mod:`srmdp.case.memory`), with its error
estimate's level below; a solve predicted over its budget (``budget_s``, default :data:`DEFAULT_BUDGET_S`) is refused
with that line and what fits instead (:func:`check_budget`); and, where the error cannot be estimated because #C
cannot be coarsened, the smallest #C that gives an estimate and its cost (:func:`estimate_hint`).

The predictions are the models' (calibrated on one thread of the 2-core development machine, within 30 % there);
the kernels' compilation (once per machine and case shape, then loaded from the disk cache) is said apart and is not
counted against the budget.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

from ..case import memory
from ..case.cost import COMPILE_SECONDS, with_scheme_extras
from ..exceptions import ConfigError
from ..kernels.backends import backend_spec
from ..numerics.bases import BASES

DEFAULT_BUDGET_S = 900.0  # seconds of compute a solve may be predicted to take (srmdp solve --budget)


def threads_of(req) -> int:
    return _threads(req.device, req.threads)


def _threads(device, threads) -> int:
    if not backend_spec(device).host_threads:
        return 1
    if threads:
        return int(threads)
    import numba

    return int(numba.get_num_threads())


def _where(device, threads) -> str:
    n = _threads(device, threads)
    return f"{n} thread{'s' if n > 1 else ''}" if backend_spec(device).host_threads else device.upper()


def duration(seconds: float) -> str:
    """'12 s', '4.2 min', '3.1 h', '2.0e+05 years'."""
    if not math.isfinite(seconds):
        return "forever"
    if seconds < 90:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    if seconds < 86400 * 365:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / (86400 * 365):.2g} years"


def _shape(case, cells=None):
    """A stand-in for ``case`` at ``cells`` where the case itself would be refused (K >= 2^48 strata): what the
    cost and memory models read."""
    c = case.cells if cells is None else cells
    n = case.steps
    k = c**case.d
    nb = BASES[case.basis].size(case.d)
    return SimpleNamespace(
        d=case.d,
        basis=case.basis,
        cells=c,
        paths=case.paths,
        steps=n,
        strata=k,
        n_basis=nb,
        precision=case.precision,
        z_cv=case.z_cv,
        curvature_correction=case.curvature_correction,
        path_steps=k * case.paths * n * (n + 1) // 2,
        label=f"{case.basis}_d{case.d}_C{c}_M{case.paths}",
    )


def level_cost(req, case, keep=None) -> tuple:
    """(seconds of compute, bytes of host memory) of ``case``'s runs in ``req``."""
    return case_cost(case, req.runs, req.device, threads_of(req), req.test_points, keep or req.keep)


def case_cost(case, runs, device, threads, test_points, keep) -> tuple:
    """(seconds of compute, bytes of host memory) of ``runs`` runs of ``case`` (``keep``: "all" coefficients or
    the "last")."""
    from .solve_request import memory_need

    one = backend_spec(device).run_seconds(case, _threads(device, threads), test_points)
    secs = runs * with_scheme_extras(case, one)
    try:
        need = memory_need(case, runs, keep, test_points, device)
    except (AttributeError, TypeError):  # a stand-in (_shape): its coefficients
        kept = runs if keep == "all" else 1
        need = kept * case.steps * case.strata * (case.d + 1) * case.n_basis * memory.itemsize(case.precision)
    return secs, need


def run_line(case, runs, device, threads, test_points) -> str:
    """``srmdp run``'s line before compute: the case, its runs, the predicted time and host memory."""
    secs, need = case_cost(case, runs, device, threads, test_points, "last")
    return (
        f"case {_describe(case)}, {runs} run{'s' if runs > 1 else ''}: predicted {duration(secs)} of compute on"
        f" {_where(device, threads)} (srmdp.case.cost) and {need / memory.GIB:.3g} GiB of host memory"
        f" (srmdp.case.memory); plus the kernels' compilation the first time (about {COMPILE_SECONDS:g} s)"
    )


def _describe(case) -> str:
    return f"N = {case.steps}, #C = {case.cells}, M = {case.paths}, K = {_count(case.strata)}"


def _count(k) -> str:
    return f"{k:,}" if k < 10**7 else f"{float(k):.3g}"


def solve_cost(req, case, coarse) -> dict:
    """The prediction of a solve: its level ``case`` and its level below ``coarse`` (None: none)."""
    fine_s, fine_b = level_cost(req, case)
    out = {"case": case, "coarse": coarse, "fine_seconds": fine_s, "seconds": fine_s, "bytes": fine_b}
    if coarse is not None:
        low_s, low_b = level_cost(req, coarse, keep="last")
        out.update(coarse_seconds=low_s, seconds=fine_s + low_s, bytes=fine_b + low_b)
    return out


def prediction_line(req, pred) -> str:
    """One line: the case, its runs, the predicted time and memory (and the level below's)."""
    case, coarse = pred["case"], pred["coarse"]
    where = _where(req.device, req.threads)
    text = (
        f"case {_describe(case)}, {req.runs} runs: predicted {duration(pred['seconds'])} of compute on {where}"
        f" (srmdp.case.cost) and {pred['bytes'] / memory.GIB:.3g} GiB of host memory (srmdp.case.memory)"
    )
    if coarse is not None:
        text += f", of which the error estimate's level below ({_describe(coarse)}) {duration(pred['coarse_seconds'])}"
    return text + f"; plus the kernels' compilation the first time (about {COMPILE_SECONDS:g} s)"


def budget_of(req) -> float:
    b = req.opts.budget_s
    return DEFAULT_BUDGET_S if b is None else float(b)


def check_budget(req, case, coarse, say=None) -> dict:
    """Say the prediction (``say(line)``) and refuse (one-line ConfigError, exit status 2) a solve predicted over its
    budget or the memory available, with what fits instead; returns the prediction."""
    pred = solve_cost(req, case, coarse)
    line = prediction_line(req, pred)
    budget = budget_of(req)
    if pred["seconds"] > budget:
        given = "the budget" if req.opts.budget_s is not None else "the default budget"
        raise ConfigError(
            f"{line}: over {given} of {budget:g} s (--budget / budget_s); {fits_instead(req, case, coarse, budget)}"
        )
    if say is not None:
        say(line)
    return pred


def fits_instead(req, case, coarse, budget) -> str:
    """What fits the budget instead: fewer paths, fewer cells, no error estimate (each priced), or that nothing at
    this N and d does."""
    options = []
    total = solve_cost(req, case, coarse)["seconds"]
    nb = BASES[case.basis].size(case.d)
    m = int(case.paths * budget / total)
    while max(2 * nb, 4) <= m < case.paths:  # the largest M found by steps of 10 % that fits
        cand = replace(case, paths=m)
        low = None if coarse is None else replace(coarse, paths=min(coarse.paths, m - 1))
        secs = solve_cost(req, cand, low)["seconds"]
        if secs <= budget:
            options.append(f"--paths {m} ({duration(secs)})")
            break
        m = int(m * 0.9)
    for c in range(case.cells - 1, 0, -1):
        cand = replace(case, cells=c)
        low = req.below(cand)[0] if coarse is not None else None
        secs = solve_cost(req, cand, low)["seconds"]
        if secs <= budget:
            options.append(f"--cells {c} ({duration(secs)}{'' if low is not None else ', no error estimate'})")
            break
    if coarse is not None:
        secs = solve_cost(req, case, None)["seconds"]
        if secs <= budget:
            options.append(f"--no-error ({duration(secs)}, no error estimate)")
    if req.runs > 2:
        per = total / req.runs
        if 2 * per <= budget:
            options.append(f"--runs {int(budget // per)} ({duration(int(budget // per) * per)})")
    if not options:
        return (
            f"nothing at N = {case.steps}, d = {case.d} fits it: a larger --budget, or a smaller --d;"
            f" beyond this method's reach on this machine within {duration(budget)}"
        )
    return "fits instead: " + " or ".join(options)


def estimate_hint(req, case, reason) -> str | None:
    """Where the error could not be estimated because #C cannot be coarsened (#C = 1, one stratum: the answer is
    the cloud's average, its bias unknown): the smallest #C that gives an estimate, with its predicted time and
    memory, or that it is beyond reach on this machine; None for another reason (the reason says what to change)."""
    if not reason or not reason.startswith("#C ="):
        return None
    from ..case.memory import available_bytes

    for c in range(case.cells + 1, case.cells + 5):
        try:
            cand = replace(case, cells=c)
            low = req.below(cand)[0]
        except ConfigError:  # K = c^d beyond the random streams' stratum field
            cand, low = _shape(case, c), (_shape(case, c - 2) if c >= 3 else None)  # #C - 2: x0's parity kept
        if low is None:
            continue
        pred = solve_cost(req, cand, low)
        secs, need = pred["seconds"], pred["bytes"]
        where = (
            f"--cells {c} (K = {c}^{case.d} = {_count(c**case.d)} strata) with its level below #C = {low.cells}"
            f" is predicted at {duration(secs)} and {need / memory.GIB:.3g} GiB"
        )
        over = []
        if secs > budget_of(req):
            over.append(f"over the budget of {budget_of(req):g} s")
        if need > available_bytes():
            over.append(f"over the {available_bytes() / memory.GIB:.3g} GiB of memory available")
        if over:
            beyond = "beyond this method's reach on this machine"
            return f"an error estimate needs a level below: {where}, {' and '.join(over)}: {beyond}"
        return f"an error estimate needs a level below: {where}"
    return None
