"""The report's summary and its generated sentences: every count and measured number of the prose.

One list of *cells* (paper row x indicator x reading x source of ours) is built from the published summaries
(the preset's CPU runs and the pooled chunks of data/gpu/); the summary page, the sentences that replace
hand-written statements in ``paper/main.tex`` and the tests all read it, so a sentence cannot disagree with
the tables it summarises.

Few runs: a standard error estimated from R runs is itself uncertain, so a cell is judged against the
two-sided 3-sigma probability of Student's t with R - 1 degrees of freedom (:func:`srmdp.paper.student.z_limit`:
235.8 s.e. for 2 runs, 19.2 for 3, 9.2 for 4, 3.08 for 100): *within* |z| <= 3, *inconclusive* 3 < |z| <=
that limit (too few runs to call it a difference), *beyond* past it.  Cells of the reading fitted to the
paper (``paper-fit``, identified on the Delta t = 0.2 rows) at Delta t = 0.2 are *in-sample*.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..indicators import INDICATORS
from ..readings import matches
from .claims import all_claims, claim_outcome
from .index import campaign_entries, index_results
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text
from .residuals import residuals_model
from .rows import paper_rows, paper_table_number, table_ids
from .student import z_limit
from .tables import FIT_DT, FIT_READING  # the reading fitted to the paper, and where (in-sample cells)

LARGE_DIFF = 0.1  # |ours - paper| the text used to call small


@dataclass
class Cell:
    table: str
    row: int
    d: int
    dt: float
    reading: str
    source: str  # "CPU float64 (preset)", "GPU float32", "CPU float64" (campaign chunks)
    runs: int
    indicator: str
    ours: float
    se: float | None
    paper: float
    path: str

    @property
    def diff(self) -> float:
        return self.ours - self.paper

    @property
    def z(self) -> float | None:
        return self.diff / self.se if self.se else None

    @property
    def limit(self) -> float:
        return z_limit(self.runs)

    @property
    def verdict(self) -> str | None:
        """``within`` (|z| <= 3), ``inconclusive`` (3 < |z| <= the t-limit of its runs), ``beyond``; None
        without a standard error."""
        if self.z is None:
            return None
        if abs(self.z) <= 3:
            return "within"
        return "inconclusive" if abs(self.z) <= self.limit else "beyond"

    @property
    def in_sample(self) -> bool:
        return self.reading == FIT_READING and math.isclose(self.dt, FIT_DT)


def _source(res, campaign: bool) -> str:
    dev = str(res.get("device") or "?").upper()
    prec = (res.get("case") or {}).get("precision") or "float64"
    return f"{dev} {prec}" + ("" if campaign else " (preset)")


def cells(plan, summaries, campaign=()) -> list:
    """Every cell with a value of ours under one of the paper's readings, from both kinds of summaries."""
    sums, camp = index_results(summaries), index_results(campaign)
    selected = {(s.table, s.row) for s in plan.selected}
    out = []
    for paper in paper_rows():
        key = (paper["table"], paper["row"])
        found = []
        if key in selected:
            for reading in plan.paper_readings:
                res = next((x for x in sums.get(key, []) if matches(x, reading)), None)
                if res is not None:
                    found.append((reading.name, res, False))
        for e in campaign_entries(plan, camp.get(key, [])):
            found.append((e["name"], index_res(camp[key], e["sources"][0]), True))
        for name, res, is_camp in found:
            for k in INDICATORS:
                if res.get(k) is None:
                    continue
                out.append(Cell(paper["table"], paper["row"], paper["d"], paper["dt"], name,
                                _source(res, is_camp), int(res["runs"]), k, float(res[k]), res.get(k + "_se"),
                                float(paper[k]), res["_path"]))
    return out


def index_res(results, path):
    return next(r for r in results if r["_path"] == path)


def explanations(model) -> dict:
    """{(path, indicator): ([hypotheses], tested)} for the cells of the residual reading beyond its threshold
    (``model``: :func:`srmdp.paper.residuals.residuals_model`)."""
    key_of = {v: k for k, v in INDICATOR_TEX.items()}
    return {(c["sources"][0], key_of[c["indicator"]]): (c["explained"], c["tested"]) for c in model["cells"]}


