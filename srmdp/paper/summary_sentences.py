"""The sentences of the report's prose, each generated from the cells and models it states.

Each function returns one LaTeX sentence (or paragraph) that replaces a hand-written statement of
``paper/main.tex``; :func:`srmdp.paper.summary.summary_model` calls them with the counts of
:mod:`srmdp.paper.cells` and :mod:`srmdp.paper.verdict`, so that the prose cannot disagree with the tables.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from .claims import TEXT_VS_TABLE
from .latex import INDICATOR_TEX, fmt_sci, fmt_seconds, tex_escape
from .record import CPU_EQ_GPU_TOL, device_words
from .rows import paper_rows, paper_table_number
from .tables import FIT_DT, FIT_READING  # the fitted reading and where; float32 vs float64
from .verdict import COST_RUNS, HIGH_D, STRONG_RUNS, evidence_totals, paper_numbers


def _verb(n: int, verb: str) -> str:
    """``verb`` agreeing with a count: "1 differs", "2 differ"."""
    return verb + "s" if n == 1 else verb


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


def _counts(x) -> str:
    return f"{x['reproduced']} reproduced, {x['differs']} {_verb(x['differs'], 'differ')}, {x['undecided']} undecided"


def _sensitivity(x) -> str:
    sens = x["sensitivity"]
    return f"at $\\delta/2$: {_counts(sens['half'])}; at $2\\delta$: {_counts(sens['double'])}"


def agreement_sentence(t, rule) -> str:
    """p. 1's headline: the paper numbers under the equivalence rule, out of sample first, with the counts at
    delta/2 and 2 delta (:func:`srmdp.paper.verdict.evidence_totals`)."""
    o, i = t["out"], t["in"]
    text = (
        f"Each paper number (row $\\times$ indicator) is judged once, by its strongest run set under"
        f" \\emph{{{FIT_READING}}}, with one rule: \\emph{{reproduced}} when the interval of"
        f" $\\Delta=\\text{{ours}}+\\text{{shift}}-\\text{{paper}}$ lies inside $\\pm\\delta$, \\emph{{differs}} when"
        f" it lies wholly outside, \\emph{{undecided}} otherwise; {rule.words()}; the shift: where that model, from"
        f" our per-run values, puts the paper's evaluation of our runs. \\textbf{{Out of sample}}"
        f" ($\\Delta t<{FIT_DT:g}$,"
        f" rows the fit did not see): of {o['n']} numbers of {_plural(o['rows'], 'row')},"
        f" \\textbf{{{o['reproduced']} are reproduced and {o['differs']} {_verb(o['differs'], 'differ')}}};"
        f" {o['undecided']} are undecided,"
        f" {o['two_runs']} of them on 2 runs, whose interval is {rule.t(2):.0f} standard errors wide on each side."
        f" The margin's weight: {_sensitivity(o)}. In sample ($\\Delta t={FIT_DT:g}$, where the reading was fitted:"
        f" not evidence): {_counts(i)} of {i['n']} ({_sensitivity(i)})."
    )
    if t["other_reading"]:
        text += f" ({_plural(t['other_reading'], 'number')} judged under another reading: no run under this one.)"
    return text


def _where(table, dt, d) -> str:
    return f"T.{paper_table_number(table)} $\\Delta t={dt:g}$" + (f" $d={d}$" if table in HIGH_D else "")


def _rerun_of(m, table, row):
    return next((r for r in m["reruns"] if (r["table"], r["row"]) == (table, row)), None)


def _rerun_words(r, key, skip=()) -> tuple[str, bool]:
    """The reruns' Delta of one indicator in words (``skip``: the hypotheses with a predicted sign, reported apart by
    :func:`hypotheses_sentence`), and whether each keeps the sign of the reading's Delta."""
    vs = [(name, v["diff"][key]) for name, v in r["variants"].items() if key in v["diff"] and name not in skip]
    words = _join(f"${d:+.3f}$ ({tex_escape(name)})" for name, d in vs)
    base = r["base"].get(key)
    same = base is not None and all((d > 0) == (base > 0) for _, d in vs)
    return words, same and bool(vs)


