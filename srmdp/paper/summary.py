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
from .claims import TEXT_VS_TABLE, all_claims, claim_outcome
from .index import index_results
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
from .tables import (  # the fitted reading and where; float32 vs float64
    FIT_DT,
    FIT_READING,
    arithmetic_model,
    campaign_lines,
)
from .verdict import (
    COST_RUNS,
    GPU_MODEL,
    GRADE_WORDS,
    HIGH_D,
    STRONG_RUNS,
    claim_scorecard,
    evidence_totals,
    paper_numbers,
    pooled_sign,
    rows_not_run,
    scorecard,
    sign_tests,
)

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


def report_readings(plan) -> list:
    """The readings whose runs count for the paper's numbers: the paper's scheme (no Z control variate), in
    either path arithmetic (a float32-arithmetic run is a run of that row; its cells say so)."""
    return [r for r in plan.readings if not r.z_cv]


def cells(plan, summaries, campaign=(), readings=None) -> list:
    """Every cell with a value of ours under one of ``readings`` (default: the paper's readings,
    ``plan.paper_readings``), from both kinds of summaries."""
    readings = plan.paper_readings if readings is None else list(readings)
    sums, camp = index_results(summaries), index_results(campaign)
    selected = {(s.table, s.row) for s in plan.selected}
    out = []
    for paper in paper_rows():
        key = (paper["table"], paper["row"])
        found = []
        if key in selected:
            for reading in readings:
                res = next((x for x in sums.get(key, []) if matches(x, reading)), None)
                if res is not None:
                    found.append((reading.name, res, False))
        merged = merge_twins(camp.get(key, []))
        for e in campaign_lines(plan, merged, readings):
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
    """Per paper reading: its paper numbers judged once by their strongest run set under that reading
    (:func:`srmdp.paper.verdict.paper_numbers`, counted by :func:`srmdp.paper.verdict.evidence_totals`), and the
    numbers beyond 3 s.e. that a hypothesis of the residuals does not reject."""
    out = []
    for reading in plan.paper_readings:
        mine = [c for c in allc if c.reading == reading.name]
        numbers = paper_numbers(mine, reading.name, fallback=False)
        tot = evidence_totals(numbers)
        out_of_3 = [n for n in numbers if n["verdict"] in ("inconclusive", "beyond")]
        hyp = Counter()
        kept = rejected = untested = 0
        for n in out_of_3:
            found, tested = expl.get((n["best"].path, n["indicator"]), ([], False))
            if found:
                kept += 1
                hyp[found[0]] += 1
            elif tested:
                rejected += 1
            else:
                untested += 1
        out.append({
            "name": reading.name, "rows_any": tot["rows"], "rows": len(paper_rows()),
            "rows_se": len({(n["table"], n["row"]) for n in numbers if n["grade"] != "none"}),
            "totals": tot, "numbers": tot["numbers"], "within": tot["within"], "inconclusive": tot["inconclusive"],
            "beyond": tot["beyond"], "conclusive": tot["judged"], "in_sample_within": tot["in_sample_within"],
            "cells": tot["numbers"] - tot["none"]["n"],
            "out_of_3": len(out_of_3), "explained": kept, "unexplained": rejected, "untested": untested,
            "supporting": sum(len(n["supporting"]) for n in numbers),
            "twins": sum(n["best"].device == "CPU = GPU" for n in numbers),
            "hypotheses": ", ".join(f"{n} by {h}" for h, n in hyp.most_common()) or "--",
            "sources": sorted({c.path for c in mine} | {c.also for c in mine if c.also}),
        })
    return out


