"""The report's verdict: the scorecard per paper table and per claim group, the sign tests of the residuals, the
rows not run with their cost, and the sentences of page 1 and of the limitations, all from the distinct cells of
:func:`srmdp.paper.cells.cells` (a CPU and a GPU line of the same runs counted once).
"""

from __future__ import annotations

import math
from collections import Counter

from .cost import CostModel, estimate_seconds, load_throughput
from .latex import INDICATOR_TEX
from .rows import canonical_table, paper_case, paper_rows, paper_table_number, table_ids

HIGH_D = ("LP1d11", "LP1d12", "LP1d13", "LP1d14", "LP1d15_19")
COST_RUNS = 10  # the runs a row not run would need for a verdict at 3 s.e. (t-limit 4.1 at 10 runs)
GPU_MODEL = "NVIDIA H100 80GB HBM3"  # the device of the campaign, whose throughput table prices the rows not run


def binomial_p(k: int, n: int) -> float:
    """Two-sided sign test: P(a count at least as far from n/2 as k) for Binomial(n, 1/2)."""
    if n == 0:
        return 1.0
    far = abs(k - n / 2)
    return min(1.0, sum(math.comb(n, j) for j in range(n + 1) if abs(j - n / 2) >= far - 1e-12) / 2**n)


def one_per_row(cells):
    """Per (table, row, indicator): the strongest run set with a standard error (:func:`paper_numbers`)."""
    return [n["best"] for n in paper_numbers(list(cells), None) if n["best"].se]


def sign_tests(allc, reading) -> list:
    """Per table and indicator: of the rows with a value under ``reading``, how many lie above the paper."""
    mine = one_per_row(c for c in allc if c.reading == reading)
    out = []
    for t in table_ids():
        for k in INDICATOR_TEX:
            cs = [c for c in mine if c.table == t and c.indicator == k]
            if not cs:
                continue
            pos = sum(c.diff > 0 for c in cs)
            out.append(
                {
                    "table": t,
                    "number": paper_table_number(t),
                    "indicator": k,
                    "tex": INDICATOR_TEX[k],
                    "n": len(cs),
                    "pos": pos,
                    "p": binomial_p(pos, len(cs)),
                    "lo": min(c.diff for c in cs),
                    "hi": max(c.diff for c in cs),
                }
            )
    return out


def pooled_sign(allc, reading, tables, indicator):
    cs = [
        c
        for c in one_per_row(c for c in allc if c.reading == reading)
        if c.table in tables and c.indicator == indicator
    ]
    pos = sum(c.diff > 0 for c in cs)
    return {
        "n": len(cs),
        "pos": pos,
        "p": binomial_p(pos, len(cs)),
        "lo": min((c.diff for c in cs), default=0.0),
        "hi": max((c.diff for c in cs), default=0.0),
    }


def gpu_cost_model(campaign_results):
    model = CostModel(load_throughput(), "gpu", GPU_MODEL)
    for res in campaign_results:
        model.learn(res)
    return model


def rows_not_run(allc, reading=None, campaign_results=(), results=()):
    """Paper rows without any run of ours under any reading (``allc``: the cells of every reading; ``results``:
    any other result files, of any reading or device), each with the paper's times and the cost model's seconds
    for :data:`COST_RUNS` runs on the campaign's GPU (:class:`srmdp.paper.cost.CostModel`).  ``reading`` is kept
    for callers that name it; a row run under another reading is not "not run"."""
    got = {(c.table, c.row) for c in allc}
    for res in [*campaign_results, *results]:
        case = res.get("case") or {}
        if case.get("table") and case.get("row") is not None and res.get("runs"):
            got.add((canonical_table(case["table"]), int(case["row"])))
    model = gpu_cost_model(campaign_results)
    out = []
    for r in paper_rows():
        if (r["table"], r["row"]) in got:
            continue
        case = paper_case(r["table"], row=r["row"], precision="float32")
        per_run = model.run_seconds(case)
        cpu = paper_case(r["table"], row=r["row"], precision="float64")
        cpu_run = estimate_seconds(cpu, 2) - estimate_seconds(cpu, 1)  # one more run: the per-run cost alone
        out.append(
            {
                "table": r["table"],
                "number": paper_table_number(r["table"]),
                "row": r["row"],
                "d": r["d"],
                "dt": f"{r['dt']:g}",
                "K": r["K"],
                "M": r["M"],
                "paper_cpu": r["cpu_s"],
                "paper_gpu": r["gpu_s"],
                "speedup": r["cpu_s"] / r["gpu_s"],
                "per_run": per_run,
                "cpu_run": cpu_run,
                "total": model.chunk_seconds(case, COST_RUNS),
            }
        )
    return out


