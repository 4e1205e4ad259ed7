"""The resumable GPU campaign (srmdp.paper.campaign, bench/gpu/gpu_campaign.sh) and the data/gpu/ chunk lines.

Without a GPU: the planner's priority order and never-repeat rule on fixture chunk files, the chunk
sizing against the budget, the cut-off (the chunk in flight is lost, the finished ones are sealed),
the one-line refusals, the import into the repository, the grouping of data/gpu/ chunks for
`srmdp aggregate` and the rendered table/agreement/figure lines.  Slow: the campaign end to end under
numba-cuda's simulator on a tiny case list (through the shell script), a SIGKILL in the middle of a
CPU campaign, and the workflow's aggregate_gpu rule feeding the tables.
"""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from srmdp.case.results import identity_hash, write_json_atomic
from srmdp.exceptions import ConfigError
from srmdp.numerics.indicators import indicators
from srmdp.paper import campaign as cp
from srmdp.paper.inputs import chunks
from srmdp.paper.inputs.preset_reading import PresetReading
from srmdp.paper.inputs.rows import PaperCase, paper_case, paper_rows
from srmdp.paper.models.cost import CostModel, load_throughput
from srmdp.runs.aggregate import ChunkError, aggregate, load_chunk
from srmdp.runs.result import RunResult

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "data" / "campaign_tiny.csv"
PAPER_FIT = PresetReading("paper-fit", "zero", 1.0, 1.0)
THEORY = PresetReading("theory", "unbounded", None, None)
H100 = "NVIDIA H100 80GB HBM3"


# --- fixture chunk files (no compute) ------------------------------------------------------------------
def fake_result(
    case,
    run_start,
    runs,
    *,
    seed=0,
    test_points=1000,
    device="gpu",
    model=H100,
    spread=0.1,
    seconds=None,
    rng=None,
    streams=None,
):
    """A result dict as run_case returns it, with random per-run errors (spread: their relative noise)."""
    rng = rng or np.random.default_rng(run_start + 1000 * runs)
    n = case.steps
    ey = 0.01 * np.exp(spread * rng.standard_normal((runs, n)))
    ez = 0.2 * np.exp(spread * rng.standard_normal((runs, n)))
    secs = seconds if seconds is not None else 1e-3
    d = case.as_dict()
    res = {
        "format_version": 1,
        "case_hash": identity_hash(d, seed, test_points),
        "case": d,
        "label": case.label,
        "reading": {"outside": case.outside, "trunc_y": d["trunc_y"], "trunc_z": d["trunc_z"]},
        "device": device,
        "seed": seed,
        "run_start": run_start,
        "runs": runs,
        "test_points": test_points,
        "path_steps_per_run": case.path_steps,
        "seconds_per_run": secs,
        "seconds_per_run_min": secs,
        "path_steps_per_second": case.path_steps / secs,
        "error_seconds_per_run": 0.0,
        "compile_seconds": 0.0,
        "diagnostics": {"dropped_directions": 0},
        "per_run": {"ey": ey.tolist(), "ez": ez.tolist()},
        "provenance": {
            "seed": seed,
            "versions": {},
            "git_commit": None,
            "hardware": {"device": device, "model": model},
        },
    }
    if streams:
        res["streams"] = streams
    res.update(indicators(ey, ez))
    return res


def write_chunk(folder, case, run_start, runs, reading="r", **kw):
    res = fake_result(case, run_start, runs, **kw)
    name = cp.chunk_name(case, reading, res["device"], res["seed"], run_start, runs, res["test_points"])
    path = Path(folder) / name
    write_json_atomic(path, res)
    return path


def pcase(table, row, reading=PAPER_FIT, precision="float32"):
    return paper_case(table, row=row, precision=precision, **reading.options())


def planner_for(rows, data_dirs, cost=None, **kw):
    groups = chunks.index(chunks.result_paths(*data_dirs), verify=True)
    cost = cost or CostModel(load_throughput(), "gpu", H100)
    return cp.Planner(rows, [PAPER_FIT, THEORY], groups, cost, **kw), groups


def apply(planner, plan, folder, spread=0.1):
    """Write the planned chunk as a fixture file and add it to the planner's groups (as the campaign does)."""
    s = plan.slot
    path = write_chunk(folder, s.case, plan.run_start, plan.runs, reading=s.reading.name, spread=spread)
    for key, g in chunks.index([path], verify=True).items():
        if key in planner.groups:
            planner.groups[key].chunks.extend(g.chunks)
        else:
            planner.groups[key] = g
    planner.cost.compiled.add((s.case.d, s.case.n_basis, s.case.precision))
    planner.refresh(s)
    return path


# --- the planner ------------------------------------------------------------------------------------------
def test_priority_order_first_runs_paper_fit_then_theory_then_largest_se(tmp_path):
    rows = cp.paper_selection("LP0d4:2,LP1d4:1,LP0d6_0:1")
    planner, _ = planner_for(rows, [tmp_path])
    seen = []
    for _ in range(6):
        plan = planner.next(600.0)
        seen.append((plan.slot.reading.name, plan.slot.row.label, plan.run_start, plan.runs, plan.stage))
        apply(planner, plan, tmp_path)
    # two runs of every row under paper-fit (cheapest first), then the same under theory
    assert [s[0] for s in seen] == ["paper-fit"] * 3 + ["theory"] * 3
    assert all(s[2:4] == (0, 2) for s in seen)
    assert {s[1] for s in seen[:3]} == {s[1] for s in seen[3:]} == {"LP0d4_r2", "LP1d4_r1", "LP0d6_0_r1"}
    assert seen[2][1] == seen[5][1] == "LP0d4_r2"  # the dearest row (1e8 path-steps) last: cheapest first
    # then more runs where the s.e. is largest: make LP1d4_r1 theory the noisiest
    slot = next(s for s in planner.slots if s.row.label == "LP1d4_r1" and s.reading is THEORY)
    key = slot.key
    planner.groups.pop(key)
    write = write_chunk(tmp_path / "noisy", slot.case, 0, 2, reading="theory", spread=1.5)
    planner.groups.update(chunks.index([write], verify=True))
    planner.refresh(slot)
    plan = planner.next(600.0)
    assert plan.stage == "largest s.e." and plan.slot is slot and plan.run_start == 2
    assert plan.runs >= 2  # at least doubles the runs
    others = [s for s in planner.slots if s is not slot]
    assert all(s.se is not None and s.se < slot.se for s in others)


