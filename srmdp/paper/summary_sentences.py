"""The sentences of the report's prose, each generated from the cells and models it states.

Each function returns one LaTeX sentence (or paragraph) that replaces a hand-written statement of
``paper/main.tex``; :func:`srmdp.paper.summary.summary_model` calls them with the counts of
:mod:`srmdp.paper.cells` and :mod:`srmdp.paper.verdict`, so that the prose cannot disagree with the tables.
"""

from __future__ import annotations

import math
from collections import Counter

from .claims import TEXT_VS_TABLE
from .latex import INDICATOR_TEX, fmt_seconds, tex_escape
from .record import CPU_EQ_GPU_TOL, device_words
from .rows import paper_rows, paper_table_number
from .student import z_limit
from .tables import FIT_DT, FIT_READING  # the fitted reading and where; float32 vs float64
from .verdict import COST_RUNS, HIGH_D, STRONG_RUNS, evidence_totals, paper_numbers


def _join(items, empty="none") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``empty`` for no item."""
    items = list(items)
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _plural(n, word, plural=None) -> str:
    """``n word``, the word in the plural unless n is 1 (``3 rows``, ``1 row``); ``plural`` where not word + s."""
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def claims_sentence(claims, outcomes) -> str:
    """The claims' outcomes in the words of Table R10 and the scorecard (:data:`srmdp.paper.claims.CLAIM_OUTCOMES`)."""
    return (
        f"Of the {len(claims)} numeric claims of the text (Table~\\ref{{tab:claims}}), scored by our own"
        f" measurements and recomputations only, {outcomes['held']} are \\emph{{held}},"
        f" {outcomes['not held']} \\emph{{not held}} (qualified or contradicted) and {outcomes['not checked']}"
        f" \\emph{{not checked}} (each says what would check it); {outcomes[TEXT_VS_TABLE]} are"
        " \\emph{text = its table}: only the paper's text against its own numbers could be checked, which is not"
        " counted as held."
    )


def scope_sentence(totals, not_run, camp, numbers) -> str:
    """``camp``: the GPU campaign's results under the fitted reading; ``numbers``: the judged paper numbers."""
    gpu = [r for r in camp if r.get("device") == "gpu"]
    gpu_rows = len({(r["case"]["table"], r["case"]["row"]) for r in gpu})
    models = sorted({device_words(r)[4:] for r in gpu})  # "GPU H100" -> "H100"
    other = sorted({(n["table"], n["row"], n["reading"]) for n in numbers if n["other_reading"]})
    text = (
        f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
        f" fitted to it on NVIDIA {_join(models)} GPUs"
        if len(models) > 1
        else f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
        f" fitted to it on an NVIDIA {_join(models)}"
    )
    text += " and the smaller ones also on a 2-core CPU"
    if other:
        text += (
            " (" + _join(f"T.{paper_table_number(t)} row {r} only under \\emph{{{name}}}" for t, r, name in other) + ")"
        )
    if not not_run:
        return text + "."
    cost = sum(r["total"] for r in not_run)
    worst = max(not_run, key=lambda r: r["speedup"])
    return (
        text + f"; the {_plural(len(not_run), 'row')} not run under any reading, the most expensive of their tables"
        f" (among them the row of the paper's largest speed-up, {worst['speedup']:.2f}), would take about"
        f" {cost / 3600:.1f} h on the H100 for {COST_RUNS} runs each by our cost model"
        " (Table~\\ref{tab:notrun})."
    )


def agreement_sentence(t) -> str:
    """p. 1's headline: the paper numbers reproduced on strong evidence, then on weak, from
    :func:`srmdp.paper.verdict.evidence_totals`."""
    s, w, n = t["strong"], t["weak"], t["none"]
    text = (
        f"Each paper number (row $\\times$ indicator) is judged once, by its strongest run set (the most runs)"
        f" under \\emph{{{FIT_READING}}}: of the {t['numbers']} numbers of these {t['rows']} rows,"
        f" \\textbf{{{s['within']} are reproduced on strong evidence}} ($\\ge{STRONG_RUNS}$ runs: within three"
        f" standard errors, {s['in_sample_within']} of them in-sample at $\\Delta t={FIT_DT:g}$, where the reading"
        f" was fitted) and {s['beyond']} disagree beyond the $t$-limit of their runs"
        + (f", {s['inconclusive']} in between" if s["inconclusive"] else "")
        + f"; \\textbf{{{w['within']} more agree on weak evidence}} (2--{STRONG_RUNS - 1} runs, a standard error"
        f" with few degrees of freedom; {w['in_sample_within']} in-sample), {w['beyond']} disagree and"
        f" {w['inconclusive']} are inconclusive; {n['n']} rest on a single run (no standard error)."
    )
    if t["other_reading"]:
        text += f" ({_plural(t['other_reading'], 'number')} judged under another reading: no run under this one.)"
    return text