def summary_model(plan, summaries, campaign=(), variant_files=(), claim_inputs=None) -> dict:
    """The verdict page (sentences, scorecard, rows not run), the limitations, how to regenerate, and every
    sentence the text reads: all from :func:`cells`; every total from one count,
    :func:`srmdp.paper.verdict.evidence_totals` of :func:`srmdp.paper.verdict.paper_numbers`."""
    every = cells(plan, summaries, campaign, report_readings(plan))  # every reading of the paper's scheme
    names = {r.name for r in plan.paper_readings}
    allc = [c for c in every if c.reading in names]
    measured = _arithmetic_measured(arithmetic_model(plan, summaries))
    res_model = residuals_model(plan, summaries, variant_files, campaign)
    expl = explanations(res_model)
    readings = reading_counts(plan, allc, expl)
    claims = all_claims(**claim_inputs) if claim_inputs is not None else []
    outcomes = Counter(claim_outcome(c) for c in claims)
    camp_results = [r for rs in index_results(list(campaign)).values() for r in rs]
    sum_results = [r for rs in index_results(list(summaries)).values() for r in rs]
    not_run = rows_not_run(every, FIT_READING, camp_results, sum_results)
    numbers = paper_numbers(every, FIT_READING)
    totals = evidence_totals(numbers)
    fit = next(r for r in readings if r["name"] == FIT_READING)
    theory = next((r for r in readings if r["name"] != FIT_READING), None)
    signs = sign_tests(allc, FIT_READING)
    high = pooled_sign(allc, FIT_READING, HIGH_D, "mse_y_max")
    timing_files = (claim_inputs or {}).get("timing_files", ())
    beats = epyc_beats_paper(timing_files)
    sentences = {
        "scope": _scope_sentence(totals, not_run, [r for r in camp_results if matches(r, plan.reading(FIT_READING))],
                                 numbers),
        "agreement": _agreement_sentence(totals),
        "disagreements": _disagreements_sentence(numbers, res_model, plan),
        "theory": _theory_sentence(theory, allc) if theory else "",
        "signs": _sign_sentence(high, res_model),
        "devices": _devices_sentence(allc),
        "speed": _speed_sentence(beats, claims, len(index_results(list(timing_files))),
                                 _precisions(c for c in allc if c.device != "CPU")),
        "claims": _claims_sentence(claims, outcomes),
        "largeD": _large_d_sentence(allc),
        "residuals": _residuals_sentence(res_model, fit),
        "limitations": _limitations(plan, fit, not_run, totals, every, measured),
        "regenerate": _regenerate(plan),
        "arithmetic": _arithmetic_sentence(every, measured),
        "cpuprecision": _precisions(c for c in every if c.device == "CPU"),
        "gpuprecision": _precisions(c for c in every if c.device != "CPU"),
        # the GPU lines of the paper's readings (float64 path arithmetic), those the like-for-like timings pair with
        "likeprecision": _precisions(c for c in allc if c.device != "CPU"),
    }
    for t in table_ids():
        sentences[f"table-{t}"] = _table_sentence(t, allc)
    return {"preset": tex_escape(plan.preset), "readings": readings,
            "describe": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
            "timing_reading": tex_escape(plan.timing_reading),
            "claims": {"n": len(claims), "held": outcomes["held"], "not_held": outcomes["not held"],
                       "table_only": outcomes[TEXT_VS_TABLE], "not_checked": outcomes["not checked"]},
            "scorecard": scorecard(every, FIT_READING, expl), "totals": totals, "grades": GRADE_WORDS,
            "strong_runs": STRONG_RUNS,
            "claim_scorecard": claim_scorecard(claims, claim_outcome),
            "not_run": not_run, "cost_runs": COST_RUNS, "signs": signs, "gpu_model": tex_escape(GPU_MODEL),
            "sentences": dict(sentences), "fit": FIT_READING, "fit_dt": f"{FIT_DT:g}"}


def _claims_sentence(claims, outcomes) -> str:
    return (f"Of the {len(claims)} numeric claims of the text (Table~\\ref{{tab:claims}}), scored by our own"
            f" measurements and recomputations only, {outcomes['held']} hold, {outcomes['not held']} hold only with a"
            f" qualification or not at all and {outcomes['not checked']} are not checked (each says what would check"
            f" it); in {_pl(outcomes[TEXT_VS_TABLE], 'claim')} we can only say that the paper's text agrees with its"
            " own table, which is not counted as held.")


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


