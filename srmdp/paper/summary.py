"""The report's summary and its generated sentences: every count and measured number of the prose.

One list of *cells* (paper row x indicator x reading x source of ours) is built from the published summaries
(the preset's CPU runs and the pooled chunks of data/gpu/); the summary page, the sentences that replace
hand-written statements in ``paper/main.tex`` and the tests all read it, so a sentence cannot disagree with
the tables it summarises.

Few runs: a standard error estimated from R runs is itself uncertain, so a cell is judged against the
two-sided 3-sigma probability of Student's t with R - 1 degrees of freedom (:func:`srmdp.paper.student.z_limit`:
235.8 s.e. for 2 runs, 19.2 for 3, 9.2 for 4, 3.08 for 100): *within* |z| <= 3, *inconclusive* 3 < |z| <=
that limit (too few runs to call it a difference), *beyond* past it.  Cells of the reading fitted to the
paper (``paper-fit``, identified on the Delta t = 0.2 rows) at Delta t = 0.2 are *in-sample*.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..indicators import INDICATORS
from ..readings import matches
from .claims import all_claims, claim_outcome
from .index import campaign_entries, index_results
from .latex import INDICATOR_TEX, fmt_seconds, jinja_env, tex_escape, write_text
from .record import (
    CPU_EQ_GPU_TOL,
    arithmetic_of,
    device_words,
    merge_twins,
    precision_short,
    run_key,
    storage_of,
    threads_of,
)
from .residuals import residuals_model
from .rows import paper_rows, paper_table_number, table_ids
from .student import z_limit
from .tables import FIT_DT, FIT_READING, arithmetic_model  # the fitted reading and where; float32 vs float64
from .verdict import COST_RUNS, GPU_MODEL, HIGH_D, claim_scorecard, pooled_sign, rows_not_run, scorecard, sign_tests

LARGE_DIFF = 0.1  # |ours - paper| the text used to call small


@dataclass
class Cell:
    table: str
    row: int
    d: int
    dt: float
    reading: str
    source: str  # "CPU float64 (preset)", "GPU float32", "CPU float64" (campaign chunks)
    runs: int
    indicator: str
    ours: float
    se: float | None
    paper: float
    path: str
    runkey: tuple = ()
    device: str = "CPU"  # CPU, GPU, or "CPU = GPU" (one cell computed on both from the same runs)
    also: str = ""  # the other result's path of a "CPU = GPU" cell
    storage: str = "float64"
    arithmetic: str = "float64"
    also_precision: str = ""  # the other result's precisions of a "CPU = GPU" cell, in words

    @property
    def key(self) -> tuple:
        """What makes two cells the same thing: row, reading, indicator and the random streams behind it."""
        return (self.table, self.row, self.reading, self.indicator, self.runkey)

    @property
    def diff(self) -> float:
        return self.ours - self.paper

    @property
    def z(self) -> float | None:
        return self.diff / self.se if self.se else None

    @property
    def limit(self) -> float:
        return z_limit(self.runs)

    @property
    def verdict(self) -> str | None:
        """``within`` (|z| <= 3), ``inconclusive`` (3 < |z| <= the t-limit of its runs), ``beyond``; None
        without a standard error."""
        if self.z is None:
            return None
        if abs(self.z) <= 3:
            return "within"
        return "inconclusive" if abs(self.z) <= self.limit else "beyond"

    @property
    def in_sample(self) -> bool:
        return self.reading == FIT_READING and math.isclose(self.dt, FIT_DT)


def _source(res, campaign: bool) -> str:
    """``CPU f64 (preset)``, ``GPU f32 st./f64 ar.``: device and precisions as the result records them."""
    if res.get("_twin"):
        return f"CPU {res['_twin_precision']} = GPU {precision_short(res)}"
    dev = str(res.get("device") or "?").upper()
    return f"{dev} {precision_short(res)}" + ("" if campaign else " (preset)")


def cells(plan, summaries, campaign=()) -> list:
    """Every cell with a value of ours under one of the paper's readings, from both kinds of summaries."""
    sums, camp = index_results(summaries), index_results(campaign)
    selected = {(s.table, s.row) for s in plan.selected}
    out = []
    for paper in paper_rows():
        key = (paper["table"], paper["row"])
        found = []
        if key in selected:
            for reading in plan.paper_readings:
                res = next((x for x in sums.get(key, []) if matches(x, reading)), None)
                if res is not None:
                    found.append((reading.name, res, False))
        merged = merge_twins(camp.get(key, []))
        for e in campaign_entries(plan, merged):
            found.append((e["name"], index_res(merged, e["sources"][0]), True))
        for name, res, is_camp in found:
            for k in INDICATORS:
                if res.get(k) is None:
                    continue
                out.append(Cell(paper["table"], paper["row"], paper["d"], paper["dt"], name,
                                _source(res, is_camp), int(res["runs"]), k, float(res[k]), res.get(k + "_se"),
                                float(paper[k]), res["_path"], run_key(res),
                                res.get("_device") or str(res.get("device") or "?").upper(), res.get("_twin") or "",
                                storage_of(res), arithmetic_of(res), res.get("_twin_words") or ""))
    return out


