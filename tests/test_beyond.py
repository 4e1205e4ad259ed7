"""The suite beyond the paper in the workflow (srmdp.paper.beyond.jobs): the preset's cases, their jobs, and the
committed
table rendered again from the committed summaries (no compute)."""

from pathlib import Path

import pytest

from srmdp.paper.beyond.jobs import BeyondPlan, SuiteCase, published_rows
from srmdp.paper.beyond.table import render_table
from srmdp.paper.plan.preset import Plan, load_configs

ROOT = Path(__file__).resolve().parent.parent


def plan(*files):
    return BeyondPlan(Plan(load_configs([str(ROOT / f) for f in files])))


def test_presets_list_valid_cases():
    default = plan("config/config.yaml")
    assert {c.d for c in default.cases} == {4, 8, 12}
    assert {c.problem for c in default.cases} == {
        "reaction_diffusion",
        "hjb_lq",
        "quadratic_z",
        "bs_barenblatt",
        "bs_diff_rates",
    }
    ci = plan("config/config.yaml", "config/ci.yaml")  # the ci preset replaces the list
    assert len(ci.cases) == 2 and ci.reference_paths == 20000
    assert len(plan("config/config.yaml", "config/paper.yaml").cases) == 30
    # a reference per (problem, d), and at d = 100 where it is exact or a quadrature
    assert ("hjb_lq", 100) in default.references and ("bs_diff_rates", 100) not in default.references


def test_job_arguments():
    c = SuiteCase("hjb_lq", 4, 0.2, "LP1", 3, 125, 16, trunc_z=1.5)
    assert c.key == "hjb_lq_d4_LP1_dt0.2_C3_M125_tz1.5"
    assert c.cli() == "--problem hjb_lq --d 4 --dt 0.2 --basis LP1 --cells 3 --paths 125 --runs 16 --trunc-z 1.5"
    p = plan("config/config.yaml")
    key = next(k for k in p.by_key if k.startswith("hjb_lq_d4_LP1_dt0.2_C3"))
    assert p.run_args(key).endswith("--test-points 1000 --seed 2016")
    assert p.reference_args("bs_diff_rates_d8") == "--problem bs_diff_rates --d 8 --paths 100000"
    assert p.mem_mb(key) > 600 and p.runtime_min(key) >= 5
    assert all(r["value"] > 0 and r["source"] for r in published_rows())


def test_committed_table_renders_again_from_committed_summaries(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # sources are written relative to the repository, as the workflow runs
    p = plan("config/config.yaml")
    missing = [
        f for f in p.summaries() + p.reference_files() + p.solve_files() + p.coverage_files() if not Path(f).is_file()
    ]
    assert not missing, f"committed summaries missing from this checkout: {missing}"
    out = tmp_path / "beyond.tex"
    render_table(
        p,
        p.summaries(),
        p.reference_files(),
        ROOT / "workflow" / "templates",
        out,
        solves=p.solve_files(),
        coverage=p.coverage_files(),
    )
    assert out.read_text() == (ROOT / "tables" / "beyond.tex").read_text()


def test_suite_solves_and_coverage_jobs():
    """The suite beyond the paper, per problem and d = 4, 8: rules, adapted strata, a tol run; the coverage rule."""
    from srmdp.paper.beyond.solve import SuiteSolve

    p = plan("config/config.yaml")
    modes = {(s.problem, s.d): set() for s in p.solves}
    for s in p.solves:
        modes[(s.problem, s.d)].add(s.mode)
    assert {d for _, d in modes} == {4, 8} and all(m == {"rules", "adapted", "tol"} for m in modes.values())
    s = SuiteSolve("hjb_lq", 8, "tol", 0.05, 60)
    assert s.key == "hjb_lq_d8_tol_tol0.05_b60"
    assert s.cli() == "--problem hjb_lq --d 8 --mode tol --runs 4 --tol 0.05 --budget 60"
    assert p.coverage_args() == "--seeds 20 --dims 2 4"
    with pytest.raises(ValueError, match="mode tol needs tol"):
        SuiteSolve("hjb_lq", 8, "tol")


def test_a_solve_to_a_tolerance_runs_alone():
    """A tol solve stops at its wall-clock budget: its job asks for every core Snakemake has (here 3), the other
    solves for one, so Snakemake starts no other job beside it (a dry run of the default preset's solves)."""
    import re
    import subprocess
    import sys

    p = plan("config/config.yaml")
    assert {s.key for s in p.solves if s.alone} == {s.key for s in p.solves if s.mode == "tol"} != set()
    targets = [p.solve_path(s.key, published=False) for s in p.solves]
    cmd = [sys.executable, "-m", "snakemake", "-n", "-F", "--nolock", "--cores", "3", *targets]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    threads = {}
    for block in out.split("\n\n"):
        m = re.search(r"rule beyond_solve:.*?wildcards: skey=(\S+)", block, flags=re.S)
        if m:
            t = re.search(r"threads: (\d+)", block)
            threads[m.group(1)] = int(t.group(1)) if t else 1
    assert threads == {s.key: 3 if s.mode == "tol" else 1 for s in p.solves}, threads
    jobs = [j for j in p.plan.jobs(cores=3) if "/beyond/solve/" in j[1]]
    assert sorted(j[3] for j in jobs) == sorted(3 if s.alone else 1 for s in p.solves)  # srmdp plan's report