def _cell_tex(c: Cell, with_table=True) -> str:
    where = f"T.{paper_table_number(c.table)} " if with_table else ""
    rowid = f"$\\Delta t={c.dt:g}$" if _dt_unique(c) else f"row {c.row}"
    z = "" if c.z is None else f", $z={c.z:+.1f}$"
    return (f"{where}{rowid} {INDICATOR_TEX[c.indicator]} {c.source}, {c.runs} run{'s' if c.runs != 1 else ''}:"
            f" ${c.diff:+.3f}${z}")


def _dt_unique(c: Cell) -> bool:
    return sum(1 for r in paper_rows() if r["table"] == c.table and r["dt"] == c.dt) == 1


def _join(items, empty="none") -> str:
    items = list(items)
    if not items:
        return empty
    return items[0] if len(items) == 1 else "; ".join(items[:-1]) + "; and " + items[-1]


def summary_model(plan, summaries, campaign=(), variant_files=(), claim_inputs=None) -> dict:
    """The summary page's counts and the generated sentences (all from :func:`cells`)."""
    allc = cells(plan, summaries, campaign)
    res_model = residuals_model(plan, summaries, variant_files, campaign)
    expl = explanations(res_model)
    n_rows = len(paper_rows())
    readings = []
    for reading in plan.paper_readings:
        mine = [c for c in allc if c.reading == reading.name]
        rows_any = {(c.table, c.row) for c in mine}
        rows_se = {(c.table, c.row) for c in mine if c.runs >= 2}
        with_z = [c for c in mine if c.z is not None]
        verdicts = Counter(c.verdict for c in with_z)
        out_of_3 = [c for c in with_z if c.verdict != "within"]
        hyp = Counter()
        explained = unexplained = untested = 0
        for c in out_of_3:
            found, tested = expl.get((c.path, c.indicator), ([], False))
            if found:
                explained += 1
                hyp[found[0]] += 1
            elif tested:
                unexplained += 1
            else:
                untested += 1
        readings.append({
            "name": reading.name, "rows_any": len(rows_any), "rows_se": len(rows_se), "rows": n_rows,
            "cells": len(with_z), "within": verdicts["within"], "inconclusive": verdicts["inconclusive"],
            "beyond": verdicts["beyond"], "in_sample": sum(c.in_sample for c in with_z),
            "in_sample_within": sum(c.in_sample and c.verdict == "within" for c in with_z),
            "out_of_3": len(out_of_3), "explained": explained, "unexplained": unexplained, "untested": untested,
            "hypotheses": ", ".join(f"{n} by {h}" for h, n in hyp.most_common()) or "--",
            "sources": sorted({c.path for c in mine}),
        })
    claims = all_claims(**claim_inputs) if claim_inputs is not None else []
    outcomes = Counter(claim_outcome(c) for c in claims)
    fit = [c for c in allc if c.reading == FIT_READING]
    large = sorted((c for c in fit if abs(c.diff) > LARGE_DIFF), key=lambda c: -abs(c.diff))
    sentences = {
        "agreement": _agreement_sentence(next(r for r in readings if r["name"] == FIT_READING), large),
        "largeD": _large_d_sentence(allc),
    }
    for t in table_ids():
        sentences[f"table-{t}"] = _table_sentence(t, allc)
    sentences["devices"] = _devices_sentence(allc)
    sentences["residuals"] = _residuals_sentence(res_model)
    return {"preset": tex_escape(plan.preset), "readings": readings,
            "describe": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
            "timing_reading": tex_escape(plan.timing_reading),
            "claims": {"n": len(claims), "held": outcomes["held"], "not_held": outcomes["not held"],
                       "not_checked": outcomes["not checked"]},
            "sentences": {k: v for k, v in sentences.items()}, "large": len(large), "fit": FIT_READING,
            "fit_dt": f"{FIT_DT:g}"}


def _agreement_sentence(r, large) -> str:
    return (f"Under \\emph{{{FIT_READING}}}, {r['within']} of the {r['cells']} cells with a standard error are within"
            f" three standard errors of the paper ({r['in_sample_within']} of them in-sample, at"
            f" $\\Delta t={FIT_DT:g}$ where the reading was fitted), {r['inconclusive']} lie between three and the"
            f" $t$-limit of their few runs, and {r['beyond']} beyond it. The absolute difference exceeds"
            f" ${LARGE_DIFF:g}$ in {len(large)} cell{'s' if len(large) != 1 else ''}: "
            + _join(_cell_tex(c) for c in large) + ".")


