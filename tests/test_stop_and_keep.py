"""SIGTERM and SIGINT stop ``srmdp solve`` and ``srmdp run`` within seconds and keep the runs completed as a partial
answer (``OUT.partial.json``, with its message), exit status 128 + the signal (143, 130); the progress lines reach
the log file (``OUT.log``, flushed per line) as they happen (issue 54 item 2).  In a subprocess, as a user's shell
sends them; the kernels are those of a small case (compiled once per machine, then loaded from the disk cache)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from srmdp.cli.common import keep_partial, partial_path
from srmdp.exceptions import Interrupted
from srmdp.kernels import stop

ROOT = Path(__file__).resolve().parent.parent
CASE = ["--problem", "quadratic_z", "--d", "2", "--cells", "8", "--paths", "2000", "--threads", "1"]
STOP_WITHIN_S = 10.0  # the bound; a slice of strata or a time step here takes well under a second


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _wait_for_line(path: Path, words: str, proc, timeout=600.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"ended before '{words}' reached {path}: {proc.stderr.read()}")
        text = path.read_text() if path.is_file() else ""
        if words in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"no '{words}' in {path} within {timeout} s")


def _stop(proc, sig, timeout=STOP_WITHIN_S):
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, err, time.monotonic() - t0


@pytest.mark.slow
def test_sigterm_stops_a_solve_and_keeps_the_runs_done(tmp_path):
    out = tmp_path / "sol.npz"
    args = [sys.executable, "-m", "srmdp", "solve", *CASE, "--runs", "400", "--no-progress", "--out", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=tmp_path)
    log = _wait_for_line(tmp_path / "sol.log", "run 2/400 done", proc)
    assert log.endswith("\n")  # whole lines, flushed as written
    rc, err, secs = _stop(proc, signal.SIGTERM)
    assert rc == 143, err
    assert secs < STOP_WITHIN_S, secs
    assert not out.exists()  # no solution: the partial answer is beside it
    part = json.loads((tmp_path / "sol.partial.json").read_text())
    assert part["stopped"]["signal"] == "SIGTERM" and "stopped by SIGTERM" in part["stopped"]["message"]
    assert part["success"] is False and part["u0_error"] is None and "not estimated" in part["status"]
    done = part["interrupted_case"]["runs"]
    assert 2 <= done < 400 and part["runs"] == done
    assert len(part["interrupted_case"]["per_run"]["u0"]) == done
    assert "sol.partial.json" in err and "SIGTERM" in err


@pytest.mark.slow
def test_sigint_stops_a_run_with_status_130_and_keeps_its_runs(tmp_path):
    out = tmp_path / "res.json"
    args = [sys.executable, "-m", "srmdp", "run", *CASE, "--dt", "0.2", "--basis", "LP1", "--runs", "400"]
    args += ["--progress", "--out", str(out)]  # the bar on stderr says when the runs are under way
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env(), cwd=tmp_path)
    seen = ""
    while not re.search(r"(\d+)/2000 \[", seen) or int(re.findall(r"(\d+)/2000 \[", seen)[-1]) < 12:
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, f"ended before its runs: {seen}"
        seen = (seen + chunk.decode(errors="replace"))[-4096:]
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        err = seen + proc.communicate(timeout=60)[1].decode(errors="replace")
    finally:
        proc.kill()
    secs = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert secs < STOP_WITHIN_S, secs
    assert not out.exists()
    part = json.loads((tmp_path / "res.partial.json").read_text())
    assert 2 <= part["runs"] < 400 and part["stopped"]["signal"] == "SIGINT"
    assert len(part["per_run"]["u0"]) == part["runs"]
    assert "res.partial.json" in err


def test_a_stop_asked_for_is_raised_at_the_next_check_and_cleared_after_the_block():
    with stop.on_signals():
        stop.check()  # nothing asked
        stop.request(signal.SIGTERM)
        with pytest.raises(Interrupted) as exc:
            stop.check()
        assert exc.value.exit_status == 143 and exc.value.signal_name == "SIGTERM"
    stop.check()  # cleared


def test_the_one_writer_of_partial_answers(tmp_path):
    assert partial_path(tmp_path / "a.json") == str(tmp_path / "a.partial.json")
    assert partial_path(tmp_path / "a.npz") == str(tmp_path / "a.partial.json")
    said = keep_partial(tmp_path / "a.npz", {"runs": 3, "u0": 1.0}, "stopped by SIGINT", signal="SIGINT")
    data = json.loads((tmp_path / "a.partial.json").read_text())
    assert data["runs"] == 3 and data["stopped"] == {"message": "stopped by SIGINT", "signal": "SIGINT"}
    assert said == f"the 3 run(s) done written to {tmp_path / 'a.partial.json'}"
