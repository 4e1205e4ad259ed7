"""The paper's result tables (Tables 3-13), the agreement table and the preset macros (the tables of readings
that differ by one switch: :mod:`srmdp.paper.report.switch_tables`)."""

from __future__ import annotations

import math

from ...case.readings import matches
from ...numerics.indicators import INDICATORS
from ..inputs.index import best_timing, campaign_entries, hardware_label, index_results
from ..inputs.results import device_words, merge_twins, precision_short, storage_of
from ..inputs.rows import paper_rows, paper_table_number, table_ids
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text

FIT_READING, FIT_DT = "paper-fit", 0.2  # the reading identified on the paper's Delta t = 0.2 cells: in-sample there

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


def _short_precision(p) -> str:
    return {"float32": "f32", "float64": "f64", None: "?"}.get(p, str(p))


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
        for reading in plan.paper_readings:
            res = next((x for x in sums.get(key, []) if matches(x, reading)), None) if key in selected else None
            entry = {"name": reading.name, "run": res is not None, "sources": []}
            if res is not None:
                sources.append(res["_path"])
                entry["sources"].append(res["_path"])
                entry.update({k: res.get(k) for k in INDICATORS})
                entry.update({k + "_se": res.get(k + "_se") for k in INDICATORS})
                entry["runs"] = res["runs"]
                entry["model"] = device_words(res)
                entry["precision"] = storage_of(res)
                entry["precision_short"] = precision_short(res)
                entry["test_points"] = res["test_points"]
            ours.append(entry)
        cpu = best_timing(times.get(key, []), "cpu")
        if cpu is not None:
            sources.append(cpu["_path"])
            hardware.setdefault(hardware_label(cpu), len(hardware) + 1)
        merged = merge_twins(camp.get(key, []))
        by_path = {x["_path"]: x for x in merged}
        camp_entries = campaign_entries(plan, merged)
        lines = []  # per reading: the preset's CPU line, then the campaign lines (GPU, CPU), each once
        for o in ours:
            fit = o["name"] == plan.timing_reading
            in_sample = o["name"] == FIT_READING and math.isclose(r["dt"], FIT_DT)
            mine = []
            if o["run"]:
                mine.append(
                    dict(
                        o,
                        device=f"{o['model']}, {o['precision_short']}",
                        cpu_s=cpu["seconds_per_run"] if cpu and fit else None,
                        gpu_s=None,
                        sources=o["sources"] + ([cpu["_path"]] if cpu and fit else []),
                    )
                )
            for e in camp_entries:
                if e["name"] != o["name"]:
                    continue
                gpu_dev = e["device"] != "cpu"
                res = by_path[e["sources"][0]]
                if res.get("_twin"):  # one line for the CPU and GPU results of the same runs (record.merge_twins)
                    dev = f"CPU = {device_words(res)}, {precision_short(res)}"
                    e = dict(e, sources=e["sources"] + [res["_twin"]])
                else:
                    dev = f"{device_words(res)}, {precision_short(res)}"
                mine.append(
                    dict(
                        e,
                        run=True,
                        device=dev,
                        cpu_s=None if gpu_dev else e["seconds"],
                        gpu_s=e["seconds"] if gpu_dev else None,
                    )
                )
            if not mine:
                mine.append({"name": o["name"], "run": False, "device": "", "model": "", "sources": []})

            lookup = {**by_path, **{x["_path"]: x for x in sums.get(key, [])}}
            for j, line in enumerate(mine):
                line.update(first=j == 0, in_sample=in_sample and line["run"])
                _judge(plan, line, r, lookup)
            lines += mine
        for line in _other_reading_lines(plan, merged, by_path):
            _judge(plan, line, r, by_path)
            lines.append(line)
        any_run = any(line["run"] for line in lines)
        for line in lines:  # "not run" only where no reading has a run of the row
            line["other_run"] = any_run and not line["run"]
        rows.append(
            {
                "row": r["row"],
                "d": r["d"],
                "dt": f"{r['dt']:g}",
                "cells": r["cells"],
                "K": r["K"],
                "M": r["M"],
                "paper": {k: r[k] for k in (*INDICATORS, "cpu_s", "gpu_s")},
                "lines": lines,
                "sources": sources,
            }
        )
    return {
        "table": table,
        "number": paper_table_number(table),
        "title": TABLE_TITLES.get(table, tex_escape(table)),
        "label": f"table:{table}",  # the paper's label
        "preset": tex_escape(plan.preset),
        "rows": rows,
        "show_d": len({r["d"] for r in rows}) > 1,
        "readings": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
        "hardware": [{"mark": n, "label": tex_escape(h)} for h, n in sorted(hardware.items(), key=lambda kv: kv[1])],
    }


def _judge(plan, line, paper, results):
    """A line's Delta, z and verdict per indicator (``*_d``, ``*_z``, ``*_v``; ``results``: path -> result, the
    line's first source), as the equivalence rule judges them: Delta = ours + the model's shift - paper and
    z = Delta / its spread (ours and the paper's own noise).  A line without per-run moments has no model: its
    Delta is ours - paper, its z that over our s.e., marked ``*_raw``."""
    res = results.get((line.get("sources") or [None])[0])
    for k in INDICATORS:
        v, se = line.get(k), line.get(k + "_se")
        j = None if v is None or res is None else plan.equivalence.judge(res, k, paper[k])
        line[k + "_v"] = None if j is None else j.verdict
        line[k + "_raw"] = v is not None and (j is None or not math.isfinite(j.spread))  # no model: no moments
        if v is None:
            line[k + "_d"] = line[k + "_z"] = None
        elif line[k + "_raw"]:
            line[k + "_d"], line[k + "_z"] = v - paper[k], (v - paper[k]) / se if se else None
        else:
            line[k + "_d"], line[k + "_z"] = j.diff, j.diff / j.spread


