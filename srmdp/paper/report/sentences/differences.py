"""The sentences on what differs: the disagreements and their reruns, the hypotheses tested, the high-dimensional
sign, the theory reading and the residuals."""

from __future__ import annotations

from ...inputs.rows import paper_table_number
from ..latex import INDICATOR_TEX, fmt_sci, tex_escape
from ..tables import FIT_DT  # where the reading was fitted
from ..verdict import HIGH_D, paper_numbers
from .words import counts, join, place, plural, prose, sign_of, verb


def disagreements_sentence(numbers, m, plan, rule) -> str:
    """The out-of-sample differences (in sample where there is none): the row of the largest |Delta| that the rule
    calls differs, the hypotheses tried on it, the reruns of that row (one thing changed each) and what would
    settle what they leave open."""
    from ...models.equivalence import model_tex

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
    where = place(top["table"], top["dt"], top["d"])
    tables = sorted({paper_table_number(n["table"]) for n in out})
    text = (
        prefix
        + f"{plural(len(out), 'number')} {verb(len(out), 'differ')} out of sample"
        + (f" (in T.{', T.'.join(map(str, tables))})" if out else "")
        + f"; the largest is {where}: "
        + join(
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
                words.append(join(f"{h} ({join(ind)})" for h, ind in hs.items()) + f" {what}")
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
    return text + " What would settle it: " + join(settle) + "."


def _rerun_of(m, table, row):
    return next((r for r in m["reruns"] if (r["table"], r["row"]) == (table, row)), None)


def _rerun_words(r, key, skip=()) -> tuple[str, bool]:
    """The reruns' Delta of one indicator in words (``skip``: the hypotheses with a predicted sign, reported apart by
    :func:`hypotheses_sentence`), and whether each keeps the sign of the reading's Delta."""
    vs = [(name, v["diff"][key]) for name, v in r["variants"].items() if key in v["diff"] and name not in skip]
    words = join(f"${d:+.3f}$ ({tex_escape(name)})" for name, d in vs)
    base = r["base"].get(key)
    same = base is not None and all((d > 0) == (base > 0) for _, d in vs)
    return words, same and bool(vs)


def hypotheses_sentence(m) -> str:
    """The hypotheses from the paper's text whose sign was predicted before their run: the prediction, the measured
    shift of ours (paired on the runs shared with the reading, so free of the runs' noise) and Delta under each."""
    if not m["predicted"]:
        return ""
    parts = []
    for name, predicted in m["predicted"].items():
        r = next((x for x in m["reruns"] if name in x["variants"]), None)
        if r is None:
            parts.append(f"\\emph{{{tex_escape(name)}}} (predicted {prose(predicted)}) is not run yet")
            continue
        v = r["variants"][name]
        sign = sign_of(predicted)
        shift = v["shift"] or {}
        seen = {k: (d, se) for k, (d, se, _) in shift.items()}
        measured = join(f"{INDICATOR_TEX[k]} {fmt_sci(d)} (s.e.\\ {fmt_sci(se)})" for k, (d, se) in seen.items())
        clear = [k for k, (d, se) in seen.items() if abs(d) > 3 * se]
        agree = [k for k in clear if (seen[k][0] > 0) == (sign > 0)]
        verdict = (
            "no shift beyond 3 of its standard errors"
            if not clear
            else f"the predicted sign on {len(agree)} of the {len(clear)} indicators it moves"
        )
        deltas = join(f"{INDICATOR_TEX[k]} ${d:+.3f}$ ({v['verdict'][k]})" for k, d in v["diff"].items())
        rejected = [INDICATOR_TEX[k] for k, x in v["verdict"].items() if x == "differs"]
        deltas += f": rejected for {join(rejected)}" if rejected else ": not rejected"
        paired = (
            f"shift of ours on the {next(iter(shift.values()))[2]} runs it shares with the reading {measured},"
            f" {verdict}"
            if shift
            else "no run shared with the reading (no paired shift)"
        )
        parts.append(
            f"\\emph{{{tex_escape(name)}}} ({v['runs']} runs on {place(r['table'], r['dt'], r['d'])}; predicted"
            f" {prose(predicted)}): {paired}; under it {deltas}"
        )
    return (
        "Hypotheses from the paper's text that could move the numbers below $\\Delta t=0.2$, each with its sign"
        " written in the config before its run (Table~\\ref{tab:residuals}): " + "; ".join(parts) + "."
    )


def sign_sentence(high, m) -> str:
    """The high-d sign finding: its count (no sign test: the rows share random streams), what the rule decides of
    those numbers, the reruns at d >= 11 (one thing changed each) and what would settle the rest."""
    text = (
        f"Open finding: in Tables~9--13 our $\\mathrm{{MSE}}_{{Y,\\max}}$ lies above the paper's in"
        f" {high['pos']} of {high['n']} row groups (rows that differ only in $M$ count once; differences"
        f" ${high['lo']:+.2f}$ to ${high['hi']:+.2f}$; the rule: {counts(high)}). A count, not a sign test: the"
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
                f"{place(r['table'], r['dt'], r['d'])} (the reading ${r['base']['mse_y_max']:+.3f}$ on {r['runs']}"
                f" runs; reruns on {'/'.join(map(str, runs))}"
                + (f", seed {join(map(str, sorted(seeds)))} against {r['seed']}" if apart else "")
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


def theory_sentence(r, allc) -> str:
    """Under the theory reading: its paper numbers under the rule, and below the fitted Delta t how many lie under the
    paper's (each number once, by its strongest run set)."""
    numbers = paper_numbers([c for c in allc if c.reading == r["name"]], r["name"], fallback=False)
    below_dt = [n for n in numbers if n["best"].se and n["dt"] < FIT_DT - 1e-12]
    below = sum(n["best"].diff < 0 for n in below_dt)
    return (
        f"Under \\emph{{{r['name']}}}, the reading the theory asks for, of its {r['numbers']} paper numbers"
        f" {counts(r['totals']['all'])}; below $\\Delta t={FIT_DT:g}$ ours lie under the paper's in {below} of"
        f" {len(below_dt)}: its $\\mathrm{{MSE}}_Y$ has no floor."
    )


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
            f" strongest run set: {fit['totals']['all']['differs']} {verb(fit['totals']['all']['differs'], 'differ')},"
            f" {fit['unexplained']} of them rejected by"
            " every hypothesis tried)"
        )
    )
    return (
        f"Table~\\ref{{tab:residuals}} lists {len(m['cells'])} run sets of \\emph{{{m['reading']}}}: those the rule"
        f" calls differs and those of the rerun rows it does not call reproduced{counted}, beside the {m['n_within']}"
        " reproduced of the same rows; per hypothesis, judged by the same rule: "
        + "; ".join(parts)
        + f"; {plural(left, 'run set')} every hypothesis tried rejects. A hypothesis that leaves a number undecided"
        " only by widening the spread does not explain it: it is only not rejected."
    )
