"""The report's verdict: the scorecard per paper table and per claim group, the sign tests of the residuals, the
rows not run with their cost, and the sentences of page 1 and of the limitations, all from the distinct cells of
:func:`srmdp.paper.summary.cells` (a CPU and a GPU line of the same runs counted once).
"""

from __future__ import annotations

import math
from collections import Counter

from .cost import CostModel, estimate_seconds, load_throughput
from .latex import INDICATOR_TEX
from .rows import paper_case, paper_rows, paper_table_number, table_ids

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
    """Per (table, row, indicator): the cell with the most runs (the best estimate of that row's value)."""
    best = {}
    for c in cells:
        k = (c.table, c.row, c.indicator)
        if c.se and (k not in best or c.runs > best[k].runs):
            best[k] = c
    return list(best.values())


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
            out.append({"table": t, "number": paper_table_number(t), "indicator": k, "tex": INDICATOR_TEX[k],
                        "n": len(cs), "pos": pos, "p": binomial_p(pos, len(cs)),
                        "lo": min(c.diff for c in cs), "hi": max(c.diff for c in cs)})
    return out


def pooled_sign(allc, reading, tables, indicator):
    cs = [c for c in one_per_row(c for c in allc if c.reading == reading)
          if c.table in tables and c.indicator == indicator]
    pos = sum(c.diff > 0 for c in cs)
    return {"n": len(cs), "pos": pos, "p": binomial_p(pos, len(cs)),
            "lo": min((c.diff for c in cs), default=0.0), "hi": max((c.diff for c in cs), default=0.0)}


def gpu_cost_model(campaign_results):
    model = CostModel(load_throughput(), "gpu", GPU_MODEL)
    for res in campaign_results:
        model.learn(res)
    return model


def rows_not_run(allc, reading, campaign_results=()):
    """Paper rows without any value of ours under ``reading``, each with the paper's times and the cost model's
    seconds for :data:`COST_RUNS` runs on the campaign's GPU (:class:`srmdp.paper.cost.CostModel`)."""
    got = {(c.table, c.row) for c in allc if c.reading == reading}
    model = gpu_cost_model(campaign_results)
    out = []
    for r in paper_rows():
        if (r["table"], r["row"]) in got:
            continue
        case = paper_case(r["table"], row=r["row"], precision="float32")
        per_run = model.run_seconds(case)
        cpu = paper_case(r["table"], row=r["row"], precision="float64")
        cpu_run = estimate_seconds(cpu, 2) - estimate_seconds(cpu, 1)  # one more run: the per-run cost alone
        out.append({"table": r["table"], "number": paper_table_number(r["table"]), "row": r["row"], "d": r["d"],
                    "dt": f"{r['dt']:g}", "K": r["K"], "M": r["M"], "paper_cpu": r["cpu_s"], "paper_gpu": r["gpu_s"],
                    "speedup": r["cpu_s"] / r["gpu_s"], "per_run": per_run, "cpu_run": cpu_run,
                    "total": model.chunk_seconds(case, COST_RUNS)})
    return out


def _verdict(within, conclusive, in_sample_within, beyond, inconclusive, rows_run):
    if not rows_run:
        return "not run"
    if not conclusive:
        return "inconclusive (2 runs)" if inconclusive else "no s.e."
    if beyond == 0:
        return "in-sample only" if within == in_sample_within else "reproduced"
    return "partly" if within else "not reproduced"


def scorecard(allc, reading, expl):
    """One line per paper table under ``reading``: rows run, cells within 3 s.e. of the conclusive ones (within or
    beyond the t-limit), the largest |Delta| with the hypotheses that do not reject it, the verdict."""
    out = []
    for t in table_ids():
        rows = [r for r in paper_rows() if r["table"] == t]
        cs = [c for c in allc if c.table == t and c.reading == reading and c.z is not None]
        run = {c.row for c in allc if c.table == t and c.reading == reading}
        verdicts = Counter(c.verdict for c in cs)
        conclusive = verdicts["within"] + verdicts["beyond"]
        in_within = sum(c.in_sample and c.verdict == "within" for c in cs)
        worst = max(cs, key=lambda c: abs(c.diff), default=None)
        hyp = "--"
        if worst is not None:
            if worst.verdict == "within":
                hyp = "within 3 s.e."
            else:
                found, tested = expl.get((worst.path, worst.indicator), ([], False))
                hyp = ", ".join(found) if found else ("none" if tested else "not tested")
        out.append({"what": f"T.{paper_table_number(t)}", "table": t, "rows_run": len(run), "rows": len(rows),
                    "within": verdicts["within"], "conclusive": conclusive, "inconclusive": verdicts["inconclusive"],
                    "in_sample_within": in_within,
                    "worst": None if worst is None else worst.diff,
                    "worst_where": "" if worst is None else
                    f"{INDICATOR_TEX[worst.indicator]} $\\Delta t={worst.dt:g}$" + ("" if worst.table not in HIGH_D
                                                                                    else f" $d={worst.d}$"),
                    "hypothesis": hyp,
                    "verdict": _verdict(verdicts["within"], conclusive, in_within, verdicts["beyond"],
                                        verdicts["inconclusive"], len(run))})
    return out


CLAIM_GROUPS = (("memory", "memory"), ("time", "times, speed-ups"), ("profiler", "profiler"))


def claim_scorecard(claims, outcome):
    """One line per claim group (the claims' ``group``): held / all, qualified, not checked."""
    out = []
    for key, label in CLAIM_GROUPS:
        mine = [c for c in claims if c.get("group") == key]
        if not mine:
            continue
        n = Counter(outcome(c) for c in mine)
        words = [w for w, k in ((f"{n['held']} held", "held"), (f"{n['not held']} qualified", "not held"),
                                (f"{n['not checked']} not checked", "not checked")) if n[k]]
        verdict = ", ".join(words)
        out.append({"what": label, "n": len(mine), "held": n["held"], "not_held": n["not held"],
                    "not_checked": n["not checked"], "verdict": verdict})
    return out