def disagreements_sentence(numbers, m, plan, rule) -> str:
    """The out-of-sample differences (in sample where there is none): the row of the largest |Delta| that the rule
    calls differs, the hypotheses tried on it, the reruns of that row (one thing changed each) and what would
    settle what they leave open."""
    from .equivalence import model_tex

    judged = {id(n): n["best"].judgement for n in numbers}
    differ = [n for n in numbers if n["verdict"] == "differs"]
    prefix = ""
    if not differ:  # none under the headline's model: the numbers that differ under the other reading
        other = rule.under(rule.sensitivity_model)
        for n in numbers:
            if n["best"].res is not None:
                judged[id(n)] = other.judge(n["best"].res, n["indicator"], n["best"].paper)
        differ = [n for n in numbers if judged[id(n)].verdict == "differs"]
        if not differ:
            return "No paper number differs under either reading of the paper's evaluations."
        prefix = (
            f"No paper number differs with the paper's evaluations read as {model_tex(rule.model)}; read as"
            f" {model_tex(rule.sensitivity_model)}, "
        )
    out = [n for n in differ if not n["in_sample"]]
    top = max(out or differ, key=lambda n: abs(judged[id(n)].diff))
    same = [n for n in differ if (n["table"], n["row"]) == (top["table"], top["row"])]
    where = _where(top["table"], top["dt"], top["d"])
    tables = sorted({paper_table_number(n["table"]) for n in out})
    text = (
        prefix
        + f"{_plural(len(out), 'number')} {_verb(len(out), 'differ')} out of sample"
        + (f" (in T.{', T.'.join(map(str, tables))})" if out else "")
        + f"; the largest is {where}: "
        + _join(
            f"{INDICATOR_TEX[n['indicator']]} $\\Delta={judged[id(n)].diff:+.3f}"
            f"\\pm{judged[id(n)].half_width:.3f}$ on {n['best'].runs} runs"
            for n in same
        )
        + "."
    )
    key_of = {v: k for k, v in INDICATOR_TEX.items()}
    said = {}  # per reading of the paper's evaluations (literal, the splits): rejected / reproduces / undecided where
    for c in m["cells"]:
        if any(c["sources"][0] == n["best"].path and key_of[c["indicator"]] == n["indicator"] for n in same):
            for h, x in zip(m["headers"][:3], c["h"][:3], strict=True):
                if x is not None:
                    said.setdefault(x[1], {}).setdefault(h, []).append(c["indicator"])
    if said:
        words = []
        for verdict, what in (("differs", "rejected"), ("reproduced", "reproduces it"), ("undecided", "undecided")):
            hs = said.get(verdict, {})
            if hs:
                words.append(_join(f"{h} ({_join(ind)})" for h, ind in hs.items()) + f" {what}")
        text += " Of the readings of the paper's evaluations tried on it: " + "; ".join(words)
        text += " (undecided: not rejected, only by a spread too wide to decide)." if "undecided" in said else "."
    r = _rerun_of(m, top["table"], top["row"])
    if r is not None:
        parts, systematic = [], True
        for n in same:
            words, kept_sign = _rerun_words(r, n["indicator"], m["predicted"])
            if words:
                parts.append(f"{INDICATOR_TEX[n['indicator']]} {words}")
                systematic &= kept_sign
        if parts:
            runs = sorted({v["runs"] for name, v in r["variants"].items() if name not in m["predicted"]})
            text += (
                f" Its reruns with one thing changed ({'/'.join(map(str, runs))} runs each) give {'; '.join(parts)}"
                + (
                    ": the difference keeps its sign in every variant (those of the same seed share our random"
                    " streams: only the other seeds' are independent evidence)."
                    if systematic
                    else ": not every variant keeps its sign."
                )
            )
    settle = [
        "the paper's per-run values or its code (its split of the $10^3\\times10^3$ evaluations and its treatment"
        " outside the box)"
    ]
    if r is None:
        settle.insert(0, "the reruns of \\texttt{residuals.variants} on this row (config \\texttt{residuals.rows})")
    return text + " What would settle it: " + _join(settle) + "."


def theory_sentence(r, allc) -> str:
    """Under the theory reading: its paper numbers under the rule, and below the fitted Delta t how many lie under the
    paper's (each number once, by its strongest run set)."""
    numbers = paper_numbers([c for c in allc if c.reading == r["name"]], r["name"], fallback=False)
    below_dt = [n for n in numbers if n["best"].se and n["dt"] < FIT_DT - 1e-12]
    below = sum(n["best"].diff < 0 for n in below_dt)
    return (
        f"Under \\emph{{{r['name']}}}, the reading the theory asks for, of its {r['numbers']} paper numbers"
        f" {_counts(r['totals']['all'])}; below $\\Delta t={FIT_DT:g}$ ours lie under the paper's in {below} of"
        f" {len(below_dt)}: its $\\mathrm{{MSE}}_Y$ has no floor."
    )


