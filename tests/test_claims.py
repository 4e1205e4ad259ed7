"""Tables 1-2 (srmdp.paper.report.claims.scaling) and the text's memory figures (srmdp.paper.report.claims.text)
follow from the same
formulas as the memory model (srmdp.case.memory) and the LSMDP baseline (srmdp.paper.lsmdp); arithmetic checks, no
statistics.  The measured memory table (srmdp.paper.report.claims.measured) and the multi-core claim are rendered from
tiny synthetic result files."""

import json
import math
import re
import subprocess
from pathlib import Path

import pytest

from srmdp.case.cases import Case
from srmdp.case.memory import coefficient_bytes
from srmdp.paper.inputs.rows import paper_case, paper_rows
from srmdp.paper.report.claims import measured as measured_memory
from srmdp.paper.report.claims import memory as memory_claims
from srmdp.paper.report.claims import scaling
from srmdp.paper.report.claims import tables as claims_tables
from srmdp.paper.report.claims import text as claims

ROOT = Path(__file__).resolve().parent.parent


def test_footnote_case_is_the_papers_product():
    # the paper's footnote: N x K x (D+1) x 4 bytes = 50 x 14^6 x 7 x 4 for LP0d6_1 at dt = 0.02
    c = Case(d=6, dt=0.02, basis="LP0", cells=14, paths=2500, precision="float32")
    assert coefficient_bytes(c) == 50 * 14**6 * 7 * 4
    text = next(x for x in memory_claims.text_claims() if "footnote" in x["where"])
    assert f"{coefficient_bytes(c) / 2**30:.3f}" in text["ours"]


def test_lsmdp_slice_at_d19_is_K_M_d_floats():
    c = paper_case("LP1d15_19", row=5, precision="float32")
    assert (c.d, c.strata, c.paths) == (19, 524288, 3200)
    assert scaling.lsmdp_slice_bytes(c) == 524288 * 3200 * 19 * 4


def test_memory_exponents_follow_the_formulas():
    for e in scaling.memory_exponents():
        if e["basis"] == "LP0":
            # ratio LSMDP(one slice)/SRMDP = M d / (N (d+1)) with M = N^2: exactly N^1 up to a constant
            assert math.isclose(e["fit_ratio"], 1.0, abs_tol=1e-9), e
            assert math.isclose(e["fit_coef"], e["fit_srmdp"]), e
    rows = scaling.memory_model()
    assert len(rows) == len(paper_rows())
    for r in rows:
        assert r["lsmdp_full"] == r["lsmdp_slice"] * (r["n"] + 1) + r["coef"]  # paths + its coefficients


def test_cost_exponents_are_slopes_of_the_path_steps():
    for r in scaling.cost_model():
        assert math.isclose(r["fit_m"], 2.0, abs_tol=0.05), r  # M = N^2 or (d+1) N^2
        assert math.isclose(r["fit_cost"], r["fit_lsmdp_sims"] + 2.0, abs_tol=0.2), r  # K M N(N+1)/2
    assert math.isclose(scaling.slope([5, 10, 20], [25, 100, 400]), 2.0)


def test_dimension_gain_is_ln_n_over_ln_cells_at_fixed_n():
    g = scaling.dimension_gain(n_steps=5, cells=2)
    for v in g.values():
        assert v["srmdp"] > v["lsmdp"]
        assert abs(v["gain"] - v["asymptotic"]) <= 1.0


# --- rendered from result files: SRMDP's measured memory (Table 2's companion), the multi-core claim --------
TEMPLATES = Path(__file__).resolve().parent.parent / "workflow" / "templates"


def _timing(path, table, row, *, threads=1, seconds=1.0, model=None, peak=None, before=None, compile_s=0.3):
    """A minimal `srmdp run` result (the fields srmdp.paper.report.claims.text reads) written to ``path``."""
    case = paper_case(table, row=row)
    res = {
        "format_version": 1,
        "case": {**case.as_dict(), "table": table, "row": row},
        "device": "cpu",
        "runs": 2,
        "test_points": 1000,
        "seconds_per_run": seconds,
        "compile_seconds": compile_s,
        "memory_bytes": model,
        "peak_rss_bytes": peak,
        "peak_rss_before_runs_bytes": before,
        "provenance": {"cpus": 2, "hardware": {"device": "cpu", "model": "Test CPU", "threads": threads}},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res))
    return str(path)


