"""Tables and figures of the reproduction report, from result files only.

Every number we print comes from a result JSON written by ``srmdp run`` / ``srmdp aggregate`` (or,
for the paper's columns, from ``config/paper_cases.csv``); each rendered row carries a
``% source:`` comment naming the files it was read from, so tests can trace it back.

Templates are Jinja2 with LaTeX-safe delimiters: ``\\VAR{...}`` for values, ``\\BLOCK{...}`` for
statements, ``\\#{...}`` for comments, rendered with ``StrictUndefined`` (a missing value fails).
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path

from .cases import canonical_table, paper_rows, paper_table_number, table_ids

INDICATORS = ("mse_y_max", "mse_y_av", "mse_z_av")
INDICATOR_TEX = {"mse_y_max": r"$\mathrm{MSE}_{Y,\max}$", "mse_y_av": r"$\mathrm{MSE}_{Y,\mathrm{av}}$",
                 "mse_z_av": r"$\mathrm{MSE}_{Z,\mathrm{av}}$"}
INDICATOR_LN_TEX = {k: r"$\ln" + v[1:] for k, v in INDICATOR_TEX.items()}  # axis labels: ln MSE_...
TABLE_TITLES = {
    "LP0d4": "LP0, $d=4$, $\\#C=\\lfloor 4\\sqrt N\\rfloor$, $M=N^2$",
    "LP0d6_0": "LP0, $d=6$, $\\#C=\\lfloor\\sqrt N\\rfloor$, $M=N^2$",
    "LP0d6_1": "LP0, $d=6$, $\\#C=\\lfloor 2\\sqrt N\\rfloor$, $M=N^2$",
    "LP0d11": "LP0, $d=11$, $\\#C=\\lfloor\\sqrt N\\rfloor$, $M=N^2$",
    "LP1d4": "LP1, $d=4$, $\\#C=\\lfloor 3\\sqrt{d\\sqrt N}-5\\rfloor$, $M=(d+1)N^2$",
    "LP1d6_1": "LP1, $d=6$, $\\#C=\\lfloor 1.5\\sqrt{d\\sqrt N}-3\\rfloor$, $M=(d+1)N^2$",
    "LP1d11": "LP1, $d=11$, $\\Delta t=0.2$",
    "LP1d12": "LP1, $d=12$, $\\Delta t=0.2$",
    "LP1d13": "LP1, $d=13$, $\\Delta t=0.2$",
    "LP1d14": "LP1, $d=14$, $\\Delta t=0.2$",
    "LP1d15_19": "LP1, $d=15\\ldots19$, $\\Delta t=0.2$, $\\#C=2$",
}


# --- formatting (also used by the tests to trace numbers back) ----------------------------------
def fmt_value(x, digits=3) -> str:
    return "--" if x is None else f"${x:.{digits}f}$"


def fmt_pm(x, se, digits=3) -> str:
    if x is None:
        return "--"
    if se is None or (isinstance(se, float) and not math.isfinite(se)):
        return f"${x:.{digits}f}$"
    return f"${x:.{digits}f}\\pm{se:.{digits}f}$"


def fmt_paper_seconds(s) -> str:
    """The paper's times as it prints them: two decimals (0.20, 171.92, 58066.33)."""
    return "--" if s is None else f"{s:.2f}"


def fmt_seconds(s) -> str:
    """Our times: two decimals from 1 s up (as the paper), three significant digits below (0.00273)."""
    if s is None:
        return "--"
    if s >= 1:
        return f"{s:.2f}"
    return f"{s:.3g}"


def fmt_sigma(z) -> str:
    """A difference in units of its standard error: ``$-1.8\\,\\sigma$``, bold beyond 3."""
    if z is None:
        return "--"
    text = f"{z:+.1f}"
    return f"$\\mathbf{{{text}}}\\,\\sigma$" if abs(z) > 3 else f"${text}\\,\\sigma$"


def fmt_z(z) -> str:
    if z is None:
        return "--"
    text = f"{z:+.1f}"
    return f"$\\mathbf{{{text}}}$" if abs(z) > 3 else f"${text}$"


def tex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        text = text.replace(a, b)
    return text


def jinja_env(template_dir):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix="%%",
        line_comment_prefix="%#",
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(pm=fmt_pm, value=fmt_value, seconds=fmt_seconds, paper_seconds=fmt_paper_seconds, z=fmt_z,
                       sigma=fmt_sigma, tex=tex_escape)
    return env


