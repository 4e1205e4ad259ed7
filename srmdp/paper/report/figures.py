"""The report's figures: speed-up, time against K, convergence in the time step."""

from __future__ import annotations

import math
from pathlib import Path

from ...case.readings import matches
from ...numerics.indicators import INDICATORS
from ..inputs.index import best_timing, campaign_entries, case_label, device_short, index_results, machine_of
from ..inputs.results import (
    device_words,
    gpu_timing,
    like_ratio,
    precision_short,
    precision_words,
    storage_of,
    threads_of,
)
from ..inputs.rows import paper_case, paper_rows, paper_table_number, table_ids
from ..models.splits import jackknife_ln_max
from .latex import INDICATOR_LN_TEX
from .tables import FIT_DT


# --- figures ----------------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "figure.dpi": 120, "savefig.bbox": "tight"})
    return plt


def _save(fig, stem):
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(f"{stem}.pdf", metadata=PDF_METADATA)
    fig.savefig(f"{stem}.png", dpi=150, metadata=PNG_METADATA)


# Fixed metadata, so that a rebuild from the same data gives the same bytes (README: the main command leaves a fresh
# clone's `git status` clean): no creation or modification date (SOURCE_DATE_EPOCH is not read either), and no
# matplotlib version in Creator/Producer/Software, which would change every figure on an upgrade.
PDF_METADATA = {"Creator": "srmdp", "Producer": "srmdp", "CreationDate": None, "ModDate": None}
PNG_METADATA = {"Software": "srmdp"}


def _gpu_entry(plan, camp, key, reading, precision="float32"):
    """The GPU campaign line of a row under ``reading`` (most runs first), or None."""
    cands = [
        e
        for e in campaign_entries(plan, camp.get(key, []), plan.readings)
        if e["name"] == reading and e["device"] == "gpu" and e["precision"] == precision and e.get("seconds")
    ]
    return max(cands, key=lambda e: e["runs"]) if cands else None


def _runs_words(counts) -> str:
    lo, hi = min(counts), max(counts)
    return f"{lo} run{'s' if hi > 1 else ''}" if lo == hi else f"{lo}--{hi} runs"


