"""Crash safety: a killed run leaves no result that looks complete; a damaged chunk stops the aggregate.

* ``srmdp run`` is SIGKILLed at a random point (during start-up/compile, or while it computes and
  writes); the output path then holds either nothing or the previous complete file, never a partial
  one, and a rerun produces the same results as an uninterrupted run (bit-identical per-run errors
  and indicators; timings and provenance naturally differ).  The point is drawn from a fixed seed per phase
  (printed; SRMDP_CRASH_SEED=N draws other points, to explore).
* The atomic writer itself is killed repeatedly mid-write: the file is always one whole version.
* A truncated, emptied, garbled, bit-flipped, missing, foreign or overlapping chunk makes
  ``srmdp aggregate`` exit 2 with one line naming that file, and write nothing.
"""

import contextlib
import functools
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from srmdp.case.cases import Case
from srmdp.case.results import checksum_ok, write_json_atomic
from srmdp.cli.commands import main
from srmdp.runs.aggregate import aggregate
from srmdp.runs.run import run_case

ROOT = Path(__file__).resolve().parent.parent
SCIENCE = (
    "case_hash",
    "case",
    "seed",
    "run_start",
    "runs",
    "test_points",
    "per_run",
    "mse_y_max",
    "mse_y_av",
    "mse_z_av",
    "mse_y_max_se",
    "mse_y_av_se",
    "mse_z_av_se",
    "literal_y_max",
    "literal_y_av",
    "literal_z_av",
    "per_step_y",
    "per_step_z",
    "device",
)

# big enough that the compute (~1-2 s on one thread) is a real target for the kill, small enough to stay cheap
RUN_ARGS = [
    "--d",
    "2",
    "--dt",
    "0.1",
    "--basis",
    "LP1",
    "--cells",
    "8",
    "--paths",
    "600",
    "--runs",
    "32",
    "--test-points",
    "200",
    "--seed",
    "11",
]
RUN_CASE = Case(d=2, dt=0.1, basis="LP1", cells=8, paths=600)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _crash_rng(default=0):
    seed = int(os.environ.get("SRMDP_CRASH_SEED", default))
    print(f"crash test: SRMDP_CRASH_SEED={seed}")
    return random.Random(seed)


def _start_run(out, progress=True):
    args = [sys.executable, "-m", "srmdp", "run", *RUN_ARGS, "--threads", "1", "--out", str(out)]
    args.append("--progress" if progress else "--no-progress")
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env(), cwd=ROOT)