# --- reading results ----------------------------------------------------------------------------
def load(path):
    with open(path) as fh:
        return json.load(fh)


def hardware_label(res: dict) -> str:
    hw = (res.get("provenance") or {}).get("hardware") or {}
    model = hw.get("model") or "unknown model"
    precision = (res.get("case") or {}).get("precision")
    prec = f", {precision}" if precision else ""
    if res.get("device") == "gpu":
        return f"GPU {model}{prec}"
    threads = hw.get("threads")
    return f"CPU {model}" + (f", {threads} thread{'' if threads == 1 else 's'}" if threads else "") + prec


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


def _reading_of(res):
    r = res.get("reading") or {}
    return (r.get("outside"), r.get("trunc_y"), r.get("trunc_z"), bool(r.get("z_cv", False)),
            bool(r.get("martingale_cv", False)))


def _matches(res, reading) -> bool:
    """A result was run under ``reading``: outside, truncations and the control variates (absent = off)."""
    want = (reading.outside, reading.trunc_y, reading.trunc_z)
    got = _reading_of(res)
    if got[3:] != (bool(getattr(reading, "z_cv", False)), bool(getattr(reading, "martingale_cv", False))):
        return False
    return got[0] == want[0] and all(
        (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b))
        for a, b in zip(got[1:3], want[1:], strict=True))


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


def _campaign_kind(res):
    """What tells two campaign lines of a row apart besides the reading (device set, precision, streams)."""
    case = res.get("case") or {}
    return (str(res.get("device")), case.get("precision"), res.get("seed"), res.get("test_points"))


def paper_readings(plan) -> list:
    """The preset's readings of the paper's scheme (Z control variate off): the paper's tables and agreement."""
    return [r for r in plan.readings if not getattr(r, "z_cv", False)]


def campaign_entries(plan, results, readings=None):
    """The lines of one paper row from summaries of pooled data/gpu/ chunks, in the preset's reading order.

    ``readings``: those to match (default: the paper's, :func:`paper_readings`)."""
    readings = paper_readings(plan) if readings is None else list(readings)
    names = [r.name for r in readings]
    out = []
    for res in results:
        name = next((r.name for r in readings if _matches(res, r)), None)
        if name is None:
            continue
        e = {"name": name, "label": campaign_label(res, name), "runs": res["runs"], "test_points": res["test_points"],
             "sources": [res["_path"]], "kind": _campaign_kind(res)}
        e.update({k: res.get(k) for k in INDICATORS})
        e.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
        out.append(e)
    out.sort(key=lambda e: (names.index(e["name"]), str(e["kind"])))
    return out


# --- the per-table model --------------------------------------------------------------------------
def table_model(plan, table, summaries, timings, gpu_files, campaign=()):
    """Everything a table template shows: paper rows, our readings, times, hardware, provenance.

    ``campaign``: summaries of the pooled chunks of data/gpu/ (one "ours (GPU, R runs, reading)" line each)."""
    sums = index_results(summaries)
    camp = index_results(campaign)
    times = index_results(list(timings) + list(gpu_files))
    selected = {(s.table, s.row): s for s in plan.selected}
    rows = []
    hardware = {}
    for r in paper_rows():
        if r["table"] != table:
            continue
        key = (table, r["row"])
        ours = []
        sources = []
        for reading in paper_readings(plan):
            res = next((x for x in sums.get(key, []) if _matches(x, reading)), None) if key in selected else None
            entry = {"name": reading.name, "run": res is not None, "sources": []}
            if res is not None:
                sources.append(res["_path"])
                entry["sources"].append(res["_path"])
                entry.update({k: res.get(k) for k in INDICATORS})
                entry.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
                entry["runs"] = res["runs"]
                entry["test_points"] = res["test_points"]
            ours.append(entry)
        cpu = best_timing(times.get(key, []), "cpu")
        gpu = best_timing(times.get(key, []), "gpu")
        time_sources = []
        for t in (cpu, gpu):
            if t is not None:
                sources.append(t["_path"])
                time_sources.append(t["_path"])
                hardware.setdefault(hardware_label(t), len(hardware) + 1)
        rows.append({
            "row": r["row"], "d": r["d"], "dt": f"{r['dt']:g}", "cells": r["cells"], "K": r["K"], "M": r["M"],
            "paper": {k: r[k] for k in (*INDICATORS, "cpu_s", "gpu_s")},
            "ours": ours,
            "run": any(o["run"] for o in ours),
            "cpu_s": cpu["seconds_per_run"] if cpu else None,
            "cpu_hw": hardware.get(hardware_label(cpu)) if cpu else None,
            "gpu_s": gpu["seconds_per_run"] if gpu else None,
            "gpu_hw": hardware.get(hardware_label(gpu)) if gpu else None,
            "sources": sources,
            "time_sources": time_sources,
            "gpu": campaign_entries(plan, camp.get(key, [])),
        })
    return {
        "table": table,
        "number": paper_table_number(table),
        "title": TABLE_TITLES.get(table, tex_escape(table)),
        "label": f"table:{table}",  # the paper's label
        "preset": tex_escape(plan.preset),
        "rows": rows,
        "gpu_lines": any(r["gpu"] for r in rows),
        "show_d": len({r["d"] for r in rows}) > 1,
        "readings": [{"name": tex_escape(x.name), "describe": x.describe()} for x in paper_readings(plan)],
        "hardware": [{"mark": n, "label": tex_escape(h)} for h, n in sorted(hardware.items(), key=lambda kv: kv[1])],
    }


