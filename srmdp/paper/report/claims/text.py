"""The numeric claims of the paper's text, each recomputed or measured: one record per claim.

A claim is a dict: ``where`` (section or table), ``claim`` (the paper's words), ``ours`` (our number),
``verdict``, ``group`` (memory, profiler, time), ``sources`` and, where it is fixed, ``outcome``
(:func:`claim_outcome` scores the others).  The memory and profiler claims are :mod:`srmdp.paper.report.claims.memory`;
here are the time claims (speed-ups, multi-core, d = 11), measured by the timing results and the GPU campaign's
summaries, and :func:`all_claims`, every claim in the table's order.  Rendered by
:mod:`srmdp.paper.report.claims.tables`.
"""

from __future__ import annotations

from ...inputs.index import best_timing, index_results, load, machine_of
from ...inputs.results import (
    device_words,
    gpu_timing,
    like_ratio,
    precision_words,
    storage_of,
    threads_of,
    timing_of,
    timing_words,
)
from ...inputs.rows import REFERENCE_SOURCE, paper_rows, paper_table_number
from .measured import measured_gpu_memory
from .memory import TEXT_VS_TABLE, text_claims

# The GPU speed-ups quoted in the paper's §5 text (table ids and the number as printed).
TEXT_SPEEDUPS = (
    ("LP0d4", 18.90),
    ("LP0d6_0", 15.93),
    ("LP0d6_1", 14.85),
    ("LP0d11", 13.35),
    ("LP1d4", 8.05),
    ("LP1d6_1", 6.13),
    ("LP1d11", 5.63),
    (("LP1d12", "LP1d13", "LP1d14", "LP1d15_19"), 5.67),
)


PAPER_HARDWARE = "the paper: 24 threads of two 2013 Xeon E5-2620 v2 against a 2014 GTX TITAN Black, float32"


