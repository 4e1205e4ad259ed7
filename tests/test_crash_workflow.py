"""Crash safety of the workflow: kill a running Snakemake at a random point, resume, same tables.

In a temporary copy of the working tree, the ci preset (config/ci.yaml) shrunk to its first case and
reading, with no timing job (times are the only numbers that legitimately differ between two runs),
is run to ``out/crashtest/tables/<table>.tex`` and SIGKILLed, Snakemake and its jobs together (a lost node), at a
moment (drawn from a fixed seed) after the first job started or after the first chunk was written; then resumed the way
a user would:
``snakemake --cores all``, adding ``--unlock`` / ``--rerun-incomplete`` when Snakemake asks.

Checks: after the kill no chunk or summary on disk is partial (each parses and its checksum holds);
the resumed workflow finishes; chunks that were complete before the kill are not recomputed; every
chunk's per-run errors are bit-identical to an uninterrupted computation of that chunk, and the table
is byte-identical to the one the workflow renders from those uninterrupted chunks in a fresh copy.
(The uninterrupted chunks are computed in this process by ``run_case``, the function behind
``srmdp run``, which shares the test session's JIT compile: a second full Snakemake run would cost
two more compiles in CI.)  The random moment is printed and can be replayed with SRMDP_CRASH_SEED.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from srmdp.case.results import checksum_ok, write_json_atomic
from srmdp.paper.inputs.rows import case_of_record
from srmdp.runs.run import run_case

ROOT = Path(__file__).resolve().parent.parent
CI_PRESET = ROOT / "config" / "ci.yaml"
PRESET = "crashtest"  # the overlay's preset name: its outputs go under out/<preset>/ (common.smk's OUT)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (ROOT / "Snakefile").exists() or not CI_PRESET.exists() or shutil.which("snakemake") is None,
        reason="needs the Snakemake workflow (Snakefile), its ci preset (config/ci.yaml) and snakemake on PATH",
    ),
]


def _copy_tree(dst):
    """The tracked files of the working tree (what a fresh clone has, with local edits)."""
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    )
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    return dst


def _overlay(ci):
    """The ci preset, shrunk: its first case (first row, no timing job) and its first reading."""
    case = dict(ci["cases"][0])
    rows = case.get("rows", [1])
    case["rows"] = [rows[0] if isinstance(rows, list) else 1]
    case["timing"] = False
    runs = int(case.get("runs", ci.get("runs", 4)))
    chunk = int(case.get("chunk_runs", ci.get("chunk_runs", runs)))
    if runs <= chunk:  # keep at least two chunks: a kill can land between them
        chunk = max(1, runs // 2)
        case["chunk_runs"] = chunk
    return {"preset": PRESET, "cases": [case], "readings": [ci["readings"][0]], "devices": ["cpu"]}, case["table"]


def _env(tree):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")  # jobs import the copy's srmdp
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def _table_path(table):
    return Path("out") / PRESET / "tables" / f"{table}.tex"


def _snakemake_args(table, *extra):
    return [
        "snakemake",
        str(_table_path(table)),
        "--cores",
        "all",
        *extra,
        "--configfile",
        "config/ci.yaml",
        "crashtest.yaml",
    ]


def _prepare(tmp_path, name):
    tree = _copy_tree(tmp_path / name)
    for generated in ("tables", "figures", "results"):  # committed outputs of the default preset
        shutil.rmtree(tree / generated, ignore_errors=True)
    overlay, table = _overlay(yaml.safe_load(CI_PRESET.read_text()))
    (tree / "crashtest.yaml").write_text(yaml.safe_dump(overlay))
    return tree, table


def _run(tree, table, *extra, timeout=600):
    return subprocess.run(
        _snakemake_args(table, *extra), cwd=tree, env=_env(tree), capture_output=True, text=True, timeout=timeout
    )


def _finished_outputs(tree):
    """Outputs of the jobs that the Snakemake logs in tree/.snakemake/log record as finished."""
    done = set()
    for log in sorted((tree / ".snakemake" / "log").glob("*.snakemake.log")):
        outputs, job_output = {}, None
        for line in log.read_text(errors="replace").splitlines():
            line = line.strip()
            if line.startswith("output:"):
                job_output = [o.strip() for o in line[len("output:") :].split(",")]
            elif line.startswith("jobid:") and job_output is not None:
                outputs[line.split()[1]] = job_output
                job_output = None
            elif line.startswith("Finished jobid:"):
                done.update(outputs.get(line.split()[2], []))
    return done


def _results(tree, pattern):
    return sorted((tree / "results").rglob(pattern)) if (tree / "results").exists() else []


def test_killed_workflow_resumes_to_the_same_tables(tmp_path):
    seed = int(os.environ.get("SRMDP_CRASH_SEED", 2016))  # fixed; another moment: SRMDP_CRASH_SEED=N
    rng = random.Random(seed)
    print(f"workflow crash test: SRMDP_CRASH_SEED={seed}")

    # the victim: killed with all its jobs at a moment (drawn from a fixed seed) after the first job started
    tree, table = _prepare(tmp_path, "victim")
    proc = subprocess.Popen(
        _snakemake_args(table),
        cwd=tree,
        env=_env(tree),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # the moment: after the first job started (while jobs compile and compute), or after the first
    # chunk was written (others still running, the aggregate or the table next)
    phase = rng.choice(["first job started", "first chunk written"])
    started = (
        (lambda: list((tree / "logs").rglob("*.log")))
        if phase == "first job started"
        else (lambda: _results(tree, "chunk-*.json"))
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None and not started():
        time.sleep(0.05)
    delay = rng.uniform(0.0, 15.0 if phase == "first job started" else 4.0)
    time.sleep(delay)
    finished = proc.poll() is not None
    assert not finished or proc.returncode == 0, "the workflow failed before the kill"
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)
    print(
        f"workflow crash test: killed {delay:.2f} s after the {phase}"
        f" ({'it had already finished' if finished else 'while running'})"
    )

    # the jobs the killed Snakemake had recorded as finished (its log, as far as it got written)
    recorded = _finished_outputs(tree)

    # nothing partial on disk: every chunk or summary present is whole
    survivors = {}
    for p in _results(tree, "*.json"):
        data = json.loads(p.read_text())
        assert checksum_ok(data), p
        survivors[p] = p.stat().st_mtime_ns

    # resume the way a user would, adding what Snakemake asks for
    extra, said = [], ""
    for _ in range(3):
        res = _run(tree, table, *extra)
        if res.returncode == 0:
            break
        text = res.stdout + res.stderr
        said += text
        if "--unlock" in text and "--unlock" not in extra:
            unlock = _run(tree, table, "--unlock")
            assert unlock.returncode == 0, unlock.stderr[-2000:]
        if "--rerun-incomplete" in text and "--rerun-incomplete" not in extra:
            extra.append("--rerun-incomplete")
    assert res.returncode == 0, (extra, res.stderr[-3000:])
    print(
        f"workflow crash test: resumed with {' '.join(extra) or 'no extra option'}"
        f"{' after --unlock' if '--unlock' in said else ''}; {len(survivors)} result files had survived"
    )

    # chunks whose job Snakemake had recorded as finished were not redone (a chunk written just before
    # the kill, whose job was not recorded yet, is incomplete for Snakemake and rightly rerun: the
    # default profile sets rerun-incomplete); the table and every chunk equal the reference
    for p, mtime in survivors.items():
        if p.name.startswith("chunk-") and str(p.relative_to(tree)) in recorded:
            assert p.stat().st_mtime_ns == mtime, f"{p} was recomputed"
    print(f"workflow crash test: {len(recorded)} finished job(s) recorded before the kill")
    chunks = {p.relative_to(tree): json.loads(p.read_text()) for p in _results(tree, "chunk-*.json")}
    assert len(chunks) >= 2

    # the reference: the same chunks computed uninterrupted (in this process, by the function behind
    # `srmdp run`), then gathered and rendered by the workflow in a fresh copy
    ref_tree, _ = _prepare(tmp_path, "reference")
    for rel, data in chunks.items():
        res = run_case(
            case_of_record(data["case"]),
            runs=data["runs"],
            run_start=data["run_start"],
            test_points=data["test_points"],
            seed=data["seed"],
        )
        write_json_atomic(ref_tree / rel, res)
    ref = _run(ref_tree, table, "--rerun-triggers", "mtime")
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert "rule solve:" not in ref.stdout + ref.stderr, "the reference recomputed chunks"
    ref_chunks = {p.relative_to(ref_tree): json.loads(p.read_text()) for p in _results(ref_tree, "chunk-*.json")}
    assert ref_chunks.keys() == chunks.keys()
    for key, data in chunks.items():
        assert data["per_run"] == ref_chunks[key]["per_run"], key
        assert data["case_hash"] == ref_chunks[key]["case_hash"], key
    out = _table_path(table)
    assert (tree / out).read_text() == (ref_tree / out).read_text()
