"""Table 2 measured: the memory the runs used beside the models that predicted it.

The host side (:func:`measured_memory`): a CPU run's peak RSS against ``memory_bytes``
(:func:`srmdp.case.memory.required_bytes`).  The device side (:func:`measured_gpu_memory`): a GPU run's
``gpu_used_bytes`` against ``gpu_model_bytes`` (:func:`srmdp.case.memory.gpu_bytes`), with the readings that
are no memory figure (:func:`gpu_reading_invalid`) counted by reason, never printed as memory.
"""

from __future__ import annotations

from collections import Counter

from ....case.cases import Case
from ....case.memory import coefficient_bytes
from ... import REPOSITORY
from ...inputs.index import index_results
from ...inputs.rows import paper_rows, paper_table_number
from ..latex import fmt_bytes

# --- Table 2, measured: SRMDP's peak host memory against the model ---------------------------------
# A warm-up (kernel load) longer than this compiled the kernels in the job itself (a cached load takes
# well under a second); LLVM's peak then sets the baseline, and memory it freed can serve the runs.
COMPILED_SECONDS = 2.0


def measured_memory(timing_files):
    """Per timed CPU row: the model (``memory_bytes`` as the run recorded it, srmdp.case.memory.required_bytes)
    beside the job's measured peak RSS (``peak_rss_bytes``), the process's peak before its first run
    (``peak_rss_before_runs_bytes``: interpreter, Numba, the kernels; the case's arrays allocated but not
    yet touched) as the baseline, and what the runs added above it."""

    order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
    times = index_results(list(timing_files))
    rows = []
    for key in sorted(times, key=lambda k: order.get(k, len(order))):
        for res in times[key]:
            if res.get("device") != "cpu" or not res.get("peak_rss_bytes") or not res.get("memory_bytes"):
                continue
            case, model, peak = res["case"], int(res["memory_bytes"]), int(res["peak_rss_bytes"])
            base = res.get("peak_rss_before_runs_bytes")
            grown = None if base is None else peak - int(base)
            compiled = float(res.get("compile_seconds") or 0.0) >= COMPILED_SECONDS
            if grown is None:
                verdict = "no baseline recorded"
            elif grown > model:
                verdict = (
                    f"under by {'at least ' if compiled else ''}{fmt_bytes(grown - model)}"
                    f" ({100 * (grown - model) / model:.0f}\\,\\%)"
                )  # LaTeX: % starts a comment
            elif compiled:  # the runs may have grown into memory LLVM freed: no verdict either way
                verdict = "not measurable (compile's peak)"
            else:
                verdict = f"covers ({fmt_bytes(model - grown)} spare)"
            rows.append(
                {
                    "table": key[0],
                    "number": paper_table_number(key[0]),
                    "row": key[1],
                    "d": case["d"],
                    "n": case["steps"],
                    "K": case["strata"],
                    "M": case["paths"],
                    "runs": res["runs"],
                    "threads": ((res.get("provenance") or {}).get("hardware") or {}).get("threads"),
                    "model": model,
                    "peak": peak,
                    "base": base,
                    "grown": grown,
                    "verdict": verdict,
                    "kernels": "compiled" if compiled else "cached",
                    "source": res["_path"],
                }
            )
    return rows


GPU_USED_FIX = "7012ad7"  # the commit from which gpu_used_bytes counts the device arrays (before: cudaMemGetInfo)