def scorecard(allc, reading, expl):
    """One line per paper table: its paper numbers judged once by their strongest run set
    (:func:`paper_numbers`, totals from :func:`evidence_totals`), the largest |Delta| among the numbers with a
    standard error, with the hypotheses of the residuals that do not reject it, and the verdict on the strongest
    evidence."""
    numbers = paper_numbers(allc, reading)
    out = []
    for t in table_ids():
        mine = [n for n in numbers if n["table"] == t]
        tot = evidence_totals(mine)
        judged = [n for n in mine if n["grade"] != "none"]
        worst = max(judged, key=lambda n: abs(n["best"].diff), default=None)
        hyp = "--"
        if worst is not None:
            if worst["verdict"] == "within":
                hyp = "within 3 s.e."
            else:
                found, tested = expl.get((worst["best"].path, worst["indicator"]), ([], False))
                hyp = ", ".join(found) if found else ("none" if tested else "not tested")
        w = None if worst is None else worst["best"]
        out.append(
            {
                "what": f"T.{paper_table_number(t)}",
                "table": t,
                "rows_run": tot["rows"],
                "rows": sum(r["table"] == t for r in paper_rows()),
                "totals": tot,
                "worst": None if w is None else w.diff,
                "worst_grade": "" if worst is None else worst["grade"],
                "worst_where": ""
                if w is None
                else f"{INDICATOR_TEX[w.indicator]} $\\Delta t={w.dt:g}$"
                + ("" if w.table not in HIGH_D else f" $d={w.d}$"),
                "hypothesis": hyp,
                "verdict": _evidence_verdict(tot),
            }
        )
    return out


CLAIM_GROUPS = (("memory", "memory"), ("time", "times, speed-ups"), ("profiler", "profiler"))


def claim_scorecard(claims, outcome):
    """One line per claim group (the claims' ``group``): held / all, then each outcome in Table R10's words (held,
    not held, text = its table, not checked)."""
    out = []
    for key, label in CLAIM_GROUPS:
        mine = [c for c in claims if c.get("group") == key]
        if not mine:
            continue
        n = Counter(outcome(c) for c in mine)
        words = [
            w
            for w, k in (
                (f"{n['held']} held", "held"),
                (f"{n['not held']} not held", "not held"),
                (f"{n['text = its table']} text = its table", "text = its table"),
                (f"{n['not checked']} not checked", "not checked"),
            )
            if n[k]
        ]
        out.append(
            {
                "what": label,
                "n": len(mine),
                "held": n["held"],
                "not_held": n["not held"],
                "table_only": n["text = its table"],
                "not_checked": n["not checked"],
                "verdict": ", ".join(words),
            }
        )
    return out


# --- each paper number judged once, by the strength of its evidence -----------------------------------------------
STRONG_RUNS = 8  # >= 8 runs: a standard error with >= 7 degrees of freedom (t-limit 5.0 at 8 runs against 3.0)
GRADES = ("strong", "weak", "none")
GRADE_WORDS = {
    "strong": f"strong ($\\ge{STRONG_RUNS}$ runs)",
    "weak": f"weak (2--{STRONG_RUNS - 1} runs)",
    "none": "none (1 run, no standard error)",
}