def test_heavy_rows_get_their_first_run_each_then_their_second_one_run_per_chunk(tmp_path):
    rows = cp.paper_selection("LP0d4:4,LP1d6_1:4,LP0d6_0:4")  # minutes per run on an H100
    planner, _ = planner_for(rows, [tmp_path], max_chunk_seconds=10_000.0)
    cost = planner.cost
    seen = []
    for _ in range(6):
        plan = planner.next(1e6)
        seen.append((plan.slot.reading.name, plan.slot.row.label, plan.run_start, plan.runs))
        apply(planner, plan, tmp_path)
    assert all(s[0] == "paper-fit" and s[3] == 1 for s in seen)  # one run per chunk
    assert [s[2] for s in seen] == [0, 0, 0, 1, 1, 1]  # every row's first run, then its second
    order = sorted(
        ("LP0d4_r4", "LP1d6_1_r4", "LP0d6_0_r4"),
        key=lambda r: cost.run_seconds(next(s.case for s in planner.slots if s.row.label == r)),
    )
    assert [s[1] for s in seen[:3]] == order  # cheapest first
    # a chunk that cannot end in the time left is not started, and is named with the reason
    rest = cp.Planner(cp.paper_selection("LP0d4:4"), [PAPER_FIT], {}, cost)
    assert rest.next(60.0) is None and list(rest.skipped) == [rest.slots[0].name]
    need, left = rest.skipped[rest.slots[0].name]
    assert left == 60.0 and need > left


class _Seconds:
    """A cost model stub: seconds per run of each row, no compilation or chunk overhead."""

    chunk_overhead = 0.0

    def __init__(self, per_row):
        self.per_row = per_row

    def run_seconds(self, case):
        return self.per_row[case.label]

    def compile_seconds(self, case):
        return 0.0

    def chunk_seconds(self, case, runs):
        return runs * self.run_seconds(case)


def test_a_window_holds_the_dearest_heavy_row_that_fits_rather_than_a_cheaper_one_alone():
    # H200-like seconds per run; LP0d6_0 r4 already run. A window of 515 s: LP0d11 r3 (164 s) first would leave
    # 351 s, too few for either dear row; one row fits in any case, so it takes the dearest that fits (LP0d4 r4,
    # 442 s x 1.05 = 464 s)
    per_row = {"LP0d4_r4": 442.0, "LP1d6_1_r4": 400.0, "LP0d11_r3": 164.0}
    rows = cp.paper_selection("LP0d4:4,LP1d6_1:4,LP0d11:3")

    def planner():
        return cp.Planner(rows, [PAPER_FIT], {}, _Seconds(per_row), first_runs=1, max_runs=1, safety=1.05)

    plan = planner().next(515.0)
    assert plan.slot.row.label == "LP0d4_r4" and plan.runs == 1
    # room for two rows: the pair of the most seconds that fits (164 + 400 s x 1.05 = 592 s), cheapest first
    p = planner()
    assert [c[0].row.label for c in p.packed(p.candidates(PAPER_FIT, 1), 600.0)] == [
        "LP0d11_r3",
        "LP1d6_1_r4",
        "LP0d4_r4",
    ]
    assert p.next(600.0).slot.row.label == "LP0d11_r3"


