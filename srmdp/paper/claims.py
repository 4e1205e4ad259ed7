"""The paper's Tables 1-2 (cost and memory of SRMDP against LSMDP as functions of N) and the numeric
claims of its text, recomputed from the formulas the code uses.

* SRMDP's memory is :func:`srmdp.memory.coefficient_bytes` (N K (1+q) n_basis values) plus, for LP1
  on the paper's GPU, one M x (d+1) matrix A per stratum handled at once (its Householder QR);
* LSMDP's is :func:`srmdp.paper.lsmdp.model_bytes` (all P = K M paths stored); the paper counts the
  paths of one time slice (P d values), which is what its 118 GB figure is (see :func:`text_claims`);
* exponents "as functions of N" are least-squares slopes of ln(quantity) against ln N over the rows
  of one paper table (the same #C and M formulas, N = 5, 10, 20, 50).

Nothing here runs the scheme; the measured side (LSMDP baseline, SRMDP timings) is read from the
published summaries by :mod:`srmdp.paper.tables`.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ..cases import Case
from ..indicators import INDICATORS
from ..memory import GIB, coefficient_bytes
from ..readings import matches
from ..rules import formula
from . import REPOSITORY
from .index import best_timing, hw_short, index_results, load, machine_of
from .latex import jinja_env, tex_escape, write_text
from .lsmdp import model_bytes as lsmdp_model_bytes
from .record import device_words, gpu_timing, precision_words, storage_of, threads_of, timing_of, timing_words
from .rows import REFERENCE_SOURCE, paper_case, paper_rows, paper_table_number, table_ids

GPU_BYTES_PAPER = 6 * 10**9  # "6 GBytes of global memory" (GTX TITAN Black: 6 GB = 6.0e9 bytes... as sold)
PAPER_THREADS = 64 * 256  # "64 thread blocks each with 256 threads"


def slope(ns, values):
    """Least-squares slope of ln(values) against ln(ns); None with fewer than two distinct N."""
    ns = np.asarray(ns, float)
    values = np.asarray(values, float)
    ok = np.isfinite(values) & (values > 0)
    if len(set(ns[ok])) < 2:
        return None
    return float(np.polyfit(np.log(ns[ok]), np.log(values[ok]), 1)[0])


def lsmdp_slice_bytes(case, itemsize=4) -> int:
    """The paths of one time slice, as the paper counts LSMDP's memory: K M d values."""
    return case.strata * case.paths * case.d * itemsize


def qr_bytes(case, itemsize=4) -> int:
    """One stratum's matrix A of the paper's QR factorisation: M x nb values (0 for a constant basis, nb = 1)."""
    nb = case.n_basis
    return case.paths * nb * itemsize if nb > 1 else 0


# --- Table 1: simulations and cost ----------------------------------------------------------------
def cost_model(timings=None):
    """Per paper table: fitted exponents of N for #simulations and cost, beside the paper's formulas.

    ``timings``: {(table, row): seconds per run of ours} (optional, for the measured slope).
    """
    timings = timings or {}
    out = []
    for table in table_ids():
        rows = [r for r in paper_rows() if r["table"] == table]
        if len({r["dt"] for r in rows}) < 2:
            continue  # LP1d11..LP1d15_19: one N each (d varies), no slope in N
        d = rows[0]["d"]
        basis = rows[0]["basis"]
        ns = [r["steps"] for r in rows]
        ours = [(n, timings.get((table, r["row"]))) for n, r in zip(ns, rows, strict=True)]
        ours = [(n, t) for n, t in ours if t]
        out.append({
            "table": table, "number": paper_table_number(table), "basis": basis, "d": d,
            "ns": ns,
            "claim_k": d / 2 if basis == "LP0" else d / 4,
            "fit_k": slope(ns, [r["K"] for r in rows]),
            "fit_m": slope(ns, [r["M"] for r in rows]),
            "fit_lsmdp_sims": slope(ns, [r["K"] * r["M"] for r in rows]),
            "claim_lsmdp_sims": 2 + (d / 2 if basis == "LP0" else d / 4),
            "claim_cost": 4 + (d / 2 if basis == "LP0" else d / 4),
            "fit_cost": slope(ns, [paper_case(table, row=r["row"]).path_steps for r in rows]),
            "fit_paper_cpu": slope(ns, [r["cpu_s"] for r in rows]),
            "fit_paper_gpu": slope(ns, [r["gpu_s"] for r in rows]),
            "fit_ours": slope([n for n, _ in ours], [t for _, t in ours]) if len(ours) >= 2 else None,
            "ours_ns": [n for n, _ in ours],
        })
    return out


