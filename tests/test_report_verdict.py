"""The report's verdict page: precisions read from the records, CPU = GPU lines counted once, the χ² that carries
the measured correlation of rows sharing random streams (and no sign test's p), the rows not run with their cost,
and the generated sentences (no list of cells in the prose)."""

import re
from pathlib import Path

import pytest
from test_report_evidence import _model, _plan  # the committed summary model, built once

from srmdp.paper.inputs.results import (
    arithmetic_of,
    device_words,
    gpu_timing,
    merge_twins,
    precision_short,
    run_indices,
    storage_of,
)
from srmdp.paper.report.consistency import MIN_SHARED_RUNS, correlated_chi2

ROOT = Path(__file__).resolve().parent.parent


def _res(device, value, runs=(0, 1), precision="float32", arithmetic=None, seconds=1.0, runs_n=None):
    reading = {"outside": "zero", "trunc_y": 1.0, "trunc_z": 1.0}
    if arithmetic:
        reading["arithmetic"] = arithmetic
    return {
        "device": device,
        "case": {"table": "LP0d4", "row": 2, "precision": precision},
        "reading": reading,
        "seed": 0,
        "test_points": 1000,
        "runs": runs_n or len(runs),
        "seconds_per_run": seconds,
        "chunks": [f"x.runs{runs[0]:04d}-{runs[-1]:04d}.json"],
        "_path": f"{device}-{value}-{runs}.json",
        "mse_y_max": value,
        "mse_y_av": value,
        "mse_z_av": value,
        "provenance": {
            "cpus": 2,
            "hardware": {"model": "AMD EPYC" if device == "cpu" else "NVIDIA H100 80GB", "threads": 1},
        },
    }


def test_precisions_come_from_the_record():
    old = _res("gpu", -1.0)  # written before the reading recorded its arithmetic: float64
    assert (storage_of(old), arithmetic_of(old), precision_short(old)) == ("float32", "float64", "f32 st./f64 ar.")
    new = _res("gpu", -1.0, arithmetic="float32")
    assert precision_short(new) == "f32 st./f32 ar./f64 sums"  # float32 paths, float64 sums and solves
    assert precision_short(_res("cpu", -1.0, precision="float64")) == "f64"


def test_device_words_never_print_an_unknown_core_count():
    res = _res("cpu", -1.0)
    assert device_words(res) == "CPU EPYC 2c"
    del res["provenance"]["cpus"]  # a summary written before the provenance recorded the host's CPUs
    assert device_words(res) == "CPU EPYC 1 thr"
    assert device_words(_res("gpu", -1.0)) == "GPU H100"


def test_cpu_and_gpu_lines_of_the_same_runs_are_one_line():
    cpu, gpu = _res("cpu", -3.0, precision="float64"), _res("gpu", -3.0 + 5e-7)
    merged = merge_twins([cpu, gpu])
    assert len(merged) == 1 and merged[0]["_twin"] == cpu["_path"] and merged[0]["_device"] == "CPU = GPU"
    assert len(merge_twins([cpu, _res("gpu", -3.0 + 2e-6)])) == 2  # values differ beyond 1e-6
    assert len(merge_twins([cpu, _res("gpu", -3.0, runs=(2, 3))])) == 2  # other runs
    assert run_indices(_res("gpu", 0.0, runs=(2, 10))) == tuple(range(2, 11))


def test_one_gpu_timing_per_row_the_summary_with_most_runs():
    like = _res("cpu", 0.0)
    few, many = _res("gpu", 0.0, seconds=0.02), _res("gpu", 0.0, runs=(0, 10), seconds=0.05, runs_n=11)
    assert gpu_timing([few, many], like, "float32") is many
    assert gpu_timing([few, many], like, "float64") is None
    assert gpu_timing([_res("gpu", 0.0, arithmetic="float32")], like, "float32") is None  # not like for like


def _row(runs, z_like, shared_with=None, start=0, seed=0, rng=None):
    """A judged number of ``runs`` runs (per-run errors lognormal) whose Delta / spread is ``z_like`` (se = spread:
    no paper noise), sharing its random streams with ``shared_with`` (the same per-run values on the runs in common)."""
    import types

    import numpy as np

    ey = np.exp(rng.normal(-4.0, 0.5, size=(runs, 3)))
    if shared_with is not None:
        common = min(runs, shared_with.runs)
        ey[:common] = np.asarray(shared_with.res["per_run"]["ey"])[:common]
    res = {"seed": seed, "test_points": 1000, "run_start": start, "runs": runs, "per_run": {"ey": ey.tolist()}}
    judged = types.SimpleNamespace(diff=z_like, spread=1.0)
    return types.SimpleNamespace(runs=runs, res=res, se=1.0, judgement=judged)