def _scope_sentence(totals, not_run, camp, numbers) -> str:
    """``camp``: the GPU campaign's results under the fitted reading; ``numbers``: the judged paper numbers."""
    gpu = [r for r in camp if r.get("device") == "gpu"]
    gpu_rows = len({(r["case"]["table"], r["case"]["row"]) for r in gpu})
    models = sorted({device_words(r)[4:] for r in gpu})  # "GPU H100" -> "H100"
    other = sorted({(n["table"], n["row"], n["reading"]) for n in numbers if n["other_reading"]})
    text = (f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
            f" fitted to it on NVIDIA {_join(models)} GPUs" if len(models) > 1 else
            f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
            f" fitted to it on an NVIDIA {_join(models)}")
    text += " and the smaller ones also on a 2-core CPU"
    if other:
        text += (" (" + _join(f"T.{paper_table_number(t)} row {r} only under \\emph{{{name}}}"
                              for t, r, name in other) + ")")
    if not not_run:
        return text + "."
    cost = sum(r["total"] for r in not_run)
    worst = max(not_run, key=lambda r: r["speedup"])
    return (text + f"; the {_pl(len(not_run), 'row')} not run under any reading, the most expensive of their tables"
            f" (among them the row of the paper's largest speed-up, {worst['speedup']:.2f}), would take about"
            f" {cost / 3600:.1f} h on the H100 for {COST_RUNS} runs each by our cost model"
            " (Table~\\ref{tab:notrun}).")


def _agreement_sentence(t) -> str:
    """p. 1's headline: the paper numbers reproduced on strong evidence, then on weak, from
    :func:`srmdp.paper.verdict.evidence_totals`."""
    s, w, n = t["strong"], t["weak"], t["none"]
    text = (f"Each paper number (row $\\times$ indicator) is judged once, by its strongest run set (the most runs)"
            f" under \\emph{{{FIT_READING}}}: of the {t['numbers']} numbers of these {t['rows']} rows,"
            f" \\textbf{{{s['within']} are reproduced on strong evidence}} ($\\ge{STRONG_RUNS}$ runs: within three"
            f" standard errors, {s['in_sample_within']} of them in-sample at $\\Delta t={FIT_DT:g}$, where the reading"
            f" was fitted) and {s['beyond']} disagree beyond the $t$-limit of their runs"
            + (f", {s['inconclusive']} in between" if s["inconclusive"] else "")
            + f"; \\textbf{{{w['within']} more agree on weak evidence}} (2--{STRONG_RUNS - 1} runs, a standard error"
            f" with few degrees of freedom; {w['in_sample_within']} in-sample), {w['beyond']} disagree and"
            f" {w['inconclusive']} are inconclusive; {n['n']} rest on a single run (no standard error).")
    if t["other_reading"]:
        text += f" ({_pl(t['other_reading'], 'number')} judged under another reading: no run under this one.)"
    return text


def _disagreements_sentence(numbers, m, plan) -> str:
    """The largest disagreement on strong or weak evidence (the paper row with the largest |z| beyond the t-limit),
    with the hypotheses of the residuals tried on it and what would settle it."""
    beyond = [n for n in numbers if n["verdict"] == "beyond"]
    if not beyond:
        return "No paper number disagrees beyond the $t$-limit of its runs."
    top = max(beyond, key=lambda n: abs(n["best"].z))
    same = [n for n in beyond if (n["table"], n["row"]) == (top["table"], top["row"])]
    row = next(r for r in paper_rows() if (r["table"], r["row"]) == (top["table"], top["row"]))
    where = f"T.{paper_table_number(top['table'])} $\\Delta t={row['dt']:g}$" + (
        f" $d={row['d']}$" if top["table"] in HIGH_D else "")
    zs = _join(f"{INDICATOR_TEX[n['indicator']]} {abs(n['best'].z):.1f} standard errors"
               f" {'below' if n['best'].z < 0 else 'above'} the paper's on {n['best'].runs} runs ({n['grade']})"
               for n in same)
    tried, rejected, untested = [], [], []
    key_of = {v: k for k, v in INDICATOR_TEX.items()}
    for c in m["cells"]:
        if not any(c["sources"][0] == n["best"].path and key_of[c["indicator"]] == n["indicator"] for n in same):
            continue
        for h, z in zip(m["headers"], c["z"], strict=True):
            (tried if z is not None else untested).append(h)
            if z is not None and abs(z) > float(m["threshold"]):
                rejected.append(h)
    tried, rejected, untested = (list(dict.fromkeys(x)) for x in (tried, rejected, untested))
    kept = [h for h in tried if h not in rejected]
    text = f"The largest disagreement is {where}: {zs}."
    if tried:
        text += (f" Tried on it: {_join(tried)}; " + ("each rejected" if set(rejected) == set(tried) else
                                                     f"{_join(rejected)} rejected" if rejected else "none rejected")
                 + (f", {_join(kept)} not rejected in some indicator" if kept else "") + ".")
    else:
        text += " No hypothesis of the residuals was tried on it."
    settle = []
    if untested:
        settle.append(f"the reruns {_join(untested)} on this row (config \\texttt{{residuals.rows}})")
    if top["grade"] != "strong":
        settle.append(f"{STRONG_RUNS} or more runs")
    settle.append("the paper's per-run values or its code (its split of the $10^3\\times10^3$ evaluations and its"
                  " treatment outside the box)")
    return text + " What would settle it: " + _join(settle) + "."


