"""The verdict's sentences (p. 1 and the start of section 2): the scope, the headline counts, the agreement at
other margins, the runs wanted, the chi^2 consistency, the findings and the abstract."""

from __future__ import annotations

from collections import Counter

from ...inputs.results import device_words
from ...inputs.rows import paper_rows, paper_table_number
from ..latex import INDICATOR_TEX
from ..tables import FIT_DT, FIT_READING  # the fitted reading and where
from ..verdict import COST_RUNS
from .words import counts, duration, fmt_p, join, place, plural, verb


def scope_sentence(totals, not_run, camp, numbers) -> str:
    """``camp``: the GPU campaign's results under the fitted reading; ``numbers``: the judged paper numbers."""
    gpu = [r for r in camp if r.get("device") == "gpu"]
    gpu_rows = len({(r["case"]["table"], r["case"]["row"]) for r in gpu})
    models = sorted({device_words(r)[4:] for r in gpu})  # "GPU H100" -> "H100"
    other = sorted({(n["table"], n["row"], n["reading"]) for n in numbers if n["other_reading"]})
    text = (
        f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
        f" fitted to it on NVIDIA {join(models)} GPUs"
        if len(models) > 1
        else f"We ran {totals['rows']} of the paper's {len(paper_rows())} rows, {gpu_rows} of them under the reading"
        f" fitted to it on an NVIDIA {join(models)}"
    )
    text += " and the smaller ones also on a 2-core CPU"
    if other:
        text += (
            " (" + join(f"T.{paper_table_number(t)} row {r} only under \\emph{{{name}}}" for t, r, name in other) + ")"
        )
    if not not_run:
        return text + "."
    cost = sum(r["total"] for r in not_run)
    worst = max(not_run, key=lambda r: r["speedup"])
    return (
        text + f"; the {plural(len(not_run), 'row')} not run under any reading, the most expensive of their tables"
        f" (among them the row of the paper's largest speed-up, {worst['speedup']:.2f}), would take about"
        f" {cost / 3600:.1f} h on the H100 for {COST_RUNS} runs each by our cost model"
        " (Table~\\ref{tab:notrun})."
    )


def _sensitivity(x) -> str:
    sens = x["sensitivity"]
    return f"at $\\delta/2$: {counts(sens['half'])}; at $2\\delta$: {counts(sens['double'])}"


def agreement_sentence(t, rule) -> str:
    """p. 1's headline: the paper numbers under the equivalence rule, out of sample first, with the counts at
    delta/2 and 2 delta (:func:`srmdp.paper.report.verdict.evidence_totals`)."""
    o, i = t["out"], t["in"]
    text = (
        f"Each paper number (row $\\times$ indicator) is judged once, by its strongest run set under"
        f" \\emph{{{FIT_READING}}}, with one rule: \\emph{{reproduced}} when the interval of"
        f" $\\Delta=\\text{{ours}}+\\text{{shift}}-\\text{{paper}}$ lies inside $\\pm\\delta$, \\emph{{differs}} when"
        f" it lies wholly outside, \\emph{{undecided}} otherwise; {rule.words()}; the shift: where that model, from"
        f" our per-run values, puts the paper's evaluation of our runs. \\textbf{{Out of sample}}"
        f" ($\\Delta t<{FIT_DT:g}$,"
        f" rows the fit did not see): of {o['n']} numbers of {plural(o['rows'], 'row')},"
        f" \\textbf{{{o['reproduced']} are reproduced and {o['differs']} {verb(o['differs'], 'differ')}}};"
        f" {o['undecided']} are undecided,"
        f" {o['two_runs']} of them on 2 runs, whose interval is {rule.t(2):.0f} standard errors wide on each side."
        f" The margin's weight: {_sensitivity(o)}. In sample ($\\Delta t={FIT_DT:g}$, where the reading was fitted:"
        f" not evidence): {counts(i)} of {i['n']} ({_sensitivity(i)})."
    )
    if t["other_reading"]:
        text += f" ({plural(t['other_reading'], 'number')} judged under another reading: no run under this one.)"
    return text


# --- page 1: the verdict at a glance (<= 400 words before the scorecard) -----------------------------------------
def headline_sentence(t, rule, wanted, noise) -> str:
    """The counts under the model of the paper's evaluations, out of sample first, the causes of the undecided, and
    the other split's counts beside them (:func:`srmdp.paper.report.verdict.evidence_totals`).  ``wanted``: the rows
    undecided
    on our runs (:func:`srmdp.paper.report.verdict.runs_wanted`); ``noise``: the paper-noise count per test points of
    the
    paper's runs (:func:`srmdp.paper.report.verdict.paper_noise_by_points`)."""
    from ...models.equivalence import model_tex

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
        f" and {o['differs']} {verb(o['differs'], 'differ')}}}; {o['undecided']} are undecided:"
        f" {c['paper_noise']} by the paper's own Monte-Carlo noise{by_points}, {runs}{near}."
        f" Read as {model_tex(rule.sensitivity_model)}: {counts(other)}. In sample (not evidence):"
        f" {counts(i)} of {i['n']}."
    )


def consistency_sentence(c, level: float) -> str:
    """The global consistency test (:func:`srmdp.paper.report.consistency.consistency`)."""
    if c["p"] is None:
        return ""
    per = c["per_indicator"]
    words = join(
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
            f" (without {join(place(x.table, x.dt, x.d) for x in v['largest_two'])}: {fmt_p(w['p'])})." if w else "."
        )
    return text


def findings(numbers, rule, high, claims, outcomes) -> list:
    """At most five findings for p. 1, one sentence each with its number."""
    out_nums = [n for n in numbers if not n["in_sample"]]
    z = [n for n in out_nums if n["indicator"] == "mse_z_av"]
    zc = Counter(n["verdict"] for n in z)
    zu = Counter(n["best"].judgement.cause for n in z if n["verdict"] == "undecided")
    items = [
        f"$\\mathrm{{MSE}}_{{Z,\\mathrm{{av}}}}$ is where the verdict is decided: {zc['reproduced']} of {len(z)}"
        f" out-of-sample numbers are reproduced and {zc['differs']} {verb(zc['differs'], 'differ')};"
        f" {zu['our runs']} of the {zc['undecided']} undecided {verb(zu['our runs'], 'need')} only more runs of"
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
            f" {place(n['table'], n['dt'], n['d'])} {INDICATOR_TEX[n['indicator']]}, has $\\Delta={j.diff:+.2f}$"
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
    from ...models.equivalence import model_tex

    o, other = t["out"], t["out"]["other_model"]
    return (
        f"Out of sample, with the paper's evaluations read as {model_tex(rule.model)} (runs $\\times$ test points),"
        f" {o['reproduced']} of its {o['n']} numbers are reproduced and {o['differs']}"
        f" {verb(o['differs'], 'differ')}; {o['undecided']} are undecided,"
        f" {o['causes']['paper_noise']} of them by the paper's own Monte-Carlo noise."
        f" Read as {model_tex(rule.sensitivity_model)}: {counts(other)}."
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
            f"T.{w['number']} row {w['row']} {w['runs']}$\\to${w['needed']} runs ({duration(w['seconds'])},"
            f" {w['priced']}): {'; '.join(held)}"
        )
    return (
        "Undecided on our runs, with the runs their spread needs (the test's sizing, from the spread only) and their"
        f" time on one CPU thread (at the row's measured seconds per run, else the cost model): {'; '.join(parts)}."
    )