def campaign_lines(plan, merged, readings=None) -> list:
    """The campaign lines of one row under ``readings`` (default: the paper's): those of the paper's readings from
    :func:`srmdp.paper.inputs.index.campaign_entries` (the fit reading's float32-arithmetic run sets among them),
    then, for
    each other reading asked for, the run sets that match it exactly and are not a line already."""
    lines = campaign_entries(plan, merged)
    used = {e["sources"][0] for e in lines}
    for r in readings or ():
        if r in plan.paper_readings:
            continue
        mine = [x for x in merged if x["_path"] not in used and matches(x, r)]
        found = campaign_entries(plan, mine, [r]) if mine else []
        used |= {e["sources"][0] for e in found}
        lines += found
    return lines


def _other_reading_lines(plan, merged, by_path) -> list:
    """The campaign lines of a row under a reading of the paper's scheme that its tables do not otherwise show
    (float32 path arithmetic): every run we have appears, named by its reading."""
    others = [x for x in plan.readings if not x.z_cv and x not in plan.paper_readings]
    shown = {e["sources"][0] for e in campaign_entries(plan, merged)}
    out = []
    for e in campaign_lines(plan, merged, others):
        if e["sources"][0] in shown:
            continue
        res = by_path[e["sources"][0]]
        gpu_dev = e["device"] != "cpu"
        line = dict(
            e,
            run=True,
            first=True,
            in_sample=False,
            device=f"{device_words(res)}, {precision_short(res)}",
            cpu_s=None if gpu_dev else e["seconds"],
            gpu_s=e["seconds"] if gpu_dev else None,
        )
        out.append(line)
    return out


def render_table(plan, table, summaries, timings, gpu_files, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    model = table_model(plan, table, summaries, timings, gpu_files, campaign)
    text = env.get_template("table.tex.j2").render(**model)
    write_text(out, text)


def agreement_model(plan, summaries, campaign=()):
    sums = index_results(summaries)
    rows = []
    for s in plan.selected:
        paper = next(r for r in paper_rows() if r["table"] == s.table and r["row"] == s.row)
        cells, verdicts = [], []
        dmax = []  # per reading: the largest |ours - paper| over the three indicators
        sources = []
        for reading in plan.paper_readings:
            res = next((x for x in sums.get((s.table, s.row), []) if matches(x, reading)), None)
            diffs = []
            for k in INDICATORS:
                z = None
                if res is not None and res.get(k) is not None and res.get(k + "_se"):
                    z = (res[k] - paper[k]) / res[k + "_se"]
                if res is not None and res.get(k) is not None:
                    diffs.append(abs(res[k] - paper[k]))
                    verdicts.append(plan.equivalence.judge(res, k, paper[k]).verdict)
                else:
                    verdicts.append(None)
                cells.append(z)
            dmax.append(max(diffs) if diffs else None)
            if res is not None:
                sources.append(res["_path"])
        rows.append(
            {
                "table": tex_escape(s.table),
                "row": s.row,
                "d": paper["d"],
                "dt": f"{paper['dt']:g}",
                "z": cells,
                "v": verdicts,
                "dmax": dmax,
                "sources": sources,
                "in_sample": math.isclose(paper["dt"], FIT_DT),
            }
        )
    camp = index_results(campaign)
    for paper in paper_rows():  # the pooled data/gpu/ chunks: one line per row and kind (device set, precision)
        merged = merge_twins(camp.get((paper["table"], paper["row"]), []))
        twin = {x["_path"]: x for x in merged if x.get("_twin")}
        entries = campaign_entries(plan, merged)
        for kind in sorted({e["kind"] for e in entries}, key=str):
            mine = [e for e in entries if e["kind"] == kind]
            cells, verdicts, sources, dmax = [], [], [], []
            for reading in plan.paper_readings:
                e = next((x for x in mine if x["name"] == reading.name), None)
                diffs = []
                for k in INDICATORS:
                    ok = e is not None and e.get(k) is not None and e.get(k + "_se")
                    cells.append((e[k] - paper[k]) / e[k + "_se"] if ok else None)
                    src = next((x for x in merged if x["_path"] == e["sources"][0]), None) if ok else None
                    verdicts.append(plan.equivalence.judge(src, k, paper[k]).verdict if src is not None else None)
                    if e is not None and e.get(k) is not None:
                        diffs.append(abs(e[k] - paper[k]))
                dmax.append(max(diffs) if diffs else None)
                if e is not None:
                    sources += e["sources"]
            dev = f"{kind[0].upper()} {_short_precision(kind[1])}"
            if any(src in twin for src in sources):
                dev = f"CPU = GPU {_short_precision(kind[1])}"
                sources += [twin[src]["_twin"] for src in sources if src in twin]
            runs = "/".join(str(x["runs"]) for x in mine)
            rows.append(
                {
                    "table": tex_escape(f"{paper['table']} {dev} R={runs}"),
                    "row": paper["row"],
                    "d": paper["d"],
                    "dt": f"{paper['dt']:g}",
                    "z": cells,
                    "v": verdicts,
                    "dmax": dmax,
                    "sources": sources,
                    "in_sample": math.isclose(paper["dt"], FIT_DT),
                }
            )
    return {
        "rows": rows,
        "preset": tex_escape(plan.preset),
        "readings": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
        "indicators": [INDICATOR_TEX[k] for k in INDICATORS],
        "rule": plan.equivalence.words(),
    }


def render_agreement(plan, summaries, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    write_text(out, env.get_template("agreement.tex.j2").render(**agreement_model(plan, summaries, campaign)))


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
    write_text(out, env.get_template("preset.tex.j2").render(**ctx))