def disagreements_sentence(numbers, m, plan) -> str:
    """The largest disagreement on strong or weak evidence (the paper row with the largest |z| beyond the t-limit),
    with the hypotheses of the residuals tried on it and what would settle it."""
    beyond = [n for n in numbers if n["verdict"] == "beyond"]
    if not beyond:
        return "No paper number disagrees beyond the $t$-limit of its runs."
    top = max(beyond, key=lambda n: abs(n["best"].z))
    same = [n for n in beyond if (n["table"], n["row"]) == (top["table"], top["row"])]
    row = next(r for r in paper_rows() if (r["table"], r["row"]) == (top["table"], top["row"]))
    where = f"T.{paper_table_number(top['table'])} $\\Delta t={row['dt']:g}$" + (
        f" $d={row['d']}$" if top["table"] in HIGH_D else ""
    )
    zs = _join(
        f"{INDICATOR_TEX[n['indicator']]} {abs(n['best'].z):.1f} standard errors"
        f" {'below' if n['best'].z < 0 else 'above'} the paper's on {n['best'].runs} runs ({n['grade']})"
        for n in same
    )
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
        text += (
            f" Tried on it: {_join(tried)}; "
            + (
                "each rejected"
                if set(rejected) == set(tried)
                else f"{_join(rejected)} rejected"
                if rejected
                else "none rejected"
            )
            + (f", {_join(kept)} not rejected in some indicator" if kept else "")
            + "."
        )
    else:
        text += " No hypothesis of the residuals was tried on it."
    settle = []
    if untested:
        settle.append(f"the reruns {_join(untested)} on this row (config \\texttt{{residuals.rows}})")
    if top["grade"] != "strong":
        settle.append(f"{STRONG_RUNS} or more runs")
    settle.append(
        "the paper's per-run values or its code (its split of the $10^3\\times10^3$ evaluations and its"
        " treatment outside the box)"
    )
    return text + " What would settle it: " + _join(settle) + "."


def theory_sentence(r, allc) -> str:
    """Under the theory reading: its paper numbers within 3 s.e., and below the fitted Delta t how many lie under the
    paper's (each number once, by its strongest run set)."""
    numbers = paper_numbers([c for c in allc if c.reading == r["name"]], r["name"], fallback=False)
    below_dt = [n for n in numbers if n["best"].se and n["dt"] < FIT_DT - 1e-12]
    below = sum(n["best"].diff < 0 for n in below_dt)
    return (
        f"Under \\emph{{{r['name']}}}, the reading the theory asks for, {r['within']} of its {r['cells']} paper"
        f" numbers with a standard error are within three standard errors; below $\\Delta t={FIT_DT:g}$ ours lie"
        f" under the paper's in {below} of {len(below_dt)}: its $\\mathrm{{MSE}}_Y$ has no floor."
    )


def sign_sentence(high, m) -> str:
    return (
        f"Open finding: in Tables~9--13 our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in"
        f" {high['pos']} of {high['n']} rows (sign test $p={high['p']:.2g}$, differences"
        f" ${high['lo']:+.2f}$ to ${high['hi']:+.2f}$),"
        " which no hypothesis we tried accounts for (the split $10^3\\times1$ moves the paper's maximum up, the"
        " wrong way, and only widens the spread; float32 storage, truncation and another seed were tried on"
        f" {_plural(len(m['rows']), 'lower-dimensional row')}). What would settle it: those reruns at $d\\ge11$, the"
        " paper's single-run values, or a run of its code."
    )


