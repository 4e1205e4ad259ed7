"""The report's verdict: the scorecard per paper table and per claim group, the sign tests of the residuals, the
rows not run with their cost, and the sentences of page 1 and of the limitations, all from the distinct cells of
:func:`srmdp.paper.report.judged.cells` (a CPU and a GPU line of the same runs counted once).
"""

from __future__ import annotations

from collections import Counter

from ..inputs.rows import canonical_table, paper_case, paper_rows, paper_table_number, table_ids
from ..models.cost import CostModel, estimate_seconds, load_throughput
from .latex import INDICATOR_TEX

HIGH_D = ("LP1d11", "LP1d12", "LP1d13", "LP1d14", "LP1d15_19")
COST_RUNS = 10  # the runs priced for a row not run
GPU_MODEL = "NVIDIA H100 80GB HBM3"  # the device of the campaign, whose throughput table prices the rows not run


def stream_group(table: str, row: int) -> tuple:
    """Rows whose runs share random streams: the same basis, d, dt and strata K, differing only in M (the streams
    are keyed by (seed, run, i, k, m), so the M paths of the smaller row are the first M of the larger)."""
    r = next(r for r in paper_rows() if (r["table"], r["row"]) == (table, row))
    return (table[:3], r["d"], r["dt"], r["K"])


def per_stream_group(numbers, keep=lambda n: True) -> dict:
    """{(stream group, indicator): the judged run set with the most runs} over the paper numbers that ``keep``
    accepts (:func:`paper_numbers`, :func:`stream_group`): rows that share random streams count once."""
    best = {}
    for n in numbers:
        c = n["best"]
        if not keep(n):
            continue
        key = (stream_group(c.table, c.row), c.indicator)
        if key not in best or c.runs > best[key].runs:
            best[key] = c
    return best


def one_per_row(cells):
    """Per independent row group and indicator: the strongest run set with a standard error."""
    return list(per_stream_group(paper_numbers(list(cells), None), lambda n: n["best"].se).values())


def sign_tests(allc, reading) -> list:
    """Per table and indicator: of the rows with a value under ``reading``, how many lie above the paper.  A count,
    not a test: the rows' test points and clouds are keyed by (seed, run, step, point) and not by the row, so rows of
    one run range share random streams and their signs are not independent draws (no binomial p-value)."""
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
    v = Counter(c.verdict for c in cs)
    return {
        "n": len(cs),
        "pos": pos,
        "lo": min((c.diff for c in cs), default=0.0),
        "hi": max((c.diff for c in cs), default=0.0),
        "reproduced": v["reproduced"],
        "differs": v["differs"],
        "undecided": v["undecided"],
    }


def gpu_cost_model(campaign_results):
    model = CostModel(load_throughput(), "gpu", GPU_MODEL)
    for res in campaign_results:
        model.learn(res)
    return model


def rows_not_run(allc, reading=None, campaign_results=(), results=()):
    """Paper rows without any run of ours under any reading (``allc``: the cells of every reading; ``results``:
    any other result files, of any reading or device), each with the paper's times and the cost model's seconds
    for :data:`COST_RUNS` runs on the campaign's GPU (:class:`srmdp.paper.models.cost.CostModel`).  ``reading`` is kept
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
    """One line per paper table: its paper numbers judged once by their strongest run set (:func:`paper_numbers`,
    counted by :func:`evidence_totals`, out of sample and in sample apart), the largest |Delta| among the numbers
    that differ (else among all with a standard error) with the hypotheses of the residuals that do not reject it,
    and the table's word (:func:`table_word`)."""
    numbers = paper_numbers(allc, reading)
    out = []
    for t in table_ids():
        mine = [n for n in numbers if n["table"] == t]
        tot = evidence_totals(mine)
        differ = [n for n in mine if n["verdict"] == "differs"]
        pool = differ or [n for n in mine if n["grade"] != "none"]
        worst = max(pool, key=lambda n: abs(n["best"].diff), default=None)
        hyp = "--"
        if worst is not None:
            if worst["verdict"] != "differs":
                hyp = worst["verdict"]
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
                "worst_verdict": "" if worst is None else worst["verdict"],
                "worst_where": ""
                if w is None
                else f"{INDICATOR_TEX[w.indicator]} $\\Delta t={w.dt:g}$"
                + ("" if w.table not in HIGH_D else f" $d={w.d}$"),
                "hypothesis": hyp,
                "verdict": table_word(tot),
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
STRONG_RUNS = 8  # >= 8 runs: a standard error with >= 7 degrees of freedom
SAMPLES = ("out", "in")  # out of sample (what the fit did not see) first: the headline
SENSITIVITY = (("half", 0.5), ("double", 2.0))  # p. 1's counts at delta/2 and 2 delta beside delta


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
        out.append(
            {
                "table": key[0],
                "row": key[1],
                "indicator": key[2],
                "d": best.d,
                "dt": best.dt,
                "reading": best.reading,
                "best": best,
                "grade": grade_of(best.runs, best.se),
                "verdict": best.verdict,
                "in_sample": best.in_sample,
                "other_reading": not same,
                "supporting": [c for c in cs if c is not best],
            }
        )
    return out


def _count(numbers, verdict=lambda n: n["verdict"]) -> dict:
    v = Counter(verdict(n) for n in numbers)
    return {
        "n": len(numbers),
        "reproduced": v["reproduced"],
        "differs": v["differs"],
        "undecided": v["undecided"],
        "one_run": sum(n["grade"] == "none" for n in numbers),
        "two_runs": sum(n["best"].runs == 2 for n in numbers),
        "strong": sum(n["grade"] == "strong" for n in numbers),
        "rows": len({(n["table"], n["row"]) for n in numbers}),
    }