def render_table(plan, table, summaries, timings, gpu_files, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    model = table_model(plan, table, summaries, timings, gpu_files, campaign)
    text = env.get_template("table.tex.j2").render(**model)
    _write(out, text)


def agreement_model(plan, summaries, campaign=()):
    sums = index_results(summaries)
    rows = []
    for s in plan.selected:
        paper = next(r for r in paper_rows() if r["table"] == s.table and r["row"] == s.row)
        cells = []
        dmax = []  # per reading: the largest |ours - paper| over the three indicators
        sources = []
        for reading in paper_readings(plan):
            res = next((x for x in sums.get((s.table, s.row), []) if _matches(x, reading)), None)
            diffs = []
            for k in INDICATORS:
                z = None
                if res is not None and res.get(k) is not None and res.get(k + "_se"):
                    z = (res[k] - paper[k]) / res[k + "_se"]
                if res is not None and res.get(k) is not None:
                    diffs.append(abs(res[k] - paper[k]))
                cells.append(z)
            dmax.append(max(diffs) if diffs else None)
            if res is not None:
                sources.append(res["_path"])
        rows.append({"table": tex_escape(s.table), "row": s.row, "d": paper["d"], "dt": f"{paper['dt']:g}",
                     "z": cells, "dmax": dmax, "sources": sources})
    camp = index_results(campaign)
    for paper in paper_rows():  # the pooled data/gpu/ chunks: one line per row and kind (device set, precision)
        entries = campaign_entries(plan, camp.get((paper["table"], paper["row"]), []))
        for kind in sorted({e["kind"] for e in entries}, key=str):
            mine = [e for e in entries if e["kind"] == kind]
            cells, sources, dmax = [], [], []
            for reading in paper_readings(plan):
                e = next((x for x in mine if x["name"] == reading.name), None)
                diffs = []
                for k in INDICATORS:
                    ok = e is not None and e.get(k) is not None and e.get(k + "_se")
                    cells.append((e[k] - paper[k]) / e[k + "_se"] if ok else None)
                    if e is not None and e.get(k) is not None:
                        diffs.append(abs(e[k] - paper[k]))
                dmax.append(max(diffs) if diffs else None)
                if e is not None:
                    sources += e["sources"]
            dev = kind[0].upper() + ("" if kind[1] == "float32" else f" {kind[1]}")
            runs = "/".join(str(x["runs"]) for x in mine)
            runs += " run" if runs == "1" else " runs"
            rows.append({"table": tex_escape(f"{paper['table']} ({dev}, {runs})"), "row": paper["row"],
                         "d": paper["d"], "dt": f"{paper['dt']:g}", "z": cells, "dmax": dmax,
                         "sources": sources})
    return {"rows": rows, "preset": tex_escape(plan.preset),
            "readings": [{"name": tex_escape(x.name), "describe": x.describe()} for x in paper_readings(plan)],
            "indicators": [INDICATOR_TEX[k] for k in INDICATORS]}


def render_agreement(plan, summaries, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    _write(out, env.get_template("agreement.tex.j2").render(**agreement_model(plan, summaries, campaign)))


# --- beyond the paper: the Z control variate (tables/zcv.tex) ----------------------------------------------
def _line(res):
    out = {k: res.get(k) for k in INDICATORS}
    out.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
    out.update(runs=res["runs"], test_points=res["test_points"], sources=[res["_path"]])
    return out


def zcv_model(plan, summaries):
    """Per row run under a reading with the Z control variate: the paper's line, ours without it (the base
    reading: same outside and truncations), ours with it, and their difference (Z: ln of the gain ± s.e.;
    Y: in combined standard errors).  No times: the summaries' seconds come from jobs run at other times
    and loads (the cost is measured apart, bench/zcv.md)."""
    sums = index_results(summaries)
    rows = []
    readings = []
    for zr in plan.zcv_readings:
        base = plan.base_reading(zr)
        readings.append({"name": tex_escape(zr.name), "describe": zr.describe(),
                         "base": tex_escape(base.name) if base else None})
        for s in plan.selected:
            if not zr.runs_row(s.key):
                continue
            paper = next(r for r in paper_rows() if r["table"] == s.table and r["row"] == s.row)
            found = sums.get((s.table, s.row), [])
            on = next((x for x in found if _matches(x, zr)), None)
            off = next((x for x in found if _matches(x, base)), None) if base else None
            row = {"table": tex_escape(s.table), "row": s.row, "d": paper["d"], "dt": f"{paper['dt']:g}",
                   "cells": paper["cells"], "M": paper["M"], "reading": tex_escape(zr.name),
                   "base": tex_escape(base.name) if base else None,
                   "paper": {k: paper[k] for k in INDICATORS},
                   "on": _line(on) if on else None, "off": _line(off) if off else None, "diff": None}
            if on and off:
                diff = {"sources": [off["_path"], on["_path"]]}
                for k in INDICATORS:
                    se = math.hypot(off.get(k + "_se") or 0.0, on.get(k + "_se") or 0.0)
                    diff[k] = on[k] - off[k]
                    diff[k + "_se"] = se
                    diff[k + "_z"] = (on[k] - off[k]) / se if se > 0 else None
                diff["gain"] = math.exp(-diff["mse_z_av"])  # MSE_Z,av without / with
                row["diff"] = diff
            rows.append(row)
    return {"preset": tex_escape(plan.preset), "readings": readings, "rows": rows}


def render_zcv(plan, summaries, template_dir, out):
    env = jinja_env(template_dir)
    _write(out, env.get_template("zcv.tex.j2").render(**zcv_model(plan, summaries)))


def render_preset(plan, template_dir, out):
    env = jinja_env(template_dir)
    ctx = {
        "preset": tex_escape(plan.preset),
        "seed": plan.seed,
        "test_points": plan.test_points,
        "precision": plan.precision,
        "devices": ", ".join(plan.devices),
        "readings": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.readings],
        "tables": [t.replace("_", "-") for t in table_ids()],
        "table_files": list(table_ids()),
        "n_rows": len(plan.selected),
    }
    _write(out, env.get_template("preset.tex.j2").render(**ctx))


def _write(out, text):
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, out)