def _like_for_like(rows, like, camp):
    """The largest all-core CPU / GPU time ratio over ``rows`` where the CPU job (rule likeforlike) ran in the
    storage precision and reading of a GPU campaign summary (:func:`srmdp.paper.inputs.results.gpu_timing`, the timing
    Figure 1 uses), with its range over the runs of each side (:func:`srmdp.paper.inputs.results.like_ratio`):
    (text, sources) or None."""

    best = None
    for r in rows:
        for cpu in like.get((r["table"], r["row"]), []):
            gpu = gpu_timing(camp.get((r["table"], r["row"]), []), cpu, storage_of(cpu))
            if gpu is not None and cpu.get("seconds_per_run"):
                ratio = like_ratio(cpu, gpu)
                if best is None or ratio[0] > best[0][0]:
                    best = (ratio, r, cpu, gpu)
    if best is None:
        return None
    (ratio, lo, hi), r, cpu, gpu = best
    spread = "?" if lo is None else f"{lo:.1f}"
    spread += "--" + ("?" if hi is None else f"{hi:.1f}")
    same = (
        precision_words(cpu)
        if precision_words(cpu) == precision_words(gpu)
        else f"CPU {precision_words(cpu)}, GPU {precision_words(gpu)}"
    )
    return (
        rf"like for like {ratio:.1f} (run to run {spread}) at $\Delta t={r['dt']:g}$:"
        f" {device_words(cpu)}, all {threads_of(cpu)} threads, {timing_words(cpu)}, against"
        f" {device_words(gpu)}, {timing_words(gpu)}; same reading, both {same}; what differs: {threads_of(cpu)}"
        " CPU cores against a whole GPU, and the hardware generation",
        [cpu["_path"], gpu["_path"]],
    )


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
            text = (
                rf"{su:.1f} at $\Delta t={r['dt']:g}$"
                + ("" if len(tables) == 1 else f", $d={r['d']}$")
                + f" ({device_words(cpu)}, {threads_of(cpu)} thread, {precision_words(cpu)};"
                f" {device_words(gpu)}, {precision_words(gpu)}, {timing_words(gpu)}): not like-for-like"
            )
            sources = [cpu["_path"], gpu["_path"]]
        fair = _like_for_like(rows, like, camp)
        if fair is not None:
            text = fair[0] if text == "--" else f"{text}; {fair[0]}"
            sources += fair[1]
        names = ", ".join(t.replace("_", r"\_") for t in tables)
        out.append(
            {
                "where": r"\S5, " + ", ".join(f"T.{paper_table_number(t)}" for t in tables),
                "claim": f"GPU speed-up reaches {quoted:.2f} ({names})",
                "ours": f"paper's table: {best['cpu_s'] / best['gpu_s']:.2f}; ours: {text}",
                "verdict": (
                    "the text agrees with its own table"
                    if abs(best["cpu_s"] / best["gpu_s"] - quoted) < 0.01 + 1e-9
                    else f"the text differs from its own table ({best['cpu_s'] / best['gpu_s']:.2f})"
                )
                + f"; {PAPER_HARDWARE}; ours measure other hardware"
                + ("" if ours or fair else f"; {SPEEDUP_CHECK}"),
                "outcome": TEXT_VS_TABLE,
                "sources": [REFERENCE_SOURCE, *sources],
            }
        )
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
        host = (
            f"{machine[0] or '?'} CPUs {model}: {one['seconds_per_run']:.2f}$\\to${all_['seconds_per_run']:.2f}"
            f" s/run on {many}, ${su:.2f}\\times$ ({su / many:.2f}/thread)"
        )
        rows_seen.setdefault(row, []).append(host)
        gpu = gpu_timing((camp or {}).get(key, []), all_)
        if gpu is not None:  # the same row and reading on the GPU: the speed-up against all of this host's cores
            rows_seen[row][-1] += (
                f", {device_words(gpu)[4:]} ${all_['seconds_per_run'] / timing_of(gpu)[0]:.1f}\\times$ faster"
            )
            gpus.add(f"{device_words(gpu)}: {precision_words(gpu)}")
            sources.append(gpu["_path"])
        sources += [one["_path"], all_["_path"]]
    parts = [f"{row}: " + "; ".join(hs) for row, hs in rows_seen.items()]  # one entry per row, its hosts
    paper_eff = PAPER_SPEEDUP_CPU / PAPER_THREADS_CPU
    not_measured = (
        f"the paper's {PAPER_THREADS_CPU} threads were not measured"
        if any(n and n >= 16 for n, _ in hosts)
        else f"the paper's {PAPER_THREADS_CPU} threads, and the 16 CPU cores of our GPU host, were not measured"
    )
    if not parts:
        return {
            "where": MULTICORE_WHERE,
            "claim": MULTICORE_TEXT,
            "ours": f"not measured in this preset (rule multicore); {not_measured}",
            "verdict": f"not checked; {MULTICORE_CHECK}",
            "sources": [REFERENCE_SOURCE],
        }
    eff = f"{effs[0]:.2f}" if len(effs) == 1 else f"{min(effs):.2f}--{max(effs):.2f}"
    precs = "; ".join(sorted(gpus))
    return {
        "where": MULTICORE_WHERE,
        "claim": MULTICORE_TEXT,
        "ours": "each job alone on its host; "
        + "; ".join(parts)
        + (f" ({precs})" if precs else "")
        + f"; {not_measured}",
        "verdict": (
            f"not checked at {PAPER_THREADS_CPU} threads; efficiency here {eff} per thread (the paper's"
            f" {PAPER_SPEEDUP_CPU:g}/{PAPER_THREADS_CPU} = {paper_eff:.2f} per thread); {MULTICORE_CHECK}"
        ),
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
        "where": "\\S1",
        "claim": "$d=11$ within eight seconds with 2000 simulations per hypercube",
        "ours": (
            f"paper's Table {paper_table_number(r['table'])} ($K={r['K']}$, $M={r['M']}$): CPU {r['cpu_s']:.2f} s,"
            f" GPU {r['gpu_s']:.2f} s; ours: {ours}"
        ),
        "verdict": (
            "the text agrees with its own table for the GPU time only (its CPU time is above eight seconds)"
            if r["gpu_s"] <= 8 < r["cpu_s"]
            else ("the text agrees with its own table" if r["gpu_s"] <= 8 else "not supported by its own table")
        )
        + "; ours measure other hardware",
        "outcome": TEXT_VS_TABLE,  # judged on the paper's table: our times are of other machines
        "sources": [REFERENCE_SOURCE, *[x["_path"] for x in (cpu, gpu) if x]],
    }


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
        index_results(list(timing_files)), index_results(list(likeforlike_files)), camp
    )
    return text_claims(gpu, measured_gpu_memory(gpu_files)) + [dict(c, group="time") for c in timed]


CLAIM_OUTCOMES = ("held", "not held", TEXT_VS_TABLE, "not checked")


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
