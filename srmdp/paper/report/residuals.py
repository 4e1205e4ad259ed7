"""Why do some numbers differ from the paper?

Each cell (paper row x indicator) of one reading that the equivalence rule (:mod:`srmdp.paper.models.equivalence`) calls
*differs*, and each cell of a rerun row that it does not call *reproduced*, is judged again under each hypothesis,
i.e. with the value and spread the hypothesis gives:

* ``literal``: the paper's formula read per run (ln of each run's max/mean, averaged over runs), the
  summary's ``literal_*`` fields;
* ``10^3 x 1``, ``10^3 x 10^3``: the paper's value taken as the pooled indicator over 10^3 runs with one
  test point each (R_{i,m}, m the run) or with 10^3 each: ours shifted by that split's bias (of the max
  and the ln) and compared with the combined spread sqrt(se^2 + sd^2), sd being the paper's own Monte-Carlo
  error under that split, both estimated from our per-run moments (:func:`srmdp.paper.models.splits.split`);
* one column per variant of config ``residuals.variants`` (float32 coefficients or arithmetic, truncation levels,
  another seed): the rerun's value, standard error and runs.

Under a hypothesis the rule says *differs* (the hypothesis is *rejected* for that number), *reproduced* (it
accounts for the number) or *undecided* (not rejected: where it gets there only by widening the spread, that is no
explanation).  A hypothesis *breaks* a reproduced cell of the same rows that differs under it.  Per hypothesis the
root mean square of its z over all cells with data is given too: about 1 if it accounts for the differences and
their spread, well below 1 if it "explains" by a spread too wide to test anything.
"""

import math
from pathlib import Path

import numpy as np

from ...case.readings import matches
from ...numerics.indicators import INDICATORS, indicators
from ..inputs.index import index_results, load
from ..inputs.results import merge_twins, precision_short, run_indices
from ..inputs.rows import paper_rows
from ..models.splits import paper_splits
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text

IN_SAMPLE_DT = 0.2  # paper-fit was chosen on the Delta t = 0.2 cells (srmdp.paper.report.tables.FIT_DT)
SPLITS = (("1000x1", "$10^3{\\times}1$"), ("1000x1000", "$10^3{\\times}10^3$"))


def _z(value, paper, spread):
    if value is None or not spread or not math.isfinite(spread):
        return None
    return (value - paper) / spread


def _rms(values):
    """Root mean square of z-scores: about 1 where a hypothesis accounts for the differences and their spread
    (above 1: differences left over; well below 1: a spread too wide to test anything)."""
    return math.sqrt(sum(z * z for z in values) / len(values)) if values else None


def hypotheses(res, paper, key, variants, rule):
    """{column: (Delta, verdict, z) or None} for indicator ``key`` (``mse_y_max`` ...) of summary ``res`` against
    the paper's value under each hypothesis, judged by ``rule``
    (:class:`srmdp.paper.models.equivalence.Equivalence`)."""
    short = key[len("mse_") :]
    ours, se, runs = res.get(key), res.get(key + "_se"), int(res["runs"])

    def judged(value, se, runs, spread=None):
        if value is None or not se:
            return None
        s = rule.spread(se, runs) if spread is None else spread
        return (value - paper, rule.verdict(value - paper, se, runs, spread), _z(value, paper, s))

    out = {"literal": judged(res.get("literal_" + short), res.get("literal_" + short + "_se"), runs)}
    for name, _ in SPLITS:
        sp = paper_splits(res).get(name)
        out[name] = (
            None
            if sp is None or ours is None or not se
            else judged(ours + sp[short + "_shift"], se, runs, math.hypot(se, sp[short + "_sd"]))
        )
    for name, vres in variants.items():
        out[name] = None if vres is None else judged(vres.get(key), vres.get(key + "_se"), int(vres["runs"]))
    return out


