"""Why do some cells differ from the paper by more than their standard error allows?

For every cell (paper row x indicator) of one reading more than ``threshold`` standard errors from the
paper's value, the z-score under each hypothesis, i.e. (value under the hypothesis - paper) / its spread:

* ``literal``: the paper's formula read per run (ln of each run's max/mean, averaged over runs), the
  summary's ``literal_*`` fields;
* ``10^3 x 1``, ``10^3 x 10^3``: the paper's value taken as the pooled indicator over 10^3 runs with one
  test point each (R_{i,m}, m the run) or with 10^3 each: ours shifted by that split's bias (of the max
  and the ln) and compared with the combined spread sqrt(se^2 + sd^2), sd being the paper's own Monte-Carlo
  error under that split, both estimated from our per-run moments (:func:`srmdp.paper.splits.split`);
* one column per variant of config ``residuals.variants`` (float32 coefficients, truncation levels,
  another seed): the rerun's value and standard error.

A hypothesis is *not rejected* for a cell (the field keeps its old name, ``explained``) when its |z| <= threshold;
that is no explanation where it gets there only by widening the spread.  It *breaks* a cell of the same rows
that was within the threshold and is not under it.  Both are counted per hypothesis, and the root mean square of its
z over all cells with data is given: about 1 if the hypothesis accounts for the differences and their spread,
well below 1 if it "explains" by a spread too wide to test anything.
"""

import math

from ..indicators import INDICATORS
from ..readings import matches
from .index import index_results, load
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text
from .record import merge_twins, precision_short
from .rows import paper_rows
from .splits import paper_splits

IN_SAMPLE_DT = 0.2  # paper-fit was chosen on the Delta t = 0.2 cells (srmdp.paper.tables.FIT_DT)
SPLITS = (("1000x1", "$10^3{\\times}1$"), ("1000x1000", "$10^3{\\times}10^3$"))


def _z(value, paper, spread):
    if value is None or not spread or not math.isfinite(spread):
        return None
    return (value - paper) / spread


def _rms(values):
    """Root mean square of z-scores: about 1 where a hypothesis accounts for the differences and their spread
    (above 1: differences left over; well below 1: a spread too wide to test anything)."""
    return math.sqrt(sum(z * z for z in values) / len(values)) if values else None


def hypotheses_z(res, paper, key, variants):
    """{column: z} for indicator ``key`` (``mse_y_max`` ...) of summary ``res`` against the paper's value."""
    short = key[len("mse_") :]
    ours, se = res.get(key), res.get(key + "_se")
    out = {"literal": _z(res.get("literal_" + short), paper, res.get("literal_" + short + "_se"))}
    for name, _ in SPLITS:
        sp = paper_splits(res).get(name)
        out[name] = (
            None
            if sp is None or ours is None or not se
            else _z(ours + sp[short + "_shift"], paper, math.hypot(se, sp[short + "_sd"]))
        )
    for name, vres in variants.items():
        out[name] = None if vres is None else _z(vres.get(key), paper, vres.get(key + "_se"))
    return out


def residuals_model(plan, summaries, variant_files, campaign=()):
    """The table's content: the cells beyond the threshold with their z per hypothesis, and per hypothesis
    how many of those it explains and how many cells within the threshold it breaks."""
    reading = plan.reading(plan.residual_reading)
    thr = plan.residual_threshold
    have = {str(p) for p in variant_files}
    columns = ["literal"] + [name for name, _ in SPLITS] + [v.name for v in plan.variants]
    headers = ["literal"] + [tex for _, tex in SPLITS] + [tex_escape(v.name) for v in plan.variants]
    bases = []  # (label, paper row, summary, {variant: summary or None})
    sums = index_results(summaries)
    camp = index_results(campaign)
    for paper in paper_rows():
        key = f"{paper['table']}_r{paper['row']}"
        for res in sums.get((paper["table"], paper["row"]), []):
            if matches(res, reading):
                paths = {v.name: plan.residual_path(v.name, key) for v in plan.variants}
                variants = {n: load(p) | {"_path": p} if p in have else None for n, p in paths.items()}
                bases.append((paper["table"], paper, res, variants))
        # a CPU and a GPU summary of the same runs are one line (record.merge_twins), as in the paper's tables
        for res in merge_twins(camp.get((paper["table"], paper["row"]), [])):
            if matches(res, reading):
                dev = res.get("_device") or res["device"].upper()
                label = f"{paper['table']} {dev} {precision_short(res)} R={res['runs']}"
                bases.append((label, paper, res, {v.name: None for v in plan.variants}))
    cells, within = [], []
    for label, paper, res, variants in bases:
        for key in INDICATORS:
            z0 = _z(res.get(key), paper[key], res.get(key + "_se"))
            if z0 is None:
                continue
            zs = hypotheses_z(res, paper[key], key, variants)
            cell = {
                "table": tex_escape(label),
                "d": paper["d"],
                "dt": f"{paper['dt']:g}",
                "in_sample": math.isclose(paper["dt"], IN_SAMPLE_DT),
                "indicator": INDICATOR_TEX[key],
                "diff": res[key] - paper[key],
                "z0": z0,
                "z": [zs[c] for c in columns],
                "sources": [res["_path"]] + [v["_path"] for v in variants.values() if v is not None],
            }
            cell["explained"] = [
                h for c, h in zip(columns, headers, strict=True) if zs[c] is not None and abs(zs[c]) <= thr
            ]
            cell["tested"] = any(zs[c] is not None for c in columns[1:])  # beyond the literal form
            (cells if abs(z0) > thr else within).append(cell)
    tally = []
    for j in range(len(columns)):
        beyond = [c["z"][j] for c in cells if c["z"][j] is not None]
        inside = [c["z"][j] for c in within if c["z"][j] is not None]
        tally.append(
            {
                "explains": sum(abs(z) <= thr for z in beyond),
                "of": len(beyond),
                "breaks": sum(abs(z) > thr for z in inside),
                "within": len(inside),
                "rms": _rms(beyond + inside),
            }
        )
    return {
        "preset": tex_escape(plan.preset),
        "reading": tex_escape(reading.name),
        "describe": reading.describe(),
        "threshold": f"{thr:g}",
        "headers": headers,
        "cells": cells,
        "tally": tally,
        "variants": [{"name": tex_escape(v.name), "hypothesis": tex_escape(v.hypothesis)} for v in plan.variants],
        "rows": [tex_escape(k) for k in plan.residual_rows],
        "n_within": len(within),
        "rms0": _rms([c["z0"] for c in cells + within]),
        "sources": sorted({s for c in cells + within for s in c["sources"]}),
    }


def fmt_explains(z, threshold) -> str:
    """A z-score, bold where |z| <= threshold (the hypothesis explains the cell)."""
    if z is None:
        return "--"
    return f"$\\mathbf{{{z:+.1f}}}$" if abs(z) <= float(threshold) else f"${z:+.1f}$"


def render_residuals(plan, summaries, variant_files, template_dir, out, campaign=()):
    env = jinja_env(template_dir)
    env.filters["explains"] = fmt_explains
    model = residuals_model(plan, summaries, variant_files, campaign)
    write_text(out, env.get_template("residuals.tex.j2").render(**model))
