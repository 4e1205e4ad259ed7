"""The report's figures: speed-up, time against K, convergence in the time step."""

from __future__ import annotations

import math
from pathlib import Path

from ..cases import paper_rows, table_ids
from ..indicators import INDICATORS
from ..readings import matches
from .index import best_timing, campaign_entries, case_label, hw_short, index_results, load
from .latex import INDICATOR_LN_TEX


# --- figures ----------------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "figure.dpi": 120, "savefig.bbox": "tight"})
    return plt


def _save(fig, stem):
    Path(stem).parent.mkdir(parents=True, exist_ok=True)
    # fixed metadata so that a rebuild with the same data gives the same files
    fig.savefig(f"{stem}.pdf", metadata={"CreationDate": None, "Producer": "srmdp"})
    fig.savefig(f"{stem}.png", dpi=150, metadata={"Software": "srmdp"})


def figure_speedup(plan, timings, gpu_files, stem):
    """CPU time / GPU time per case: the paper's and ours where we have both times."""
    plt = _pyplot()
    times = index_results(list(timings) + list(gpu_files))
    labels, paper_su, ours_su = [], [], []
    for r in paper_rows():
        key = (r["table"], r["row"])
        labels.append(case_label(r))
        paper_su.append(r["cpu_s"] / r["gpu_s"])
        cpu, gpu = best_timing(times.get(key, []), "cpu"), best_timing(times.get(key, []), "gpu")
        ours_su.append(cpu["seconds_per_run"] / gpu["seconds_per_run"] if cpu and gpu else math.nan)
    fig, ax = plt.subplots(figsize=(10, 3.6))
    x = list(range(len(labels)))
    ax.bar([i - 0.2 for i in x], paper_su, width=0.4, color="#8da0cb",
           label="paper (2x Xeon E5-2620 v2, OpenMP vs GTX TITAN Black)")
    have = [i for i, v in enumerate(ours_su) if math.isfinite(v)]
    if have:
        ax.bar([i + 0.2 for i in have], [ours_su[i] for i in have], width=0.4, color="#fc8d62",
               label="ours (" + "; ".join(sorted({hw_short(t) for t in _timing_files(timings, gpu_files)})) + ")")
    else:
        ax.text(0.99, 0.03, "no GPU times of ours (none run in this preset, data/gpu/ empty): paper only",
                transform=ax.transAxes, ha="right", fontsize=7)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_yscale("log")
    top = max([*paper_su, *[v for v in ours_su if math.isfinite(v)]])
    ax.set_ylim(top=top * 40)  # room for the legend
    ax.set_ylabel("speed-up = CPU time / GPU time")
    ax.set_xticks(x, labels, rotation=70, ha="right", fontsize=7)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Speed-up of the GPU over the CPU, per case")
    _save(fig, stem)
    plt.close(fig)


def _timing_files(timings, gpu_files):
    return [load(p) for p in list(timings) + list(gpu_files)]


