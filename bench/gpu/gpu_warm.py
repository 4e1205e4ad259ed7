"""Compile (or load from numba-cuda's disk cache) every GPU kernel of a selection of paper rows, in parallel.

    python bench/gpu/gpu_warm.py [--cases all|TABLE|TABLE:ROW,...] [--precision float32] [--jobs N] [--timeout 150]

One tiny ``srmdp run --device gpu`` per (basis, d, launch mode) that the selected rows need (the mode the
solver picks for each row on this device, :func:`srmdp.kernels.cuda.choose_mode`), each in its own process and all at
once: a cold step kernel compiles in 10-14 s on the H100 host, 17 of them took 20 s in parallel on its 16
cores, and a second process then loads them from the disk cache in 0.01 s.  Called by bench/gpu/gpu_campaign.sh
before the campaign (the selection of its ``--cases``).  Prints one line per kernel (exit status, compile
seconds); exit status 0 even when one fails (the campaign then compiles it itself).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def kernels_needed(spec, sms):
    """Sorted (basis, d, mode) of the paper rows selected by ``spec`` (srmdp.paper.campaign's --cases syntax)."""
    from srmdp.kernels.cuda import choose_mode
    from srmdp.paper.campaign import paper_selection
    from srmdp.paper.inputs.rows import paper_case

    need = set()
    for row in paper_selection(spec):
        case = paper_case(row.table, row=row.row)
        need.add((case.basis, case.d, choose_mode(case, sms)))
    return sorted(need, key=lambda k: (k[0], k[1], k[2]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="all")
    ap.add_argument("--precision", default="float32")
    ap.add_argument("--arithmetic", default="float64", help="float64, float32 or both, comma-separated")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds per kernel process")
    args = ap.parse_args(argv)

    from srmdp.kernels.cuda import device_info

    need = [(*k, a) for a in args.arithmetic.split(",") for k in kernels_needed(args.cases, device_info()["sms"])]
    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="srmdp-warm-"))
    running, done = [], []
    todo = list(need)
    while todo or running:
        while todo and len(running) < max(1, args.jobs):
            basis, d, mode, arith = todo.pop(0)
            out = tmp / f"{basis}-d{d}-{mode}-{arith}.json"
            cmd = [
                sys.executable,
                "-m",
                "srmdp",
                "run",
                "--d",
                str(d),
                "--basis",
                basis,
                "--dt",
                "0.5",
                "--cells",
                "1",
                "--paths",
                "32",
                "--device",
                "gpu",
                "--precision",
                args.precision,
                "--runs",
                "1",
                "--arithmetic",
                arith,
                "--test-points",
                "8",
                "--no-progress",
                "--out",
                str(out),
            ]
            env = dict(os.environ, SRMDP_CUDA_MODE=mode)
            log = out.with_suffix(".log")  # a file, not a pipe: a chatty process never blocks on a full pipe
            with open(log, "w") as fh:
                proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
            running.append((proc, (basis, d, mode, arith), out, time.perf_counter()))
        time.sleep(0.2)
        for item in list(running):
            proc, key, out, started = item
            wall = time.perf_counter() - started
            if proc.poll() is None and wall < args.timeout:
                continue
            if proc.poll() is None:
                proc.kill()
            running.remove(item)
            proc.wait()
            err = out.with_suffix(".log").read_text(errors="replace")
            compile_s = json.loads(out.read_text())["compile_seconds"] if out.exists() else None
            done.append(key)
            note = f"compile {compile_s:.2f} s" if compile_s is not None else "no result: " + err.strip()[-300:]
            print(
                f"warm {key[0]} d={key[1]:2d} {key[2]:6s} {key[3]} rc={proc.returncode} wall {wall:5.1f} s {note}",
                flush=True,
            )
    print(f"warm: {len(done)} kernels in {time.perf_counter() - t0:.1f} s ({args.jobs} at once)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