def _sources(text):
    return [m.group(1).split() for m in re.finditer(r"%\s*source:\s*(.*)$", text, re.M)]


def test_measured_memory_table_names_its_files_and_says_where_the_model_falls_short(tmp_path):
    mib = 2**20
    covered = _timing(tmp_path / "a" / "cpu.json", "LP0d4", 2, model=9 * mib, peak=168 * mib, before=160 * mib)
    short = _timing(
        tmp_path / "b" / "cpu.json", "LP1d4", 1, model=1 * mib, peak=163 * mib, before=160 * mib, compile_s=12.0
    )
    old = _timing(tmp_path / "c" / "cpu.json", "LP0d4", 1, model=mib)  # written before peak_rss_bytes existed
    masked = _timing(
        tmp_path / "d" / "cpu.json", "LP1d11", 1, model=34 * mib, peak=375 * mib, before=364 * mib, compile_s=20.0
    )
    rows = measured_memory.measured_memory([short, old, covered, masked])
    # paper order; the old file is left out
    assert [(r["table"], r["row"]) for r in rows] == [("LP0d4", 2), ("LP1d4", 1), ("LP1d11", 1)]
    assert rows[2]["verdict"] == "not measurable (compile's peak)"
    rows = rows[:2]
    a, b = rows
    assert a["grown"] == 8 * mib and a["verdict"] == "covers (1 MiB spare)" and a["kernels"] == "cached"
    assert b["grown"] == 3 * mib and b["kernels"] == "compiled"
    assert b["verdict"] == r"under by at least 2 MiB (200\,\%)"  # a lower bound: LLVM's freed memory may hide more
    out = tmp_path / "t12.tex"
    claims_tables.render_paper_tables([covered, short, old], [], TEMPLATES, out)
    text = out.read_text()
    block = text[text.index("table:memory-measured") :]
    lines = [x for x in block.splitlines() if "% source:" in x]
    assert len(lines) == 2
    assert lines[0].endswith(f"% source: {covered}") and "8 MiB" in lines[0] and "168 MiB" in lines[0]
    assert lines[1].endswith(f"% source: {short}") and r"under by at least 2 MiB (200\,\%) & compiled" in lines[1]
    assert all(line.count("%") == line.count(r"\%") + 1 for line in lines)  # no stray comment in a row
    assert all(len(s) >= 1 for s in _sources(text))


def test_measured_memory_table_without_rss_says_so(tmp_path):
    out = tmp_path / "t12.tex"
    claims_tables.render_paper_tables([_timing(tmp_path / "c.json", "LP0d4", 1, model=2**20)], [], TEMPLATES, out)
    assert "No timing result of this preset records its peak RSS" in out.read_text()


def test_multicore_claim_from_one_and_all_thread_timings(tmp_path):
    files = [
        _timing(tmp_path / "x" / "threads-1.json", "LP0d4", 2, threads=1, seconds=8.0),
        _timing(tmp_path / "x" / "threads-all.json", "LP0d4", 2, threads=2, seconds=4.4),
        _timing(tmp_path / "y" / "threads-1.json", "LP1d6_1", 2, threads=1, seconds=6.0),
        _timing(tmp_path / "y" / "threads-all.json", "LP1d6_1", 2, threads=2, seconds=3.0),
    ]
    c = claims.multicore_claim(files)
    assert c["sources"] == files
    assert "2 CPUs Test CPU" in c["ours"] and r"LP1d6\_1" in c["ours"]
    assert "$1.82\\times$ (0.91/thread)" in c["ours"] and "$2.00\\times$ (1.00/thread)" in c["ours"]
    assert "16 CPU cores of our GPU host, were not measured" in c["ours"]
    assert c["verdict"].startswith("not checked at 24 threads; efficiency here 0.91--1.00 per thread")
    none = claims.multicore_claim([files[0]])  # no all-core time: nothing measured
    assert none["verdict"].startswith("not checked; would check it") and "not measured in this preset" in none["ours"]
    out = tmp_path / "claims.tex"
    claims_tables.render_claims([], [], TEMPLATES, out, multicore_files=files)
    line = next(x for x in out.read_text().splitlines() if "16 times faster" in x)
    assert line.endswith("% source: " + " ".join(files))