def sign_sentence(high, m) -> str:
    """The high-d sign finding: its count (no sign test: the rows share random streams), what the rule decides of
    those numbers, the reruns at d >= 11 (one thing changed each) and what would settle the rest."""
    text = (
        f"Open finding: in Tables~9--13 our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in"
        f" {high['pos']} of {high['n']} row groups (rows that differ only in $M$ count once; differences"
        f" ${high['lo']:+.2f}$ to ${high['hi']:+.2f}$; the rule: {_counts(high)}). A count, not a sign test: the"
        " groups' test points are keyed by seed and run, not by the row, so they share random streams, and on 2 runs"
        " each their correlation cannot be measured (no p-value)."
    )
    high_reruns = [r for r in m["reruns"] if r["table"] in HIGH_D]
    holds = True
    parts = []
    for r in high_reruns:
        words, same = _rerun_words(r, "mse_y_max", m["predicted"])
        if words:
            runs = sorted({v["runs"] for name, v in r["variants"].items() if name not in m["predicted"]})
            # a row the preset's cases do not run: its reruns are not the reading's runs (other runs, other seed)
            seeds = {v["seed"] for name, v in r["variants"].items() if not name.startswith("seed")}
            apart = bool(seeds - {r["seed"]})
            parts.append(
                f"{_where(r['table'], r['dt'], r['d'])} (the reading ${r['base']['mse_y_max']:+.3f}$ on {r['runs']}"
                f" runs; reruns on {'/'.join(map(str, runs))}"
                + (f", seed {_join(map(str, sorted(seeds)))} against {r['seed']}" if apart else "")
                + f"): {words}"
            )
            holds &= same
    if parts:
        text += (
            " Its reruns with one thing changed give "
            + "; ".join(parts)
            + (": the sign holds in every variant" if holds else ": the sign does not hold in every variant")
            + ", and the split $10^3\\times1$ moves the paper's maximum up, the wrong way."
        )
    else:
        text += " No rerun at $d\\ge11$ exists yet (config \\texttt{residuals.rows})."
    return (
        text + " What would settle it: enough runs for the rule to decide (the evidence campaign's $d\\ge11$ rows), the"
        " paper's single-run values, or a run of its code."
    )


def _sign_of(text: str) -> int:
    """The sign a prediction states first: +1, -1, or 0 where it begins with neither."""
    t = text.strip()
    return 1 if t.startswith("+") else -1 if t.startswith(("-", "\\textminus", "−")) else 0


MSE_NAME = re.compile(r"MSE_([YZ])(?:,(max|av))?")


def _prose(text: str) -> str:
    """A config's prose for LaTeX: escaped, with the indicators' names (MSE_Y,max, MSE_Z,av, MSE_Y) typeset."""
    out, at = [], 0
    for m in MSE_NAME.finditer(text):
        sub = m[1] if not m[2] else m[1] + "," + ("\\max" if m[2] == "max" else "\\mathrm{av}")
        out += [tex_escape(text[at : m.start()]), f"$\\mathrm{{MSE}}_{{{sub}}}$"]
        at = m.end()
    return "".join(out) + tex_escape(text[at:])


