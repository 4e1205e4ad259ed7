"""What the paper's rows still need on a GPU, at the measured rates: the GPU section of ``srmdp plan``.

For every paper row, the paper-fit runs present in ``data/gpu`` (chunks of :mod:`srmdp.paper.inputs.chunks`, per run
set:
the paper-fit reading in each path arithmetic), the runs still needed for ``goal`` (8) runs, and their seconds at
the measured rates (:class:`srmdp.paper.models.cost.CostModel`: the repository's measurement of the same case on the
same GPU model, else the shape model of :mod:`srmdp.paper.models.shape_cost`).  The seconds are packed into GPU
windows of ``window`` seconds (9 minutes: a 15-minute device session less its start, warm-up and margins), first
fit decreasing, one item per row (a heavy row's runs one item each: one run per chunk); a run longer than a
window is named (it can never run there).  The leave-one-shape-out error of the shape model is printed first.
"""

from __future__ import annotations

import math

from ..inputs import chunks
from ..inputs.rows import paper_case, paper_rows
from ..models.cost import CostModel, load_throughput
from ..models.shape_cost import bench_points, holdout_report

GOAL_RUNS = 8
WINDOW_SECONDS = 540.0  # a 9-minute GPU window
CHUNK_OVERHEAD_S = 2.0  # per chunk: allocation, warm-up launches, writing and packing the file
HEAVY_RUN_SECONDS = 60.0  # as the campaign: a run this long is a chunk of its own


def _runs_present(data_dirs, reading) -> dict:
    """{(table, row): {arithmetic: runs}} of the paper-fit run sets present (float32 storage, seed 0)."""
    from ...case.readings import reading_key, same_reading

    out: dict = {}
    for g in chunks.index(chunks.result_paths(*data_dirs)).values():
        if g.precision != "float32" or g.seed != 0 or g.test_points != 1000:
            continue
        if not same_reading(g.reading[:5] + ("float64",), reading_key(reading)[:5] + ("float64",)):
            continue
        arith = g.reading[5] if len(g.reading) > 5 else "float64"
        cell = out.setdefault((g.table, g.row), {})
        cell[arith] = max(cell.get(arith, 0), g.runs)
    return out


def _pack(items, window) -> tuple[int, list]:
    """(windows, items longer than a window): first-fit decreasing of (name, seconds) into windows."""
    bins: list = []
    too_long = []
    for name, secs in sorted(items, key=lambda x: -x[1]):
        if secs > window:
            too_long.append((name, secs))
            continue
        for i, used in enumerate(bins):
            if used + secs <= window:
                bins[i] += secs
                break
        else:
            bins.append(secs)
    return len(bins) + sum(math.ceil(s / window) for _, s in too_long), too_long


def needs(
    cost: CostModel, present: dict, arithmetic: str, goal: int = GOAL_RUNS, window: float = WINDOW_SECONDS, options=None
) -> dict:
    """Per row: runs present in ``arithmetic``'s run set, runs needed for ``goal``, seconds per run and in all;
    and the totals (seconds, windows, runs longer than a window)."""
    rows, items = [], []
    for r in paper_rows():
        case = paper_case(r["table"], row=r["row"], precision="float32", **(options or {}), arithmetic=arithmetic)
        have = present.get((r["table"], r["row"]), {}).get(arithmetic, 0)
        need = max(0, goal - have)
        per_run = cost.run_seconds(case)
        label = f"{r['table']}_r{r['row']}"
        rows.append(
            {
                "row": label,
                "have": have,
                "need": need,
                "per_run": per_run,
                "path_steps": case.path_steps,
                "seconds": need * per_run + (need if per_run >= HEAVY_RUN_SECONDS else min(need, 1)) * CHUNK_OVERHEAD_S,
            }
        )
        if need:
            if per_run >= HEAVY_RUN_SECONDS:
                items += [(label, per_run + CHUNK_OVERHEAD_S)] * need
            else:
                items.append((label, need * per_run + CHUNK_OVERHEAD_S))
    windows, too_long = _pack(items, window)
    return {
        "rows": rows,
        "seconds": sum(x["seconds"] for x in rows),
        "windows": windows,
        "too_long": too_long,
        "path_steps": sum(x["need"] * x["path_steps"] for x in rows),
    }