def paired_shift(base, rerun) -> dict | None:
    """{indicator: (shift, se, runs)}: the rerun's indicator minus the reading's, both recomputed from the per-run
    errors of the runs both ran with the same seed (same random streams, so the shift is the hypothesis's own
    effect, free of the runs' noise); se by the jackknife over those runs.  None where they share fewer than 2."""
    if base.get("seed") != rerun.get("seed") or not base.get("per_run") or not rerun.get("per_run"):
        return None
    ib, ir = run_indices(base), run_indices(rerun)
    shared = sorted(set(ib) & set(ir))
    if len(shared) < 2:
        return None
    arrays = [
        {k: np.asarray(res["per_run"][k], dtype=float)[[idx.index(r) for r in shared]] for k in ("ey", "ez")}
        for res, idx in ((base, ib), (rerun, ir))
    ]

    def shift(keep):
        b, r = (indicators(a["ey"][keep], a["ez"][keep]) for a in arrays)
        return {k: r[k] - b[k] for k in INDICATORS}

    n = len(shared)
    full = shift(np.arange(n))
    jack = [shift(np.delete(np.arange(n), j)) for j in range(n)]
    out = {}
    for k in INDICATORS:
        v = np.array([x[k] for x in jack])
        out[k] = (full[k], float(np.sqrt((n - 1) / n * ((v - v.mean()) ** 2).sum())), n)
    return out