def test_the_multicore_jobs_of_the_presets():
    from srmdp.paper.plan.preset import Plan, load_configs

    root = Path(__file__).resolve().parent.parent
    plan = Plan(load_configs([root / "config/config.yaml"]))
    mine = [f"data/summaries/default/multicore/{k}/threads-{n}.json" for k in plan.multicore for n in ("1", "all")]
    files = plan.multicore_files()
    assert plan.multicore and files[: len(mine)] == mine
    assert all(p.startswith(plan.multicore_results) for p in files[len(mine) :])  # measured elsewhere
    assert plan.multicore_args("LP0d4_r2").startswith("--table LP0d4 --row 2 --outside zero")
    jobs = [j for j in plan.jobs(cores=2) if j[0] == "multi"]
    assert len(jobs) == 2 * len(plan.multicore) and all(thr == 2 for _, _, _, thr, _ in jobs)  # each alone
    ci = Plan(load_configs([root / "config/config.yaml", root / "config/ci.yaml"]))
    assert all(p.startswith(ci.multicore_results) for p in ci.multicore_files())  # none of its own
    bad = load_configs([root / "config/config.yaml"])
    bad["multicore"] = {"rows": ["LP0d4_r9"]}
    with pytest.raises(ValueError, match="multicore.rows"):
        Plan(bad)


def test_gpu_speedup_like_for_like_pairs_same_precision_and_reading(tmp_path):
    from srmdp.paper.inputs.index import index_results

    def res(path, device, seconds, precision="float32", outside="unbounded"):
        out = json.loads(Path(_timing(path, "LP0d4", 2, threads=2, seconds=seconds)).read_text())
        out["case"]["precision"] = precision
        out["device"] = device
        out["reading"] = {"outside": outside, "trunc_y": None, "trunc_z": None}
        Path(path).write_text(json.dumps(out))
        return str(path)

    gpu = res(tmp_path / "gpu.json", "gpu", 0.05)
    spread = json.loads(Path(gpu).read_text()) | {"seconds_per_run_min": 0.04}  # 2 runs: 0.04 and 0.06 s
    Path(gpu).write_text(json.dumps(spread))
    cpu_1 = _timing(tmp_path / "t" / "cpu.json", "LP0d4", 2, seconds=4.0)  # the not-like-for-like timing job
    like = res(tmp_path / "like" / "LP0d4_r2.json", "cpu", 2.0)
    three = json.loads(Path(like).read_text()) | {"runs": 3, "seconds_per_run_min": 1.8, "seconds_per_run_max": 2.3}
    Path(like).write_text(json.dumps(three))
    times, camp = index_results([cpu_1]), index_results([gpu])  # the GPU side: the campaign summaries only
    line = next(c for c in claims.speedup_claims(times, index_results([like]), camp) if "LP0d4" in c["claim"])
    # the ratio of the means, and from the fastest CPU run over the slowest GPU run (1.8 / 0.06) to the slowest over
    # the fastest (2.3 / 0.04), each side's runs named
    assert "like for like 40.0 (run to run 30.0--57.5) at $\\Delta t=0.1$" in line["ours"]
    assert "2 s/run (1.8--2.3, 3 runs)" in line["ours"] and "0.05 s/run (0.04--0.06, 2 runs)" in line["ours"]
    assert "both float32 storage, float64 arithmetic; what differs: 2 CPU cores" in line["ours"]
    assert line["sources"][-2:] == [like, gpu]
    other = res(tmp_path / "like2" / "LP0d4_r2.json", "cpu", 2.0, precision="float64")  # not the GPU's precision
    line = next(c for c in claims.speedup_claims(times, index_results([other]), camp) if "LP0d4" in c["claim"])
    assert "like for like" not in line["ours"]
    f32 = json.loads(Path(gpu).read_text())  # a GPU result computing in float32 is not like a float64-arithmetic CPU
    f32["reading"]["arithmetic"] = "float32"
    Path(gpu).write_text(json.dumps(f32))
    line = next(
        c for c in claims.speedup_claims(times, index_results([like]), index_results([gpu])) if "LP0d4" in c["claim"]
    )
    assert "like for like" not in line["ours"]


