"""The results index of the report: result files by paper row, the best timing, hardware labels, pooled chunks.

Every number the report prints comes from a result JSON written by ``srmdp run`` / ``srmdp aggregate`` (or,
for the paper's columns, from the package's ``srmdp/data/paper_cases.csv``); each rendered row carries a
``% source:`` comment naming the files it was read from, so tests can trace it back.  Which reading a
result was run under is decided by :func:`srmdp.case.readings.matches`, the one matcher of the package.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from ...case.readings import matches
from ...case.results import read_json
from ...numerics.indicators import INDICATORS
from .rows import canonical_table, paper_rows

# --- reading results ----------------------------------------------------------------------------
load = read_json  # a result file's JSON


def hardware_label(res: dict) -> str:
    hw = (res.get("provenance") or {}).get("hardware") or {}
    model = hw.get("model") or "unknown model"
    precision = (res.get("case") or {}).get("precision")
    prec = f", {precision}" if precision else ""
    if res.get("device") == "gpu":
        return f"GPU {model}{prec}"
    threads = hw.get("threads")
    return f"CPU {model}" + (f", {threads} thread{'' if threads == 1 else 's'}" if threads else "") + prec


def device_short(res) -> str:
    """The device in a few words: ``H100``, ``EPYC 2c``, ``Xeon 16c`` (GPU model, or CPU family and logical CPUs)."""
    prov = res.get("provenance") or {}
    model = str((prov.get("hardware") or {}).get("model") or "?")
    if res.get("device") == "gpu" or "+" in str(res.get("device")):
        return next((w for w in model.split() if any(ch.isdigit() for ch in w)), model)
    family = next((w for w in ("EPYC", "Xeon", "Ryzen", "Core") if w in model), model.split()[0])
    return f"{family} {prov.get('cpus') or '?'}c"


def hw_short(res):
    """A short hardware label: ``GPU: model, precision`` or ``CPU: model, T threads, precision``."""
    hw = (res.get("provenance") or {}).get("hardware") or {}
    model = str(hw.get("model") or "?")
    prec = (res.get("case") or {}).get("precision") or "?"
    if res.get("device") == "gpu":
        return f"GPU: {model}, {prec}"
    threads = hw.get("threads", "?")
    return f"CPU: {model.split('@')[0].strip()}, {threads} thread{'' if threads == 1 else 's'}, {prec}"


def index_results(paths):
    """{(table, row): [result, ...]} for result/summary files that name a paper row."""
    out = defaultdict(list)
    for p in paths:
        res = load(p)
        if not isinstance(res, dict) or not isinstance(res.get("case"), dict):
            continue  # not a result file
        res["_path"] = str(p)
        case = res.get("case", {})
        if case.get("table"):  # files written before the rename say LP1d6 for the paper's LP1d6_1
            out[(canonical_table(case["table"]), int(case["row"]))].append(res)
    return out


def machine_of(res: dict) -> str:
    """The machine a result was measured on, as one key: host name, logical CPUs and CPU or GPU model.

    The host name alone does not tell machines apart (virtual machines are often all called ``vm``): a
    16-core Xeon host and a 2-core EPYC one with the same name get different keys."""
    prov = res.get("provenance") or {}
    hw = prov.get("hardware") or {}
    model = str(hw.get("model") or "?").split("@")[0].strip()
    return f"{prov.get('host') or '?'}/{prov.get('cpus') or '?'} CPUs/{model}"


def best_timing(results, device):
    """The fastest timing of ``device`` among results (seconds per run, the mean over its runs)."""
    cands = [r for r in results if r.get("device") == device and r.get("seconds_per_run")]
    if not cands:
        return None
    return min(cands, key=lambda r: r["seconds_per_run"])


# --- lines of the pooled chunks of data/gpu/ (GPU campaign) ----------------------------------------------
def campaign_label(res, reading_name) -> str:
    """``ours (GPU, R runs, reading)``; the device set and a precision other than float32 are named."""
    dev = str(res.get("device") or "gpu").upper()
    prec = (res.get("case") or {}).get("precision")
    extra = "" if prec in (None, "float32") else f" {prec}"
    runs = res.get("runs")
    return f"ours ({dev}{extra}, {runs} run{'' if runs == 1 else 's'}, {reading_name})"


def campaign_kind(res):
    """What tells two campaign lines of a row apart besides the reading (device set, precision, streams)."""
    case = res.get("case") or {}
    return (str(res.get("device")), case.get("precision"), res.get("seed"), res.get("test_points"))


def campaign_entries(plan, results, readings=None):
    """The lines of one paper row from summaries of pooled data/gpu/ chunks, in the preset's reading order.

    ``readings``: those to match (default: the paper's, :func:`paper_readings`).  A run set that matches none of
    them exactly but the first (the fit reading, paper-fit) in another path arithmetic (the GPU campaign's
    float32-arithmetic paper-fit runs, the paper's precision) is a run set of that reading too: the two arithmetics
    are never pooled, and of the run sets of one reading and kind (device set, storage, seed, test points) the one
    with the most runs is the line (the float64 one on a tie); its ``arithmetic`` is given (the tables print it
    with the precision)."""
    readings = plan.paper_readings if readings is None else list(readings)
    names = [r.name for r in readings]
    out = []
    for res in results:
        name = next((r.name for r in readings if matches(res, r)), None)
        arith = (res.get("reading") or {}).get("arithmetic") or "float64"
        if name is None and readings and matches(res, replace(readings[0], arithmetic=arith)):
            name = readings[0].name  # the fit reading (the config's first, paper-fit) in another arithmetic
        if name is None:
            continue
        e = {
            "name": name,
            "label": campaign_label(res, name),
            "runs": res["runs"],
            "test_points": res["test_points"],
            "sources": [res["_path"]],
            "kind": campaign_kind(res),
            "device": str(res.get("device") or "gpu"),
            "precision": (res.get("case") or {}).get("precision"),
            "model": device_short(res),
            "seconds": res.get("seconds_per_run"),
            "arithmetic": arith,
        }
        e.update({k: res.get(k) for k in INDICATORS})
        e.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
        out.append(e)
    best: dict = {}
    for e in out:  # one run set per reading and kind: the most runs, float64 arithmetic on a tie
        key = (e["name"], str(e["kind"]))
        if key not in best or (e["runs"], e["arithmetic"] == "float64") > (
            best[key]["runs"],
            best[key]["arithmetic"] == "float64",
        ):
            best[key] = e
    out = list(best.values())
    out.sort(key=lambda e: (names.index(e["name"]), str(e["kind"])))
    return out


def case_label(r) -> str:
    """Short label of a paper row: table and dt, or M / d where dt does not tell the rows apart."""
    same = [x for x in paper_rows() if x["table"] == r["table"] and x["dt"] == r["dt"]]
    if len(same) == 1:
        return f"{r['table']} {r['dt']:g}"
    if len({x["d"] for x in same}) > 1:
        return f"LP1 d{r['d']}"
    if len({x["cells"] for x in same}) > 1:
        return f"{r['table']} #C{r['cells']}"
    return f"{r['table']} M{r['M']}"