def test_the_chi2_carries_the_measured_correlation_and_leaves_out_what_it_cannot_measure():
    """Disjoint streams (another seed): the plain sum of squares. Two rows that share all of their runs, with the same
    per-run values, are one row seen twice: the correlated chi^2 of the pair is that of one row (z' C^+ z with
    C = [[1, 1], [1, 1]], rank 1: z^2 on one degree of freedom for equal z), not twice it. A row that shares
    fewer than MIN_SHARED_RUNS runs with a kept one is left out."""
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(7)
    t = stats.t.ppf(stats.norm.cdf(2.0), 99)  # Delta / spread whose normal score is 2 on 100 runs
    a = _row(100, t, rng=rng)
    b = _row(100, t, seed=1, rng=rng)
    plain = correlated_chi2([a, b], "mse_y_av")
    assert plain["n"] == 2 and plain["left_out"] == 0 and plain["chi2"] == pytest.approx(8.0, rel=1e-9)
    twin = _row(100, t, shared_with=a, rng=rng)  # the same 100 runs: correlation 1
    both = correlated_chi2([a, twin], "mse_y_av")
    assert both["rho_max"] == pytest.approx(1.0) and both["n"] == 2
    assert both["chi2"] == pytest.approx(4.0, rel=1e-6) and both["df"] == 1  # not 8 on 2
    few = _row(MIN_SHARED_RUNS - 1, t, shared_with=a, rng=rng)  # shares 29 runs: not measurable
    out = correlated_chi2([a, few], "mse_y_av")
    assert (out["n"], out["left_out"]) == (1, 1) and out["chi2"] == pytest.approx(4.0, rel=1e-9)


@pytest.mark.slow  # the whole summary model, claims included (~5 s)
def test_the_verdict_page_states_findings_not_cells():
    """§1 of the committed summary: the headline and consistency sentences and at most five findings, no list of
    cells (no 'z=' in the prose), the rows not run with a cost from the cost model, the high-d sign finding with its
    sign test."""
    m = _model()
    main = (ROOT / "paper" / "main.tex").read_text()
    verdict = main[main.index("\\section{Verdict}") : main.index("\\section{The verdict in detail}")]
    keys = re.findall(r"\\srmdpSay\{([^}]+)\}", verdict)
    assert keys == ["headline", "consistency"] and "\\srmdpFindings" in verdict
    assert 1 <= len(m["findings"]) <= 5 and all(f.count(". ") == 0 for f in m["findings"])  # one sentence each
    prose = " ".join([m["sentences"][k] for k in keys] + m["findings"])
    assert "z=" not in prose and "$z$" not in prose
    assert len(m["not_run"]) == 4 and all(r["total"] > 0 for r in m["not_run"])
    # T.13 d = 19 has a run (float32 path arithmetic, theory): not "not run"
    assert {(r["table"], r["row"]) for r in m["not_run"]} == {
        ("LP0d4", 4),
        ("LP0d6_0", 4),
        ("LP0d11", 3),
        ("LP1d6_1", 4),
    }
    # every row of Tables 9-13 with a value of ours (13 after the H200 import of T.13 rows 4 and 5), the two pairs of
    # T.11 and T.12 that share random streams counted once each: 11 independent rows
    assert re.search(r"in 11 of 11 row groups \(", m["sentences"]["signs"])
    assert "no p-value" in m["sentences"]["signs"] and "sign test $p" not in m["sentences"]["signs"]
    assert "float32 throughout" not in main.replace("(the paper computed in float32 throughout)", "")
    assert "\\srmdpSay{agreement}" not in main[main.index("\\section{Agreement") :]  # §6 does not repeat §1


@pytest.mark.slow  # the whole summary model (~10 s)
def test_readme_states_the_reports_counts_and_the_plans_totals():
    """README's verdict paragraph and its from-scratch cost are the report's and srmdp plan's, not hand-kept."""
    from srmdp.paper.plan.jobs import _hms

    readme = " ".join((ROOT / "README.md").read_text().split())
    plan, m = _plan(), _model()
    o = m["totals"]["out"]
    other = o["other_model"]
    assert (
        f"**{o['reproduced']} of {o['n']} numbers reproduced, {o['differs']} differ, {o['undecided']} undecided**,"
        f" {o['causes']['paper_noise']} of them by the paper's own noise" in readme
    )
    noise = re.search(
        r"(\d+) and (\d+) under \$10\^3\{\\times\}2\$ and \$10\^3\{\\times\}5\$", m["sentences"]["headline"]
    )
    assert noise and f"({noise[1]} and {noise[2]} under 10³ runs × 2 and × 5 points)" in readme
    assert f"10³ points: {other['reproduced']} / {other['differs']} / {other['undecided']}." in readme
    high = re.search(r"lies above the paper's in (\d+) of \1 row groups", m["sentences"]["signs"])
    assert high and f"in all {high.group(1)} row groups of Tables 9–13" in readme
    core = sum(sec * thr for _, _, sec, thr, _ in plan.jobs(2))
    assert f"~{_hms(core)} of core time, ~{_hms(core / 2)} wall on 2 cores" in readme


def test_the_forest_plot_prints_at_its_own_size_in_8_point_text():
    """p. 1's figure is drawn at the report's text width (A4 less its geometry margins) and included at that width,
    so its 8 pt labels print at 8 pt."""
    from srmdp.paper.report.figures import FOREST_PT, FOREST_WIDTH_IN

    main = (ROOT / "paper" / "main.tex").read_text()
    margin_cm = float(re.search(r"\\usepackage\[margin=([\d.]+)cm\]\{geometry\}", main)[1])
    text_in = (21.0 - 2 * margin_cm) / 2.54
    assert "\\includegraphics[width=\\textwidth]{../figures/forest.png}" in main
    assert abs(FOREST_WIDTH_IN - text_in) < 0.05 and FOREST_PT >= 8


def test_the_configs_prose_has_its_indicator_names_typeset():
    from srmdp.paper.report.sentences.words import prose as _prose

    assert _prose("no MSE_Y,max gap; MSE_Z,av and MSE_Y move_up") == (
        "no $\\mathrm{MSE}_{Y,\\max}$ gap; $\\mathrm{MSE}_{Z,\\mathrm{av}}$ and $\\mathrm{MSE}_{Y}$ move\\_up"
    )
