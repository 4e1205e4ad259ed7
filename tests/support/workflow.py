"""Snakemake in a copy of the repository, for the tests that run the workflow (test_workflow, test_slurm,
test_campaign): ``copy_repo`` (the tracked and non-ignored files, no outputs), ``snakemake`` (the CPU path, this
Python's Snakemake), ``ran_jobs`` (the jobs a run executed, from its log)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _env():
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # the CPU path only
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def snakemake(cwd, *args, check=True, timeout=900):
    cmd = [sys.executable, "-m", "snakemake", *args]
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
        )
    return proc


def copy_repo(dest: Path) -> Path:
    """The repository's tracked and non-ignored files (no results, logs or .snakemake state)."""
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = ROOT / rel
        if not src.is_file() or rel.startswith(("tables/", "figures/", "results/", "logs/", "data/summaries/")):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    return dest


def ran_jobs(log: str) -> dict:
    """{rule: count} of the jobs a (non-dry) run executed, from Snakemake's log."""
    counts = {}
    for rule in re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", log):
        counts[rule] = counts.get(rule, 0) + 1
    return counts
