"""The report's cells: one per paper row x indicator x reading x source of ours, each with its verdict.

Built from the published summaries (the preset's CPU runs) and the pooled chunks of the GPU campaign
(data/gpu/); the summary page, its sentences, the scorecard and the tests all read this one list, so that a
sentence cannot disagree with the tables it summarises.

Each cell's verdict is the equivalence rule of the preset (:class:`srmdp.paper.models.equivalence.Equivalence`):
*reproduced*, *differs* or *undecided*, from the interval of ours - paper on its runs' degrees of freedom.
Cells of the reading fitted to the paper (``paper-fit``, identified on the Delta t = 0.2 rows) at Delta t = 0.2
are *in-sample*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from ...case.readings import matches
from ...numerics.indicators import INDICATORS
from ..inputs.index import index_results
from ..inputs.results import arithmetic_of, merge_twins, precision_short, run_key, storage_of
from ..inputs.rows import paper_rows
from ..models.equivalence import Equivalence, Judgement
from .pooling import pooled
from .tables import FIT_DT, FIT_READING, campaign_lines  # the fitted reading and where; float32 vs float64


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
    runkey: tuple = ()
    device: str = "CPU"  # CPU, GPU, or "CPU = GPU" (one cell computed on both from the same runs)
    also: str = ""  # the other result's path of a "CPU = GPU" cell
    storage: str = "float64"
    arithmetic: str = "float64"
    also_precision: str = ""  # the other result's precisions of a "CPU = GPU" cell, in words
    rule: Equivalence | None = None  # the preset's equivalence rule (plan.equivalence)
    res: dict | None = field(default=None, repr=False, compare=False)  # the result (its per-run moments)

    @property
    def key(self) -> tuple:
        """What makes two cells the same thing: row, reading, indicator and the random streams behind it."""
        return (self.table, self.row, self.reading, self.indicator, self.runkey)

    @cached_property
    def judgement(self) -> Judgement:
        """The preset's rule on this number, under its model of the paper's evaluations."""
        return self.rule.judge(self.res, self.indicator, self.paper)

    @property
    def raw_diff(self) -> float:
        """ours - paper, without the model's shift."""
        return self.ours - self.paper

    @property
    def diff(self) -> float:
        """Delta as judged: ours + the model's shift - paper (ours - paper without per-run moments)."""
        d = self.judgement.diff
        return self.raw_diff if d is None else d

    @property
    def z(self) -> float | None:
        return self.raw_diff / self.se if self.se else None

    @property
    def verdict(self) -> str:
        """``reproduced``, ``differs`` or ``undecided`` under the preset's rule (undecided without a standard
        error)."""
        return self.judgement.verdict

    def verdict_at(self, factor: float) -> str:
        """The verdict with the margin times ``factor`` (delta/2, 2 delta: p. 1's sensitivity)."""
        return self.rule.scaled(factor).judge(self.res, self.indicator, self.paper).verdict

    def verdict_other(self) -> str:
        """The verdict under the rule's other split of the paper's evaluations (p. 1's sensitivity)."""
        return self.rule.under(self.rule.sensitivity_model).judge(self.res, self.indicator, self.paper).verdict

    @property
    def in_sample(self) -> bool:
        return self.reading == FIT_READING and math.isclose(self.dt, FIT_DT)


def _source(res, campaign: bool) -> str:
    """``CPU f64 (preset)``, ``GPU f32 st./f64 ar.``: device and precisions as the result records them."""
    if res.get("_twin"):
        return f"CPU {res['_twin_precision']} = GPU {precision_short(res)}"
    dev = str(res.get("device") or "?").upper()
    return f"{dev} {precision_short(res)}" + ("" if campaign else " (preset)")


def report_readings(plan) -> list:
    """The readings whose runs count for the paper's numbers: the paper's scheme (no Z control variate), in
    either path arithmetic (a float32-arithmetic run is a run of that row; its cells say so)."""
    return [r for r in plan.readings if not r.z_cv]


def cells(plan, summaries, campaign=(), readings=None, reruns=()) -> list:
    """Every cell with a value of ours under one of ``readings`` (default: the paper's readings,
    ``plan.paper_readings``), from both kinds of summaries, and the pooled run sets of each row and reading
    (:func:`srmdp.paper.report.pooling.pooled`). Besides the row's own lines, a pool may take a CPU result folded
    into its
    GPU twin's line (:func:`srmdp.paper.inputs.results.merge_twins`) and ``reruns``: summaries of the residual
    experiments,
    where one is a rerun of a reading in another setting or seed."""
    readings = plan.paper_readings if readings is None else list(readings)
    sums, camp, more = index_results(summaries), index_results(campaign), index_results(reruns)
    selected = {(s.table, s.row) for s in plan.selected}
    out = []
    for paper in paper_rows():
        key = (paper["table"], paper["row"])
        found = []
        if key in selected:
            for reading in readings:
                res = next((x for x in sums.get(key, []) if matches(x, reading)), None)
                if res is not None:
                    found.append((reading.name, res, False))
        merged = merge_twins(camp.get(key, []))
        for e in campaign_lines(plan, merged, readings):
            found.append((e["name"], index_res(merged, e["sources"][0]), True))
        shown = {r["_path"] for r in merged}
        extra = [r for r in camp.get(key, []) if r["_path"] not in shown] + more.get(key, [])
        for name in sorted({n for n, _, _ in found}):  # independent run sets of one setting, pooled
            reading = next(r for r in readings if r.name == name)
            members = [r for n, r, _ in found if n == name] + [r for r in extra if matches(r, reading)]
            found += [(name, r, True) for r in pooled(members, plan.equivalence)]
        for name, res, is_camp in found:
            for k in INDICATORS:
                if res.get(k) is None:
                    continue
                out.append(
                    Cell(
                        paper["table"],
                        paper["row"],
                        paper["d"],
                        paper["dt"],
                        name,
                        _source(res, is_camp),
                        int(res["runs"]),
                        k,
                        float(res[k]),
                        res.get(k + "_se"),
                        float(paper[k]),
                        res["_path"],
                        run_key(res),
                        res.get("_device") or str(res.get("device") or "?").upper(),
                        res.get("_twin") or "",
                        storage_of(res),
                        arithmetic_of(res),
                        res.get("_twin_words") or "",
                        plan.equivalence,
                        res,
                    )
                )
    return out


def index_res(results, path):
    return next(r for r in results if r["_path"] == path)