# --- Table 2: memory ------------------------------------------------------------------------------
def memory_model():
    """Per paper row: SRMDP and LSMDP bytes in the paper's float32, and their ratio."""
    out = []
    for r in paper_rows():
        case = paper_case(r["table"], row=r["row"], precision="float32")
        coef = coefficient_bytes(case)
        qr = qr_bytes(case)
        srmdp = coef + qr * min(PAPER_THREADS, case.strata)
        sl = lsmdp_slice_bytes(case)
        full = lsmdp_model_bytes(case) // 2  # model_bytes counts float64; the paper computed in float32
        out.append({
            "table": r["table"], "number": paper_table_number(r["table"]), "row": r["row"], "d": r["d"],
            "n": case.steps, "K": case.strata, "M": case.paths, "basis": case.basis,
            "coef": coef, "qr": qr, "srmdp": srmdp, "lsmdp_slice": sl, "lsmdp_full": full,
            "ratio_slice": sl / srmdp, "ratio_full": full / srmdp,
        })
    return out


def memory_exponents():
    """Per paper table with several N: fitted exponents of SRMDP and LSMDP memory against N."""
    rows = memory_model()
    out = []
    for table in table_ids():
        mine = [r for r in rows if r["table"] == table]
        if len({r["n"] for r in mine}) < 2:
            continue
        d, basis = mine[0]["d"], mine[0]["basis"]
        ns = [r["n"] for r in mine]
        out.append({
            "table": table, "number": mine[0]["number"], "d": d, "basis": basis,
            "claim_srmdp": (1 + d / 2) if basis == "LP0" else max(1 + d / 4, 2),
            "fit_srmdp": slope(ns, [r["srmdp"] for r in mine]),
            "fit_coef": slope(ns, [r["coef"] for r in mine]),
            "claim_lsmdp": (2 + d / 2) if basis == "LP0" else 2 + d / 4,
            "fit_lsmdp": slope(ns, [r["lsmdp_slice"] for r in mine]),
            "fit_ratio": slope(ns, [r["ratio_slice"] for r in mine]),
        })
    return out