def _causes(numbers) -> dict:
    """Why the undecided numbers are undecided (:meth:`srmdp.paper.models.equivalence.Equivalence.judge`)."""
    c = Counter(n["best"].judgement.cause for n in numbers if n["verdict"] == "undecided")
    return {
        "paper_noise": c["paper noise"],
        "our_runs": c["our runs"],
        "near_margin": c["near the margin"],
        "no_spread": c["no spread"],
    }


def evidence_totals(numbers) -> dict:
    """The one count of the report: paper numbers and rows, and out of sample (``out``) and in sample (``in``, where
    the reading was fitted) how many the rule calls reproduced, differs and undecided, with the same counts at
    delta/2 and 2 delta (``sensitivity``), under the other split of the paper's evaluations (``other_model``), and
    the causes of the undecided (``causes``).  Every total of the text and of the scorecard is read from here."""
    out = {
        "numbers": len(numbers),
        "rows": len({(n["table"], n["row"]) for n in numbers}),
        "other_reading": sum(n["other_reading"] for n in numbers),
        "all": _count(numbers),
    }
    for sample in SAMPLES:
        ns = [n for n in numbers if n["in_sample"] == (sample == "in")]
        out[sample] = _count(ns)
        out[sample]["sensitivity"] = {
            name: _count(ns, lambda n, f=f: n["best"].verdict_at(f)) for name, f in SENSITIVITY
        }
        out[sample]["other_model"] = _count(ns, lambda n: n["best"].verdict_other())
        out[sample]["causes"] = _causes(ns)
    return out


def table_word(t) -> str:
    """A table's word from its out-of-sample numbers only: ``reproduced`` when most of them are reproduced and none
    differs, ``differs`` when most differ and none is reproduced, ``partly`` when both occur, else ``undecided``
    (with how many were decided); ``in sample only`` where it has no out-of-sample number."""
    if not t["numbers"]:
        return "not run"
    x = t["out"]
    if not x["n"]:
        return "in sample only (not evidence)"
    decided = x["reproduced"] + x["differs"]
    if x["reproduced"] and x["differs"]:
        word = "partly"
    elif x["reproduced"] > x["n"] / 2:
        word = "reproduced"
    elif x["differs"] > x["n"] / 2:
        word = "differs"
    else:
        word = "undecided"
    return f"{word} ({decided} of {x['n']} decided)"


def runs_wanted(numbers, rule) -> list:
    """Per paper row with out-of-sample numbers undecided on our runs: the runs its spread needs (the largest of its
    numbers', :meth:`srmdp.paper.models.equivalence.Equivalence.runs_needed`: the test's sizing) and, per number, the
    runs
    that decide it with Delta held (:meth:`~srmdp.paper.models.equivalence.Equivalence.runs_held`, None: never) and the
    half-width the sizing's runs narrow its interval to; priced per run at the row's measured seconds on one CPU
    thread where its judged run set has them (``priced``: "measured"), else by the cost model
    (:func:`srmdp.paper.models.cost.estimate_seconds`), cheapest first."""
    from ..inputs.results import timing_of

    rows = {}
    for n in numbers:
        c, j = n["best"], n["best"].judgement
        if n["in_sample"] or n["verdict"] != "undecided" or j.cause != "our runs":
            continue
        w = rows.setdefault((n["table"], n["row"]), {"runs": c.runs, "needed": 0, "numbers": [], "best": c})
        w["needed"] = max(w["needed"], j.runs_needed)
        narrowed = 0.5 * (rule.delta + rule.z() * j.paper_sd)
        w["numbers"].append({"indicator": n["indicator"], "held": j.runs_held, "diff": j.diff, "narrowed": narrowed})
    out = []
    for (table, row), w in rows.items():
        best = w.pop("best")
        timing = timing_of(best.res or {}) if best.device == "CPU" else None
        if timing:
            per_run, priced = timing[0], "measured"
        else:
            case = paper_case(table, row=row, precision="float64")
            per_run, priced = estimate_seconds(case, 2) - estimate_seconds(case, 1), "cost model"
        extra = max(w["needed"] - w["runs"], 0)
        held = [x["held"] for x in w["numbers"] if x["held"] is not None]
        out.append(
            dict(
                w,
                table=table,
                row=row,
                number=paper_table_number(table),
                extra=extra,
                seconds=extra * per_run,
                priced=priced,
                held_seconds=max(0, max(held, default=w["runs"]) - w["runs"]) * per_run,
                decided_held=len(held),
            )
        )
    return sorted(out, key=lambda r: r["seconds"])


NOISE_POINTS = (1, 2, 5)  # the test points per run of the paper's 10^3 runs under which the paper-noise count is shown


def paper_noise_by_points(numbers, rule, points=NOISE_POINTS) -> dict:
    """{P: how many out-of-sample numbers no run of ours can decide had the paper's evaluations been 10^3 runs x P
    test points} (z * sd_P >= delta: :meth:`srmdp.paper.models.equivalence.Equivalence.judge`'s paper-noise cause): the
    count depends on the split read, and 10^3 x 1 gives the paper its widest own noise."""
    from ..models.splits import paper_sd

    out = {}
    for p in points:
        sds = [paper_sd(n["best"].res, n["indicator"], p) for n in numbers if not n["in_sample"] and n["best"].res]
        out[p] = sum(sd is not None and rule.z() * sd >= rule.delta for sd in sds)
    return out