def figure_speedup(plan, likeforlike, campaign, stem, multicore=()):
    """GPU speed-up per paper row: the paper's (24 threads vs its GPU) beside ours like for like (all cores of
    a CPU in float32 under the GPU result's reading, rule likeforlike, against the H100 campaign runs: bar, the
    ratio of the mean times; whisker, the range of a CPU run over a GPU run), and beside the all-core timings of
    other hosts (``multicore``: rule multicore's and those measured elsewhere, e.g. the GPU host's 16 cores)
    against the same GPU line in the result's reading (their precisions named in the legend)."""
    plt = _pyplot()
    camp = index_results(campaign)
    like = index_results(likeforlike)
    here = {machine_of(r) for rs in like.values() for r in rs}
    others = index_results(multicore)
    labels, paper_su = [], []
    series = {"like": {}, "host": {}}  # series -> {row index: (ratio, lo, hi)}
    words = {"like": set(), "host": set()}
    runs = {"like": ([], []), "host": ([], [])}
    for i, r in enumerate(paper_rows()):
        key = (r["table"], r["row"])
        labels.append(case_label(r))
        paper_su.append(r["cpu_s"] / r["gpu_s"])
        pairs = []
        for cpu in like.get(key, []):
            name = next((x.name for x in plan.readings if matches(cpu, x)), None)
            gpu = gpu_timing(camp.get(key, []), cpu, storage_of(cpu)) if name else None  # Table R10's timing too
            if gpu is not None and cpu.get("seconds_per_run"):
                pairs.append(("like", cpu, gpu, f"{threads_of(cpu)} threads, {name}"))
        for cpu in others.get(key, []):
            if machine_of(cpu) in here or (threads_of(cpu) or 1) < 2 or cpu.get("device") != "cpu":
                continue  # the like-for-like host, or a 1-thread timing
            name = next((x.name for x in plan.readings if matches(cpu, x)), None)
            gpu = gpu_timing(camp.get(key, []), cpu) if name else None
            if gpu is not None and cpu.get("seconds_per_run"):
                pairs.append(("host", cpu, gpu, f"{threads_of(cpu)} threads, {name}"))
        for kind, cpu, gpu, what in pairs:
            series[kind][i] = like_ratio(cpu, gpu)
            runs[kind][0].append(int(cpu.get("runs") or 1))
            runs[kind][1].append(int(gpu.get("runs") or 1))
            prec = (
                precision_words(cpu)
                if precision_words(cpu) == precision_words(gpu)
                else f"CPU {precision_words(cpu)}, GPU {precision_words(gpu)}"
            )
            words[kind].add(f"CPU {device_words(cpu)[4:]}, {what} vs {device_words(gpu)[4:]}, {prec}")
    fig, ax = plt.subplots(figsize=(7.5, 4.3))
    x = list(range(len(labels)))
    width = 0.27 if series["host"] else 0.4
    ax.bar(
        [i - width for i in x] if series["host"] else [i - 0.2 for i in x],
        paper_su,
        width=width,
        color="#8da0cb",
        label="paper: 24 threads (2x Xeon E5-2620 v2) vs GTX TITAN Black, float32",
    )
    for kind, shift, color, head in (
        ("like", 0.0 if series["host"] else 0.2, "#fc8d62", "ours like for like"),
        ("host", width, "#66c2a5", "ours, another host's cores"),
    ):
        have = sorted(series[kind])
        if not have:
            continue
        mid = [series[kind][i][0] for i in have]
        lo = [mid[n] - (series[kind][i][1] if series[kind][i][1] is not None else mid[n]) for n, i in enumerate(have)]
        hi = [(series[kind][i][2] if series[kind][i][2] is not None else mid[n]) - mid[n] for n, i in enumerate(have)]
        cpu_runs, gpu_runs = runs[kind]
        ax.bar(
            [i + shift for i in have],
            mid,
            width=width,
            color=color,
            yerr=[lo, hi],
            error_kw={"lw": 0.8},
            label=f"{head}: {'; '.join(sorted(words[kind]))}\n(CPU {_runs_words(cpu_runs)}, GPU"
            f" {_runs_words(gpu_runs)} a row; bar: ratio of the mean times; whisker: a CPU run over a GPU run,"
            " slowest to fastest)",
        )
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_yscale("log")
    ax.set_ylabel("CPU s / GPU s per run")
    ax.set_xticks(x, labels, rotation=70, ha="right", fontsize=7)
    # above the frame, not inside it: the labels are wider than the empty part of the plot
    ax.legend(fontsize=6, loc="lower left", bbox_to_anchor=(0.0, 1.01), frameon=False, borderaxespad=0.0)
    fig.subplots_adjust(top=0.78, bottom=0.24, left=0.09, right=0.98)
    _save(fig, stem)
    plt.close(fig)