def test_the_likeforlike_jobs_of_the_default_preset():
    from srmdp.paper.plan.preset import Plan, load_configs

    root = Path(__file__).resolve().parent.parent
    plan = Plan(load_configs([root / "config/config.yaml"]))
    assert plan.likeforlike_files() == [f"data/summaries/default/likeforlike/{k}.json" for k in plan.likeforlike]
    args = plan.multicore_args("LP0d4_r2", like=True)
    assert "--outside unbounded" in args and "--trunc" not in args and args.endswith("--precision float32")
    jobs = [j for j in plan.jobs(cores=2) if j[0] == "like"]
    assert len(jobs) == len(plan.likeforlike) and all(thr == 2 for _, _, _, thr, _ in jobs)  # each alone
    bad = load_configs([root / "config/config.yaml"])
    bad["likeforlike"] = {"reading": "nope", "rows": ["LP0d4_r2"]}
    with pytest.raises(ValueError, match="likeforlike.reading: unknown reading 'nope'"):
        Plan(bad)
    bad["likeforlike"]["rows"] = []  # an overlay that drops the reading and the rows is fine
    assert Plan(bad).likeforlike_files() == []


def test_gpu_memory_lines_come_from_results_that_measured_it(tmp_path):
    import subprocess

    mib = 2**20
    root = Path(__file__).resolve().parent.parent
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=root).stdout.strip()
    if not head:
        pytest.skip("not a git checkout: the commit of a reading cannot be placed")
    measured = json.loads(Path(_timing(tmp_path / "g.json", "LP0d4", 2)).read_text())
    measured.update(
        device="gpu",
        gpu_model_bytes=40 * mib,
        gpu_used_bytes=42 * mib,
        provenance={"hardware": {"device": "gpu", "model": "Test GPU"}, "git_commit": head},
    )
    (tmp_path / "g.json").write_text(json.dumps(measured))
    old = _timing(tmp_path / "old.json", "LP1d4", 1)  # a GPU result written before gpu_used_bytes existed
    rows = measured_memory.measured_gpu_memory([str(tmp_path / "g.json"), old])
    assert [(r["table"], r["row"], r["gpu"]) for r in rows] == [("LP0d4", 2, "Test GPU")]
    assert rows[0]["verdict"] == "under by 2 MiB (5\\,\\%)"
    out = tmp_path / "t12.tex"
    claims_tables.render_paper_tables([], [str(tmp_path / "g.json")], TEMPLATES, out)
    line = next(x for x in out.read_text().splitlines() if "Test GPU" in x)
    assert line.endswith(f"% source: {tmp_path / 'g.json'}")
    claims_tables.render_paper_tables([], [old], TEMPLATES, out)
    assert "no GPU result under" in out.read_text()


def test_gpu_memory_readings_known_invalid_are_never_printed_as_memory(tmp_path):
    """A negative or zero reading, one below the case's own coefficients, and one written before the
    gpu_used_bytes fix (commit 15455c8, the campaign's) are counted with their reason, never printed as bytes."""
    mib = 2**20
    paths = []
    for name, used, commit in (
        ("neg", -220 * mib, "15455c8"),
        ("zero", 0, "15455c8"),
        ("low", 1024, "15455c8"),
        ("old", 42 * mib, "15455c8a4da0ee0b1927da176cfacaba43ee24c7"),
    ):
        res = json.loads(Path(_timing(tmp_path / f"{name}.json", "LP0d4", 2)).read_text())
        res.update(
            device="gpu",
            gpu_model_bytes=40 * mib,
            gpu_used_bytes=used,
            provenance={"hardware": {"device": "gpu", "model": "Test GPU"}, "git_commit": commit},
        )
        (tmp_path / f"{name}.json").write_text(json.dumps(res))
        paths.append(str(tmp_path / f"{name}.json"))
    reasons = [measured_memory.gpu_reading_invalid(json.loads(Path(p).read_text())) for p in paths]
    assert reasons[:3] == ["impossible (zero or negative)"] * 2 + ["impossible (below the case's coefficients)"]
    assert reasons[3] is not None  # before the fix (or, in a checkout without that history, not verifiable)
    rows = measured_memory.measured_gpu_memory(paths)
    assert len(rows) == 1 and rows[0]["used"] is None and rows[0]["readings"] == 4  # one line per (row, GPU)
    out = tmp_path / "t12.tex"
    claims_tables.render_paper_tables([], paths, TEMPLATES, out)
    text = out.read_text()
    assert "Not memory figures (counted, not printed): 4 readings of 1 rows" in text
    assert "-220" not in text and "covers" not in text.split("GPU:")[1]
    # a valid reading (written at this checkout's HEAD, after the fix) is a table line; the others stay counted
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    res = json.loads(Path(paths[0]).read_text())
    res.update(gpu_used_bytes=30 * mib, provenance=dict(res["provenance"], git_commit=head))
    (tmp_path / "ok.json").write_text(json.dumps(res))
    claims_tables.render_paper_tables([], paths + [str(tmp_path / "ok.json")], TEMPLATES, out)
    gpu_part = out.read_text().split("GPU:", 1)[1]
    assert "& 5 & 40 MiB & 30 MiB & covers (10 MiB spare)" in gpu_part
    assert "the other readings; counted, not printed): 4 readings of 1 rows" in gpu_part