def speed_sentence(beats, claims, n_timed, like_words) -> str:
    """Speed in one or two sentences: where one thread of ours beat the paper's 24 threads, qualified by the rows
    timed (the cheapest), the precisions and the hardware, with the rows where the calibrated CPU cost model
    (:func:`srmdp.paper.cost.solve_seconds`) says it would not; then the like-for-like comparisons."""
    from .cost import solve_seconds
    from .rows import paper_case

    parts = []
    if beats:
        paper, ours, theirs, res = max(beats, key=lambda b: b[2])  # the longest of the paper's times we beat
        slower = []
        for r in paper_rows():
            model = solve_seconds(paper_case(r["table"], row=r["row"], precision="float64"))
            if model > r["cpu_s"]:
                slower.append((model / r["cpu_s"], r))
        text = (
            f"On the {_plural(n_timed, 'row')} we timed, the cheapest (the paper's CPU took at most"
            f" {max(b[2] for b in beats):.2f} s a run on them), one thread of our {device_words(res)[4:]} CPU in"
            f" float64 ran faster per run than the paper's 24 threads of two 2013 Xeon E5-2620 v2 in float32 on"
            f" {len(beats)} (T.{paper_table_number(paper['table'])} $\\Delta t={paper['dt']:g}$:"
            f" {fmt_seconds(ours)} s against {theirs:.2f} s): other hardware and precision, not a comparison of the"
            " schemes"
        )
        if slower:
            worst, w = max(slower, key=lambda x: x[0])
            text += (
                f"; on the {_plural(len(slower), 'row')} where the CPU cost model (within 30\\,\\% of our runs)"
                f" predicts one thread slower than the paper's 24, it is up to {worst:.1f} times slower"
                f" (T.{paper_table_number(w['table'])} $\\Delta t={w['dt']:g}$"
                + (f" $d={w['d']}$" if w["table"] in HIGH_D else "")
                + ")"
            )
        parts.append(text)
    fair = [c for c in claims if c.get("group") == "time" and "like for like" in c.get("ours", "")]
    if fair:
        parts.append(
            f"the GPU speed-ups are compared like for like in {_plural(len(fair), 'claim')} of"
            f" Table~\\ref{{tab:claims}} (same reading and precisions on both sides: {like_words}), each with its"
            " range from run to run and the runs of each side (Figure~\\ref{fig:speedup})"
        )
    return ("; ".join(parts) + ".") if parts else ""


def limitations(plan, fit, not_run, totals, every, measured) -> str:
    store = Counter(c.storage for c in every)
    arith = Counter(c.arithmetic for c in every)
    w = totals["weak"]
    return (
        f"\\item \\emph{{A fitted reading.}} \\emph{{{FIT_READING}}} was chosen by comparing with the paper's"
        f" $\\Delta t={FIT_DT:g}$ values: its {totals['in_sample_within']} in-sample numbers within three standard"
        " errors are not evidence."
        f"\n\\item \\emph{{Rows not run}} (under any reading): {_plural(len(not_run), 'row')}"
        + (" (" + _join(_row_words(r) for r in not_run) + ")" if not_run else "")
        + f"; {w['n']} paper numbers of {_plural(w['rows'], 'row')} rest on weak evidence (2--{STRONG_RUNS - 1} runs;"
        f" with 2 runs only a difference beyond {z_limit(2):.0f} standard errors is significant) and"
        f" {totals['none']['n']} on one run."
        "\n\\item \\emph{Arithmetic.} Of our "
        + f"{len(every)} cells, "
        + _join(
            f"{n} compute their paths in {a}" + (" (sums and solves in float64)" if a == "float32" else "")
            for a, n in sorted(arith.items())
        )
        + "; "
        + _join(f"{n} store their coefficients in {p}" for p, n in sorted(store.items()))
        + " (the paper computed in float32 throughout): float32 arithmetic is "
        + (f"measured on {measured}, bounded elsewhere" if measured else "bounded, not measured")
        + " (Section~\\ref{sec:residuals})."
        "\n\\item \\emph{Hardware.} Our CPUs (2 and 16 logical CPUs) and GPUs are not the paper's (24"
        " threads of two Xeon E5-2620 v2, GTX TITAN Black): times and speed-ups compare generations as well as"
        " schemes."
    )


def arithmetic_measured(model) -> str:
    """Where float32 arithmetic was run against float64 (tables/arithmetic.tex) and the largest change it made,
    in words; empty where it was not."""
    done = [r for r in model["rows"] if r["diff"]]
    if not done:
        return ""
    worst = max(model["worst"], key=lambda w: w["rel"])
    return (
        f"{_plural(len(done), 'row')} on the CPU (Table~\\ref{{tab:arithmetic}}: same streams; the largest change"
        f" of an indicator is {worst['rel']:.1e} of its standard error, {worst['indicator']} of {worst['where']})"
    )


def arithmetic_sentence(allc, measured="") -> str:
    """What the results record of their path arithmetic (the reading's ``arithmetic``), and where float32
    arithmetic was measured against float64 (``measured``: :func:`arithmetic_measured`)."""
    arith = Counter(c.arithmetic for c in allc)
    where = f"float32 arithmetic is measured on {measured}; elsewhere its effect is bounded:" if measured else ""
    if set(arith) == {"float64"}:
        return (
            f"All {len(allc)} cells of ours, on either device, record float64 \\emph{{path arithmetic}} (the GPU"
            f" lines: {precisions(c for c in allc if c.device != 'CPU')}), so "
            + (where or "float32 arithmetic is not measured here; its effect is bounded instead:")
        )
    return (
        "Of our cells, "
        + _join(f"{n} record {a} \\emph{{path arithmetic}}" for a, n in sorted(arith.items()))
        + "; "
        + (where or "for the others its effect is bounded:")
    )


def precisions(cs) -> str:
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


