"""What a result file says about itself, named for the paper: its precisions, its device, its timing, its run
indices.

The facts (storage and arithmetic precision, threads, run indices and run key, timing) are the run result's own
(:class:`srmdp.runs.facts.ResultFacts`: :class:`srmdp.runs.result.RunResult`'s properties, read of a result held
as its JSON object through :func:`srmdp.runs.facts.facts_of`); here they are named as the paper reads them, with
what the paper composes of them: the precisions in a few words, the device in a few words (:func:`device_words`:
a summary written before the provenance recorded the host's logical CPUs, ``cpus``, is named by the threads it
used, never with a "?"), CPU/GPU twins (:func:`twins`: the same row, reading and random streams) and the GPU
timing of a row.
"""

from __future__ import annotations

from ...case.readings import reading_of, same_reading  # the package's one reading matcher
from ...runs.facts import facts_of


def storage_of(res) -> str:
    """The coefficients' precision (the case's ``precision``; float64 when absent)."""
    return facts_of(res).storage


def arithmetic_of(res) -> str:
    """The path arithmetic's precision: the reading's ``arithmetic`` field, float64 for results written before it."""
    return facts_of(res).arithmetic


SHORT = {"float32": "f32", "float64": "f64"}


def precision_short(res) -> str:
    """``f64`` where storage and arithmetic agree, else ``f32 st./f64 ar.``; float32 path arithmetic is
    ``f32 ar./f64 sums`` (its sums over paths and solves stay float64)."""
    st, ar = storage_of(res), arithmetic_of(res)
    if ar == "float32":
        return f"{SHORT.get(st, st)} st./f32 ar./f64 sums"
    if st == ar:
        return SHORT.get(st, st)
    return f"{SHORT.get(st, st)} st./{SHORT.get(ar, ar)} ar."


def precision_words(res) -> str:
    """``float64`` or ``float32 storage, float64 arithmetic``; float32 path arithmetic keeps its sums over paths and
    its solves in float64 (srmdp.numerics.scheme), and says so: it is not the paper's float32 throughout."""
    st, ar = storage_of(res), arithmetic_of(res)
    if ar == "float32":
        return f"{st} storage, float32 path arithmetic (sums and solves in float64)"
    return st if st == ar else f"{st} storage, {ar} arithmetic"


def threads_of(res):
    return facts_of(res).threads


def device_words(res) -> str:
    """``GPU H100``, ``CPU EPYC 2c`` (family and logical CPUs of the host) or, where the result predates the
    record of the host's CPUs, ``CPU EPYC 1 thr`` (the threads it used)."""
    prov = res.get("provenance") or {}
    model = str(facts_of(res).hardware.get("model") or "?")
    if res.get("device") == "gpu" or "+" in str(res.get("device")):
        return "GPU " + next((w for w in model.split() if any(ch.isdigit() for ch in w)), model)
    family = next((w for w in ("EPYC", "Xeon", "Ryzen", "Core") if w in model), model.split()[0])
    if prov.get("cpus"):
        return f"CPU {family} {prov['cpus']}c"
    thr = threads_of(res)
    return f"CPU {family} {thr} thr" if thr else f"CPU {family}"


def run_indices(res) -> tuple:
    """The run indices a result covers (:attr:`srmdp.runs.facts.ResultFacts.run_indices`)."""
    return facts_of(res).run_indices


def run_key(res) -> tuple:
    """Results with the same key used the same random streams: seed, test points, run indices."""
    return facts_of(res).run_key


def timing_of(res):
    """(seconds per run: the mean over the runs, the fastest run's) or None."""
    return facts_of(res).timing


def slowest_of(res):
    """The slowest run's seconds (:attr:`srmdp.runs.facts.ResultFacts.slowest`; None where not recorded)."""
    return facts_of(res).slowest


CPU_EQ_GPU_TOL = 1e-6  # a CPU and a GPU value of the same runs within this of each other are one line
INDICATOR_KEYS = ("mse_y_max", "mse_y_av", "mse_z_av")


def same_reading_as(a, b) -> bool:
    """Whether two results were run under the same reading (the package's matcher)."""
    return same_reading(reading_of(a), reading_of(b))


def twins(a, b) -> bool:
    """A CPU and a GPU result of the same row, reading and random streams whose indicators agree to 1e-6."""
    if {str(a.get("device")), str(b.get("device"))} != {"cpu", "gpu"}:
        return False
    if (a.get("case") or {}).get("row") != (b.get("case") or {}).get("row") or not same_reading_as(a, b):
        return False
    if run_key(a) != run_key(b):
        return False
    return all(
        a.get(k) is not None and b.get(k) is not None and abs(a[k] - b[k]) <= CPU_EQ_GPU_TOL for k in INDICATOR_KEYS
    )


def merge_twins(results) -> list:
    """The results of one paper row, each thing once: of CPU/GPU twins (:func:`twins`) the GPU result is kept,
    with ``_twin`` naming the CPU result's file and ``_device`` = ``CPU = GPU``."""
    results = list(results)
    out, dropped = [], set()
    for i, a in enumerate(results):
        if i in dropped:
            continue
        for j in range(i + 1, len(results)):
            if j not in dropped and twins(a, results[j]):
                gpu, cpu = (a, results[j]) if a.get("device") == "gpu" else (results[j], a)
                a = dict(
                    gpu,
                    _twin=cpu.get("_path"),
                    _device="CPU = GPU",
                    _twin_precision=precision_short(cpu),
                    _twin_words=precision_words(cpu),
                )
                dropped.add(j)
                break
        out.append(a)
    return out


def gpu_timing(results, like=None, storage=None):
    """The one GPU timing of a paper row: among ``results`` (campaign summaries of that row) on the GPU, under the
    reading and arithmetic of ``like`` (a result) and in storage precision ``storage``, the one with the most runs;
    None if none.  Table R6 and Figure 1 both read it."""
    cands = [
        r
        for r in results
        if r.get("device") == "gpu"
        and timing_of(r)
        and (like is None or (same_reading_as(r, like) and arithmetic_of(r) == arithmetic_of(like)))
        and (storage is None or storage_of(r) == storage)
    ]
    return max(cands, key=lambda r: (int(r.get("runs") or 0), -timing_of(r)[0])) if cands else None


def like_ratio(cpu, gpu):
    """CPU seconds per run over GPU seconds per run: (the ratio of the means, the smallest and the largest ratio
    of a CPU run to a GPU run); an end is None where a side's slowest run is not recorded (:func:`slowest_of`)."""
    (cm, cf), (gm, gf) = timing_of(cpu), timing_of(gpu)
    cs, gs = slowest_of(cpu), slowest_of(gpu)
    return cm / gm, None if gs is None else cf / gs, None if cs is None else cs / gf


def timing_words(res) -> str:
    """``0.0754 s/run (0.0743--0.0781, 11 runs)``: the mean, the fastest and slowest run (:func:`slowest_of`; the
    fastest alone where the slowest is not recorded) and the runs."""
    mean, fastest = timing_of(res)
    runs = int(res.get("runs") or 1)
    if runs < 2:
        return f"{mean:.3g} s/run (1 run)"
    slowest = slowest_of(res)
    spread = f"fastest {fastest:.3g}" if slowest is None else f"{fastest:.3g}--{slowest:.3g}"
    return f"{mean:.3g} s/run ({spread}, {runs} runs)"