def _theory_sentence(r, allc) -> str:
    """Under the theory reading: its paper numbers within 3 s.e., and below the fitted Delta t how many lie under the
    paper's (each number once, by its strongest run set)."""
    numbers = paper_numbers([c for c in allc if c.reading == r["name"]], r["name"], fallback=False)
    below_dt = [n for n in numbers if n["best"].se and n["dt"] < FIT_DT - 1e-12]
    below = sum(n["best"].diff < 0 for n in below_dt)
    return (f"Under \\emph{{{r['name']}}}, the reading the theory asks for, {r['within']} of its {r['cells']} paper"
            f" numbers with a standard error are within three standard errors; below $\\Delta t={FIT_DT:g}$ ours lie"
            f" under the paper's in {below} of {len(below_dt)}: its $\\mathrm{{MSE}}_Y$ has no floor.")


def _sign_sentence(high, m) -> str:
    return (f"Open finding: in Tables~9--13 our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in"
            f" {high['pos']} of {high['n']} rows (sign test $p={high['p']:.2g}$, differences"
            f" ${high['lo']:+.2f}$ to ${high['hi']:+.2f}$),"
            " which no hypothesis we tried accounts for (the split $10^3\\times1$ moves the paper's maximum up, the"
            " wrong way, and only widens the spread; float32 storage, truncation and another seed were tried on"
            f" {_pl(len(m['rows']), 'lower-dimensional row')}). What would settle it: those reruns at $d\\ge11$, the"
            " paper's single-run values, or a run of its code.")


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