def regenerate(plan) -> str:
    jobs = plan.jobs(2)
    core_s = sum(sec * thr for _, _, sec, thr, _ in jobs)
    return (
        "Install the package and its workflow (Python $\\ge$ 3.11): \\texttt{python -m venv .venv"
        ' \\&\\& . .venv/bin/activate \\&\\& pip install -e ".[paper]"} (or \\texttt{conda env'
        " create -f environment.yml}); the PDF also needs a TeX installation with \\texttt{latexmk}"
        " (Debian/Ubuntu: \\texttt{apt-get install texlive-latex-base texlive-latex-recommended latexmk};"
        " without it the workflow skips the PDF and says so). Then \\texttt{snakemake --cores all} (preset"
        f" \\texttt{{{tex_escape(plan.preset)}}}, \\texttt{{config/config.yaml}}) rebuilds every table, figure"
        " and this PDF from the committed results, running no compute job; from scratch (\\texttt{--forcerun}"
        f" of its {len(jobs)} compute jobs) the cost model gives about {core_s / 2 / 3600:.1f} h on 2 cores"
        " (\\texttt{srmdp plan} lists them). The GPU lines (\\texttt{data/gpu/}) need an NVIDIA GPU:"
        " \\texttt{python -m srmdp campaign} reruns them; the workflow only reads them."
    )


def table_sentence(table, allc) -> str:
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
                words.append(
                    f"{g}: {x['within']} of {x['n']} within 3 s.e. ({x['in_sample_within']} in-sample),"
                    f" {x['beyond']} beyond, {x['inconclusive']} inconclusive"
                )
        if t["none"]["n"]:
            words.append(f"{t['none']['n']} from a single run")
        parts.append(
            f"\\emph{{{name}}}: {_plural(t['rows'], 'row')}, {t['numbers']} paper numbers; " + "; ".join(words)
        )
    return "Ours: " + ". ".join(parts) + "."


def residuals_sentence(m, fit=None) -> str:
    """Per hypothesis: the cells beyond the threshold it does not reject, those within it moves out, its r.m.s."""
    parts = []
    for h, t in zip(m["headers"], m["tally"], strict=True):
        if not t["of"] and not t["within"]:
            continue
        rms = "" if t["rms"] is None else f", r.m.s.\\ of $z$ {t['rms']:.1f}"
        parts.append(f"{h}: does not reject {t['explains']} of {t['of']}, breaks {t['breaks']} of {t['within']}{rms}")
    left = sum(1 for c in m["cells"] if not c["explained"])
    counted = (
        ""
        if fit is None
        else (
            f" (run sets: a paper number may have several; Table~\\ref{{tab:summary}} counts each number once, by its"
            f" strongest run set: {fit['out_of_3']} beyond 3 standard errors, {fit['unexplained']} of them rejected by"
            " every hypothesis tried)"
        )
    )
    return (
        f"Of the {len(m['cells'])} cells of \\emph{{{m['reading']}}} beyond {m['threshold']} standard errors"
        f"{counted}"
        f" and the {m['n_within']} within (r.m.s.\\ of $z$ over all {m['rms0']:.1f} under our own spread), per"
        " hypothesis: " + "; ".join(parts) + f"; {_plural(left, 'cell')} no hypothesis accounts for. A hypothesis that"
        " brings a cell within its spread only by widening the spread does not explain it: it is not rejected."
    )


def devices_sentence(allc) -> str:
    """CPU and GPU lines computed from the same runs (counted once, ``CPU = GPU``)."""
    twins = [c for c in allc if c.device == "CPU = GPU"]
    if not twins:
        return "No row was run on both devices with the same runs."
    rows = len({(c.table, c.row) for c in twins})
    cpu = _join(sorted({c.also_precision for c in twins}))
    return (
        f"On the {_plural(rows, 'row')} run on both devices from the same random streams, the CPU ({cpu}) and"
        f" the GPU ({precisions(c for c in twins)}) agree to within $10^{{{round(math.log10(CPU_EQ_GPU_TOL))}}}$"
        " in every indicator:"
        f" their {len(twins)} cells are counted once, as ``CPU = GPU''."
    )


def large_d_sentence(allc) -> str:
    rows = [r for r in paper_rows() if r["table"] in HIGH_D]
    mine = [c for c in allc if c.table in HIGH_D]
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        got = {(c.table, c.row) for c in mine if c.reading == name}
        se = {(c.table, c.row) for c in mine if c.reading == name and c.runs >= 2}
        parts.append(f"\\emph{{{name}}} {len(got)} of {len(rows)} rows ({len(se)} with at least two runs)")
    return (
        ("Tables~9--13 hold values of ours under " + _join(parts) + ".")
        if parts
        else "Tables~9--13 hold no value of ours."
    )