def residuals_model(plan, summaries, variant_files, campaign=()):
    """The table's content: the cells to explain with their Delta and verdict per hypothesis, and per hypothesis
    how many of those it rejects (differs under it) and how many reproduced cells it breaks."""
    rule = plan.equivalence
    reading = plan.reading(plan.residual_reading)
    have = {str(p) for p in variant_files if Path(p).exists()}  # a rerun not yet run has no column entry
    columns = ["literal"] + [name for name, _ in SPLITS] + [v.name for v in plan.variants]
    headers = ["literal"] + [tex for _, tex in SPLITS] + [tex_escape(v.name) for v in plan.variants]
    bases = []  # (label, paper row, summary, {variant: summary or None})
    sums = index_results(summaries)
    camp = index_results(campaign)
    for paper in paper_rows():
        key = f"{paper['table']}_r{paper['row']}"
        paths = {v.name: plan.residual_path(v.name, key) for v in plan.variants if key in plan.variant_rows(v.name)}
        reruns = {
            v.name: load(paths[v.name]) | {"_path": paths[v.name]} if paths.get(v.name) in have else None
            for v in plan.variants
        }
        own = [res for res in sums.get((paper["table"], paper["row"]), []) if matches(res, reading)]
        for res in own:
            bases.append((paper["table"], paper, res, reruns))
        # a CPU and a GPU summary of the same runs are one line (record.merge_twins), as in the paper's tables
        lines = [res for res in merge_twins(camp.get((paper["table"], paper["row"]), [])) if matches(res, reading)]
        strongest = max(lines, key=lambda r: r["runs"], default=None)
        for res in lines:
            dev = res.get("_device") or res["device"].upper()
            label = f"{paper['table']} {dev} {precision_short(res)} R={res['runs']}"
            # the reruns of a row the preset's cases do not run stand beside its campaign line with the most runs
            mine = reruns if not own and res is strongest else {v.name: None for v in plan.variants}
            bases.append((label, paper, res, mine))
    cells, within, reruns = [], [], []
    for label, paper, res, variants in bases:
        rerun = any(v is not None for v in variants.values())
        if rerun:  # the row's reruns beside the reading's line: Delta and verdict per indicator, the paired shift
            reruns.append(
                {
                    "table": paper["table"],
                    "row": paper["row"],
                    "d": paper["d"],
                    "dt": paper["dt"],
                    "runs": int(res["runs"]),
                    "seed": res.get("seed"),
                    "base": {k: res[k] - paper[k] for k in INDICATORS if res.get(k) is not None},
                    "variants": {
                        name: {
                            "runs": int(v["runs"]),
                            "seed": v.get("seed"),
                            "diff": {k: v[k] - paper[k] for k in INDICATORS if v.get(k) is not None},
                            "verdict": {
                                k: rule.verdict(v[k] - paper[k], v.get(k + "_se"), int(v["runs"]))
                                for k in INDICATORS
                                if v.get(k) is not None
                            },
                            "shift": paired_shift(res, v),
                        }
                        for name, v in variants.items()
                        if v is not None
                    },
                }
            )
        for key in INDICATORS:
            if res.get(key) is None or not res.get(key + "_se"):
                continue
            diff = res[key] - paper[key]
            v0 = rule.verdict(diff, res[key + "_se"], int(res["runs"]))
            hs = hypotheses(res, paper[key], key, variants, rule)
            cell = {
                "table": tex_escape(label),
                "d": paper["d"],
                "dt": f"{paper['dt']:g}",
                "in_sample": math.isclose(paper["dt"], IN_SAMPLE_DT),
                "indicator": INDICATOR_TEX[key],
                "key": key,
                "runs": int(res["runs"]),
                "diff": diff,
                "verdict": v0,
                "z0": _z(res[key], paper[key], rule.spread(res[key + "_se"], int(res["runs"]))),
                "h": [hs[c] for c in columns],
                "z": [None if hs[c] is None else hs[c][2] for c in columns],
                "sources": [res["_path"]] + [v["_path"] for v in variants.values() if v is not None],
            }
            judged = [(h, x) for c, h in zip(columns, headers, strict=True) if (x := hs[c]) is not None]
            cell["explained"] = [h for h, x in judged if x[1] != "differs"]  # not rejected
            cell["accounts"] = [h for h, x in judged if x[1] == "reproduced"]
            cell["rejected"] = [h for h, x in judged if x[1] == "differs"]
            cell["tested"] = any(hs[c] is not None for c in columns[1:])  # beyond the literal form
            if v0 == "differs" or (rerun and v0 == "undecided"):
                cells.append(cell)
            elif v0 == "reproduced":
                within.append(cell)
    tally = []
    for j in range(len(columns)):
        listed = [c["h"][j] for c in cells if c["h"][j] is not None]
        inside = [c["h"][j] for c in within if c["h"][j] is not None]
        tally.append(
            {
                "rejects": sum(x[1] == "differs" for x in listed),
                "accounts": sum(x[1] == "reproduced" for x in listed),
                "of": len(listed),
                "breaks": sum(x[1] == "differs" for x in inside),
                "within": len(inside),
                "rms": _rms([x[2] for x in listed + inside]),
            }
        )
    return {
        "preset": tex_escape(plan.preset),
        "reading": tex_escape(reading.name),
        "describe": reading.describe(),
        "rule": rule.words(),
        "headers": headers,
        "columns": columns,
        "cells": cells,
        "tally": tally,
        "variants": [
            {
                "name": tex_escape(v.name),
                "hypothesis": tex_escape(v.hypothesis),
                "predicted": tex_escape(v.predicted),
                "rows": [tex_escape(k) for k in plan.variant_rows(v.name)],
                "runs": v.runs,
            }
            for v in plan.variants
        ],
        "rows": [tex_escape(k) for k in plan.residual_rows],
        "reruns": reruns,
        "predicted": {v.name: v.predicted for v in plan.variants if v.predicted},
        "n_within": len(within),
        "rms0": _rms([c["z0"] for c in cells + within]),
        "sources": sorted({s for c in cells + within for s in c["sources"]}),
    }


def fmt_hypothesis(h) -> str:
    """Delta under a hypothesis, bold where the rule says it differs (the hypothesis is rejected for the number)."""
    if h is None:
        return "--"
    return f"$\\mathbf{{{h[0]:+.3f}}}$" if h[1] == "differs" else f"${h[0]:+.3f}$"


def render_residuals(plan, summaries, variant_files, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    env.filters["hyp"] = fmt_hypothesis
    model = residuals_model(plan, summaries, variant_files, campaign)
    write_text(out, env.get_template("residuals.tex.j2").render(**model))