def _cost_models(data_dirs, throughput=None) -> tuple:
    """(the probe that learned every GPU measurement, {arithmetic: (GPU model, its CostModel)}): per path
    arithmetic, the cost model of the GPU model measured on the most shapes in it."""
    table = load_throughput(throughput) if throughput else load_throughput()
    results = [c.data for g in chunks.index(chunks.result_paths(*data_dirs)).values() for c in g.chunks]
    bench = bench_points(*data_dirs)
    probe = CostModel(table, "gpu", "?")
    for res in results:
        probe.learn(res)
    probe.learn_points(bench)
    shape = probe.shape_model()
    models = {}
    for arithmetic in ("float32", "float64"):
        groups = [g for g in shape.groups if g[1] == arithmetic and shape.factors.get(g)]
        if groups:
            model = max(groups, key=lambda g: (len(shape.groups[g]), g))[0]
            models[arithmetic] = (model, CostModel(table, "gpu", model))
            for res in results:
                models[arithmetic][1].learn(res)
            models[arithmetic][1].learn_points(bench)
    return probe, models


def deferred_report(data_dirs, reading, deferred, throughput=None) -> str:
    """The rows a preset leaves to a GPU (its ``deferred:`` list), each with its runs, its cost at the measured
    rates in float32 arithmetic (the paper's) and why it is deferred."""
    if not deferred:
        return ""
    _, models = _cost_models(data_dirs, throughput)
    if "float32" not in models:
        return "srmdp: the rows deferred to a GPU: no GPU run measured in float32 arithmetic, no estimate"
    model, cost = models["float32"]
    options = reading.options()
    options.pop("arithmetic", None)
    lines, total = [], 0.0
    for d in deferred:
        case = paper_case(d["table"], row=d["row"], precision="float32", **options, arithmetic="float32")
        secs = d["runs"] * cost.run_seconds(case)
        total += secs
        label = f"{d['table']}_r{d['row']}"
        lines.append(f"  {label:<14} {d['runs']:>4} runs  ~{secs / 60:5.1f} min  {d['why']}")
    head = (
        f"srmdp: rows deferred to a GPU (the preset's deferred:, not run here), {reading.name} in float32 on"
        f" {model} at the measured rates: ~{total / 60:.0f} device minutes"
    )
    return "\n".join([head, *lines])


def report(data_dirs, reading, throughput=None, goal: int = GOAL_RUNS, window: float = WINDOW_SECONDS) -> str:
    """The GPU section of ``srmdp plan`` (see the module docstring)."""
    probe, models = _cost_models(data_dirs, throughput)
    text, _ = holdout_report(probe.points)
    lines = ["srmdp: the GPU rows' cost model, validated on held-out shapes", text]
    present = _runs_present(data_dirs, reading)
    options = reading.options()
    options.pop("arithmetic", None)
    for arithmetic in ("float32", "float64"):
        if arithmetic not in models:
            lines.append(f"srmdp: no GPU run measured in {arithmetic} arithmetic: no estimate")
            continue
        model, cost = models[arithmetic]
        n = needs(cost, present, arithmetic, goal, window, options)
        short = [x for x in n["rows"] if x["need"]]
        lines.append(
            f"srmdp: {reading.name} on the GPU in {arithmetic} arithmetic ({model}, the measured rates):"
            f" {len(short)} of {len(n['rows'])} rows below {goal} runs in that arithmetic's run set;"
            f" {n['path_steps']:.2g} path-steps, ~{n['seconds'] / 60:.0f} device minutes,"
            f" {n['windows']} GPU windows of {window / 60:.0f} minutes"
        )
        for x in sorted(short, key=lambda x: -x["seconds"])[:8]:
            lines.append(
                f"  {x['row']:<14} {x['have']} runs, {x['need']} more at ~{x['per_run']:.3g} s/run:"
                f" {x['seconds'] / 60:.1f} min"
            )
        if len(short) > 8:
            rest = sum(x["seconds"] for x in sorted(short, key=lambda x: -x["seconds"])[8:])
            lines.append(f"  ... {len(short) - 8} more rows: {rest / 60:.1f} min")
        for name in dict.fromkeys(name for name, _ in n["too_long"]):
            secs = [s for x, s in n["too_long"] if x == name]
            lines.append(
                f"  {name}: {len(secs)} run(s) of ~{secs[0]:.0f} s, each longer than a"
                f" {window / 60:.0f}-minute window: not plannable there (faster kernels, or a longer window)"
            )
    return "\n".join(lines)