def index_res(results, path):
    return next(r for r in results if r["_path"] == path)


def explanations(model) -> dict:
    """{(path, indicator): ([hypotheses], tested)} for the cells of the residual reading beyond its threshold
    (``model``: :func:`srmdp.paper.residuals.residuals_model`)."""
    key_of = {v: k for k, v in INDICATOR_TEX.items()}
    return {(c["sources"][0], key_of[c["indicator"]]): (c["explained"], c["tested"]) for c in model["cells"]}


def _join(items, empty="none") -> str:
    items = list(items)
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _pl(n, word, plural=None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def reading_counts(plan, allc, expl) -> list:
    """Per paper reading: rows and distinct cells, their verdicts, and the cells beyond 3 s.e. that a hypothesis of
    the residuals does not reject."""
    out = []
    for reading in plan.paper_readings:
        mine = [c for c in allc if c.reading == reading.name]
        with_z = [c for c in mine if c.z is not None]
        verdicts = Counter(c.verdict for c in with_z)
        out_of_3 = [c for c in with_z if c.verdict != "within"]
        hyp = Counter()
        kept = rejected = untested = 0
        for c in out_of_3:
            found, tested = expl.get((c.path, c.indicator), ([], False))
            if found:
                kept += 1
                hyp[found[0]] += 1
            elif tested:
                rejected += 1
            else:
                untested += 1
        out.append({
            "name": reading.name, "rows_any": len({(c.table, c.row) for c in mine}),
            "rows_se": len({(c.table, c.row) for c in mine if c.runs >= 2}), "rows": len(paper_rows()),
            "cells": len(with_z), "within": verdicts["within"], "inconclusive": verdicts["inconclusive"],
            "beyond": verdicts["beyond"], "conclusive": verdicts["within"] + verdicts["beyond"],
            "in_sample": sum(c.in_sample for c in with_z),
            "in_sample_within": sum(c.in_sample and c.verdict == "within" for c in with_z),
            "out_of_3": len(out_of_3), "explained": kept, "unexplained": rejected, "untested": untested,
            "twins": sum(c.device == "CPU = GPU" for c in with_z),
            "hypotheses": ", ".join(f"{n} by {h}" for h, n in hyp.most_common()) or "--",
            "sources": sorted({c.path for c in mine} | {c.also for c in mine if c.also}),
        })
    return out


def summary_model(plan, summaries, campaign=(), variant_files=(), claim_inputs=None) -> dict:
    """The verdict page (sentences, scorecard, rows not run), the limitations, how to regenerate, and every
    sentence the text reads: all from :func:`cells`, each cell counted once."""
    allc = cells(plan, summaries, campaign)
    measured = _arithmetic_measured(arithmetic_model(plan, summaries))
    res_model = residuals_model(plan, summaries, variant_files, campaign)
    expl = explanations(res_model)
    readings = reading_counts(plan, allc, expl)
    claims = all_claims(**claim_inputs) if claim_inputs is not None else []
    outcomes = Counter(claim_outcome(c) for c in claims)
    camp_results = [r for rs in index_results(list(campaign)).values() for r in rs]
    not_run = rows_not_run(allc, FIT_READING, camp_results)
    fit = next(r for r in readings if r["name"] == FIT_READING)
    theory = next((r for r in readings if r["name"] != FIT_READING), None)
    signs = sign_tests(allc, FIT_READING)
    high = pooled_sign(allc, FIT_READING, HIGH_D, "mse_y_max")
    two_runs = sorted({(c.table, c.row) for c in allc if c.reading == FIT_READING}
                      - {(c.table, c.row) for c in allc if c.reading == FIT_READING and c.runs > 2})
    timing_files = (claim_inputs or {}).get("timing_files", ())
    beats = epyc_beats_paper(timing_files)
    sentences = {
        "scope": _scope_sentence(fit, not_run, [r for r in camp_results if matches(r, plan.reading(FIT_READING))]),
        "agreement": _agreement_sentence(fit),
        "theory": _theory_sentence(theory, allc) if theory else "",
        "signs": _sign_sentence(high, res_model),
        "devices": _devices_sentence(allc),
        "speed": _speed_sentence(beats, claims, len(index_results(list(timing_files))),
                                 _precisions(c for c in allc if c.device != "CPU")),
        "claims": (f"Of the {len(claims)} numeric claims of the text (Table~\\ref{{tab:claims}}), {outcomes['held']}"
                   f" hold, {outcomes['not held']} hold only with a qualification or not at all and"
                   f" {outcomes['not checked']} could not be checked."),
        "largeD": _large_d_sentence(allc),
        "residuals": _residuals_sentence(res_model),
        "limitations": _limitations(plan, fit, not_run, two_runs, allc, measured),
        "regenerate": _regenerate(plan),
        "arithmetic": _arithmetic_sentence(allc, measured),
        "cpuprecision": _precisions(c for c in allc if c.device == "CPU"),
        "gpuprecision": _precisions(c for c in allc if c.device != "CPU"),
    }
    for t in table_ids():
        sentences[f"table-{t}"] = _table_sentence(t, allc)
    return {"preset": tex_escape(plan.preset), "readings": readings,
            "describe": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
            "timing_reading": tex_escape(plan.timing_reading),
            "claims": {"n": len(claims), "held": outcomes["held"], "not_held": outcomes["not held"],
                       "not_checked": outcomes["not checked"]},
            "scorecard": scorecard(allc, FIT_READING, expl),
            "claim_scorecard": claim_scorecard(claims, claim_outcome),
            "not_run": not_run, "cost_runs": COST_RUNS, "signs": signs, "gpu_model": tex_escape(GPU_MODEL),
            "sentences": dict(sentences), "fit": FIT_READING, "fit_dt": f"{FIT_DT:g}"}


def epyc_beats_paper(timing_files) -> list:
    """Rows where our 1-thread CPU time per run is below the paper's 24-thread CPU time: (row, ours, paper, res)."""
    out = []
    for (table, row), results in sorted(index_results(list(timing_files)).items()):
        res = next((r for r in results if r.get("device") == "cpu" and threads_of(r) == 1
                    and r.get("seconds_per_run")), None)
        paper = next((r for r in paper_rows() if (r["table"], r["row"]) == (table, row)), None)
        if res is not None and paper is not None and res["seconds_per_run"] < paper["cpu_s"]:
            out.append((paper, res["seconds_per_run"], paper["cpu_s"], res))
    return out


def _scope_sentence(fit, not_run, camp) -> str:
    """``camp``: the GPU campaign's results under the fitted reading."""
    gpu_rows = len({(r["case"]["table"], r["case"]["row"]) for r in camp if r.get("device") == "gpu"})
    cost = sum(r["total"] for r in not_run)
    cpu_only = fit["rows_any"] - gpu_rows
    text = (f"We ran {fit['rows_any']} of the paper's {fit['rows']} rows under the reading fitted to it,"
            f" {gpu_rows} of them on an NVIDIA H100" + (f" and {cpu_only} on a 2-core CPU only" if cpu_only > 0 else
                                                       " (and the smaller ones also on a 2-core CPU)"))
    if not not_run:
        return text + "."
    worst = max(not_run, key=lambda r: r["speedup"])
    return (text + f"; the {_pl(len(not_run), 'row')} not run, the most expensive of their tables (among them"
            f" the row of the paper's largest speed-up, {worst['speedup']:.2f}), would take about {cost / 3600:.1f} h"
            f" on the H100 for {COST_RUNS} runs each by our cost model (Table~\\ref{{tab:notrun}}).")


def _agreement_sentence(r) -> str:
    return (f"Of its {r['cells']} distinct cells (row $\\times$ indicator $\\times$ runs, a CPU and a GPU line of the"
            f" same runs counted once), {r['within']} lie within three standard errors of the paper"
            f" ({r['in_sample_within']} of them in-sample, at $\\Delta t={FIT_DT:g}$ where the reading was fitted),"
            f" {r['beyond']} beyond the $t$-limit of their runs, and {r['inconclusive']} between the two, too few"
            " runs to decide.")


def _theory_sentence(r, allc) -> str:
    mine = [c for c in allc if c.reading == r["name"] and c.z is not None and c.dt < FIT_DT - 1e-12]
    below = sum(c.diff < 0 for c in mine)
    return (f"Under \\emph{{{r['name']}}}, the reading the theory asks for, {r['within']} of {r['cells']} cells are"
            f" within three standard errors; below $\\Delta t={FIT_DT:g}$ ours lie under the paper's in {below} of"
            f" {len(mine)} cells: its $\\mathrm{{MSE}}_Y$ has no floor.")


def _sign_sentence(high, m) -> str:
    return (f"Open finding: in Tables~9--13 our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in"
            f" {high['pos']} of {high['n']} rows (sign test $p={high['p']:.2g}$, differences"
            f" ${high['lo']:+.2f}$ to ${high['hi']:+.2f}$),"
            " which no hypothesis we tried accounts for (the split $10^3\\times1$ moves the paper's maximum up, the"
            " wrong way, and only widens the spread; float32 storage, truncation and another seed were tried on"
            f" {_pl(len(m['rows']), 'lower-dimensional row')}).")


def _speed_sentence(beats, claims, n_timed, like_words) -> str:
    parts = []
    if beats:
        paper, ours, theirs, res = max(beats, key=lambda b: b[2])  # the longest of the paper's times we beat
        parts.append(f"One thread of our {device_words(res)[4:]} CPU already beats the paper's 24 threads on"
                     f" {len(beats)} of the {n_timed} rows we timed (T.{paper_table_number(paper['table'])}"
                     f" $\\Delta t={paper['dt']:g}$: {fmt_seconds(ours)} s against {theirs:.2f} s per run)")
    fair = [c for c in claims if c.get("group") == "time" and "like for like" in c.get("ours", "")]
    if fair:
        parts.append(f"the GPU speed-ups are compared like for like in {_pl(len(fair), 'claim')} of"
                     f" Table~\\ref{{tab:claims}} (same reading and precisions on both sides: {like_words})")
    return ("; ".join(parts) + ".") if parts else ""


def _limitations(plan, fit, not_run, two_runs, allc, measured) -> str:
    store = Counter(c.storage for c in allc)
    arith = Counter(c.arithmetic for c in allc)
    return (f"\\item \\emph{{A fitted reading.}} \\emph{{{FIT_READING}}} was chosen by comparing with the paper's"
            f" $\\Delta t={FIT_DT:g}$ values: its {fit['in_sample_within']} in-sample cells within three standard"
            " errors are not evidence."
            f"\n\\item \\emph{{Rows not run:}} {_pl(len(not_run), 'row')}"
            + (" (" + _join(_row_words(r) for r in not_run) + ")" if not_run else "")
            + f"; {_pl(len(two_runs), 'row')} rest on at most two runs, where only a difference beyond"
            f" {z_limit(2):.0f} standard errors is significant."
            "\n\\item \\emph{Arithmetic.} Of our " + f"{len(allc)} cells, " + _join(
                f"{n} compute their paths in {a}" for a, n in sorted(arith.items())) + "; "
            + _join(f"{n} store their coefficients in {p}" for p, n in sorted(store.items()))
            + " (the paper computed in float32 throughout): float32 arithmetic is "
            + (f"measured on {measured}, bounded elsewhere" if measured else "bounded, not measured")
            + " (Section~\\ref{sec:residuals})."
            "\n\\item \\emph{Hardware.} Our CPUs (2 and 16 logical CPUs) and GPU (H100) are not the paper's (24"
            " threads of two Xeon E5-2620 v2, GTX TITAN Black): times and speed-ups compare generations as well as"
            " schemes.")


def _arithmetic_measured(model) -> str:
    """Where float32 arithmetic was run against float64 (tables/arithmetic.tex) and the largest change it made,
    in words; empty where it was not."""
    done = [r for r in model["rows"] if r["diff"]]
    if not done:
        return ""
    worst = max(model["worst"], key=lambda w: w["rel"])
    return (f"{_pl(len(done), 'row')} on the CPU (Table~\\ref{{tab:arithmetic}}: same streams; the largest change"
            f" of an indicator is {worst['rel']:.1e} of its standard error, {worst['indicator']} of {worst['where']})")


def _arithmetic_sentence(allc, measured="") -> str:
    """What the results record of their path arithmetic (the reading's ``arithmetic``), and where float32
    arithmetic was measured against float64 (``measured``: :func:`_arithmetic_measured`)."""
    arith = Counter(c.arithmetic for c in allc)
    where = f"float32 arithmetic is measured on {measured}; elsewhere its effect is bounded:" if measured else ""
    if set(arith) == {"float64"}:
        return (f"All {len(allc)} cells of ours, on either device, record float64 \\emph{{path arithmetic}} (the GPU"
                f" lines: {_precisions(c for c in allc if c.device != 'CPU')}), so "
                + (where or "float32 arithmetic is not measured here; its effect is bounded instead:"))
    return ("Of our cells, " + _join(f"{n} record {a} \\emph{{path arithmetic}}" for a, n in sorted(arith.items()))
            + "; " + (where or "for the others its effect is bounded:"))


def _precisions(cs) -> str:
    """The storage/arithmetic pairs of some cells in words: ``float32 storage, float64 arithmetic``."""
    pairs = sorted({(c.storage, c.arithmetic) for c in cs})
    return _join((st if st == ar else f"{st} storage, {ar} arithmetic") for st, ar in pairs)


def _row_words(r) -> str:
    return f"T.{r['number']} $\\Delta t={r['dt']}$" + (f" $d={r['d']}$" if r["table"] in HIGH_D else "")


def _regenerate(plan) -> str:
    jobs = plan.jobs(2)
    core_s = sum(sec * thr for _, _, sec, thr, _ in jobs)
    return (f"\\texttt{{snakemake --cores all}} (preset \\texttt{{{tex_escape(plan.preset)}}},"
            " \\texttt{config/config.yaml}) rebuilds every table, figure and this PDF from the committed results,"
            " running no compute job; from scratch (\\texttt{{--forcerun}} of its {len(jobs)} compute jobs) the cost"
            f" model gives about {core_s / 2 / 3600:.1f} h on 2 cores (\\texttt{{srmdp plan}} lists them). The GPU"
            " lines (\\texttt{data/gpu/}) need an NVIDIA GPU: \\texttt{python -m srmdp campaign} reruns them;"
            " the workflow only reads them.")


def _table_sentence(table, allc) -> str:
    """Counts only (the cells are in the table): per reading, rows, distinct cells within 3 s.e., in-sample."""
    mine = [c for c in allc if c.table == table]
    if not mine:
        return "No value of ours for this table."
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        cs = [c for c in mine if c.reading == name]
        with_z = [c for c in cs if c.z is not None]
        v = Counter(c.verdict for c in with_z)
        rows = len({c.row for c in cs})
        text = (f"\\emph{{{name}}}: {_pl(rows, 'row')}, {v['within']} of {len(with_z)} distinct cells within 3 s.e."
                f" ({sum(c.in_sample and c.verdict == 'within' for c in with_z)} in-sample), {v['beyond']} beyond,"
                f" {v['inconclusive']} inconclusive")
        if len(with_z) < len(cs):
            text += f", {len(cs) - len(with_z)} from a single run"
        parts.append(text)
    return "Ours: " + "; ".join(parts) + "."


def _residuals_sentence(m) -> str:
    """Per hypothesis: the cells beyond the threshold it does not reject, those within it moves out, its r.m.s."""
    parts = []
    for h, t in zip(m["headers"], m["tally"], strict=True):
        if not t["of"] and not t["within"]:
            continue
        rms = "" if t["rms"] is None else f", r.m.s.\\ of $z$ {t['rms']:.1f}"
        parts.append(f"{h}: does not reject {t['explains']} of {t['of']}, breaks {t['breaks']} of {t['within']}{rms}")
    left = sum(1 for c in m["cells"] if not c["explained"])
    return (f"Of the {len(m['cells'])} cells of \\emph{{{m['reading']}}} beyond {m['threshold']} standard errors"
            f" and the {m['n_within']} within (r.m.s.\\ of $z$ over all {m['rms0']:.1f} under our own spread), per"
            " hypothesis: " + "; ".join(parts) + f"; {_pl(left, 'cell')} no hypothesis accounts for. A hypothesis that"
            " brings a cell within its spread only by widening the spread does not explain it: it is not rejected.")


def _devices_sentence(allc) -> str:
    """CPU and GPU lines computed from the same runs (counted once, ``CPU = GPU``)."""
    twins = [c for c in allc if c.device == "CPU = GPU"]
    if not twins:
        return "No row was run on both devices with the same runs."
    rows = len({(c.table, c.row) for c in twins})
    cpu = _join(sorted({c.also_precision for c in twins}))
    return (f"On the {_pl(rows, 'row')} run on both devices from the same random streams, the CPU ({cpu}) and"
            f" the GPU ({_precisions(c for c in twins)}) agree to within $10^{{{round(math.log10(CPU_EQ_GPU_TOL))}}}$"
            " in every indicator:"
            f" their {len(twins)} cells are counted once, as ``CPU = GPU''.")


def _large_d_sentence(allc) -> str:
    rows = [r for r in paper_rows() if r["table"] in HIGH_D]
    mine = [c for c in allc if c.table in HIGH_D]
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        got = {(c.table, c.row) for c in mine if c.reading == name}
        se = {(c.table, c.row) for c in mine if c.reading == name and c.runs >= 2}
        parts.append(f"\\emph{{{name}}} {len(got)} of {len(rows)} rows ({len(se)} with at least two runs)")
    return ("Tables~9--13 hold values of ours under " + _join(parts) + ".") if parts else \
        "Tables~9--13 hold no value of ours."


def render_summary(plan, summaries, template_dir, out, campaign=(), variant_files=(), claim_inputs=None):
    env = jinja_env(template_dir)
    model = summary_model(plan, summaries, campaign, variant_files, claim_inputs)
    write_text(out, env.get_template("summary.tex.j2").render(**model))