def test_never_repeats_a_run_index_present_in_the_repository_or_the_outdir(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    case = pcase("LP0d4", 1)
    write_chunk(data, case, 0, 2, reading="paper-fit")
    write_chunk(data, case, 3, 1, reading="paper-fit")  # a gap at run 2
    write_chunk(out, case, 4, 2, reading="paper-fit")
    # chunks that do not pool with these: another seed, another precision, another reading
    write_chunk(data, case, 2, 1, reading="paper-fit", seed=7)
    write_chunk(data, pcase("LP0d4", 1, precision="float64"), 2, 1, reading="paper-fit")
    rows = cp.paper_selection("LP0d4:1")
    planner, _ = planner_for(rows, [data, out], max_runs=1000, min_chunk_seconds=0)
    slot = next(s for s in planner.slots if s.reading is PAPER_FIT)
    assert planner.used(slot) == {0, 1, 3, 4, 5}
    theory = next(s for s in planner.slots if s.reading is THEORY)
    plan = planner.next(600.0)
    assert plan.slot is theory and (plan.run_start, plan.runs) == (0, 2)  # paper-fit has its 2 runs
    apply(planner, plan, out)
    for _ in range(6):
        plan = planner.next(600.0)
        new = set(range(plan.run_start, plan.run_start + plan.runs))
        assert not new & planner.used(plan.slot), (new, planner.used(plan.slot))
        assert plan.stage == "largest s.e."
        if plan.slot is slot and 2 not in planner.used(slot):
            assert (plan.run_start, plan.runs) == (2, 1)  # the gap first, and only the gap
        apply(planner, plan, out)
    assert 2 in planner.used(slot) and 6 in planner.used(slot)


def test_the_single_run_files_of_data_gpu_count_as_chunks():
    """data/gpu/<table>_r<row>_float32.json: theory reading, seed 0, 1000 points, run 0 -> the next run is 1."""
    legacy = ROOT / "data" / "gpu" / "LP0d4_r1_float32.json"
    data = load_chunk(legacy)  # checksum verified
    assert data["reading"]["outside"] == "unbounded" and data["run_start"] == 0 and data["runs"] == 1
    planner, _ = planner_for(cp.paper_selection("LP0d4:1"), [ROOT / "data" / "gpu"])
    theory = next(s for s in planner.slots if s.reading is THEORY)
    assert planner.used(theory) >= {0}
    start, count = planner.free_range(theory, 2 - planner.have(theory))
    assert start >= 1 and start not in planner.used(theory)
    # the workflow groups them too: one group per row, theory reading, float32
    from srmdp.paper.plan.preset import Plan, load_configs

    groups = Plan(load_configs([ROOT / "config/config.yaml"])).gpu_groups()
    assert any(g.key == "LP0d4_r1" and g.reading == "theory" and g.group.startswith("float32-s0-") for g in groups)


def test_the_same_chunk_in_the_repository_and_the_outdir_counts_once(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    p = write_chunk(data, pcase("LP0d4", 1), 0, 2, reading="paper-fit")
    out.mkdir()
    shutil.copy(p, out / p.name)
    groups = chunks.index(chunks.result_paths(data, out), verify=True)
    (g,) = groups.values()
    assert g.runs == 2 and len(g.chunks) == 1 and not g.overlaps()


def test_a_corrupt_chunk_is_refused_before_any_compute(tmp_path):
    p = write_chunk(tmp_path, pcase("LP0d4", 1), 0, 2, reading="paper-fit")
    data = json.loads(p.read_text())
    data["per_run"]["ey"][0][0] *= 2
    p.write_text(json.dumps(data))
    with pytest.raises(ChunkError, match="checksum"):
        chunks.index(chunks.result_paths(tmp_path), verify=True)


# --- sizing and the cost model -------------------------------------------------------------------------------
def test_chunks_are_sized_to_fit_the_time_left_and_the_cap():
    rows = cp.paper_selection("LP0d4:3")  # 7e9 path-steps: ~1.5 s per run on the H100
    cost = CostModel(load_throughput(), "gpu", H100)
    planner = cp.Planner(rows, [PAPER_FIT], {}, cost, first_runs=2, max_chunk_seconds=4.0)
    slot = planner.slots[0]
    per_run, comp = cost.run_seconds(slot.case), cost.compile_seconds(slot.case) + cost.chunk_overhead
    assert 1.0 < per_run < 3.0 and comp > 0
    n, secs = planner.fit(slot, 50, 1000.0)
    assert n == max(1, math.floor((4.0 - comp) / per_run)) and secs == pytest.approx(comp + n * per_run)
    n, _ = planner.fit(slot, 50, cp.SAFETY * (comp + per_run) + 1e-6)
    assert n == 1
    n, _ = planner.fit(slot, 50, cp.SAFETY * (comp + per_run) - 1e-3)
    assert n == 0
    assert planner.next(cp.SAFETY * (comp + per_run) - 1e-3) is None  # nothing fits: nothing is started
    # one run is always allowed if it fits the budget, even above the cap
    big = cp.Planner(cp.paper_selection("LP0d4:4"), [PAPER_FIT], {}, cost, max_chunk_seconds=4.0)
    n, secs = big.fit(big.slots[0], 2, 10_000.0)
    assert n == 1 and secs > 100


def test_cost_model_table_measurements_and_session():
    table = load_throughput()
    cost = CostModel(table, "gpu", H100)
    case = pcase("LP1d15_19", 5)  # d = 19
    assert cost.rate("LP1", 19).path_steps_per_s == pytest.approx(3.18e8)
    # an unknown d is never faster than the nearest smaller d of the table
    assert cost.rate("LP1", 20).path_steps_per_s < cost.rate("LP1", 19).path_steps_per_s
    assert cost.rate("LP0", 7).path_steps_per_s <= cost.rate("LP0", 6).path_steps_per_s
    before = cost.run_seconds(case)
    res = fake_result(case, 0, 1, seconds=2 * before)
    cost.learn(res)  # from the repository: same model, exact case
    assert cost.run_seconds(case) == pytest.approx(2 * before)
    other = fake_result(pcase("LP0d4", 3), 0, 1, seconds=100.0, model="Other GPU")
    cost.learn(other)  # another device model: ignored
    assert cost.run_seconds(pcase("LP0d4", 3)) < 10
    # a measured rate replaces the table's for that (basis, d) (big enough runs only)
    slow = fake_result(pcase("LP0d4", 2), 0, 1, seconds=1.0)  # an old, slow measurement of another row
    cost.learn(slow)
    assert cost.run_seconds(pcase("LP0d4", 2)) == pytest.approx(1.0)
    fast = fake_result(pcase("LP0d4", 3), 0, 1, seconds=7.0e9 / 2.0e10)
    cost.learn(fast, session=True)
    assert cost.rate("LP0", 4).path_steps_per_s > 1.5e10
    # this campaign's rate for (LP0, 4) now beats the repository's old time of LP0d4 row 2
    assert cost.run_seconds(pcase("LP0d4", 2)) < 0.1
    assert (4, 1, "float32", "float64") in cost.compiled and cost.compile_seconds(pcase("LP0d4", 2)) == 0.0
    # float32 arithmetic is another compilation
    f32a = paper_case("LP0d4", row=2, precision="float32", **(PAPER_FIT.options() | {"arithmetic": "float32"}))
    assert cost.compile_seconds(f32a) > 0
    # another GPU model: the table's H100 rows; the CPU rows for the CPU
    assert CostModel(table, "gpu", "NVIDIA H200").rate("LP0", 4).path_steps_per_s == pytest.approx(4.66e9)
    assert CostModel(table, "cpu", "AMD EPYC", threads=2).scale == 2


def test_dry_run_plans_every_row_in_priority_order(tmp_path, capsys):
    args = cp.build_parser().parse_args(
        ["run", "--budget", "900", "--out", str(tmp_path / "o"), "--dry-run", "--data", str(tmp_path), "--model", H100]
    )
    assert cp.run_campaign(args) == 0
    lines = capsys.readouterr().out.splitlines()
    chunk_lines = [x for x in lines if x.startswith("chunk ")]
    stages = [x.split("(")[1].split(")")[0].split(":")[0] for x in chunk_lines]  # "first runs, R: 1 each"
    first_theory = stages.index("first runs, theory")
    assert all(s == "first runs, paper-fit" for s in stages[:first_theory])
    assert first_theory >= 25  # most of the 35 rows fit 900 s of H100 at the table's rates
    assert not (tmp_path / "o").exists()  # a dry run writes nothing
    assert "still below 2 runs" in lines[-1] and "LP0d4_r4 paper-fit" in lines[-1]


def test_a_float32_arithmetic_campaign_runs_its_own_cases_and_names_them(tmp_path, capsys):
    """The paper's precision (float32 storage and arithmetic) is its own case: a float64-arithmetic chunk of the
    same row does not count towards it, and its chunk names say f32a (no name shared with float64 arithmetic)."""
    case64 = pcase("LP0d4", 1, reading=THEORY)
    write_chunk(tmp_path / "data", case64, 0, 2, reading="theory")
    argv = [
        "run",
        "--budget",
        "60",
        "--out",
        str(tmp_path / "o"),
        "--dry-run",
        "--data",
        str(tmp_path / "data"),
        "--model",
        H100,
        "--cases",
        "LP0d4:1",
        "--readings",
        "theory",
    ]
    assert cp.run_campaign(cp.build_parser().parse_args(argv)) == 0
    plan64 = [x for x in capsys.readouterr().out.splitlines() if x.startswith("chunk ")]
    assert all("(first runs" not in x for x in plan64)  # its 2 first runs are there
    assert cp.run_campaign(cp.build_parser().parse_args([*argv, "--arithmetic", "float32"])) == 0
    out = capsys.readouterr().out
    plan32 = [x for x in out.splitlines() if x.startswith("chunk ")]
    assert "float32 storage, float32 arithmetic" in out
    assert plan32[0].split("(")[1].startswith("first runs, theory") and " runs 0-" in plan32[0]
    assert all(".float32.f32a.gpu.seed0." in x for x in plan32)
    case32 = paper_case("LP0d4", row=1, precision="float32", **(THEORY.options() | {"arithmetic": "float32"}))
    assert cp.chunk_name(case32, "theory", "gpu", 0, 0, 2) != cp.chunk_name(case64, "theory", "gpu", 0, 0, 2)


# --- the cut-off ----------------------------------------------------------------------------------------------
def _fake_runner(slow_call):
    calls, slept = [], []

    def run(case, runs, run_start, test_points, seed, device, threads):
        calls.append((case.label, run_start, runs))
        if len(calls) == slow_call and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            signal.pause()  # a chunk that lasts until the budget's alarm interrupts it
        if len(calls) == slow_call:
            slept.append(len(calls))  # reached only when no alarm was armed or it did not interrupt
        res = fake_result(case, run_start, runs, seed=seed, test_points=test_points, device="cpu", model="fake")
        return RunResult.from_dict(res)  # what run_case returns

    run.slept = slept
    return run, calls


def _throughput(tmp_path):
    p = tmp_path / "throughput.csv"
    p.write_text(
        "model,basis,d,path_steps_per_s,step_overhead_s,compile_s,source\n"
        "cpu,LP0,2,1e6,1e-3,0,test\ncpu,LP1,2,1e6,1e-3,0,test\n"
    )
    return p


def test_cut_off_loses_only_the_chunk_in_flight(tmp_path):
    out = tmp_path / "out"
    (tmp_path / "data").mkdir()
    args = cp.build_parser().parse_args(
        [
            "run",
            "--budget",
            "4",
            "--reserve",
            "0.5",
            "--out",
            str(out),
            "--device",
            "cpu",
            "--model",
            "fake",
            "--case-list",
            str(TINY),
            "--data",
            str(tmp_path / "data"),
            "--throughput",
            str(_throughput(tmp_path)),
            "--test-points",
            "20",
            "--pack",
            str(tmp_path / "c.tgz"),
        ]
    )
    cp.validate_run_args(args)
    run, calls = _fake_runner(slow_call=3)
    lines = []
    assert cp.run_campaign(args, out=lines.append, runner=run) == 0
    assert not run.slept  # the budget (4 s) cut the 30 s chunk short (no wall-clock bound: the machine may be busy)
    assert len(calls) == 3
    files = sorted(out.glob("*.json"))
    assert len(files) == 2, files  # the two finished chunks, sealed; nothing of the third
    for f in files:
        assert load_chunk(f)["checksum"]
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "no temp file left"
    assert any("cut off" in x and calls[2][0] in x for x in lines), lines
    with tarfile.open(tmp_path / "c.tgz") as tar:
        assert sorted(Path(n).name for n in tar.getnames()) == [f.name for f in files]
        assert all(n.startswith("data/gpu/campaign/") for n in tar.getnames())
    # the next session continues: the lost chunk's runs are planned again, the written ones never
    run2, calls2 = _fake_runner(slow_call=0)
    args.budget = 60.0  # ample on a loaded machine: the fake chunks return at once, max-runs ends the session
    assert cp.run_campaign(args, out=lines.append, runner=run2) == 0
    assert calls2[0] == calls[2]
    assert len({p.name for p in out.glob("*.json")}) == len(list(out.glob("*.json")))
    for g in chunks.index(chunks.result_paths(out), verify=True).values():
        assert not g.overlaps()


def test_a_failing_chunk_is_reported_and_the_campaign_goes_on(tmp_path):
    out = tmp_path / "out"
    (tmp_path / "data").mkdir()
    args = cp.build_parser().parse_args(
        [
            "run",
            "--budget",
            "3",
            "--reserve",
            "0.5",
            "--out",
            str(out),
            "--device",
            "cpu",
            "--model",
            "fake",
            "--case-list",
            str(TINY),
            "--data",
            str(tmp_path / "data"),
            "--throughput",
            str(_throughput(tmp_path)),
            "--max-runs",
            "2",
        ]
    )

    def run(case, runs, run_start, test_points, seed, device, threads):
        if case.basis == "LP1":
            raise FloatingPointError("non-finite coefficient")
        return RunResult.from_dict(
            fake_result(case, run_start, runs, seed=seed, test_points=test_points, device="cpu", model="fake")
        )

    lines = []
    assert cp.run_campaign(args, out=lines.append, runner=run) == 3
    assert len(list(out.glob("*.json"))) == 2  # LP0 under both readings
    assert any("FAILED" in x for x in lines) and "left out: tinyLP1_r1" in lines[-1]


# --- refusals ----------------------------------------------------------------------------------------------------
def _campaign(*args, env=None, cwd=ROOT):
    e = dict(os.environ, PYTHONPATH=str(ROOT))
    e.pop("NUMBA_ENABLE_CUDASIM", None)
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "srmdp", "campaign", *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (["--budget", "-5"], "budget"),
        (["--budget", "nan"], "budget"),
        (["--budget", "x"], "budget"),
        (["--precision", "float16"], "precision"),
        (["--arithmetic", "float16"], "arithmetic"),
        (["--cases", "LP9d9"], "table"),
        (["--cases", "LP0d4:7"], "row"),
        (["--case-list", "/nonexistent.csv"], "case-list"),
        (["--data", "/nonexistent"], "data"),
        (["--first-runs", "0"], "first_runs"),
        (["--max-runs", "1"], "max_runs"),
        (["--seed", "-1"], "seed"),
        (["--test-points", "0"], "test_points"),
        (["--threads", "2", "--device", "gpu"], "threads"),
        (["--device", "tpu"], "device"),
        (["--readings", "paper-fit,nope"], "readings"),
        (["--pack", "/tmp"], "pack"),
        (["--max-chunk-seconds", "0"], "max_chunk_seconds"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_before_any_compute(tmp_path, args, words):
    base = {"--budget": "60", "--out": str(tmp_path / "out"), "--device": "cpu"}
    argv = ["run"]
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    proc = _campaign(*argv, *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("srmdp: error:"), proc.stderr
    assert not (tmp_path / "out").exists()


def test_out_that_is_a_file_and_no_gpu_are_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    proc = _campaign("run", "--budget", "60", "--out", str(f), "--device", "cpu")
    assert proc.returncode == 2 and "out" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = _campaign("run", "--budget", "60", "--out", str(tmp_path / "o"), "--data", str(tmp_path))
    assert proc.returncode == 2 and "invalid device='gpu'" in proc.stderr  # no GPU here (nor the simulator)


@pytest.mark.parametrize(
    "args, words",
    [
        ([], "SECONDS and OUTDIR are required"),
        (["60"], "SECONDS and OUTDIR are required"),
        (["1.5", "/tmp/x"], "invalid SECONDS"),
        (["0", "/tmp/x"], "invalid SECONDS"),
        (["60", "/nonexistent/x"], "parent folder"),
        (["60", "/tmp/x", "--precision", "float16"], "invalid precision"),
        (["60", "/tmp/x", "--cases", "LP0d4:9"], "invalid row"),
    ],
)
def test_the_script_refuses_bad_arguments_in_one_line(args, words):
    env = dict(os.environ, PY=sys.executable)
    env.pop("OUT", None)
    proc = subprocess.run(
        ["bash", str(ROOT / "bench/gpu/gpu_campaign.sh"), *args], capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


# --- import into the repository -------------------------------------------------------------------------------
def test_import_verifies_and_never_adds_overlapping_runs(tmp_path):
    camp, into = tmp_path / "camp", tmp_path / "repo" / "data" / "gpu" / "campaign"
    case = pcase("LP0d4", 1)
    a = write_chunk(camp, case, 0, 2, reading="paper-fit")
    b = write_chunk(camp, case, 2, 2, reading="paper-fit")
    tgz = tmp_path / "campaign.tgz"
    cp.pack(camp, tgz)
    lines = []
    assert cp.import_chunks([tgz], into, [], out=lines.append) == 0
    assert sorted(p.name for p in into.glob("*.json")) == sorted([a.name, b.name])
    lines.clear()
    cp.import_chunks([camp], into, [], out=lines.append)  # the same files again: already there
    assert sum("already there" in x for x in lines) == 2 and lines[-1].startswith("import: 0 ")
    clash = write_chunk(tmp_path / "other", case, 1, 2, reading="paper-fit", spread=0.2)
    bad = write_chunk(tmp_path / "other", case, 8, 1, reading="paper-fit")
    bad.write_text(bad.read_text().replace('"runs": 1', '"runs": 2'))
    lines.clear()
    assert cp.import_chunks([tmp_path / "other"], into, [], out=lines.append) == 3  # refusals: exit status 3
    assert any("refused" in x and clash.name in x and "already in" in x for x in lines)
    assert any("refused" in x and bad.name in x for x in lines)
    assert len(list(into.glob("*.json"))) == 2
    assert lines[-1].endswith("; 2 refused")


def test_import_names_a_plain_run_result_as_a_chunk_and_records_its_arithmetic_and_device(tmp_path):
    # a `srmdp run` output made on another GPU (no campaign record) pools with the committed chunk of its case
    into = tmp_path / "repo" / "data" / "gpu" / "campaign"
    case = pcase("LP0d4", 1)
    write_chunk(into, case, 0, 1, reading="paper-fit")
    plain = fake_result(case, 1, 1, model="NVIDIA H200")
    plain["reading"]["arithmetic"] = "float64"
    src = tmp_path / "h200" / "LP0d4_r1.paper-fit.run1.json"
    write_json_atomic(src, plain)
    lines = []
    assert cp.import_chunks([src.parent], into, [], out=lines.append) == 0
    name = cp.chunk_name(case, "paper-fit", "gpu", 0, 1, 1)
    got = load_chunk(into / name)  # sealed again: its checksum verifies
    rec = got["campaign"]
    assert (rec["reading_name"], rec["precision"], rec["arithmetic"], rec["device_model"]) == (
        "paper-fit",
        "float32",
        "float64",
        "NVIDIA H200",
    )
    assert rec["imported_from"] == src.name and rec["source_checksum"] == json.loads(src.read_text())["checksum"]
    assert got["per_run"] == plain["per_run"] and got["case_hash"] == plain["case_hash"]
    assert any("float32 storage, float64 arithmetic, NVIDIA H200" in x for x in lines)
    groups = chunks.index(chunks.result_paths(into), verify=True)
    assert [g.runs for g in groups.values()] == [2]  # pooled with run 0
    assert aggregate(groups[next(iter(groups))].paths)["runs"] == 2
    lines.clear()
    assert cp.import_chunks([src.parent], into, [], out=lines.append) == 0  # the same file again
    assert any("already there" in x for x in lines) and len(list(into.glob("*.json"))) == 2
    odd = fake_result(pcase("LP0d4", 1, PresetReading("clamp", "clamp", None, None)), 0, 1)
    write_json_atomic(tmp_path / "odd" / "x.json", odd)
    lines.clear()
    assert cp.import_chunks([tmp_path / "odd"], into, [], out=lines.append) == 3
    assert "none of the config's" in lines[0]


# --- grouping for the workflow, and srmdp aggregate ---------------------------------------------------------
def test_cpu_and_gpu_chunks_pool_only_with_identical_streams_and_precision(tmp_path):
    case = pcase("LP0d4", 1)
    g1 = write_chunk(tmp_path, case, 0, 2, reading="paper-fit")
    c1 = write_chunk(tmp_path, case, 2, 2, reading="paper-fit", device="cpu", model="AMD EPYC")
    f64 = write_chunk(tmp_path, pcase("LP0d4", 1, precision="float64"), 0, 2, reading="paper-fit", device="cpu")
    other = write_chunk(tmp_path / "x", case, 4, 2, reading="paper-fit", streams="philox-box-muller")
    groups = chunks.index(chunks.result_paths(tmp_path), verify=True)
    assert len(groups) == 3
    pooled = next(g for g in groups.values() if len(g.chunks) == 2)
    assert sorted(pooled.paths) == sorted([str(g1), str(c1)]) and pooled.devices == ["cpu", "gpu"]
    assert chunks.aggregate_flags(pooled) == "--pool-devices"
    assert not any(str(f64) in g.paths and len(g.chunks) > 1 for g in groups.values())
    with pytest.raises(ChunkError, match="device"):
        aggregate([g1, c1])
    summary = aggregate([g1, c1], pool_devices=True)
    assert summary["runs"] == 4 and summary["device"] == "cpu+gpu"
    with pytest.raises(ChunkError, match="streams"):
        aggregate([g1, other], pool_devices=True)
    with pytest.raises(ChunkError, match="precision"):
        aggregate([g1, f64], pool_devices=True)
    dup = write_chunk(tmp_path / "y", case, 1, 2, reading="paper-fit", spread=0.3)
    with pytest.raises(ChunkError, match="overlap"):
        aggregate([g1, dup])


def test_a_chunk_without_a_recorded_version_pools_but_two_versions_do_not(tmp_path):
    # the committed GPU chunks were written from a source tree (no installed metadata: version None); a chunk made
    # by an installed srmdp pools with them, one made by another version does not
    case = pcase("LP0d4", 1)
    gpu = write_chunk(tmp_path / "g", case, 0, 2, reading="paper-fit")
    paths = []
    for start, version in ((2, "0.1.0"), (4, "0.2.0")):
        res = fake_result(case, start, 2)
        res["provenance"]["versions"] = {"srmdp": version}
        paths.append(tmp_path / f"v{version}.json")
        write_json_atomic(paths[-1], res)
    assert aggregate([gpu, paths[0]])["runs"] == 4
    with pytest.raises(ChunkError, match="srmdp version '0.2.0' != '0.1.0'"):
        aggregate([gpu, *paths])


def _plan(tmp_path, gpu_dir, cases=None):
    from srmdp.paper.plan.preset import Plan, load_configs

    cfg = load_configs([ROOT / "config/config.yaml"])
    cfg["gpu_results"] = str(gpu_dir)
    cfg["chunk_results"] = []  # only the chunks under gpu_dir (not the repository's evidence campaign)
    if cases is not None:
        cfg["cases"] = cases
    return Plan(cfg)


def test_plan_groups_data_gpu_chunks_per_row_reading_and_precision(tmp_path):
    gpu = tmp_path / "gpu"
    write_chunk(gpu / "campaign", pcase("LP0d4", 1), 0, 2, reading="paper-fit")
    write_chunk(gpu / "campaign", pcase("LP0d4", 1), 2, 3, reading="paper-fit")
    write_chunk(gpu / "campaign", pcase("LP0d4", 1, THEORY), 0, 2, reading="theory")
    write_chunk(gpu / "campaign", pcase("LP0d4", 1, precision="float64"), 0, 2, reading="paper-fit")
    odd = PaperCase(
        d=2,
        dt=0.5,
        basis="LP0",
        cells=2,
        paths=4,
        table="tinyLP0",
        row=1,
        outside="zero",
        trunc_y=1.0,
        trunc_z=1.0,
        precision="float32",
    )
    write_chunk(gpu / "campaign", odd, 0, 2, reading="paper-fit")  # not a paper row: not in the tables
    write_chunk(gpu, pcase("LP0d4", 1, PresetReading("clamp", "clamp", None, None)), 0, 2)  # no such reading
    plan = _plan(tmp_path, gpu)
    groups = plan.gpu_groups()
    assert [(g.reading, g.key, g.group.split("-")[0], g.runs) for g in groups] == [
        ("paper-fit", "LP0d4_r1", "float32", 5),
        ("paper-fit", "LP0d4_r1", "float64", 2),
        ("theory", "LP0d4_r1", "float32", 2),
    ]
    assert len(plan.gpu_summaries("LP0d4")) == 3 and plan.gpu_summaries("LP1d4") == []
    g = groups[0]
    assert plan.gpu_group(g.reading, g.key, g.group) == g
    want = f"{plan.published}/gpu/{g.reading}/LP0d4_r1/{g.group}.json"
    assert plan.gpu_summary_path(g.reading, g.key, g.group) == want


# --- rendering ------------------------------------------------------------------------------------------------------
def _summaries(tmp_path, gpu):
    plan = _plan(tmp_path, gpu)
    out = []
    for g in plan.gpu_groups():
        p = tmp_path / plan.gpu_summary_path(g.reading, g.key, g.group)
        write_json_atomic(p, aggregate(list(g.paths), pool_devices=bool(g.flags)))
        out.append(str(p))
    return plan, out


def test_tables_agreement_and_convergence_show_the_gpu_lines(tmp_path):
    from srmdp.paper.report import figures, latex, tables

    gpu = tmp_path / "gpu"
    write_chunk(gpu, pcase("LP0d4", 4), 0, 2, reading="paper-fit")  # dt = 0.02: never run on 2 cores
    write_chunk(gpu, pcase("LP0d4", 3), 0, 3, reading="paper-fit")
    write_chunk(gpu, pcase("LP0d4", 3, THEORY), 0, 1, reading="theory")  # one run: no s.e.
    write_chunk(gpu, pcase("LP0d4", 2, precision="float64"), 0, 2, reading="paper-fit")
    plan, sums = _summaries(tmp_path, gpu)
    out = tmp_path / "LP0d4.tex"
    tables.render_table(plan, "LP0d4", [], [], [], ROOT / "workflow/templates", out, campaign=sums)
    text = out.read_text()
    lines = [x for x in text.splitlines() if "% source:" in x and "& GPU " in x]  # each device line once
    assert len(lines) == 4, lines
    by_src = {}
    for x in lines:
        by_src[x.split("% source:")[1].strip()] = x
    for src, line in by_src.items():
        res = json.loads(Path(src).read_text())
        name = "paper-fit" if res["reading"]["outside"] == "zero" else "theory"
        storage = "f32" if res["case"]["precision"] == "float32" else "f64"
        arithmetic = "f32" if res["reading"].get("arithmetic") == "float32" else "f64"  # absent: float64
        prec = storage if storage == arithmetic else f"{storage} st./{arithmetic} ar."
        assert f", {prec} & {res['runs']}${{\\times}}${res['test_points']}" in line
        # the reading's name heads its first line; its other lines (another device or precision) follow it
        assert name in line or "&  & GPU" in line
        assert latex.fmt_pm(res["mse_y_max"], res["mse_y_max_se"]) in line
        if res["runs"] > 1:
            assert "\\pm" in line
    assert text.count("{") == text.count("}")
    # rows order: the GPU lines sit under their paper row
    body = text.split(r"\toprule")[1]
    blocks = body.split(r"\midrule")[1:]
    assert "& GPU " in blocks[3] and "0.02" in blocks[3]
    agr = tmp_path / "agreement.tex"
    tables.render_agreement(plan, [], ROOT / "workflow/templates", agr, campaign=sums)
    atext = agr.read_text()
    rows = [x for x in atext.splitlines() if x.startswith("LP0d4 GPU")]
    assert len(rows) == 3, rows  # rows 3 and 4 (float32) and row 2 (float64)
    row4 = next(x for x in rows if "& 0.02 &" in x)
    paper = next(r for r in paper_rows() if r["table"] == "LP0d4" and r["row"] == 4)
    res4 = json.loads(Path(next(s for s in sums if "LP0d4_r4" in s)).read_text())
    z = (res4["mse_y_max"] - paper["mse_y_max"]) / res4["mse_y_max_se"]
    assert latex.fmt_z(z) in row4
    stem = tmp_path / "convergence"
    figures.figure_convergence(plan, [], str(stem), campaign=sums)
    assert (tmp_path / "convergence.pdf").stat().st_size > 1000


def test_workflow_dry_run_plans_one_aggregate_per_gpu_group(tmp_path):
    gpu = tmp_path / "gpu"
    write_chunk(gpu, pcase("LP0d4", 4), 0, 2, reading="paper-fit")
    write_chunk(gpu, pcase("LP0d4", 4), 2, 2, reading="paper-fit")
    write_chunk(gpu, pcase("LP1d4", 4, THEORY), 0, 2, reading="theory")
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "-F",
            "--nolock",
            "--quiet",
            "rules",
            "--cores",
            "1",
            "--config",
            f"gpu_results={gpu}",
            "chunk_results=[]",
            "--directory",
            str(ROOT),
            "tables/LP0d4.tex",
            "tables/LP1d4.tex",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    line = next(x for x in out.splitlines() if x.strip().startswith("aggregate_gpu"))
    assert line.split()[-1] == "2", out[-3000:]


# --- slow: end to end -----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_campaign_end_to_end_under_the_simulator(tmp_path):
    """bash bench/gpu/gpu_campaign.sh on a tiny case list under NUMBA_ENABLE_CUDASIM=1, twice: sealed chunk files,
    the pack, the log, and a second session that continues with new run indices (< 1 min)."""
    pytest.importorskip("numba_cuda")
    data, out_dir, dev_out = tmp_path / "data", tmp_path / "camp", tmp_path / "OUT"
    data.mkdir()
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", OUT=str(dev_out), PY=sys.executable)
    common = ["--case-list", str(TINY), "--test-points", "20", "--data", str(data), "--min-chunk-seconds", "0"]
    # budgets far above the work (--max-runs ends each session): under load a tight budget would shorten the chunks
    proc = subprocess.run(
        ["bash", str(ROOT / "bench/gpu/gpu_campaign.sh"), "400", str(out_dir), *common, "--max-runs", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=480,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = sorted(out_dir.glob("*.json"))
    assert len(first) == 4, proc.stdout  # 2 rows x 2 readings x runs 0-1
    assert "numba-cuda simulator" in proc.stdout and proc.stdout.count("\nchunk ") == 4
    for f in first:
        res = load_chunk(f)
        assert res["device"] == "gpu" and res["case"]["precision"] == "float32"
        assert res["provenance"]["hardware"]["model"] == "numba-cuda simulator"
        assert (res["run_start"], res["runs"]) == (0, 2) and ".runs0000-0001." in f.name
        assert res["campaign"]["stage"].startswith("first runs")
    assert (dev_out / "campaign.log").read_text().count("\nchunk ") == 4
    with tarfile.open(dev_out / "campaign.tgz") as tar:
        assert sorted(tar.getnames()) == sorted(f"data/gpu/campaign/{f.name}" for f in first)
    # second session: the same outdir, more runs allowed -> runs 2-3, never 0-1 again
    proc = subprocess.run(
        [
            "bash",
            str(ROOT / "bench/gpu/gpu_campaign.sh"),
            "40",
            str(out_dir),
            *common,
            "--max-runs",
            "4",
            "--readings",
            "paper-fit",
            "--cases",
            "LP0d4",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "--cases or --case-list" in proc.stderr  # refused before any compute
    proc = subprocess.run(
        [
            "bash",
            str(ROOT / "bench/gpu/gpu_campaign.sh"),
            "400",
            str(out_dir),
            *common,
            "--max-runs",
            "4",
            "--readings",
            "paper-fit",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=480,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = sorted(set(out_dir.glob("*.json")) - set(first))
    assert new and all(".paper-fit." in f.name and ".runs0002-" in f.name for f in new), new
    for g in chunks.index(chunks.result_paths(out_dir), verify=True).values():
        assert not g.overlaps()
        summary = aggregate(g.paths)
        assert summary["runs"] == g.runs and summary["mse_y_max_se"] is not None


@pytest.mark.slow
def test_a_killed_campaign_keeps_every_finished_chunk(tmp_path):
    """SIGKILL in the middle of a CPU campaign: the chunks written before are whole and verify."""
    out = tmp_path / "out"
    (tmp_path / "data").mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    # a budget far above the work (a loaded machine compiles slowly): the kill, not the budget, ends the campaign
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "srmdp",
            "campaign",
            "run",
            "--budget",
            "1800",
            "--out",
            str(out),
            "--device",
            "cpu",
            "--threads",
            "1",
            "--case-list",
            str(TINY),
            "--test-points",
            "50",
            "--data",
            str(tmp_path / "data"),
            "--max-runs",
            "100000",
            "--min-chunk-seconds",
            "0.5",
            "--max-chunk-seconds",
            "1",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        while proc.poll() is None and len(list(out.glob("*.json"))) < 6:  # then the 7th chunk is running
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    files = list(out.glob("*.json"))
    assert len(files) >= 6
    for f in files:
        load_chunk(f)  # whole, checksum verified
    for g in chunks.index(chunks.result_paths(out), verify=True).values():
        assert not g.overlaps()


@pytest.mark.slow
def test_workflow_aggregates_gpu_chunks_into_the_tables(tmp_path):
    """A preset with no CPU case: the tables show the paper and the data/gpu/ lines (aggregate_gpu jobs only)."""
    from tests.support.workflow import copy_repo, snakemake

    repo = copy_repo(tmp_path / "repo")
    gpu = repo / "data" / "gpu"
    shutil.rmtree(gpu)
    write_chunk(gpu / "campaign", pcase("LP0d4", 4), 0, 2, reading="paper-fit")
    write_chunk(gpu / "campaign", pcase("LP0d4", 4), 2, 1, reading="paper-fit")
    write_chunk(gpu / "campaign", pcase("LP1d15_19", 5, THEORY), 0, 2, reading="theory")
    cfg = repo / "config" / "gpuonly.yaml"
    preset = yaml.safe_load((repo / "config" / "ci.yaml").read_text())
    preset.update(preset="gpuonly", cases=[])  # no CPU case: no solve job at all
    cfg.write_text(yaml.safe_dump(preset))
    out = repo / "out" / "gpuonly"  # a preset other than the default writes its tables and figures there
    snakemake(
        repo,
        "out/gpuonly/tables/LP0d4.tex",
        "out/gpuonly/tables/LP1d15_19.tex",
        "out/gpuonly/tables/agreement.tex",
        "out/gpuonly/figures/convergence_y.pdf",
        "--cores",
        "1",
        "--configfile",
        str(cfg),
    )
    text = (out / "tables" / "LP0d4.tex").read_text()
    (line,) = [x for x in text.splitlines() if "& GPU " in x and "% source:" in x]  # not the header's "GPU s"
    assert "& paper-fit & GPU" in line and "& 3${\\times}$1000 &" in line and "\\pm" in line
    src = line.split("% source:")[1].strip()
    summary = json.loads((repo / src).read_text())
    assert summary["runs"] == 3 and len(summary["chunks"]) == 2
    assert any(
        "& theory & GPU" in x and "& 2${\\times}$1000 &" in x
        for x in (out / "tables" / "LP1d15_19.tex").read_text().splitlines()
    )
    assert "LP0d4 GPU f32 R=3" in (out / "tables" / "agreement.tex").read_text()
    assert not list((repo / "results").rglob("chunk-*.json"))  # the tables came from data/gpu/ alone
    # an overlapping chunk is refused by `srmdp aggregate` (the job fails, naming both files)
    write_chunk(gpu / "campaign", pcase("LP0d4", 4), 1, 1, reading="paper-fit", spread=0.5)
    proc = snakemake(repo, "out/gpuonly/tables/LP0d4.tex", "--cores", "1", "--configfile", str(cfg), check=False)
    assert proc.returncode != 0
    logs = list((repo / "logs" / "gpuonly" / "aggregate_gpu").rglob("*.log"))
    assert any("overlap" in p.read_text() for p in logs)


def test_refresh_rewrites_only_chunks_it_reproduces_bit_for_bit(tmp_path):
    case = pcase("LP0d4", 1)
    good = write_chunk(tmp_path, case, 0, 2, reading="paper-fit", device="cpu")
    bad = write_chunk(tmp_path, case, 2, 2, reading="paper-fit", device="cpu")
    before = {p: p.read_text() for p in (good, bad)}
    old = {p: json.loads(before[p]) for p in (good, bad)}

    def runner(case_, runs, run_start, test_points, seed, device, threads):
        src = old[good] if run_start == 0 else old[bad]
        assert (case_, runs, seed, device, threads) == (case, 2, src["seed"], "cpu", 1)
        res = json.loads(json.dumps(src))
        res.pop("checksum", None)
        res["per_run"]["ey2"] = res["per_run"]["ez2"] = [[1.0] * case.steps] * runs
        if run_start == 2:  # this rerun does not reproduce the chunk
            res["per_run"]["ey"][0][0] += 1e-16 + abs(res["per_run"]["ey"][0][0]) * 1e-15
        return RunResult.from_dict(res)  # what run_case returns

    lines = []
    assert cp.refresh_chunks([good, bad], threads=1, out=lines.append, runner=runner) == 3
    assert bad.read_text() == before[bad] and "NOT reproduced (ey differ)" in lines[1]
    new = load_chunk(good)  # checked: a valid, sealed chunk
    assert new["per_run"]["ey"] == old[good]["per_run"]["ey"] and "ey2" in new["per_run"]
    assert new["campaign"]["refreshed_utc"] and "rewritten with ey2, ez2" in lines[0]


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_refresh_refuses_a_device_it_lacks_before_any_compute(tmp_path, monkeypatch):
    from srmdp.kernels import gpu

    case = pcase("LP0d4", 1)
    cpu_chunk = write_chunk(tmp_path, case, 0, 1, reading="paper-fit", device="cpu")
    gpu_chunk = write_chunk(tmp_path, case, 1, 1, reading="paper-fit", device="gpu")
    before = cpu_chunk.read_text()
    monkeypatch.setattr(gpu, "gpu_unavailable_reason", lambda: "no GPU here")
    monkeypatch.setattr("srmdp.runs.run.run_case", lambda *a, **k: pytest.fail("computed"))
    with pytest.raises(ConfigError, match="invalid device='gpu': no GPU here"):
        cp.refresh_chunks([cpu_chunk, gpu_chunk])
    assert cpu_chunk.read_text() == before