def _before_fix(commit) -> bool | None:
    """Whether ``commit`` precedes :data:`GPU_USED_FIX` in this repository's history (None: git cannot tell)."""
    import subprocess

    commit = str(commit or "").removesuffix("-dirty")
    if not commit:
        return None
    try:
        proc = subprocess.run(
            ["git", "merge-base", "--is-ancestor", commit, GPU_USED_FIX],
            capture_output=True,
            cwd=REPOSITORY,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(proc.returncode)


def gpu_reading_invalid(res) -> str | None:
    """Why a result's ``gpu_used_bytes`` is not a memory figure, or None where it is one: a reading of zero or
    less, or below the case's own coefficients (which live on the device), is impossible; a result written
    before :data:`GPU_USED_FIX` holds a difference of cudaMemGetInfo readings, which other allocations move."""
    used = res.get("gpu_used_bytes")
    if used is None:
        return "not recorded"
    case = res.get("case") or {}
    coef = coefficient_bytes(Case(**{k: case[k] for k in ("d", "dt", "basis", "cells", "paths", "precision")}))
    if used <= 0:
        return "impossible (zero or negative)"
    if used < coef:
        return "impossible (below the case's coefficients)"
    before = _before_fix((res.get("provenance") or {}).get("git_commit"))
    if before:
        return f"cudaMemGetInfo difference (written before {GPU_USED_FIX})"
    if before is None:
        return "method unknown (its commit is not in this repository's history)"
    return None


def gpu_invalid_counts(gpu_files) -> str:
    """The invalid readings, counted by reason: ``44 readings of 25 rows: 30 cudaMemGetInfo difference ...; 14
    impossible ...``."""
    results = [
        r
        for rs in index_results(list(gpu_files)).values()
        for r in rs
        if r.get("device") == "gpu" and "gpu_used_bytes" in r and gpu_reading_invalid(r) is not None
    ]
    why = Counter(gpu_reading_invalid(r) for r in results)
    rows = {(r["case"]["table"], r["case"]["row"]) for r in results}
    return f"{len(results)} readings of {len(rows)} rows: " + "; ".join(
        f"{n} {w}" for w, n in sorted(why.items(), key=lambda kv: str(kv[0])) if w is not None
    )


def measured_gpu_memory_of(results):
    """:func:`measured_gpu_memory` of loaded results (each with its ``_path``)."""
    return measured_gpu_memory([r["_path"] for r in results if r.get("_path")])


def measured_gpu_memory(gpu_files):
    """One line per (paper row, GPU model) of the results that recorded ``gpu_used_bytes`` (the device arrays the
    backend allocated plus the step kernel's local memory, :meth:`srmdp.kernels.cuda.CudaBackend.memory_report`): the
    model ``gpu_model_bytes`` (srmdp.case.memory.gpu_bytes), the largest valid reading, and the invalid readings
    counted with their reason (:func:`gpu_reading_invalid`), never printed as memory."""

    order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
    groups = {}
    results = index_results(list(gpu_files))
    for key in sorted(results, key=lambda k: order.get(k, len(order))):
        for res in results[key]:
            if res.get("device") != "gpu" or res.get("gpu_model_bytes") is None or "gpu_used_bytes" not in res:
                continue
            gpu = ((res.get("provenance") or {}).get("hardware") or {}).get("model", "?")
            groups.setdefault((key, gpu), []).append(res)
    rows = []
    for (key, gpu), found in groups.items():
        model = max(int(r["gpu_model_bytes"]) for r in found)
        why = Counter(gpu_reading_invalid(r) for r in found)
        valid = [int(r["gpu_used_bytes"]) for r in found if gpu_reading_invalid(r) is None]
        used = max(valid) if valid else None
        if used is None:
            verdict = "no valid reading"
        elif model >= used:
            verdict = f"covers ({fmt_bytes(model - used)} spare)"
        else:
            verdict = f"under by {fmt_bytes(used - model)} ({100 * (used - model) / model:.0f}\\,\\%)"
        invalid = "; ".join(f"{n} {w}" for w, n in sorted(why.items(), key=lambda kv: str(kv[0])) if w is not None)
        rows.append(
            {
                "table": key[0],
                "number": paper_table_number(key[0]),
                "row": key[1],
                "gpu": gpu,
                "readings": len(found),
                "model": model,
                "used": used,
                "invalid": invalid or "--",
                "verdict": verdict,
                "source": " ".join(r["_path"] for r in found),
            }
        )
    return rows