def grade_of(runs, se) -> str:
    """``strong`` (>= :data:`STRONG_RUNS` runs), ``weak`` (2 .. STRONG_RUNS - 1), ``none`` (no standard error)."""
    if not se or runs < 2:
        return "none"
    return "strong" if runs >= STRONG_RUNS else "weak"


def paper_numbers(allc, reading, fallback=True) -> list:
    """Each paper number (paper row x indicator) with a value of ours, judged once by its strongest run set under
    ``reading`` (the most runs; a standard error before none; a CPU = GPU line before a one-device line); the other
    run sets of that number are its supporting lines.  ``fallback``: a number without a run under ``reading`` is
    judged by its strongest run set under another reading (its ``reading``, ``other_reading`` set), so that every
    row with a run counts; without it such numbers are left out.  ``reading`` None: any reading."""
    order = {(r["table"], r["row"]): i for i, r in enumerate(paper_rows())}
    groups = {}
    for c in allc:
        groups.setdefault((c.table, c.row, c.indicator), []).append(c)
    ind = list(INDICATOR_TEX)
    out = []
    for key in sorted(groups, key=lambda k: (order.get(k[:2], len(order)), ind.index(k[2]))):
        cs = groups[key]
        same = cs if reading is None else [c for c in cs if c.reading == reading]
        if not same and not fallback:
            continue
        pool = same or cs
        best = max(pool, key=lambda c: (c.runs, c.se is not None, c.device == "CPU = GPU", -pool.index(c)))
        grade = grade_of(best.runs, best.se)
        out.append(
            {
                "table": key[0],
                "row": key[1],
                "indicator": key[2],
                "d": best.d,
                "dt": best.dt,
                "reading": best.reading,
                "best": best,
                "grade": grade,
                "verdict": best.verdict if grade != "none" else None,
                "in_sample": best.in_sample,
                "other_reading": not same,
                "supporting": [c for c in cs if c is not best],
            }
        )
    return out


def evidence_totals(numbers) -> dict:
    """The one count of the report: paper numbers and rows, and per grade how many agree (within 3 s.e.), are
    inconclusive (3 s.e. < |z| <= the t-limit of their runs) or disagree (beyond it), and how many of those within
    are in-sample.  Every total of the text and of the scorecard is read from here."""
    out = {"numbers": len(numbers), "rows": len({(n["table"], n["row"]) for n in numbers})}
    for g in GRADES:
        ns = [n for n in numbers if n["grade"] == g]
        v = Counter(n["verdict"] for n in ns)
        out[g] = {
            "n": len(ns),
            "within": v["within"],
            "inconclusive": v["inconclusive"],
            "beyond": v["beyond"],
            "in_sample_within": sum(n["in_sample"] and n["verdict"] == "within" for n in ns),
            "rows": len({(n["table"], n["row"]) for n in ns}),
        }
    for k in ("within", "inconclusive", "beyond", "in_sample_within"):
        out[k] = sum(out[g][k] for g in GRADES)
    out["judged"] = out["within"] + out["beyond"]
    out["other_reading"] = sum(n["other_reading"] for n in numbers)
    return out


def _evidence_verdict(t) -> str:
    """A table's verdict from its totals: the outcome on its strongest evidence, the grade named; "in-sample only"
    wherever every agreement of that grade is in-sample, with or without numbers beyond."""
    if not t["numbers"]:
        return "not run"
    for g in ("strong", "weak"):
        x = t[g]
        if x["within"] + x["beyond"] == 0:
            continue
        if x["within"] and x["within"] == x["in_sample_within"]:
            word = "in-sample only" + (f", {x['beyond']} beyond" if x["beyond"] else "")
        elif x["beyond"] == 0:
            word = "reproduced"
        else:
            word = "partly" if x["within"] else "not reproduced"
        return f"{word} ({g})"
    return "inconclusive (weak)" if t["weak"]["inconclusive"] else "no s.e."