def _wait_for_progress(proc, fraction, timeout=300):
    """Block until the progress bar (time steps x runs) reaches ``fraction`` of its total; the bar
    appears once the compile is done.  Returns the fraction seen, or None if the process ended."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            return None
        seen = (seen + chunk.decode(errors="replace"))[-4096:]
        counts = re.findall(r"(\d+)/(\d+) \[", seen)
        if counts:
            done, total = map(int, counts[-1])
            if total and done >= fraction * total:
                return done / total
    return None


@functools.cache
def _uninterrupted():
    return run_case(RUN_CASE, runs=32, test_points=200, seed=11).to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["start-up", "compute", "write"])
def test_sigkill_at_a_random_point_leaves_no_partial_result(tmp_path, phase):
    rng = _crash_rng(default=("start-up", "compute", "write").index(phase))
    out = tmp_path / "res" / "result.json"
    old = {"case_hash": "0" * 16, "note": "a previous complete result", "per_run": {"ey": [[1.0]], "ez": [[1.0]]}}
    write_json_atomic(out, old)
    old_bytes = out.read_bytes()

    proc = _start_run(out)
    if phase == "start-up":  # imports, argument checks, JIT compile: no event marks a point inside them, so a delay
        where = f"{rng.uniform(0.0, 3.0):.2f} s after the start"
        time.sleep(float(where.split()[0]))
    elif phase == "compute":  # at a random point of the backward loops (progress bar: steps x runs)
        target = rng.uniform(0.0, 1.0)
        where = f"at {_wait_for_progress(proc, target)} of the steps (target {target:.2f})"
    else:  # near the end: the last steps, the errors of the last run, then the write (a few ms)
        target, pause = rng.uniform(0.9, 1.0), rng.uniform(0.0, 0.3)
        reached = _wait_for_progress(proc, target)
        time.sleep(pause)  # no event marks the write's inside (the progress bar ends before it): a delay
        where = f"{pause * 1000:.0f} ms after {reached} of the steps"
    finished_before_kill = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    print(f"crash test: killed in phase {phase}, {where}; finished before the kill: {finished_before_kill}")

    # what is left: the old complete file or a whole new one, never a partial one; hidden temp files
    # (.result.json.*.tmp) are all a kill can leave besides, and nothing reads them
    visible = sorted(p.name for p in out.parent.iterdir() if not p.name.startswith("."))
    assert visible == ["result.json"]
    for p in out.parent.iterdir():
        if p.name.startswith("."):
            assert p.name.startswith(".result.json.") and p.name.endswith(".tmp"), p.name
    data = out.read_bytes()
    if data != old_bytes:
        new = json.loads(data)
        assert checksum_ok(new) and "checksum" in new and new["runs"] == 32
        assert not finished_before_kill or proc.returncode in (0, -signal.SIGKILL)

    # the rerun finishes the work (in-process through the same CLI entry point, sharing this process's
    # JIT compile); its results are those of an uninterrupted run
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", *RUN_ARGS, "--no-progress", "--out", str(out)]) == 0, err.getvalue()
    got = json.loads(out.read_text())
    assert checksum_ok(got)
    ref = _uninterrupted()
    for key in SCIENCE:
        assert got[key] == ref[key], key


def test_killing_the_atomic_writer_never_leaves_a_partial_file(tmp_path):
    """A writer alternating two big results on one path, killed mid-write several times."""
    rng = _crash_rng()
    path = tmp_path / "chunk.json"
    code = (
        "import sys\n"
        "from srmdp.case.results import write_json_atomic\n"
        "path = sys.argv[1]\n"
        "for n in range(10**6):\n"
        "    v = n % 2\n"
        "    write_json_atomic(path, {'case_hash': 'x', 'version': v, 'per_run': {'ey': [[float(v)] * 400] * 400}})\n"
        "    print(n, flush=True)\n"
    )
    versions = set()
    for _ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
        )
        proc.stdout.readline()  # at least one complete write
        # the kill lands at a drawn point of a later write: a delay, since nothing marks a point inside a write
        time.sleep(rng.uniform(0.0, 0.3))
        proc.kill()
        proc.wait(timeout=30)
        data = json.loads(path.read_text())  # always parses: one whole version
        assert checksum_ok(data) and data["version"] in (0, 1)
        assert data["per_run"]["ey"] == [[float(data["version"])] * 400] * 400
        versions.add(data["version"])
        leftovers = [p.name for p in tmp_path.iterdir() if p.name != "chunk.json"]
        assert all(n.startswith(".chunk.json.") and n.endswith(".tmp") for n in leftovers), leftovers
        for p in tmp_path.glob(".chunk.json.*.tmp"):
            p.unlink()


# --- damaged chunks -----------------------------------------------------------------------------------
class _Backend:
    """A compile-free stand-in for the CPU backend: deterministic per-run errors from the run index."""

    device = "cpu"

    def check_fits(self, case, test_points, runs=1):
        pass

    def allocate(self, case):
        self.n = case.steps

    def warm_up(self, rec):
        pass

    def backward_step(self, i, rec):
        return -1

    def errors(self, rec):
        r = int(rec[0].run)
        ey, ez = 0.01 * (1 + r) * np.arange(1, self.n + 1), 0.02 * (1 + r) * np.ones(self.n)
        return ey, ez, 3 * ey * ey, 3 * ez * ez

    def evaluate(self, j, rec, points):
        return np.full(points.shape[0], 0.5 + int(rec[0].run)), np.zeros(points.shape)

    def memory_report(self, test_points):
        return {}

    def fallbacks(self):
        return 0

    def hardware(self):
        return {"device": "cpu", "model": "stand-in", "threads": 1}


CHUNK_CASE = Case(d=2, dt=0.25, basis="LP0", cells=2, paths=3)


@pytest.fixture
def chunks(tmp_path):
    paths = []
    for j, start in enumerate((0, 2, 4)):
        res = run_case(CHUNK_CASE, runs=2, run_start=start, test_points=5, seed=3, backend=_Backend())
        paths.append(tmp_path / f"chunk-{j}.json")
        write_json_atomic(paths[-1], res)
    return paths


def _aggregate_cli(paths, out):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(["aggregate", *map(str, paths), "--expect-runs", "6", "--out", str(out)])
        except SystemExit as exc:
            status = exc.code
    return status, err.getvalue()


def test_intact_chunks_aggregate(chunks, tmp_path):
    status, err = _aggregate_cli(chunks, tmp_path / "summary.json")
    assert status == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["runs"] == 6 and checksum_ok(summary)
    assert summary["per_run"]["ey"][5][0] == pytest.approx(0.06)
    assert summary["run_ranges"] == [[0, 6]]  # adjacent chunks joined
    assert aggregate([chunks[0], chunks[2]])["run_ranges"] == [[0, 2], [4, 6]]  # a gap kept: runs 2, 3 absent


def _truncate(p):
    p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])


def _empty(p):
    p.write_bytes(b"")


def _garbage(p):
    p.write_bytes(os.urandom(300))


def _flip_a_number(p):  # still valid JSON: only the checksum notices
    text = p.read_text()
    i = text.index('"ey"')
    j = text.index("0.0", i)
    p.write_text(text[:j] + "0.1" + text[j + 3 :])


def _edit_and_reseal(key, value):
    def edit(p):
        data = json.loads(p.read_text())
        data[key] = value
        write_json_atomic(p, data)  # a consistent checksum, so only the content checks can refuse it

    return edit


def _infinity(p):  # what json.dump(allow_nan=True) would have written for an overflowed error
    text = p.read_text()
    m = re.compile(r"-?\d+\.\d+(e-?\d+)?").search(text, text.index('"ey"'))
    p.write_text(text[: m.start()] + "Infinity" + text[m.end() :])


def _other_seed(p):
    write_json_atomic(p, run_case(CHUNK_CASE, runs=2, run_start=2, test_points=5, seed=4, backend=_Backend()))


def _other_case(p):
    case = Case(d=2, dt=0.25, basis="LP0", cells=2, paths=4)
    write_json_atomic(p, run_case(case, runs=2, run_start=2, test_points=5, seed=3, backend=_Backend()))


def _overlap(p):
    write_json_atomic(p, run_case(CHUNK_CASE, runs=2, run_start=1, test_points=5, seed=3, backend=_Backend()))


@pytest.mark.parametrize(
    "damage, words",
    [
        (_truncate, "corrupt chunk file"),
        (_empty, "corrupt chunk file"),
        (_garbage, "corrupt chunk file"),
        (_flip_a_number, "checksum mismatch"),
        (os.unlink, "missing chunk file"),
        (_edit_and_reseal("format_version", 99), "format version 99"),
        (_edit_and_reseal("seed", 5), "case_hash"),
        (_edit_and_reseal("runs", 3), "per-run errors do not match"),
        (_edit_and_reseal("per_run", {"ey": [["x"] * 4] * 2, "ez": [[0.1] * 4] * 2}), "per-run errors"),
        (_infinity, "non-finite number Infinity"),
        (_edit_and_reseal("case", "LP0"), "case and per_run"),
        (_other_seed, "seed 4 != 3"),
        (_other_case, "paths 4 != 3"),
        (_overlap, "overlap"),
    ],
)
def test_damaged_chunk_is_named_and_stops_the_aggregate(chunks, tmp_path, damage, words):
    victim = chunks[1]
    damage(victim)
    out = tmp_path / "summary.json"
    out.write_text("previous summary\n")
    status, err = _aggregate_cli(chunks, out)
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("srmdp: error: ") and "Traceback" not in err, err
    assert str(victim) in lines[0] and words in lines[0], lines[0]
    assert out.read_text() == "previous summary\n"  # the old summary is untouched


def test_missing_chunk_names_the_missing_runs(chunks, tmp_path):
    status, err = _aggregate_cli([chunks[0], chunks[2]], tmp_path / "s.json")
    assert status == 2 and "missing runs 2-3 of 6" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "s.json").exists()
    with pytest.raises(Exception, match="hold runs outside 0-3"):
        aggregate(chunks, expect_runs=4)


def test_truncated_chunk_in_a_process(chunks, tmp_path):
    _truncate(chunks[2])
    out = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, "-m", "srmdp", "aggregate", *map(str, chunks), "--expect-runs", "6", "--out", str(out)],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"corrupt chunk file {chunks[2]}" in proc.stderr
    assert not out.exists()
