"""The sentences on the runs themselves: the claims' scorecard, speed, precisions and devices, the limitations, how
to regenerate, and the per-table sentences."""

from __future__ import annotations

import math
from collections import Counter

from ...inputs.results import CPU_EQ_GPU_TOL, device_words
from ...inputs.rows import paper_rows, paper_table_number
from ..claims.text import TEXT_VS_TABLE
from ..latex import fmt_seconds, tex_escape
from ..tables import FIT_DT, FIT_READING  # the fitted reading and where
from ..verdict import HIGH_D, STRONG_RUNS, evidence_totals, paper_numbers
from .words import counts, join, plural, precisions, row_words


def claims_sentence(claims, outcomes) -> str:
    """The claims' outcomes in the words of Table R10 and the scorecard
    (:data:`srmdp.paper.report.claims.text.CLAIM_OUTCOMES`)."""
    return (
        f"Of the {len(claims)} numeric claims of the text (Table~\\ref{{tab:claims}}), scored by our own"
        f" measurements and recomputations only, {outcomes['held']} are \\emph{{held}},"
        f" {outcomes['not held']} \\emph{{not held}} (qualified or contradicted) and {outcomes['not checked']}"
        f" \\emph{{not checked}} (each says what would check it); {outcomes[TEXT_VS_TABLE]} are"
        " \\emph{text = its table}: only the paper's text against its own numbers could be checked, which is not"
        " counted as held."
    )


def speed_sentence(beats, claims, n_timed, like_words) -> str:
    """Speed in one or two sentences: where one thread of ours beat the paper's 24 threads, qualified by the rows
    timed (the cheapest), the precisions and the hardware, with the rows where the calibrated CPU cost model
    (:func:`srmdp.paper.models.cost.solve_seconds`) says it would not; then the like-for-like comparisons."""
    from ...inputs.rows import paper_case
    from ...models.cost import solve_seconds

    parts = []
    if beats:
        paper, ours, theirs, res = max(beats, key=lambda b: b[2])  # the longest of the paper's times we beat
        slower = []
        for r in paper_rows():
            model = solve_seconds(paper_case(r["table"], row=r["row"], precision="float64"))
            if model > r["cpu_s"]:
                slower.append((model / r["cpu_s"], r))
        text = (
            f"On the {plural(n_timed, 'row')} we timed, the cheapest (the paper's CPU took at most"
            f" {max(b[2] for b in beats):.2f} s a run on them), one thread of our {device_words(res)[4:]} CPU in"
            f" float64 ran faster per run than the paper's 24 threads of two 2013 Xeon E5-2620 v2 in float32 on"
            f" {len(beats)} (T.{paper_table_number(paper['table'])} $\\Delta t={paper['dt']:g}$:"
            f" {fmt_seconds(ours)} s against {theirs:.2f} s): other hardware and precision, not a comparison of the"
            " schemes"
        )
        if slower:
            worst, w = max(slower, key=lambda x: x[0])
            text += (
                f"; on the {plural(len(slower), 'row')} where the CPU cost model (within 30\\,\\% of our runs)"
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
            f"the GPU speed-ups are compared like for like in {plural(len(fair), 'claim')} of"
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
        f"\n\\item \\emph{{Rows not run}} (under any reading): {plural(len(not_run), 'row')}"
        + (" (" + join(row_words(r) for r in not_run) + ")" if not_run else "")
        + f"; {a['two_runs']} paper numbers rest on 2 runs (undecided whatever their value unless their standard"
        f" error is below $\\delta/{plan.equivalence.t(2):.0f}$), {a['n'] - a['strong'] - a['one_run']} on fewer than"
        f" {STRONG_RUNS} and {a['one_run']} on one run."
        "\n\\item \\emph{Arithmetic.} Of our "
        + f"{len(every)} cells, "
        + join(
            f"{n} compute their paths in {a}" + (" (sums and solves in float64)" if a == "float32" else "")
            for a, n in sorted(arith.items())
        )
        + "; "
        + join(f"{n} store their coefficients in {p}" for p, n in sorted(store.items()))
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
        f"{plural(len(done), 'row')} on the CPU (Table~\\ref{{tab:arithmetic}}: same streams; the largest change"
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
        + join(f"{n} record {a} \\emph{{path arithmetic}}" for a, n in sorted(arith.items()))
        + "; "
        + (where or "for the others its effect is bounded:")
    )


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
    run set under the rule (:func:`srmdp.paper.report.verdict.evidence_totals`), out of sample and in sample."""
    mine = [c for c in allc if c.table == table]
    if not mine:
        return "No value of ours for this table."
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        t = evidence_totals(paper_numbers([c for c in mine if c.reading == name], name, fallback=False))
        words = [
            f"{where}: {counts(t[s])}" for s, where in (("out", "out of sample"), ("in", "in sample")) if t[s]["n"]
        ]
        parts.append(f"\\emph{{{name}}}: {plural(t['rows'], 'row')}, {t['numbers']} paper numbers; " + "; ".join(words))
    return "Ours: " + ". ".join(parts) + "."


def devices_sentence(allc) -> str:
    """CPU and GPU lines computed from the same runs (counted once, ``CPU = GPU``)."""
    twins = [c for c in allc if c.device == "CPU = GPU"]
    if not twins:
        return "No row was run on both devices with the same runs."
    rows = len({(c.table, c.row) for c in twins})
    cpu = join(sorted({c.also_precision for c in twins}))
    return (
        f"On the {plural(rows, 'row')} run on both devices from the same random streams, the CPU ({cpu}) and"
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
        ("Tables~9--13 hold values of ours under " + join(parts) + ".")
        if parts
        else "Tables~9--13 hold no value of ours."
    )
