"""The ci preset through `snakemake --executor slurm` on a one-node SLURM cluster brought up here.

Needs root and Debian's slurmctld, slurmd, slurm-client and munge (installed with apt-get when
missing) and snakemake-executor-plugin-slurm (`pip install -e ".[slurm]"`); skips with the reason
where any of that is unavailable. The cluster is set up as the executor needs it in a container: config at the default
/etc/slurm/slurm.conf (the plugin strips SLURM_CONF), proctrack/linuxproc and task/none (no
cgroups in a container), accounting off, so the executor checks job status with squeue and
MinJobAge keeps finished jobs visible long enough. Daemons started here are stopped afterwards by
their pid files and the slurm.conf written here is removed; an existing /etc/slurm/slurm.conf that
this test did not write is never touched.
"""

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.workflow import copy_repo, ran_jobs, snakemake

pytestmark = pytest.mark.slow

CONF = Path("/etc/slurm/slurm.conf")
MARK = "# srmdp test cluster (tests/test_slurm.py)"
PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]


def _run(cmd, timeout=60, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def _install():
    if all(shutil.which(x) for x in ("slurmctld", "slurmd", "sbatch", "munged")):
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "SLURM is not installed and cannot be (needs root and apt-get)"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    proc = _run(["apt-get", "install", "-y", "-q", *PACKAGES], timeout=900, env=env)
    if proc.returncode != 0:
        _run(["apt-get", "update", "-q"], timeout=600, env=env)
        proc = _run(["apt-get", "install", "-y", "-q", *PACKAGES], timeout=900, env=env)
    if proc.returncode != 0:
        return f"apt-get install {' '.join(PACKAGES)} failed: {proc.stderr.strip().splitlines()[-1:]}"
    return None


def _node_line():
    out = _run(["slurmd", "-C"]).stdout
    line = next((x for x in out.splitlines() if x.startswith("NodeName=")), None)
    if line is None:
        return None
    # leave some memory to the OS; keep the topology slurmd detects
    parts = []
    for item in line.split():
        if item.startswith("RealMemory="):
            item = f"RealMemory={max(1000, int(int(item.split('=')[1]) * 0.9))}"
        parts.append(item)
    return " ".join(parts)


def _write_conf(host, node_line):
    CONF.parent.mkdir(parents=True, exist_ok=True)
    for d in ("/var/spool/slurmd", "/var/spool/slurmctld", "/var/log/slurm"):
        os.makedirs(d, exist_ok=True)
    CONF.write_text(f"""{MARK}
ClusterName=srmdptest
SlurmctldHost={host}
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmUser=root
SlurmdUser=root
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
{node_line}
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")


def _start_munge():
    if _run(["munge", "-n"]).returncode == 0:
        return None
    key = Path("/etc/munge/munge.key")
    if not key.exists() and shutil.which("mungekey"):
        _run(["mungekey", "--create"])
        shutil.chown(key, "munge", "munge")
    os.makedirs("/run/munge", exist_ok=True)
    shutil.chown("/run/munge", "munge", "munge")
    _run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"])
    for _ in range(20):
        if _run(["munge", "-n"]).returncode == 0:
            return "/run/munge/munged.pid"
        time.sleep(0.5)
    raise RuntimeError("munged did not start")


def _stop(pidfile):
    try:
        pid = int(Path(pidfile).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, 15)
    except OSError:
        pass


@pytest.fixture(scope="module")
def slurm_cluster():
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip('snakemake-executor-plugin-slurm is not installed (pip install -e ".[slurm]")')
    if os.geteuid() != 0:
        pytest.skip("bringing up a SLURM cluster needs root")
    if CONF.exists() and MARK not in CONF.read_text():
        pytest.skip(f"{CONF} belongs to another SLURM installation; not touching it")
    reason = _install()
    if reason:
        pytest.skip(reason)
    started = []
    try:
        host = socket.gethostname().split(".")[0]
        node = _node_line()
        if node is None:
            pytest.skip("slurmd -C does not describe this node")
        _write_conf(host, node)
        munge_pid = _start_munge()
        if munge_pid:
            started.append(munge_pid)
        for daemon, pidfile in (("slurmctld", "/run/slurmctld.pid"), ("slurmd", "/run/slurmd.pid")):
            proc = _run([daemon])
            if proc.returncode != 0:
                pytest.skip(f"{daemon} does not start here: {proc.stderr.strip()[-300:]}")
            started.append(pidfile)
        state = ""
        for _ in range(60):
            state = _run(["sinfo", "-h", "-o", "%T"]).stdout.strip()
            if state in ("idle", "mixed", "allocated"):
                break
            if state.startswith(("down", "drain")):
                _run(["scontrol", "update", f"nodename={host}", "state=resume"])
            time.sleep(1)
        else:
            log = Path("/var/log/slurm/slurmd.log")
            tail = log.read_text(errors="replace")[-500:] if log.exists() else ""
            pytest.skip(f"the SLURM node did not become idle (state {state!r}): {tail}")
        yield host
    finally:
        for pidfile in reversed(started):
            _stop(pidfile)
        # Without a reachable controller every `scontrol` (which the SLURM executor plugin calls when
        # Snakemake loads it, in every later snakemake run) waits ~10 s; without a config it fails at once.
        if CONF.exists() and MARK in CONF.read_text():
            CONF.unlink()


def test_ci_preset_through_the_slurm_executor(slurm_cluster, tmp_path):
    """The whole ci preset is planned through the SLURM profile (a dry run evaluates every rule's resources, the
    beyond, lsmdp and coverage rules' included), and the jobs of its two paper tables run as SLURM jobs (the full
    preset runs once in CI, in .ci/run's end-to-end step: running it a third time here bought no other check)."""
    repo = copy_repo(tmp_path / "repo")
    t0 = time.time()
    common = (
        "--profile",
        "profiles/slurm",
        "--configfile",
        "config/ci.yaml",
        "--jobs",
        "4",
        "--slurm-status-command",
        "squeue",
        "--slurm-no-account",
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--default-resources",
        "slurm_partition=debug",
        "mem_mb=1000",
        "runtime=30",
        "--config",
        "paper_pdf=false",
    )
    plan = snakemake(repo, "-n", *common, timeout=600).stdout
    blocks = re.findall(r"^rule (\w+):\n(.*?)(?=^\S|\Z)", plan, flags=re.M | re.S)
    rules = {name for name, _ in blocks}
    assert {"solve", "time", "table", "beyond_solve", "beyond_coverage"} <= rules, sorted(rules)
    no_resources = sorted({name for name, body in blocks if "resources:" not in body})
    assert not no_resources, f"rules planned without their resources: {no_resources}"
    proc = snakemake(repo, *common, "--", "out/ci/tables/LP0d4.tex", "out/ci/tables/LP1d4.tex", timeout=1200)
    log = proc.stdout + proc.stderr
    jobs = ran_jobs(log)
    assert jobs.get("solve") == 8 and jobs.get("time") == 1, jobs
    assert "sbatch" in log.lower() or "slurm" in log.lower()
    for table in ("LP0d4", "LP1d4"):
        text = (repo / "out" / "ci" / "tables" / f"{table}.tex").read_text()
        assert "& paper-fit" in text and "data/summaries/ci/paper-fit/" in text and r"\pm" in text
    print(f"ci preset through SLURM: {time.time() - t0:.0f} s", file=sys.stderr)