def figure_time_vs_steps(plan, timings, campaign, stem):
    """Seconds per run against path-steps per run (K M N(N+1)/2), per device: the paper's CPU and GPU, our
    CPU timing jobs and our GPU campaign runs (reading paper-fit, the timing reading)."""
    plt = _pyplot()
    times = index_results(timings)
    camp = index_results(campaign)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    marker = {"LP0": "o", "LP1": "s"}
    # each GPU model its own colour and markers, so that an H100 point and an H200 point of one basis differ
    gpu_style = [("C3", ("o", "s")), ("C4", ("^", "D")), ("C5", ("v", "P"))]  # (LP0, LP1) markers
    gpu_models = []
    series = {}
    for r in paper_rows():
        key = (r["table"], r["row"])
        steps = paper_case(r["table"], row=r["row"]).path_steps
        series.setdefault(("paper CPU (24 threads)", "C0", False, None), []).append((steps, r["cpu_s"], r["basis"]))
        series.setdefault(("paper GPU (GTX TITAN Black)", "C1", False, None), []).append(
            (steps, r["gpu_s"], r["basis"])
        )
        cpu = best_timing(times.get(key, []), "cpu")
        if cpu is not None:
            thr = ((cpu.get("provenance") or {}).get("hardware") or {}).get("threads", "?")
            series.setdefault((f"ours CPU {device_short(cpu)}, {thr} thread, f64", "C2", True, None), []).append(
                (cpu.get("path_steps_per_run") or steps, cpu["seconds_per_run"], r["basis"])
            )
        gpu = _gpu_entry(plan, camp, key, plan.timing_reading)
        if gpu is not None:
            src = next(x for x in camp[key] if x["_path"] == gpu["sources"][0])
            if gpu["model"] not in gpu_models:
                gpu_models.append(gpu["model"])
            color, marks = gpu_style[min(gpu_models.index(gpu["model"]), len(gpu_style) - 1)]
            series.setdefault((f"ours GPU {gpu['model']}, {precision_short(src)}", color, True, marks), []).append(
                (steps, gpu["seconds"], r["basis"])
            )
    for (label, color, filled, marks), pts in series.items():
        for basis in ("LP0", "LP1"):
            sel = [(x, y) for x, y, b in pts if b == basis]
            if sel:
                ax.scatter(
                    *zip(*sel, strict=True),
                    marker=dict(zip(("LP0", "LP1"), marks, strict=True))[basis] if marks else marker[basis],
                    s=22,
                    edgecolors=color,
                    facecolors=color if filled else "none",
                    label=f"{label}, {basis}",
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("path-steps per run ($K M N(N+1)/2$)")
    ax.set_ylabel("seconds per run")
    ax.legend(fontsize=6.5, ncol=2, loc="upper left")
    _save(fig, stem)
    plt.close(fig)


def plotted(res, ind, se=None) -> tuple[float, float]:
    """(value, standard error) a figure plots: MSE_Y,max with its small-R bias reduced by the jackknife over runs
    (its 1/R term; the jackknife's standard error) where the result has its per-run errors
    (:func:`srmdp.paper.models.splits.jackknife_ln_max`), else the indicator as recorded with ``se`` (default: the
    result's own; 0 without one)."""
    ey = (res.get("per_run") or {}).get("ey")
    if ind == "mse_y_max" and ey is not None and len(ey) >= 2:
        return jackknife_ln_max(ey)
    return res[ind], (res.get(ind + "_se") if se is None else se) or 0.0


def figure_convergence(plan, summaries, stem, campaign=(), indicators=INDICATORS):
    """The indicators (ln MSE) against Δt for the tables with several Δt, with an O(N^-1) slope line; one
    panel per (indicator, table), three tables a row.

    Per reading of the preset: the preset's CPU runs and the campaigns' run set with the most runs (GPU or the CPU
    evidence campaign's: the set the verdict judges), each with ± one standard error where it rests on at least two
    runs.  A reading with the Z control variate (beyond the
    paper) is drawn in the MSE_Z,av panels only.  MSE_Y,max is plotted bias-corrected (:func:`plotted`); the band
    marks the in-sample time step, where the fitted reading was chosen."""
    plt = _pyplot()
    sums = index_results(summaries)
    camp = index_results(campaign)
    tables = [t for t in table_ids() if len({r["dt"] for r in paper_rows() if r["table"] == t}) > 1]
    panels = [(ind, t) for ind in indicators for t in tables]
    ncol = 3
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.5, 2.3 * nrow + 0.8), squeeze=False)
    for ax, (ind, table) in zip(axes.flat, panels, strict=False):
        rows = [r for r in paper_rows() if r["table"] == table]
        dts = [r["dt"] for r in rows]
        ax.plot(dts, [r[ind] for r in rows], "k-", marker="o", mfc="none", ms=6, label="paper", lw=1)
        for n, reading in enumerate(plan.readings):
            if (reading.z_cv and ind != "mse_z_av") or reading in plan.arithmetic_readings:
                continue
            cpu_pts, gpu_pts = [], []
            for r in rows:
                res = next((x for x in sums.get((table, r["row"]), []) if matches(x, reading)), None)
                if res is not None and res.get(ind) is not None:
                    cpu_pts.append((r["dt"], *plotted(res, ind)))
                cands = [
                    e
                    for e in campaign_entries(plan, camp.get((table, r["row"]), []), plan.readings)
                    if e["name"] == reading.name and e.get(ind) is not None
                ]
                if cands:  # the campaigns' run set with the most runs (GPU or CPU): the one the verdict judges
                    best = max(cands, key=lambda e: e["runs"])
                    src = next(x for x in camp[(table, r["row"])] if x["_path"] == best["sources"][0])
                    gpu_pts.append((r["dt"], *plotted(src, ind, best.get(ind + "_se"))))
            label = "campaigns' largest run set"
            for pts, dev, mk, ls in ((cpu_pts, "preset CPU f64", "s", "--"), (gpu_pts, label, "x", ":")):
                if pts:
                    x, y, e = zip(*pts, strict=True)
                    ax.errorbar(
                        x,
                        y,
                        yerr=e,
                        marker=mk,
                        ls=ls,
                        ms=4,
                        lw=1,
                        capsize=2,
                        color=f"C{n}",
                        label=f"ours, {reading.name}, {dev}",
                    )
        if any(math.isclose(dt, FIT_DT) for dt in dts):  # where the fitted reading was chosen: not evidence
            ax.axvspan(FIT_DT / 1.15, FIT_DT * 1.15, color="0.9", lw=0, zorder=0, label="in sample (fit)")
        anchor = max(rows, key=lambda r: r["dt"])
        ax.plot(
            dts,
            [anchor[ind] + math.log(dt / anchor["dt"]) for dt in dts],
            color="0.6",
            lw=0.8,
            label="slope 1: $O(N^{-1})$",
        )
        ax.set_xscale("log")
        ax.set_xticks(dts, [f"{dt:g}" for dt in dts])
        ax.minorticks_off()
        ax.set_title(f"T.{paper_table_number(table)} ({table}): {INDICATOR_LN_TEX[ind]}", fontsize=8)
        ax.set_xlabel(r"$\Delta t$", fontsize=8)
        ax.set_ylabel(INDICATOR_LN_TEX[ind], fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    handles = {}
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    fig.tight_layout()
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=3,
        fontsize=7,
        frameon=False,
    )
    _save(fig, stem)
    plt.close(fig)