def test_multicore_timings_of_another_machine_pair_within_that_machine(tmp_path):
    def timing(name, host, threads, seconds):
        path = Path(_timing(tmp_path / name, "LP0d4", 2, threads=threads, seconds=seconds))
        res = json.loads(path.read_text())
        res["provenance"]["host"], res["provenance"]["cpus"] = host, 2 if host == "here" else 16
        path.write_text(json.dumps(res))
        return str(path)

    files = [
        timing("a1.json", "here", 1, 8.0),
        timing("a2.json", "here", 2, 4.0),
        timing("b1.json", "gpuhost", 1, 6.0),
        timing("b16.json", "gpuhost", 16, 0.5),
    ]
    c = claims.multicore_claim(files)
    assert "$2.00\\times$ (1.00/thread)" in c["ours"] and "$12.00\\times$ (0.75/thread)" in c["ours"]
    assert "2 CPUs" in c["ours"] and "16 CPUs" in c["ours"]
    assert "the paper's 24 threads were not measured" in c["ours"] and "GPU host" not in c["ours"]


def test_multicore_timings_of_two_machines_named_vm_stay_apart():
    """The 16-core GPU host and the 2-core machine both say host ``vm``: keyed by machine, each row gets one
    speed-up per machine (8.8 on 16 threads, about 1.9 on 2), never a 1-thread time of one over the other."""
    import glob

    from srmdp.paper.report.claims.text import multicore_claim

    root = Path(__file__).resolve().parent.parent
    files = sorted(glob.glob(str(root / "data/summaries/default/multicore/*/*.json")))
    files += sorted(glob.glob(str(root / "data/multicore/h100-host/*.json")))
    assert len(files) >= 8, "the committed multicore timings are missing from this checkout"
    c = multicore_claim(files)
    assert c["ours"].count("on 16,") == 2 and c["ours"].count("on 2,") == 2
    assert "$8.84\\times$" in c["ours"]


def test_profiler_claims_are_not_measured_but_the_layout_ratio_is_checked():
    """The paper's GB/s and GFlop/s readings need a profiler on a GPU: they say "not checked", never a number of
    ours; its explanation (LP1 reads d+1 times more per stratum) is the ratio of nb (d+1) between the bases."""
    bw_lp0, bw_lp1, layout = memory_claims.profiler_claims()
    assert bw_lp0["verdict"] == bw_lp1["verdict"] == f"not checked; {memory_claims.PROFILER_CHECK}"
    # the layout's arithmetic agrees, but the claim is about bandwidth, which nothing of ours measures
    assert claims.claim_outcome(layout) == "not checked" and "would check it" in layout["verdict"]
    assert "GB/s" in bw_lp0["claim"] and "not measured" in bw_lp0["ours"]
    d = 13
    assert f"LP1 $d=13$ {(d + 1) ** 2}" in layout["ours"] and f"({d + 1} $= d+1$" in layout["ours"]