def case_label(r) -> str:
    """Short label of a paper row: table and dt, or M / d where dt does not tell the rows apart."""
    same = [x for x in paper_rows() if x["table"] == r["table"] and x["dt"] == r["dt"]]
    if len(same) == 1:
        return f"{r['table']} {r['dt']:g}"
    if len({x['d'] for x in same}) > 1:
        return f"LP1 d{r['d']}"
    if len({x["cells"] for x in same}) > 1:
        return f"{r['table']} #C{r['cells']}"
    return f"{r['table']} M{r['M']}"


# --- figures ----------------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "figure.dpi": 120, "savefig.bbox": "tight"})
    return plt


def _save(fig, stem):
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    # fixed metadata so that a rebuild with the same data gives the same files
    fig.savefig(f"{stem}.pdf", metadata={"CreationDate": None, "Producer": "srmdp"})
    fig.savefig(f"{stem}.png", dpi=150, metadata={"Software": "srmdp"})


def figure_speedup(plan, timings, gpu_files, stem):
    """CPU time / GPU time per case: the paper's and ours where we have both times."""
    plt = _pyplot()
    times = index_results(list(timings) + list(gpu_files))
    labels, paper_su, ours_su = [], [], []
    for r in paper_rows():
        key = (r["table"], r["row"])
        labels.append(case_label(r))
        paper_su.append(r["cpu_s"] / r["gpu_s"])
        cpu, gpu = best_timing(times.get(key, []), "cpu"), best_timing(times.get(key, []), "gpu")
        ours_su.append(cpu["seconds_per_run"] / gpu["seconds_per_run"] if cpu and gpu else math.nan)
    fig, ax = plt.subplots(figsize=(10, 3.6))
    x = list(range(len(labels)))
    ax.bar([i - 0.2 for i in x], paper_su, width=0.4, color="#8da0cb",
           label="paper (2x Xeon E5-2620 v2, OpenMP vs GTX TITAN Black)")
    have = [i for i, v in enumerate(ours_su) if math.isfinite(v)]
    if have:
        ax.bar([i + 0.2 for i in have], [ours_su[i] for i in have], width=0.4, color="#fc8d62",
               label="ours (" + "; ".join(sorted({_hw_short(t) for t in _timing_files(timings, gpu_files)})) + ")")
    else:
        ax.text(0.99, 0.03, "no GPU times of ours (none run in this preset, data/gpu/ empty): paper only",
                transform=ax.transAxes, ha="right", fontsize=7)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_yscale("log")
    top = max([*paper_su, *[v for v in ours_su if math.isfinite(v)]])
    ax.set_ylim(top=top * 40)  # room for the legend
    ax.set_ylabel("speed-up = CPU time / GPU time")
    ax.set_xticks(x, labels, rotation=70, ha="right", fontsize=7)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Speed-up of the GPU over the CPU, per case")
    _save(fig, stem)
    plt.close(fig)