VERDICT_COLOURS = {"reproduced": "tab:green", "differs": "tab:red", "undecided": "0.55"}
FOREST_CLIP = 0.6  # intervals wider than this on a side are drawn to the edge with an arrow
FOREST_WIDTH_IN = 6.7  # the report's \textwidth (A4, 2 cm margins): the figure prints at its own size
FOREST_PT = 8  # its text, as printed
FOREST_ROW_IN = 0.135  # per number, in each of its two panels
FOREST_CAUSES = {  # an undecided number's cause (srmdp.paper.models.equivalence.Judgement.cause): line, marker, legend
    "paper noise": (":", "o", "undecided: the paper's own noise"),
    "our runs": ("-", "s", "undecided: too few runs of ours"),
    "near the margin": ("--", "D", "undecided: $\\Delta$ near $\\pm\\delta$"),
}


def figure_forest(plan, summaries, stem, campaign=(), reruns=()):
    """The verdict at a glance (p. 1): each out-of-sample paper number under the fitted reading, Delta as judged
    (ours + the model's shift - paper) with its interval, the band +-delta, coloured by verdict, an undecided number
    drawn by its cause (:data:`FOREST_CAUSES`; :mod:`srmdp.paper.models.equivalence`)."""
    from ..models.equivalence import model_tex
    from .judged import cells, report_readings
    from .tables import FIT_READING
    from .verdict import paper_numbers

    plt = _pyplot()
    rule = plan.equivalence
    numbers = paper_numbers(cells(plan, summaries, campaign, report_readings(plan), reruns), FIT_READING)
    numbers = [n for n in numbers if not n["in_sample"] and n["best"].judgement.diff is not None]
    short = {"mse_y_max": "$Y$,max", "mse_y_av": "$Y$,av", "mse_z_av": "$Z$,av"}
    # two panels side by side, drawn at the size they print (\textwidth of A4 less 2 cm margins: 6.7 in), 8 pt text
    half = math.ceil(len(numbers) / 2)
    parts = [numbers[:half], numbers[half:]] if len(numbers) > 1 else [numbers]
    height = FOREST_ROW_IN * half + 0.9
    fig, axes = plt.subplots(1, len(parts), figsize=(FOREST_WIDTH_IN, height), squeeze=False)
    seen = set()
    for ax, part in zip(axes.flat, parts, strict=True):
        ax.axvspan(-rule.delta, rule.delta, color="tab:green", alpha=0.12, lw=0)
        ax.axvline(0.0, color="0.4", lw=0.6)
        for y, n in enumerate(reversed(part)):
            j = n["best"].judgement
            lo, hi = j.diff - j.half_width, j.diff + j.half_width
            col = VERDICT_COLOURS[j.verdict]
            style = FOREST_CAUSES.get(j.cause, ("-", "o", ""))
            seen.add(j.cause if j.verdict == "undecided" else j.verdict)
            ax.plot([max(lo, -FOREST_CLIP), min(hi, FOREST_CLIP)], [y, y], color=col, lw=1.4, ls=style[0])
            mfc = "white" if style[1] == "o" and style[0] != "-" else col
            ax.plot([j.diff], [y], style[1], color=col, ms=3.5, mfc=mfc)
            for end, edge, mark in ((lo, -FOREST_CLIP, "<"), (hi, FOREST_CLIP, ">")):
                if (end < edge) if edge < 0 else (end > edge):
                    ax.plot([edge], [y], mark, color=col, ms=3.5)
        labels = [
            f"T.{paper_table_number(n['table'])} $\\Delta t$={n['dt']:g} {short[n['indicator']]} ({n['best'].runs})"
            for n in reversed(part)
        ]
        ax.set_yticks(range(len(part)), labels, fontsize=FOREST_PT)
        ax.set_xlim(-FOREST_CLIP * 1.05, FOREST_CLIP * 1.05)
        ax.set_ylim(-0.8, half - 0.2)
        ax.tick_params(axis="x", labelsize=FOREST_PT)
    fig.supxlabel(
        f"$\\Delta$ = ours $-$ paper under {model_tex(rule.model)} (ln MSE), {100 * rule.level:g} % interval;"
        f" band $\\pm\\delta$ = $\\pm${rule.delta:g}",
        fontsize=FOREST_PT,
        y=0.32 / height,
    )
    handles = []  # only what the figure shows: no legend entry for a verdict no number has
    for v, col in VERDICT_COLOURS.items():
        if v != "undecided" and v in seen:
            handles.append(ax.plot([], [], color=col, lw=1.4, label=v)[0])
    for cause, (ls, mark, words) in FOREST_CAUSES.items():
        if cause in seen:
            handles.append(
                ax.plot([], [], color=VERDICT_COLOURS["undecided"], lw=1.4, ls=ls, marker=mark, ms=3.5, label=words)[0]
            )
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=FOREST_PT, frameon=False)
    fig.tight_layout(rect=(0, 0.45 / height, 1, 1), pad=0.3, w_pad=1.0)
    _save(fig, stem)
    plt.close(fig)