def _limitations(plan, fit, not_run, totals, every, measured) -> str:
    store = Counter(c.storage for c in every)
    arith = Counter(c.arithmetic for c in every)
    w = totals["weak"]
    return (f"\\item \\emph{{A fitted reading.}} \\emph{{{FIT_READING}}} was chosen by comparing with the paper's"
            f" $\\Delta t={FIT_DT:g}$ values: its {totals['in_sample_within']} in-sample numbers within three standard"
            " errors are not evidence."
            f"\n\\item \\emph{{Rows not run}} (under any reading): {_pl(len(not_run), 'row')}"
            + (" (" + _join(_row_words(r) for r in not_run) + ")" if not_run else "")
            + f"; {w['n']} paper numbers of {_pl(w['rows'], 'row')} rest on weak evidence (2--{STRONG_RUNS - 1} runs;"
            f" with 2 runs only a difference beyond {z_limit(2):.0f} standard errors is significant) and"
            f" {totals['none']['n']} on one run."
            "\n\\item \\emph{Arithmetic.} Of our " + f"{len(every)} cells, " + _join(
                f"{n} compute their paths in {a}" + (" (sums and solves in float64)" if a == "float32" else "")
                for a, n in sorted(arith.items())) + "; "
            + _join(f"{n} store their coefficients in {p}" for p, n in sorted(store.items()))
            + " (the paper computed in float32 throughout): float32 arithmetic is "
            + (f"measured on {measured}, bounded elsewhere" if measured else "bounded, not measured")
            + " (Section~\\ref{sec:residuals})."
            "\n\\item \\emph{Hardware.} Our CPUs (2 and 16 logical CPUs) and GPUs are not the paper's (24"
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
    return _join(_precision_pair(st, ar) for st, ar in pairs)


def _precision_pair(storage, arithmetic) -> str:
    """A storage/arithmetic pair in words; float32 path arithmetic keeps its sums over paths and its solves in
    float64 (srmdp.scheme), so it is not the paper's float32 throughout and is not called so."""
    if arithmetic == "float32":
        return f"{storage} storage, float32 path arithmetic (sums and solves in float64)"
    return storage if storage == arithmetic else f"{storage} storage, {arithmetic} arithmetic"


def _row_words(r) -> str:
    return f"T.{r['number']} $\\Delta t={r['dt']}$" + (f" $d={r['d']}$" if r["table"] in HIGH_D else "")


def _regenerate(plan) -> str:
    jobs = plan.jobs(2)
    core_s = sum(sec * thr for _, _, sec, thr, _ in jobs)
    return ("Install the package and its workflow (Python $\\ge$ 3.11): \\texttt{python -m venv .venv"
            " \\&\\& . .venv/bin/activate \\&\\& pip install -e \".[paper]\"} (or \\texttt{conda env"
            " create -f environment.yml}); the PDF also needs a TeX installation with \\texttt{latexmk}"
            " (Debian/Ubuntu: \\texttt{apt-get install texlive-latex-base texlive-latex-recommended latexmk};"
            " without it the workflow skips the PDF and says so). Then \\texttt{snakemake --cores all} (preset"
            f" \\texttt{{{tex_escape(plan.preset)}}}, \\texttt{{config/config.yaml}}) rebuilds every table, figure"
            " and this PDF from the committed results, running no compute job; from scratch (\\texttt{--forcerun}"
            f" of its {len(jobs)} compute jobs) the cost model gives about {core_s / 2 / 3600:.1f} h on 2 cores"
            " (\\texttt{srmdp plan} lists them). The GPU lines (\\texttt{data/gpu/}) need an NVIDIA GPU:"
            " \\texttt{python -m srmdp campaign} reruns them; the workflow only reads them.")


def _table_sentence(table, allc) -> str:
    """Counts only (the cells are in the table): per reading, rows and paper numbers judged once by their strongest
    run set (:func:`srmdp.paper.verdict.evidence_totals`), per grade of evidence."""
    mine = [c for c in allc if c.table == table]
    if not mine:
        return "No value of ours for this table."
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        t = evidence_totals(paper_numbers([c for c in mine if c.reading == name], name, fallback=False))
        words = []
        for g in ("strong", "weak"):
            x = t[g]
            if x["n"]:
                words.append(f"{g}: {x['within']} of {x['n']} within 3 s.e. ({x['in_sample_within']} in-sample),"
                             f" {x['beyond']} beyond, {x['inconclusive']} inconclusive")
        if t["none"]["n"]:
            words.append(f"{t['none']['n']} from a single run")
        parts.append(f"\\emph{{{name}}}: {_pl(t['rows'], 'row')}, {t['numbers']} paper numbers; " + "; ".join(words))
    return "Ours: " + ". ".join(parts) + "."


def _residuals_sentence(m, fit=None) -> str:
    """Per hypothesis: the cells beyond the threshold it does not reject, those within it moves out, its r.m.s."""
    parts = []
    for h, t in zip(m["headers"], m["tally"], strict=True):
        if not t["of"] and not t["within"]:
            continue
        rms = "" if t["rms"] is None else f", r.m.s.\\ of $z$ {t['rms']:.1f}"
        parts.append(f"{h}: does not reject {t['explains']} of {t['of']}, breaks {t['breaks']} of {t['within']}{rms}")
    left = sum(1 for c in m["cells"] if not c["explained"])
    counted = "" if fit is None else (
        f" (run sets: a paper number may have several; Table~\\ref{{tab:summary}} counts each number once, by its"
        f" strongest run set: {fit['out_of_3']} beyond 3 standard errors, {fit['unexplained']} of them rejected by"
        " every hypothesis tried)")
    return (f"Of the {len(m['cells'])} cells of \\emph{{{m['reading']}}} beyond {m['threshold']} standard errors"
            f"{counted}"
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