def _timing_files(timings, gpu_files):
    return [load(p) for p in list(timings) + list(gpu_files)]


def _hw_short(res):
    hw = (res.get("provenance") or {}).get("hardware") or {}
    model = str(hw.get("model") or "?")
    prec = (res.get("case") or {}).get("precision") or "?"
    if res.get("device") == "gpu":
        return f"GPU: {model}, {prec}"
    threads = hw.get("threads", "?")
    return f"CPU: {model.split('@')[0].strip()}, {threads} thread{'' if threads == 1 else 's'}, {prec}"


def figure_time_vs_k(plan, timings, gpu_files, stem):
    """Seconds per run against the number of strata K, per basis: paper CPU/GPU and ours."""
    plt = _pyplot()
    times = index_results(list(timings) + list(gpu_files))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, basis in zip(axes, ("LP0", "LP1"), strict=False):
        rows = [r for r in paper_rows() if r["basis"] == basis]
        ax.scatter([r["K"] for r in rows], [r["cpu_s"] for r in rows], marker="o", facecolors="none",
                   edgecolors="C0", label="paper CPU")
        ax.scatter([r["K"] for r in rows], [r["gpu_s"] for r in rows], marker="s", facecolors="none",
                   edgecolors="C1", label="paper GPU")
        for dev, col, mk in (("cpu", "C0", "o"), ("gpu", "C1", "s")):
            found = [(r["K"], best_timing(times.get((r["table"], r["row"]), []), dev)) for r in rows]
            found = [(k, t) for k, t in found if t is not None]
            if found:
                hw = "; ".join(sorted({_hw_short(t) for _, t in found}))
                ax.scatter([k for k, _ in found], [t["seconds_per_run"] for _, t in found], marker=mk, color=col,
                           label=f"ours ({hw})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("K (number of strata)")
        ax.set_ylabel("seconds per run")
        ax.set_title(f"{basis}: time vs K")
        ax.legend(fontsize=7)
    _save(fig, stem)
    plt.close(fig)


def figure_convergence(plan, summaries, stem, campaign=()):
    """The three indicators (ln MSE) against Δt for the tables with several Δt, with an O(N^-1) slope line.

    Every reading of the paper's scheme is drawn in every panel; a reading with the Z control variate
    (beyond the paper) in the MSE_Z,av panels only (its Y indicators are those of its base reading within
    their standard errors: tables/zcv.tex).  ``campaign``: summaries of the pooled data/gpu/ chunks, drawn
    per reading (the most runs per row).  The legend sits below the panels, where it hides no point."""
    plt = _pyplot()
    sums = index_results(summaries)
    camp = index_results(campaign)
    tables = [t for t in table_ids() if len({r["dt"] for r in paper_rows() if r["table"] == t}) > 1]
    fig, axes = plt.subplots(len(INDICATORS), len(tables), figsize=(2.3 * len(tables), 6.4), sharex=True,
                             squeeze=False)
    markers = ["s", "^", "D", "v", "P"]
    lines = ["--", ":", "-.", (0, (1, 1)), (0, (3, 1, 1, 1))]
    for j, table in enumerate(tables):
        rows = [r for r in paper_rows() if r["table"] == table]
        for i, ind in enumerate(INDICATORS):
            ax = axes[i][j]
            dts = [r["dt"] for r in rows]
            # the paper: open circles, so that ours stay visible where they coincide
            ax.plot(dts, [r[ind] for r in rows], "k-", marker="o", mfc="none", ms=6, label="paper", lw=1)
            for n, reading in enumerate(plan.readings):
                if getattr(reading, "z_cv", False) and ind != "mse_z_av":
                    continue
                name = reading.name
                if getattr(reading, "z_cv", False):
                    base = plan.base_reading(reading)
                    name += f": {base.name if base else 'its reading'} + Z c.v."
                pts = []
                for r in rows:
                    res = next((x for x in sums.get((table, r["row"]), []) if _matches(x, reading)), None)
                    if res is not None and res.get(ind) is not None:
                        pts.append((r["dt"], res[ind], res.get(ind + "_se") or 0.0))
                if pts:
                    x, y, e = zip(*pts, strict=False)
                    ax.errorbar(x, y, yerr=e, marker=markers[n % len(markers)], ls=lines[n % len(lines)], ms=3,
                                lw=1, capsize=2, color=f"C{n}", label=f"ours ({name})")
                gpts = []
                for r in rows:
                    cands = [e for e in campaign_entries(plan, camp.get((table, r["row"]), []), plan.readings)
                             if e["name"] == reading.name and e.get(ind) is not None]
                    if cands:
                        best = max(cands, key=lambda e: e["runs"])
                        gpts.append((r["dt"], best[ind], best.get(ind + "_se") or 0.0))
                if gpts:
                    x, y, e = zip(*gpts, strict=False)
                    ax.errorbar(x, y, yerr=e, marker="x", ls=lines[n % len(lines)], ms=4, lw=0.8, capsize=2,
                                color=f"C{n + len(plan.readings)}", label=f"ours, GPU ({reading.name})")
            # O(N^-1) = O(dt): ln MSE = ln dt + c, anchored at the paper's largest dt
            anchor = max(rows, key=lambda r: r["dt"])
            ax.plot(dts, [anchor[ind] + math.log(dt / anchor["dt"]) for dt in dts], color="0.6", lw=0.8,
                    label="slope 1: $O(N^{-1})$")
            ax.set_xscale("log")
            ax.set_xticks(dts, [f"{dt:g}" for dt in dts])
            ax.minorticks_off()
            if i == 0:
                ax.set_title(table, fontsize=8)
            if j == 0:
                ax.set_ylabel(INDICATOR_LN_TEX[ind])
            if i == len(INDICATORS) - 1:
                ax.set_xlabel(r"$\Delta t$")
    handles = {}
    for ax in axes.flat:  # one legend for all panels, below them: it hides no point
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    fig.legend(list(handles.values()), list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(len(handles), 4), fontsize=7, frameon=False)
    fig.suptitle(f"Convergence in $\\Delta t$ (preset {plan.preset}): $\\ln$ of the three indicators", fontsize=9)
    _save(fig, stem)
    plt.close(fig)


def run_logged(log_path, fn, *args, **kwargs):
    """Run ``fn`` with its messages and, on failure, its traceback in ``log_path`` (then re-raise)."""
    import contextlib
    import traceback

    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log, contextlib.redirect_stdout(log):
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            traceback.print_exc(file=log)
            raise
        print(f"{fn.__name__}: done")
    return out


# --- the report's PDF ---------------------------------------------------------------------------------
TEX_HINT = ("no TeX installation (latexmk) found; install one, e.g. on Debian/Ubuntu:"
            " apt-get install texlive-latex-base texlive-latex-recommended latexmk")


def build_pdf(main_tex, pdf, log_path) -> int:
    """latexmk -pdf on ``main_tex`` (in its folder); 0 on success, else a one-line reason on stderr."""
    import shutil
    import subprocess
    import sys

    main_tex = Path(main_tex).resolve()
    if shutil.which("latexmk") is None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text(TEX_HINT + "\n")
        print(f"srmdp: {TEX_HINT}", file=sys.stderr)
        return 1
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-cd",
                               str(main_tex)], stdout=log, stderr=subprocess.STDOUT)
    built = main_tex.with_suffix(".pdf")
    if proc.returncode != 0 or not built.exists():
        print(f"srmdp: latexmk failed on {main_tex} (exit {proc.returncode}); see {log_path}", file=sys.stderr)
        return 1
    if built.resolve() != Path(pdf).resolve():
        shutil.copyfile(built, pdf)
    return 0