def _table_sentence(table, allc) -> str:
    mine = [c for c in allc if c.table == table]
    if not mine:
        return "No value of ours for this table."
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        for src in dict.fromkeys(c.source for c in mine if c.reading == name):
            cs = [c for c in mine if c.reading == name and c.source == src]
            with_z = [c for c in cs if c.z is not None]
            off = [c for c in with_z if c.verdict != "within"]
            rows = len({c.row for c in cs})
            text = (f"\\emph{{{name}}}, {src}: {rows} row{'s' if rows != 1 else ''},"
                    f" {len(with_z) - len(off)} of {len(with_z)} cells within 3 s.e.")
            if off and name == FIT_READING:  # the other readings differ by design: counts only
                text += " (off: " + "; ".join(_cell_tex(c, with_table=False) + (" in-sample" if c.in_sample else "")
                                             + ("" if c.verdict == "beyond" else " inconclusive") for c in off) + ")"
            if len(with_z) < len(cs):
                text += f"; {len(cs) - len(with_z)} cells from a single run (no s.e.)"
            parts.append(text)
    return "Ours: " + "; ".join(parts) + "."


def _residuals_sentence(m) -> str:
    """What each hypothesis of the residuals table explains and breaks, and the cells none explains."""
    parts = []
    for h, t in zip(m["headers"], m["tally"], strict=True):
        if not t["of"] and not t["within"]:
            continue
        rms = "" if t["rms"] is None else f", r.m.s.\\ of $z$ {t['rms']:.1f}"
        parts.append(f"{h}: explains {t['explains']} of {t['of']}, breaks {t['breaks']} of {t['within']}{rms}")
    left = [c for c in m["cells"] if not c["explained"]]
    tail = ("; none explains " + _join(f"{c['table']} $\\Delta t={c['dt']}$ {c['indicator']} ($z={c['z0']:+.1f}$)"
                                       for c in left)) if left else "; every cell is explained by one of them"
    return (f"Of the {len(m['cells'])} cells of \\emph{{{m['reading']}}} beyond {m['threshold']} standard errors"
            f" and the {m['n_within']} within (r.m.s.\\ of $z$ over all {m['rms0']:.1f} under our own spread), per"
            " hypothesis: " + "; ".join(parts) + tail + ".")


def _devices_sentence(allc) -> str:
    """CPU float64 against GPU float32 where both ran the same row, reading and run indices (campaign chunks)."""
    pairs = []
    for c in allc:
        if c.source.startswith("GPU"):
            cpu = next((x for x in allc if x.source == "CPU float64" and (x.table, x.row, x.reading, x.indicator)
                        == (c.table, c.row, c.reading, c.indicator) and x.runs == c.runs), None)
            if cpu is not None:
                pairs.append((c, cpu))
    if not pairs:
        return "No row was run on both devices with the same runs."
    worst = max(abs(g.ours - c.ours) for g, c in pairs)
    rows = len({(g.table, g.row) for g, _ in pairs})
    return (f"On the {rows} rows run on both devices with the same run indices ({len(pairs)} cells), the GPU's"
            f" float32 values and the CPU's float64 values differ by at most {_sci(worst)} in"
            " $\\ln\\mathrm{MSE}$.")


def _sci(x: float) -> str:
    """``$3.5\\times10^{-4}$`` (LaTeX)."""
    if x == 0:
        return "$0$"
    e = math.floor(math.log10(abs(x)))
    return f"${x / 10**e:.1f}\\times10^{{{e}}}$"


def _large_d_sentence(allc) -> str:
    tables = ("LP1d11", "LP1d12", "LP1d13", "LP1d14", "LP1d15_19")
    rows = [r for r in paper_rows() if r["table"] in tables]
    mine = [c for c in allc if c.table in tables]
    parts = []
    for name in dict.fromkeys(c.reading for c in mine):
        got = {(c.table, c.row) for c in mine if c.reading == name}
        se = {(c.table, c.row) for c in mine if c.reading == name and c.runs >= 2}
        srcs = sorted({c.source for c in mine if c.reading == name})
        parts.append(f"\\emph{{{name}}} {len(got)} of {len(rows)} rows ({len(se)} with at least two runs;"
                     f" {', '.join(srcs)})")
    return ("Tables~9--13 hold values of ours under " + _join(parts) + ".") if parts else \
        "Tables~9--13 hold no value of ours."


def render_summary(plan, summaries, template_dir, out, campaign=(), variant_files=(), claim_inputs=None):
    env = jinja_env(template_dir)
    model = summary_model(plan, summaries, campaign, variant_files, claim_inputs)
    write_text(out, env.get_template("summary.tex.j2").render(**model))
