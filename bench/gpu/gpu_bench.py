"""Time SRMDP on the GPU: path-steps per second per GPU, paper cases against the paper's GPU seconds.

    python bench/gpu/gpu_bench.py --cases LP0d4:0.2,LP0d4:0.1 [--precision float32] [--runs 1]
        [--test-points 1000] [--modes auto] [--budget 300] [--out-dir data/gpu] [--compare-cpu]

A case is ``TABLE:DT`` or ``TABLE:DT:ROW`` (see ``srmdp cases``).  Each case runs through
``srmdp.runs.run.run_case(device="gpu")`` exactly as ``srmdp run --device gpu`` does (kernels compiled
once per size and reused across cases), and its result JSON is written to
``OUT_DIR/<table>_r<row>_<precision>[_<mode>].json`` (sealed as the CLI seals it).
``--budget`` skips a case whose predicted time (its path-steps over the last rate measured for the
same basis) would overrun the seconds left.  ``--compare-cpu`` also runs the CPU path (float64,
all cores) and reports the largest coefficient difference and the indicators of both.
Path-steps per run = K M N (N+1) / 2 (pass 1 forward steps, as in the paper's counts);
the rate printed is path-steps / min seconds per run (compilation excluded).
``--set dt=0.5,cells=2,paths=8`` changes fields of every case (a tiny case: the simulator's dry runs,
tests/test_gpu_tools.py); the paper's GPU seconds then no longer apply to it.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def parse_cases(spec):
    out = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split(":")
        table = parts[0]
        dt = float(parts[1]) if len(parts) > 1 and parts[1] else None
        row = int(parts[2]) if len(parts) > 2 else None
        out.append((table, dt, row))
    return out


def parse_set(spec):
    """``name=value,...`` -> {name: int or float} (fields of srmdp.case.cases.Case)."""
    out = {}
    for item in filter(None, (v.strip() for v in (spec or "").split(","))):
        name, value = item.split("=")
        out[name] = float(value) if any(ch in value for ch in ".e") else int(value)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--precision", default="float32")
    ap.add_argument("--arithmetic", default="float64", help="the kernels' arithmetic (float32: the paper's)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--test-points", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--modes", default="auto", help="comma list of auto, thread, block")
    ap.add_argument("--budget", type=float, default=math.inf, help="seconds for the whole script")
    ap.add_argument("--out-dir", default="data/gpu")
    ap.add_argument("--summary", help="append one JSON line per case here")
    ap.add_argument("--compare-cpu", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--pack", help="tar.gz of OUT_DIR's JSON files, rewritten after every case")
    ap.add_argument("--set", help="name=value,... fields changed in every case (e.g. a tiny dry run)")
    args = ap.parse_args(argv)

    from dataclasses import replace

    from srmdp.case.results import write_json_atomic
    from srmdp.exceptions import ConfigError
    from srmdp.kernels.cuda import CudaBackend
    from srmdp.paper.inputs.rows import find_row, paper_case
    from srmdp.problems import load_problem
    from srmdp.runs.run import run_case

    t_start = time.perf_counter()
    rates = {}
    rows = []
    out_dir = Path(args.out_dir)
    for table, dt, row in parse_cases(args.cases):
        for mode in args.modes.split(","):
            changes = parse_set(args.set)
            case = replace(
                paper_case(table, dt=dt, row=row, precision=args.precision, arithmetic=args.arithmetic), **changes
            )
            paper = find_row(table, dt=dt, row=row)
            left = args.budget - (time.perf_counter() - t_start)
            # rate in path-steps x d per second: measured on the same basis, nearest d class first
            rate = rates.get((case.basis, case.d >= 9)) or rates.get(case.basis)
            predicted = case.path_steps * case.d * args.runs / rate if rate else None
            if predicted is not None and predicted * 1.15 + 10 > left:
                print(
                    f"skip {case.label} {args.precision} {mode}: predicted {predicted:.0f} s > {left:.0f} s left",
                    flush=True,
                )
                continue
            backend = CudaBackend(load_problem("gobet2016"), mode=mode)
            try:
                res = run_case(
                    case,
                    runs=args.runs,
                    test_points=args.test_points,
                    seed=args.seed,
                    device="gpu",
                    progress=False,
                    backend=backend,
                )
            except ConfigError as exc:
                print(f"skip {case.label}: {exc}", flush=True)
                continue
            secs = res["seconds_per_run_min"]
            ps = res["path_steps_per_run"] / secs
            rates[(case.basis, case.d >= 9)] = rates[case.basis] = ps * case.d
            entry = {
                "label": case.label,
                "table": table,
                "row": paper["row"],
                "d": case.d,
                "dt": case.dt,
                "basis": case.basis,
                "K": case.strata,
                "M": case.paths,
                "precision": args.precision,
                "arithmetic": args.arithmetic,
                "mode": backend.mode,
                "block": backend.lay["BLOCK_THREADS"] if backend.mode == "block" else None,
                "path_steps": res["path_steps_per_run"],
                "seconds": secs,
                "path_steps_per_s": ps,
                "compile_s": res["compile_seconds"],
                "paper_gpu_s": paper["gpu_s"],
                "speedup_vs_paper_gpu": paper["gpu_s"] / secs,
                "mse_y_max": res["mse_y_max"],
                "mse_y_av": res["mse_y_av"],
                "mse_z_av": res["mse_z_av"],
                "gpu": res["provenance"]["hardware"]["model"],
                # what the step kernel was compiled with (the A/B of gpu_next.sh): launch bounds, row strides
                "launch_bounds": res["provenance"]["hardware"].get("launch_bounds"),
                "thread_row_doubles": res["provenance"]["hardware"].get("thread_row_doubles"),
                "tile_stride": backend.lay["TILE_WIDTH"] if backend.mode == "block" else None,
            }
            if args.compare_cpu:
                import numpy as np

                from srmdp.kernels.cpu import CpuBackend

                c64 = replace(case, precision="float64")
                if args.precision == "float64" and args.runs == 1:
                    gb, rg = backend, res
                else:
                    gb = CudaBackend(load_problem("gobet2016"), mode=mode)
                    rg = run_case(
                        c64,
                        runs=1,
                        test_points=args.test_points,
                        seed=args.seed,
                        device="gpu",
                        progress=False,
                        backend=gb,
                    )
                cb = CpuBackend(load_problem("gobet2016"))
                rc = run_case(
                    c64, runs=1, test_points=args.test_points, seed=args.seed, device="cpu", progress=False, backend=cb
                )
                cg = gb.coefficients()
                entry["cpu_vs_gpu"] = {
                    "max_abs_coef_diff": float(np.abs(cg - cb.coef).max()),
                    "max_abs_coef": float(np.abs(cb.coef).max()),
                    "frac_coef_bitwise_equal": float(np.mean(cg == cb.coef)),
                    "cpu": [rc["mse_y_max"], rc["mse_y_av"], rc["mse_z_av"]],
                    "gpu": [rg["mse_y_max"], rg["mse_y_av"], rg["mse_z_av"]],
                    "cpu_seconds": rc["seconds_per_run_min"],
                    "gpu_seconds": rg["seconds_per_run_min"],
                }
            rows.append(entry)
            if not args.no_write:
                suffix = "" if mode == "auto" else f"_{mode}"
                arith = "" if args.arithmetic == "float64" else "_a32"
                name = f"{table}_r{paper['row']}_{args.precision}{arith}{suffix}.json"
                write_json_atomic(out_dir / name, res)
            if args.summary:
                with open(args.summary, "a") as fh:
                    fh.write(json.dumps(entry) + "\n")
            if args.pack:  # re-pack after every case: a run stopped at its time limit keeps what it did
                import tarfile

                tmp = args.pack + ".tmp"
                with tarfile.open(tmp, "w:gz") as tar:
                    for f in sorted(out_dir.glob("*.json*")):
                        tar.add(f, arcname=str(f))
                Path(tmp).replace(args.pack)
            extra = ""
            if "cpu_vs_gpu" in entry:
                cv = entry["cpu_vs_gpu"]
                extra = (
                    f"  cpu-vs-gpu: max|dcoef| {cv['max_abs_coef_diff']:.2e}"
                    f" (bitwise {cv['frac_coef_bitwise_equal']:.3f})"
                    f" cpu {cv['cpu'][0]:.4f} gpu {cv['gpu'][0]:.4f}"
                )
            print(
                f"{case.label:14s} {args.precision} a={args.arithmetic} {backend.mode:6s} K={case.strata:<8d}"
                f" M={case.paths:<6d}"
                f" {secs:9.3f} s  {ps:.3e} path-steps/s  paper GPU {paper['gpu_s']:8.2f} s"
                f" (x{paper['gpu_s'] / secs:.1f})  compile {res['compile_seconds']:.1f} s"
                f"  MSE_Y,max {res['mse_y_max']:.3f}{extra}",
                flush=True,
            )
    print(f"{'case':14s} {'mode':6s} {'seconds':>9s} {'path-steps/s':>12s} {'paper GPU s':>11s} {'speed-up':>8s}")
    for e in rows:
        print(
            f"{e['label']:14s} {e['mode']:6s} {e['seconds']:9.3f} {e['path_steps_per_s']:12.3e}"
            f" {e['paper_gpu_s']:11.2f} {e['speedup_vs_paper_gpu']:8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