def figure_time_vs_k(plan, timings, gpu_files, stem):
    """Seconds per run against the number of strata K, per basis: paper CPU/GPU and ours."""
    plt = _pyplot()
    times = index_results(list(timings) + list(gpu_files))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, basis in zip(axes, sorted({r["basis"] for r in paper_rows()}), strict=True):
        rows = [r for r in paper_rows() if r["basis"] == basis]
        ax.scatter([r["K"] for r in rows], [r["cpu_s"] for r in rows], marker="o", facecolors="none",
                   edgecolors="C0", label="paper CPU")
        ax.scatter([r["K"] for r in rows], [r["gpu_s"] for r in rows], marker="s", facecolors="none",
                   edgecolors="C1", label="paper GPU")
        for dev, col, mk in (("cpu", "C0", "o"), ("gpu", "C1", "s")):
            found = [(r["K"], best_timing(times.get((r["table"], r["row"]), []), dev)) for r in rows]
            found = [(k, t) for k, t in found if t is not None]
            if found:
                hw = "; ".join(sorted({hw_short(t) for _, t in found}))
                ax.scatter([k for k, _ in found], [t["seconds_per_run"] for _, t in found], marker=mk, color=col,
                           label=f"ours ({hw})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("K (number of strata)")
        ax.set_ylabel("seconds per run")
        ax.set_title(f"{basis}: time vs K")
        ax.legend(fontsize=7)
    _save(fig, stem)
    plt.close(fig)


def figure_convergence(plan, summaries, stem, campaign=()):
    """The three indicators (ln MSE) against Δt for the tables with several Δt, with an O(N^-1) slope line.

    Every reading of the paper's scheme is drawn in every panel; a reading with the Z control variate
    (beyond the paper) in the MSE_Z,av panels only (its Y indicators are those of its base reading within
    their standard errors: tables/zcv.tex).  ``campaign``: summaries of the pooled data/gpu/ chunks, drawn
    per reading (the most runs per row).  The legend sits below the panels, where it hides no point."""
    plt = _pyplot()
    sums = index_results(summaries)
    camp = index_results(campaign)
    tables = [t for t in table_ids() if len({r["dt"] for r in paper_rows() if r["table"] == t}) > 1]
    fig, axes = plt.subplots(len(INDICATORS), len(tables), figsize=(2.3 * len(tables), 6.4), sharex=True,
                             squeeze=False)
    markers = ["s", "^", "D", "v", "P"]
    lines = ["--", ":", "-.", (0, (1, 1)), (0, (3, 1, 1, 1))]
    for j, table in enumerate(tables):
        rows = [r for r in paper_rows() if r["table"] == table]
        for i, ind in enumerate(INDICATORS):
            ax = axes[i][j]
            dts = [r["dt"] for r in rows]
            # the paper: open circles, so that ours stay visible where they coincide
            ax.plot(dts, [r[ind] for r in rows], "k-", marker="o", mfc="none", ms=6, label="paper", lw=1)
            for n, reading in enumerate(plan.readings):
                if getattr(reading, "z_cv", False) and ind != "mse_z_av":
                    continue
                name = reading.name
                if getattr(reading, "z_cv", False):
                    base = plan.base_reading(reading)
                    name += f": {base.name if base else 'its reading'} + Z c.v."
                pts = []
                for r in rows:
                    res = next((x for x in sums.get((table, r["row"]), []) if matches(x, reading)), None)
                    if res is not None and res.get(ind) is not None:
                        pts.append((r["dt"], res[ind], res.get(ind + "_se") or 0.0))
                if pts:
                    x, y, e = zip(*pts, strict=False)
                    ax.errorbar(x, y, yerr=e, marker=markers[n % len(markers)], ls=lines[n % len(lines)], ms=3,
                                lw=1, capsize=2, color=f"C{n}", label=f"ours ({name})")
                gpts = []
                for r in rows:
                    cands = [e for e in campaign_entries(plan, camp.get((table, r["row"]), []), plan.readings)
                             if e["name"] == reading.name and e.get(ind) is not None]
                    if cands:
                        best = max(cands, key=lambda e: e["runs"])
                        gpts.append((r["dt"], best[ind], best.get(ind + "_se") or 0.0))
                if gpts:
                    x, y, e = zip(*gpts, strict=False)
                    ax.errorbar(x, y, yerr=e, marker="x", ls=lines[n % len(lines)], ms=4, lw=0.8, capsize=2,
                                color=f"C{n + len(plan.readings)}", label=f"ours, GPU ({reading.name})")
            # O(N^-1) = O(dt): ln MSE = ln dt + c, anchored at the paper's largest dt
            anchor = max(rows, key=lambda r: r["dt"])
            ax.plot(dts, [anchor[ind] + math.log(dt / anchor["dt"]) for dt in dts], color="0.6", lw=0.8,
                    label="slope 1: $O(N^{-1})$")
            ax.set_xscale("log")
            ax.set_xticks(dts, [f"{dt:g}" for dt in dts])
            ax.minorticks_off()
            if i == 0:
                ax.set_title(table, fontsize=8)
            if j == 0:
                ax.set_ylabel(INDICATOR_LN_TEX[ind])
            if i == len(INDICATORS) - 1:
                ax.set_xlabel(r"$\Delta t$")
    handles = {}
    for ax in axes.flat:  # one legend for all panels, below them: it hides no point
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    fig.legend(list(handles.values()), list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(len(handles), 4), fontsize=7, frameon=False)
    fig.suptitle(f"Convergence in $\\Delta t$ (preset {plan.preset}): $\\ln$ of the three indicators", fontsize=9)
    _save(fig, stem)
    plt.close(fig)