def hypotheses_sentence(m) -> str:
    """The hypotheses from the paper's text whose sign was predicted before their run: the prediction, the measured
    shift of ours (paired on the runs shared with the reading, so free of the runs' noise) and Delta under each."""
    if not m["predicted"]:
        return ""
    parts = []
    for name, predicted in m["predicted"].items():
        r = next((x for x in m["reruns"] if name in x["variants"]), None)
        if r is None:
            parts.append(f"\\emph{{{tex_escape(name)}}} (predicted {_prose(predicted)}) is not run yet")
            continue
        v = r["variants"][name]
        sign = _sign_of(predicted)
        shift = v["shift"] or {}
        seen = {k: (d, se) for k, (d, se, _) in shift.items()}
        measured = _join(f"{INDICATOR_TEX[k]} {fmt_sci(d)} (s.e.\\ {fmt_sci(se)})" for k, (d, se) in seen.items())
        clear = [k for k, (d, se) in seen.items() if abs(d) > 3 * se]
        agree = [k for k in clear if (seen[k][0] > 0) == (sign > 0)]
        verdict = (
            "no shift beyond 3 of its standard errors"
            if not clear
            else f"the predicted sign on {len(agree)} of the {len(clear)} indicators it moves"
        )
        deltas = _join(f"{INDICATOR_TEX[k]} ${d:+.3f}$ ({v['verdict'][k]})" for k, d in v["diff"].items())
        rejected = [INDICATOR_TEX[k] for k, x in v["verdict"].items() if x == "differs"]
        deltas += f": rejected for {_join(rejected)}" if rejected else ": not rejected"
        paired = (
            f"shift of ours on the {next(iter(shift.values()))[2]} runs it shares with the reading {measured},"
            f" {verdict}"
            if shift
            else "no run shared with the reading (no paired shift)"
        )
        parts.append(
            f"\\emph{{{tex_escape(name)}}} ({v['runs']} runs on {_where(r['table'], r['dt'], r['d'])}; predicted"
            f" {_prose(predicted)}): {paired}; under it {deltas}"
        )
    return (
        "Hypotheses from the paper's text that could move the numbers below $\\Delta t=0.2$, each with its sign"
        " written in the config before its run (Table~\\ref{tab:residuals}): " + "; ".join(parts) + "."
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
                f" predicts one thread slower than the paper's 24, it predicts up to {worst:.1f} times slower"
                " (a prediction, not measured)"
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
    a = totals["all"]
    return (
        f"\\item \\emph{{A fitted reading.}} \\emph{{{FIT_READING}}} was chosen by comparing with the paper's"
        f" $\\Delta t={FIT_DT:g}$ values: its {totals['in']['reproduced']} in-sample numbers reproduced are not"
        " evidence."
        f"\n\\item \\emph{{Rows not run}} (under any reading): {_plural(len(not_run), 'row')}"
        + (" (" + _join(_row_words(r) for r in not_run) + ")" if not_run else "")
        + f"; {a['two_runs']} paper numbers rest on 2 runs (undecided whatever their value unless their standard"
        f" error is below $\\delta/{plan.equivalence.t(2):.0f}$), {a['n'] - a['strong'] - a['one_run']} on fewer than"
        f" {STRONG_RUNS} and {a['one_run']} on one run."
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
    float64 (srmdp.numerics.scheme), so it is not the paper's float32 throughout and is not called so."""
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
    run set under the rule (:func:`srmdp.paper.verdict.evidence_totals`), out of sample and in sample."""
    mine = [c for c in allc if c.table == table]
    if not mine:
        return "No value of ours for this table."
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        t = evidence_totals(paper_numbers([c for c in mine if c.reading == name], name, fallback=False))
        words = [
            f"{where}: {_counts(t[s])}" for s, where in (("out", "out of sample"), ("in", "in sample")) if t[s]["n"]
        ]
        parts.append(
            f"\\emph{{{name}}}: {_plural(t['rows'], 'row')}, {t['numbers']} paper numbers; " + "; ".join(words)
        )
    return "Ours: " + ". ".join(parts) + "."


def residuals_sentence(m, fit=None) -> str:
    """Per hypothesis: of the numbers listed, how many it rejects (differs under it) and reproduces, how many
    reproduced numbers it breaks, its r.m.s. of z."""
    parts = []
    for h, t in zip(m["headers"], m["tally"], strict=True):
        if not t["of"] and not t["within"]:
            continue
        rms = "" if t["rms"] is None else f", r.m.s.\\ of $z$ {t['rms']:.1f}"
        parts.append(
            f"{h}: rejected for {t['rejects']} and reproducing {t['accounts']} of {t['of']}, breaks {t['breaks']} of"
            f" {t['within']}{rms}"
        )
    left = sum(1 for c in m["cells"] if not c["explained"])
    counted = (
        ""
        if fit is None
        else (
            f" (run sets: a paper number may have several; Table~\\ref{{tab:summary}} counts each number once, by its"
            f" strongest run set: {fit['totals']['all']['differs']} {_verb(fit['totals']['all']['differs'], 'differ')},"
            f" {fit['unexplained']} of them rejected by"
            " every hypothesis tried)"
        )
    )
    return (
        f"Table~\\ref{{tab:residuals}} lists {len(m['cells'])} run sets of \\emph{{{m['reading']}}}: those the rule"
        f" calls differs and those of the rerun rows it does not call reproduced{counted}, beside the {m['n_within']}"
        " reproduced of the same rows; per hypothesis, judged by the same rule: "
        + "; ".join(parts)
        + f"; {_plural(left, 'run set')} every hypothesis tried rejects. A hypothesis that leaves a number undecided"
        " only by widening the spread does not explain it: it is only not rejected."
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


# --- page 1: the verdict at a glance (<= 400 words before the scorecard) -----------------------------------------
def headline_sentence(t, rule, wanted, noise) -> str:
    """The counts under the model of the paper's evaluations, out of sample first, the causes of the undecided, and
    the other split's counts beside them (:func:`srmdp.paper.verdict.evidence_totals`).  ``wanted``: the rows undecided
    on our runs (:func:`srmdp.paper.verdict.runs_wanted`); ``noise``: the paper-noise count per test points of the
    paper's runs (:func:`srmdp.paper.verdict.paper_noise_by_points`)."""
    from .equivalence import model_tex

    o, i = t["out"], t["in"]
    c, other = o["causes"], o["other_model"]
    near = f", {c['near_margin']} with $\\Delta$ at the margin" if c["near_margin"] else ""
    others = [p for p in noise if p != 1]
    splits = " and ".join(f"$10^3{{\\times}}{p}$" for p in others)
    by_points = (
        " (under $10^3\\times1$, the split that gives the paper its widest own noise; "
        + " and ".join(str(noise[p]) for p in others)
        + f" under {splits})"
        if others and 1 in noise
        else ""
    )
    decided = sum(w["decided_held"] for w in wanted)
    hours = sum(w["held_seconds"] for w in wanted) / 3600
    runs = (
        f"{c['our_runs']} on our runs ({decided} of them decided at their present $\\Delta$ by about"
        f" {hours:.1f} CPU-h more)"
        if c["our_runs"]
        else "0 on our runs"
    )
    return (
        f"\\textbf{{Out of sample}} ($\\Delta t<{FIT_DT:g}$, rows the fitted reading did not see), with the paper's"
        f" evaluations read as {model_tex(rule.model)} (runs $\\times$ test points; the split its residuals favour,"
        f" Section~\\ref{{sec:residuals}}): of {o['n']} paper numbers, \\textbf{{{o['reproduced']} are reproduced"
        f" and {o['differs']} {_verb(o['differs'], 'differ')}}}; {o['undecided']} are undecided:"
        f" {c['paper_noise']} by the paper's own Monte-Carlo noise{by_points}, {runs}{near}."
        f" Read as {model_tex(rule.sensitivity_model)}: {_counts(other)}. In sample (not evidence):"
        f" {_counts(i)} of {i['n']}."
    )


def consistency_sentence(c, level: float) -> str:
    """The global consistency test (:func:`srmdp.paper.verdict.consistency`)."""
    if c["p"] is None:
        return ""
    per = c["per_indicator"]
    words = _join(
        f"{INDICATOR_TEX[k]} {fmt_p(v['p'])} ($\\chi^2={v['chi2']:.1f}$, {v['n']} rows)" for k, v in per.items()
    )
    rhos = [v["rho_max"] for v in per.values() if v["rho_max"] is not None]
    left = max(v["left_out"] for v in per.values())
    carried = (
        f", correlations of rows sharing random streams carried (up to ${max(rhos, key=abs):+.2f}$)" if rhos else ""
    )
    carried += f", {left} rows left out (correlation not measurable)" if left else ""
    off = [(k, v) for k, v in per.items() if v["p"] < 1 - level]
    text = (
        f"\\textbf{{Consistency}} with ours within both sides' noise ($\\chi^2$ per indicator{carried}): {words};"
        f" together {fmt_p(c['p'])}."
    )
    for k, v in off:
        w = v.get("without_two")
        text += f" {INDICATOR_TEX[k]}: close, not identical" + (
            f" (without {_join(_where(x.table, x.dt, x.d) for x in v['largest_two'])}: {fmt_p(w['p'])})." if w else "."
        )
    return text


def fmt_p(p: float) -> str:
    if p >= 1e-3:
        return f"$p={p:.2g}$"
    m, e = f"{p:.1e}".split("e")
    return f"$p={m}\\times10^{{{int(e)}}}$"


def findings(numbers, rule, high, claims, outcomes) -> list:
    """At most five findings for p. 1, one sentence each with its number."""
    out_nums = [n for n in numbers if not n["in_sample"]]
    z = [n for n in out_nums if n["indicator"] == "mse_z_av"]
    zc = Counter(n["verdict"] for n in z)
    zu = Counter(n["best"].judgement.cause for n in z if n["verdict"] == "undecided")
    items = [
        f"$\\mathrm{{MSE}}_{{Z,\\mathrm{{av}}}}$ is where the verdict is decided: {zc['reproduced']} of {len(z)}"
        f" out-of-sample numbers are reproduced and {zc['differs']} {_verb(zc['differs'], 'differ')};"
        f" {zu['our runs']} of the {zc['undecided']} undecided {_verb(zu['our runs'], 'need')} only more runs of"
        " ours."
    ]
    y = [n for n in out_nums if n["indicator"] != "mse_z_av" and n["best"].judgement.paper_sd]
    noisy = [n["best"].judgement.paper_sd for n in y if n["best"].judgement.cause == "paper noise"]
    if noisy:
        z = rule.z()
        items.append(
            f"$\\mathrm{{MSE}}_Y$ cannot be decided in {len(noisy)} of {len(y)} out-of-sample numbers: under the"
            f" $10^3\\times1$ reading the paper's own values carry a standard deviation of {min(noisy):.3f} to"
            f" {max(noisy):.3f}, whose {z:.0f}$\\sigma$ ({z * min(noisy):.3f} to {z * max(noisy):.3f}) reaches"
            f" $\\delta={rule.delta:g}$."
        )
    other = rule.under(rule.sensitivity_model)
    flipped = [
        (n, other.judge(n["best"].res, n["indicator"], n["best"].paper))
        for n in out_nums
        if n["best"].res is not None and n["best"].verdict_other() == "differs"
    ]
    if flipped:
        n, j = max(flipped, key=lambda p: abs(p[1].diff))
        h = n["best"].judgement
        items.append(
            f"Only the other reading of the paper's evaluations makes numbers differ ({len(flipped)}): the largest,"
            f" {_where(n['table'], n['dt'], n['d'])} {INDICATOR_TEX[n['indicator']]}, has $\\Delta={j.diff:+.2f}$"
            f" there and ${h.diff:+.2f}\\pm{h.half_width:.2f}$ under $10^3\\times1$."
        )
    if high["n"]:
        items.append(
            f"In Tables~9--13 (in sample) our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in {high['pos']} of"
            f" {high['n']} row groups (a count: they share random streams, so no sign test)."
        )
    if claims:
        items.append(
            f"Of the {len(claims)} numeric claims of the text, {outcomes['held']} are held and"
            f" {outcomes['not held']} not held by our own measurements (Table~\\ref{{tab:claims}})."
        )
    return items[:5]


def abstract_sentence(t, rule) -> str:
    from .equivalence import model_tex

    o, other = t["out"], t["out"]["other_model"]
    return (
        f"Out of sample, with the paper's evaluations read as {model_tex(rule.model)} (runs $\\times$ test points),"
        f" {o['reproduced']} of its {o['n']} numbers are reproduced and {o['differs']}"
        f" {_verb(o['differs'], 'differ')}; {o['undecided']} are undecided,"
        f" {o['causes']['paper_noise']} of them by the paper's own Monte-Carlo noise."
        f" Read as {model_tex(rule.sensitivity_model)}: {_counts(other)}."
    )


def wanted_sentence(wanted) -> str:
    """The rows whose out-of-sample numbers are undecided on our runs: the runs their spread needs and the time, and
    what those runs would do at the present Delta."""
    if not wanted:
        return "No out-of-sample number is undecided for want of our runs."
    parts = []
    for w in wanted:
        held = []
        for x in w["numbers"]:
            name = INDICATOR_TEX[x["indicator"]]
            if x["held"] is None:
                held.append(
                    f"{name} stays undecided at its $\\Delta={x['diff']:+.3f}$: the runs narrow its interval to"
                    f" $\\pm{x['narrowed']:.3f}$"
                )
            else:
                held.append(f"{name} is decided at {x['held']} runs if $\\Delta$ stays at ${x['diff']:+.3f}$")
        parts.append(
            f"T.{w['number']} row {w['row']} {w['runs']}$\\to${w['needed']} runs ({_duration(w['seconds'])},"
            f" {w['priced']}): {'; '.join(held)}"
        )
    return (
        "Undecided on our runs, with the runs their spread needs (the test's sizing, from the spread only) and their"
        f" time on one CPU thread (at the row's measured seconds per run, else the cost model): {'; '.join(parts)}."
    )


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds < 3600 else f"{seconds / 3600:.1f} h"