def d19_memory(budget=GPU_BYTES_PAPER):
    """Table 13's d = 19 row in float32 under Table 2's LP1 model (one QR matrix per thread of the paper's 64 x 256
    in flight): coefficients, one matrix, the total with every thread holding one, and how many fit ``budget``."""
    case = paper_case("LP1d15_19", row=5, precision="float32")
    coef, qr = coefficient_bytes(case), qr_bytes(case)
    return {"coef": coef, "qr": qr, "all": coef + qr * min(PAPER_THREADS, case.strata),
            "fits": int((budget - coef) // qr) if budget > coef else 0, "threads": PAPER_THREADS}


def max_dimension(bytes_of, budget, d_max=40):
    """Largest d with bytes_of(d) <= budget (bytes_of increasing in d), or None."""
    best = None
    for d in range(1, d_max + 1):
        if bytes_of(d) <= budget:
            best = d
    return best


def dimension_gain(n_steps=5, cells=2, budget=GPU_BYTES_PAPER):
    """Largest d that fits ``budget`` bytes, SRMDP (coefficients) vs LSMDP (one slice of paths),
    at N = n_steps with #C = cells and M = N^2 (LP0) or (d+1) N^2 (LP1), float32."""
    out = {}
    for basis, nb, m in (("LP0", lambda d: 1, lambda d: n_steps**2),
                         ("LP1", lambda d: d + 1, lambda d: (d + 1) * n_steps**2)):
        srmdp = max_dimension(lambda d, nb=nb: n_steps * cells**d * (d + 1) * nb(d) * 4, budget)
        lsmdp = max_dimension(lambda d, m=m: cells**d * m(d) * d * 4, budget)
        out[basis] = {"srmdp": srmdp, "lsmdp": lsmdp, "gain": None if None in (srmdp, lsmdp) else srmdp - lsmdp,
                      "asymptotic": math.log(n_steps) / math.log(cells)}
    return out


# --- Table 2, measured: SRMDP's peak host memory against the model ---------------------------------
# A warm-up (kernel load) longer than this compiled the kernels in the job itself (a cached load takes
# well under a second); LLVM's peak then sets the baseline, and memory it freed can serve the runs.
COMPILED_SECONDS = 2.0


def measured_memory(timing_files):
    """Per timed CPU row: the model (``memory_bytes`` as the run recorded it, srmdp.memory.required_bytes)
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
                verdict = f"under by {'at least ' if compiled else ''}{fmt_bytes(grown - model)}" \
                          f" ({100 * (grown - model) / model:.0f}\\,\\%)"  # LaTeX: % starts a comment
            elif compiled:  # the runs may have grown into memory LLVM freed: no verdict either way
                verdict = "not measurable (compile's peak)"
            else:
                verdict = f"covers ({fmt_bytes(model - grown)} spare)"
            rows.append({
                "table": key[0], "number": paper_table_number(key[0]), "row": key[1], "d": case["d"],
                "n": case["steps"], "K": case["strata"], "M": case["paths"], "runs": res["runs"],
                "threads": ((res.get("provenance") or {}).get("hardware") or {}).get("threads"),
                "model": model, "peak": peak, "base": base, "grown": grown, "verdict": verdict,
                "kernels": "compiled" if compiled else "cached", "source": res["_path"],
            })
    return rows


GPU_USED_FIX = "7012ad7"  # the commit from which gpu_used_bytes counts the device arrays (before: cudaMemGetInfo)


def _before_fix(commit) -> bool | None:
    """Whether ``commit`` precedes :data:`GPU_USED_FIX` in this repository's history (None: git cannot tell)."""
    import subprocess

    commit = str(commit or "").removesuffix("-dirty")
    if not commit:
        return None
    try:
        proc = subprocess.run(["git", "merge-base", "--is-ancestor", commit, GPU_USED_FIX], capture_output=True,
                              cwd=REPOSITORY, timeout=20)
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
    results = [r for rs in index_results(list(gpu_files)).values() for r in rs
               if r.get("device") == "gpu" and "gpu_used_bytes" in r and gpu_reading_invalid(r) is not None]
    why = Counter(gpu_reading_invalid(r) for r in results)
    rows = {(r["case"]["table"], r["case"]["row"]) for r in results}
    return (f"{len(results)} readings of {len(rows)} rows: "
            + "; ".join(f"{n} {w}" for w, n in sorted(why.items(), key=lambda kv: str(kv[0])) if w is not None))


def measured_gpu_memory_of(results):
    """:func:`measured_gpu_memory` of loaded results (each with its ``_path``)."""
    return measured_gpu_memory([r["_path"] for r in results if r.get("_path")])


def measured_gpu_memory(gpu_files):
    """One line per (paper row, GPU model) of the results that recorded ``gpu_used_bytes`` (the device arrays the
    backend allocated plus the step kernel's local memory, :meth:`srmdp.cuda.CudaBackend.memory_report`): the
    model ``gpu_model_bytes`` (srmdp.memory.gpu_bytes), the largest valid reading, and the invalid readings
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
        rows.append({"table": key[0], "number": paper_table_number(key[0]), "row": key[1], "gpu": gpu,
                     "readings": len(found), "model": model, "used": used, "invalid": invalid or "--",
                     "verdict": verdict, "source": " ".join(r["_path"] for r in found)})
    return rows


# --- the numbers in the text ------------------------------------------------------------------------
def _exponents(rows):
    return ", ".join(e["table"].replace("_", r"\_") + f" {e['fit_ratio']:.2f}" for e in rows)


def text_claims(gpu_results=(), memory_rows=None):
    """Each numeric statement of the paper's §4.4 and §5 text: the paper's number, ours, a verdict."""
    claims = []
    # the row the paper left out of its Table 5: #C and M from the table's own formulas at N = 50
    ref = next(r for r in paper_rows() if r["table"] == "LP0d6_1")
    c = Case(d=ref["d"], dt=0.02, basis=ref["basis"], cells=formula(ref["cells_formula"], 50, ref["d"]),
             paths=formula(ref["paths_formula"], 50, ref["d"]), precision="float32")
    b = coefficient_bytes(c)
    claims.append({
        "where": "footnote, Table 5",
        "claim": r"LP0d6\_1, $\Delta t=0.02$: coefficients $50\times14^6\times7\times4$ B $=9.81$ GB",
        "ours": f"{b:,} B $= {b / 1e9:.2f}$ GB $= {b / GIB:.3f}$ GiB",
        "verdict": "agrees in GiB (binary units; 9.817 truncated to 9.81); 10.54 in decimal GB",
    })
    c19 = paper_case("LP1d15_19", row=5, precision="float32")
    sl = lsmdp_slice_bytes(c19)
    full = lsmdp_model_bytes(c19) // 2
    claims.append({
        "where": r"\S5.2, Table 13", "claim": r"LSMDP at $d=19$ needs 118 GB to store all simulations",
        "ours": (f"$K M d\\times4$ B $= {sl / GIB:.2f}$ GiB (one time slice, ${sl / 1e9:.1f}$ GB);"
                 f" all $N+1$ slices: ${full / GIB:.0f}$ GiB"),
        "verdict": "agrees for one time slice in GiB (118.75 truncated); storing whole paths is 6 times more",
    })
    m19 = d19_memory()
    gpu_note, gpu_src = "", []
    # the GPU's own memory model and its largest valid reading, as Table R8 prints them (measured_gpu_memory), not
    # the host model memory_bytes
    for m in memory_rows if memory_rows is not None else measured_gpu_memory_of(gpu_results):
        if (m["table"], m["row"]) == ("LP1d15_19", 5):
            gpu_note = (f"; our {m['gpu']} runs: GPU memory model {m['model'] / GIB:.2f} GiB"
                        + (f", measured {m['used'] / GIB:.2f} GiB on the GPU (largest valid reading,"
                           " Table~\\ref{table:memory-measured})" if m["used"] is not None else
                           ", no valid GPU reading"))
            gpu_src = m["source"].split()
    claims.append({
        "where": r"\S5.2, Table 13", "claim": r"SRMDP runs $d=19$ in less than 6 GB",
        "ours": (f"coefficients ${m19['coef'] / GIB:.2f}$ GiB; one QR matrix ${m19['qr'] / 2**10:.0f}$ KiB per stratum;"
                 f" Table~2's model, one matrix per thread ({PAPER_THREADS:,} at once), needs"
                 f" ${m19['all'] / GIB:.2f}$ GiB; 6 GB holds at most {m19['fits']:,} matrices at once{gpu_note}"),
        "verdict": (f"agrees only if at most {m19['fits']:,} of the {PAPER_THREADS:,} threads hold a matrix at once"
                    " (not stated); with all of them, as Table~2 assumes, it does not fit"
                    if m19["all"] > GPU_BYTES_PAPER else "agrees with Table~2's model"),
        "sources": [REFERENCE_SOURCE, *gpu_src],
    })
    exps = memory_exponents()
    lp0 = [e for e in exps if e["basis"] == "LP0"]
    lp1 = [e for e in exps if e["basis"] == "LP1"]
    claims.append({
        "where": r"\S4.4", "claim": r"SRMDP needs $N$ times less memory than LSMDP (LP0)",
        "ours": "fitted exponent of LSMDP/SRMDP: " + _exponents(lp0),
        "verdict": "agrees (exponent 1 up to the floor() in \\#C) for one slice of paths; $N^2$ for whole paths",
    })
    claims.append({
        "where": r"\S4.4", "claim": r"LP1: $O(N^{d/4})$ less for $d\le4$, $N$ times less for $d\ge4$",
        "ours": "fitted exponent of LSMDP/SRMDP: " + _exponents(lp1),
        "verdict": ("not on the paper's own rows: SRMDP's QR matrices ($M(d+1)$ per stratum in flight, $M\\propto N^2$)"
                    " grow like LSMDP's paths per stratum, and $K$ grows faster than $N^{d/4}$ at these $N$"
                    if any(e["fit_ratio"] < 0.8 for e in lp1) else "agrees"),
    })
    g = dimension_gain()
    claims.append({
        "where": r"\S4.4", "claim": "a gain of 2 (LP0) or 4 (LP1) in the dimension that fits",
        "ours": "; ".join(f"{k}: SRMDP $d\\le{v['srmdp']}$, LSMDP $d\\le{v['lsmdp']}$ (gain {v['gain']})"
                          for k, v in g.items()) + r" in 6 GB at $N=5$, $\#C=2$",
        "verdict": (f"at fixed N the gain is $\\ln N/\\ln\\#C$ = {g['LP0']['asymptotic']:.1f} dimensions"
                    " for both bases;"
                    " 2 and 4 are the limits for $\\#C\\propto N^{1/2}$ and $N^{1/4}$"),
    })
    for c in claims:
        c.setdefault("group", "memory")
    claims += profiler_claims()
    for c in claims:
        c.setdefault("sources", [REFERENCE_SOURCE])
        c.setdefault("group", "profiler")
    return claims


PROFILER_CHECK = "would check it: Nsight Compute (ncu) memory and FLOP counters of the kernels on a GPU"


def profiler_claims():
    """The paper's profiler readings of its GPU kernels (\\S5): not measured here (they need a profiler on a GPU);
    what the code can check is the data-layout arithmetic the paper gives as their explanation."""
    lp0 = paper_case("LP0d11", row=2, precision="float32")
    lp1 = paper_case("LP1d13", row=2, precision="float32")
    per_eval = {c.basis: c.n_basis * (c.d + 1) for c in (lp0, lp1)}  # coefficients read per estimate y, z_1..z_d
    not_measured = ("not measured: a global-memory bandwidth and GFlop reading needs a profiler (ncu) on a GPU;"
                    " our kernels store no path (bench/gpu\\_NOTES.md), so their traffic differs by design")
    return [
        {"where": r"\S5, T.6", "claim": (r"LP0, $d=11$, $\Delta t=0.1$: the regression functions reach 236.8 GB/s;"
                                         r" the kernel about 160 GB/s and 238 GFlop/s, 30\,\% integer instructions"),
         "ours": not_measured, "verdict": f"not checked; {PROFILER_CHECK}"},
        {"where": r"\S5.2, T.11", "claim": r"LP1, $d=13$, $\#C=2$, $M=4000$: about 132 GB/s and 136 GFlop/s",
         "ours": not_measured, "verdict": f"not checked; {PROFILER_CHECK}"},
        {"where": r"\S5.2", "claim": (r"LP1 uses less bandwidth than LP0 because each stratum reads $(d+1)$ times"
                                      r" more elements in the re-simulation"),
         "ours": (f"coefficients read per estimate $n_b(d+1)$: LP0 $d=11$ {per_eval['LP0']}, LP1 $d=13$"
                  f" {per_eval['LP1']} ({per_eval['LP1'] // (lp1.d + 1)} $= d+1$ times LP0's at $d=13$)"),
         "verdict": (f"not checked (the bandwidth is not measured; the data layout's arithmetic agrees);"
                     f" {PROFILER_CHECK}")},
    ]


# The GPU speed-ups quoted in the paper's §5 text (table ids and the number as printed).
TEXT_SPEEDUPS = (("LP0d4", 18.90), ("LP0d6_0", 15.93), ("LP0d6_1", 14.85), ("LP0d11", 13.35), ("LP1d4", 8.05),
                 ("LP1d6_1", 6.13), ("LP1d11", 5.63), (("LP1d12", "LP1d13", "LP1d14", "LP1d15_19"), 5.67))


PAPER_HARDWARE = "the paper: 24 threads of two 2013 Xeon E5-2620 v2 against a 2014 GTX TITAN Black, float32"


def _like_for_like(rows, like, camp):
    """The largest all-core CPU / GPU time ratio over ``rows`` where the CPU job (rule likeforlike) ran in the
    storage precision and reading of a GPU campaign summary (:func:`srmdp.paper.record.gpu_timing`, the timing
    Figure 1 uses): (text, sources) or None."""

    best = None
    for r in rows:
        for cpu in like.get((r["table"], r["row"]), []):
            gpu = gpu_timing(camp.get((r["table"], r["row"]), []), cpu, storage_of(cpu))
            if gpu is not None and cpu.get("seconds_per_run"):
                ratio = cpu["seconds_per_run"] / timing_of(gpu)[0]
                if best is None or ratio > best[0]:
                    best = (ratio, r, cpu, gpu)
    if best is None:
        return None
    ratio, r, cpu, gpu = best
    lo = cpu["seconds_per_run"] / timing_of(gpu)[1]
    same = (precision_words(cpu) if precision_words(cpu) == precision_words(gpu)
            else f"CPU {precision_words(cpu)}, GPU {precision_words(gpu)}")
    return (rf"like for like {ratio:.1f} ({lo:.1f} against the GPU's fastest run) at $\Delta t={r['dt']:g}$:"
            f" {device_words(cpu)}, all {threads_of(cpu)} threads, {timing_words(cpu)}, against"
            f" {device_words(gpu)}, {timing_words(gpu)}; same reading, both {same}; what differs: {threads_of(cpu)}"
            " CPU cores against a whole GPU, and the hardware generation", [cpu["_path"], gpu["_path"]])


def speedup_claims(times, like=None, camp=None):
    """The text's speed-ups against the paper's own tables and ours (times: {(table,row): [results]} of the
    1-thread CPU timing jobs; like: the same for rule likeforlike's all-core CPU timings; camp: the GPU campaign's
    summaries, the one GPU timing source)."""
    like, camp = like or {}, camp or {}
    out = []
    for tables, quoted in TEXT_SPEEDUPS:
        tables = (tables,) if isinstance(tables, str) else tables
        rows = [r for r in paper_rows() if r["table"] in tables]
        best = max(rows, key=lambda r: r["cpu_s"] / r["gpu_s"])
        ours, sources = [], []
        for r in rows:
            cpu = best_timing(times.get((r["table"], r["row"]), []), "cpu")
            gpu = gpu_timing(camp.get((r["table"], r["row"]), []), cpu) if cpu else None
            if cpu and gpu:
                ours.append((cpu["seconds_per_run"] / timing_of(gpu)[0], r, cpu, gpu))
        text = "--"
        if ours:
            su, r, cpu, gpu = max(ours, key=lambda x: x[0])
            text = (rf"{su:.1f} at $\Delta t={r['dt']:g}$" + ("" if len(tables) == 1 else f", $d={r['d']}$")
                    + f" ({device_words(cpu)}, {threads_of(cpu)} thread, {precision_words(cpu)};"
                    f" {device_words(gpu)}, {precision_words(gpu)}, {timing_words(gpu)}): not like-for-like")
            sources = [cpu["_path"], gpu["_path"]]
        fair = _like_for_like(rows, like, camp)
        if fair is not None:
            text = fair[0] if text == "--" else f"{text}; {fair[0]}"
            sources += fair[1]
        names = ", ".join(t.replace("_", r"\_") for t in tables)
        out.append({
            "where": r"\S5, " + ", ".join(f"T.{paper_table_number(t)}" for t in tables),
            "claim": f"GPU speed-up reaches {quoted:.2f} ({names})",
            "ours": f"paper's table: {best['cpu_s'] / best['gpu_s']:.2f}; ours: {text}",
            "verdict": ("the text agrees with its own table"
                        if abs(best["cpu_s"] / best["gpu_s"] - quoted) < 0.01 + 1e-9
                        else f"the text differs from its own table ({best['cpu_s'] / best['gpu_s']:.2f})")
            + f"; {PAPER_HARDWARE}; ours measure other hardware" + ("" if ours or fair else
                                                                    f"; {SPEEDUP_CHECK}"),
            "outcome": TEXT_VS_TABLE,
            "sources": [REFERENCE_SOURCE, *sources],
        })
    return out


SPEEDUP_CHECK = "would check it: GPU and all-core CPU timings of these rows (campaign, rule likeforlike)"

# The paper's multi-core statement: "24 CPU threads run about 16 times faster than sequential code".
MULTICORE_WHERE = "\\S5"
MULTICORE_TEXT = "24 CPU threads run about 16 times faster than sequential code"
PAPER_THREADS_CPU, PAPER_SPEEDUP_CPU = 24, 16.0
MULTICORE_CHECK = f"would check it: rule multicore on a host with {PAPER_THREADS_CPU} threads"


def multicore_claim(files=(), camp=None):
    """The paper's multi-core speed-up beside ours: per row timed alone with 1 thread and with all the
    host's cores (rule ``multicore``, ``srmdp run --threads``), seconds per run (mean over the job's runs)."""

    order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
    times = index_results(list(files))
    effs, sources, hosts, gpus, rows_seen = [], [], set(), set(), {}
    groups = {}  # (row, machine) -> {threads: result}: this host's timings, or another's (multicore_results)
    for key, results in times.items():
        for res in results:
            if res.get("device") == "cpu" and res.get("seconds_per_run"):
                prov = res.get("provenance") or {}
                groups.setdefault((key, machine_of(res)), {})[(prov.get("hardware") or {}).get("threads")] = res
    for (key, _), by_threads in sorted(groups.items(), key=lambda g: (order.get(g[0][0], len(order)), g[0][1])):
        many = max((t for t in by_threads if isinstance(t, int) and t > 1), default=None)
        if 1 not in by_threads or many is None:
            continue
        one, all_ = by_threads[1], by_threads[many]
        su = one["seconds_per_run"] / all_["seconds_per_run"]
        effs.append(su / many)
        prov = all_.get("provenance") or {}
        machine = (prov.get("cpus"), str((prov.get("hardware") or {}).get("model") or "?").split("@")[0].strip())
        hosts.add(machine)
        name = key[0].replace("_", r"\_")
        model = machine[1].replace("(R)", "").replace(" Processor", "")
        row = f"{name} $\\Delta t={all_['case']['dt']:g}$"
        host = (f"{machine[0] or '?'} CPUs {model}: {one['seconds_per_run']:.2f}$\\to${all_['seconds_per_run']:.2f}"
                f" s/run on {many}, ${su:.2f}\\times$ ({su / many:.2f}/thread)")
        rows_seen.setdefault(row, []).append(host)
        gpu = gpu_timing((camp or {}).get(key, []), all_)
        if gpu is not None:  # the same row and reading on the GPU: the speed-up against all of this host's cores
            rows_seen[row][-1] += (f", {device_words(gpu)[4:]} ${all_['seconds_per_run'] / timing_of(gpu)[0]:.1f}"
                                   "\\times$ faster")
            gpus.add(f"{device_words(gpu)}: {precision_words(gpu)}")
            sources.append(gpu["_path"])
        sources += [one["_path"], all_["_path"]]
    parts = [f"{row}: " + "; ".join(hs) for row, hs in rows_seen.items()]  # one entry per row, its hosts
    paper_eff = PAPER_SPEEDUP_CPU / PAPER_THREADS_CPU
    not_measured = (f"the paper's {PAPER_THREADS_CPU} threads were not measured"
                    if any(n and n >= 16 for n, _ in hosts) else
                    f"the paper's {PAPER_THREADS_CPU} threads, and the 16 CPU cores of our GPU host, were not measured")
    if not parts:
        return {"where": MULTICORE_WHERE, "claim": MULTICORE_TEXT,
                "ours": f"not measured in this preset (rule multicore); {not_measured}",
                "verdict": f"not checked; {MULTICORE_CHECK}", "sources": [REFERENCE_SOURCE]}
    eff = f"{effs[0]:.2f}" if len(effs) == 1 else f"{min(effs):.2f}--{max(effs):.2f}"
    precs = "; ".join(sorted(gpus))
    return {
        "where": MULTICORE_WHERE, "claim": MULTICORE_TEXT,
        "ours": "each job alone on its host; " + "; ".join(parts) + (f" ({precs})" if precs else "")
        + f"; {not_measured}",
        "verdict": (f"not checked at {PAPER_THREADS_CPU} threads; efficiency here {eff} per thread (the paper's"
                    f" {PAPER_SPEEDUP_CPU:g}/{PAPER_THREADS_CPU} = {paper_eff:.2f} per thread); {MULTICORE_CHECK}"),
        "sources": sources,
    }


def d11_claim(times):
    """Introduction: 'we can solve problems in dimension d = 11 within eight seconds using 2000
    simulations per hypercube', against the paper's own Table 9 (LP1d11, M = 2000)."""
    r = next(r for r in paper_rows() if r["d"] == 11 and r["M"] == 2000)
    res = times.get((r["table"], r["row"]), [])
    cpu, gpu = best_timing(res, "cpu"), best_timing(res, "gpu")
    ours = "; ".join(f"{dev} {x['seconds_per_run']:.2f} s" for dev, x in (("CPU", cpu), ("GPU", gpu)) if x)
    ours = ours or "not timed"
    return {
        "where": "\\S1", "claim": "$d=11$ within eight seconds with 2000 simulations per hypercube",
        "ours": (f"paper's Table {paper_table_number(r['table'])} ($K={r['K']}$, $M={r['M']}$): CPU {r['cpu_s']:.2f} s,"
                 f" GPU {r['gpu_s']:.2f} s; ours: {ours}"),
        "verdict": ("the text agrees with its own table for the GPU time only (its CPU time is above eight seconds)"
                    if r["gpu_s"] <= 8 < r["cpu_s"] else
                    ("the text agrees with its own table" if r["gpu_s"] <= 8 else "not supported by its own table"))
        + "; ours measure other hardware",
        "outcome": TEXT_VS_TABLE,  # judged on the paper's table: our times are of other machines
        "sources": [REFERENCE_SOURCE, *[x["_path"] for x in (cpu, gpu) if x]],
    }


# --- rendering ------------------------------------------------------------------------------------------
def fmt_bytes(b) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= size:
            v = b / size
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:.0f} {unit}"
    return f"{int(b)} B"


def fmt_slope(x) -> str:
    return "--" if x is None else f"{x:.2f}"


def _env(template_dir):

    env = jinja_env(template_dir)
    env.filters.update(bytes=fmt_bytes, slope=fmt_slope)
    return env


def render_paper_tables(timing_files, gpu_files, template_dir, out):
    """tables/paper_tables_1_2.tex: the paper's Tables 1 and 2 (exponents and bytes per row), and SRMDP's
    measured peak host memory against the model per timed row."""

    times = index_results(list(timing_files))
    ours = {k: best_timing(v, "cpu") for k, v in times.items()}
    cost = cost_model({k: v["seconds_per_run"] for k, v in ours.items() if v})
    for r in cost:
        r["sources"] = [v["_path"] for (t, _), v in sorted(ours.items()) if v and t == r["table"]]
    hw = "; ".join(sorted({hw_short(v) for v in ours.values() if v})) or "none timed"
    gpu_mem = measured_gpu_memory(gpu_files)
    text = _env(template_dir).get_template("paper_tables_1_2.tex.j2").render(
        cost=cost, mem_exp=memory_exponents(), mem=memory_model(), ours_hw=hw,
        measured=measured_memory(timing_files), compiled_seconds=COMPILED_SECONDS, d19=d19_memory(),
        measured_gpu=gpu_mem, gpu_fix=GPU_USED_FIX, gpu_valid=[r for r in gpu_mem if r["used"] is not None],
        gpu_invalid=gpu_invalid_counts(gpu_files))
    write_text(out, text)


def all_claims(timing_files, gpu_files, multicore_files=(), likeforlike_files=(), campaign_files=()) -> list:
    """Every numeric claim of the text, recomputed or measured (``multicore_files``: the 1-thread and all-core
    timings of rule multicore and those measured elsewhere; ``likeforlike_files``: rule likeforlike's)."""
    times = index_results(list(timing_files) + list(gpu_files))
    gpu = []
    for p in gpu_files:
        res = load(p)
        res["_path"] = str(p)
        gpu.append(res)
    camp = index_results(list(campaign_files))
    timed = [d11_claim(times), multicore_claim(multicore_files, camp)] + speedup_claims(
        index_results(list(timing_files)), index_results(list(likeforlike_files)), camp)
    return text_claims(gpu, measured_gpu_memory(gpu_files)) + [dict(c, group="time") for c in timed]


CLAIM_OUTCOMES = ("held", "not held", "text = its table", "not checked")
TEXT_VS_TABLE = "text = its table"


def claim_outcome(claim) -> str:
    """How a claim is scored, by our own measurements or recomputations only: ``held``, ``not held`` (qualified or
    contradicted), ``text = its table`` (the paper's text checked against its own table: a consistency of the
    paper, never counted as held) or ``not checked`` (nothing of ours measures it; its verdict says what would)."""
    if claim.get("outcome"):
        return claim["outcome"]
    verdict = claim["verdict"].strip().lower()
    if verdict.startswith("not checked") or "not measured" in verdict:
        return "not checked"
    return "held" if verdict.startswith(("agrees", "true")) else "not held"


def render_claims(timing_files, gpu_files, template_dir, out, multicore_files=(), likeforlike_files=(),
                  campaign_files=()):
    """tables/claims.tex: every numeric claim of the text (:func:`all_claims`)."""
    claims = [dict(c, outcome=claim_outcome(c))
              for c in all_claims(timing_files, gpu_files, multicore_files, likeforlike_files, campaign_files)]
    write_text(out, _env(template_dir).get_template("claims.tex.j2").render(claims=claims))


def lsmdp_model(plan, lsmdp_files, summaries, timings):
    """Rows of the LSMDP-vs-SRMDP table: same case, LSMDP measured here, SRMDP from the preset's summaries."""

    sums = index_results(list(summaries))
    times = index_results(list(timings))
    reading = plan.reading(plan.lsmdp_reading)
    rows = []
    for p in lsmdp_files:
        res = load(p)
        case = res["case"]
        key = (case["table"], int(case["row"]))
        srm = next((x for x in sums.get(key, []) if matches(x, reading)), None)
        tim = best_timing(times.get(key, []), "cpu")
        row = {"table": case["table"], "number": paper_table_number(case["table"]), "row": case["row"],
               "d": case["d"], "dt": f"{case['dt']:g}", "cells": case["cells"], "K": case["strata"],
               "M": case["paths"], "P": res["paths_total"], "sources": [str(p)],
               "lsmdp": {**{k: res[k] for k in INDICATORS}, **{k + "_se": res[k + "_se"] for k in INDICATORS},
                         "runs": res["runs"], "seconds": res["seconds_per_run"], "peak": res["peak_traced_bytes"],
                         "model": res["model_bytes"], "rss": res["peak_rss_bytes"]},
               "srmdp": None}
        if srm is not None:
            row["srmdp"] = {**{k: srm[k] for k in INDICATORS}, **{k + "_se": srm[k + "_se"] for k in INDICATORS},
                            "runs": srm["runs"], "seconds": tim["seconds_per_run"] if tim else None,
                            "peak": res["srmdp_peak_traced_bytes"], "model": res["srmdp_model_bytes"]}
            row["sources"] += [srm["_path"]] + ([tim["_path"]] if tim else [])
        rows.append(row)
    return {"rows": rows, "reading": plan.lsmdp_reading, "describe": reading.describe()}


def render_lsmdp(plan, lsmdp_files, summaries, timings, template_dir, out):

    ctx = lsmdp_model(plan, lsmdp_files, summaries, timings)
    ctx["reading"] = tex_escape(ctx["reading"])
    write_text(out, _env(template_dir).get_template("lsmdp.tex.j2").render(**ctx))
