"""Compile every SRMDP CUDA kernel for sm_90 without a GPU and report ptxas resources.

    python bench/gpu/gpu_ptxas.py [--d 1,4,19] [--basis LP0,LP1] [--arithmetic float64,float32] [--json out.json]
                              [--compare before.json] [--sass] [--contraction]

Stubs numba-cuda's "current device" (compute capability 9.0) so that device functions compile
with no driver, calls ``numba.cuda.compile_ptx(..., cc=(9, 0))`` for each kernel, then runs the
ptxas of the ``nvidia-cuda-nvcc-cu12`` wheel with ``-arch=sm_90 -v``.  Exit status 1 when a kernel without
launch bounds spills registers (under launch bounds, i.e. a register cap, the spills are chosen: reported, pinned
in tests/test_sm90_compile.py) or uses more than 48 KB of static shared memory.  Must run *without*
NUMBA_ENABLE_CUDASIM (the simulator does not compile).

Each kernel's theoretical occupancy on sm_90 (:func:`tests.support.sm90.occupancy`: registers, warps, blocks and shared
memory per SM, as CUDA's occupancy calculator) is printed and stored with its row; ``--compare`` prints
registers, spills and occupancy against an earlier JSON of this script (``--table``: as Markdown).
``--arithmetic``: the type the kernels compute in (``Case.arithmetic``; a row without the key is float64).
``--sass``: also disassemble each cubin (``nvdisasm`` of the nvidia-cuda-nvcc-cu12 wheel, else on PATH) and
count its instructions, FP64 ones apart, in the whole kernel and in the inner path loop
(:func:`tests.support.sm90.sass_counts`).  ``--contraction``: also count each kernel's FMA, multiply and MUFU
instructions with its calls expanded (:func:`tests.support.sm90.contraction_counts`); ``--compare`` then says per
kernel whether a change of the source kept them, the SASS evidence that it changed no value on the device (the
argument at :data:`tests.support.sm90.CONTRACTION`).  A source change is compared as ``--json before.json`` on the
old tree, ``--compare before.json`` on the new one.  The helpers are :mod:`tests.support.sm90`; this script is the
sweep.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.support.sm90 import (  # noqa: E402
    SHARED_LIMIT,
    compare,
    contraction_counts,
    find_ptxas,
    kernel_ptx,
    occupancy,
    ptxas_report,
    stub_current_device,
)


def variants(ds, bases, precisions=("float64", "float32"), arithmetics=("float64",)):
    from srmdp.numerics.bases import BASES

    for d in ds:
        for basis in bases:
            nb = BASES[basis].size(d)
            modes = ("thread", "block") if basis == "LP0" else ("block",)
            for mode in modes:
                for arith in arithmetics:
                    for prec in precisions:
                        yield d, basis, nb, mode, prec, arith


def check(
    ds,
    bases,
    precisions=("float64", "float32"),
    kernels=("step", "test"),
    verbose=True,
    only=None,
    arithmetics=("float64",),
    sass=False,
    min_blocks=None,
    pad_rows=None,
    contraction=False,
):
    """Compile and assemble; returns the list of report rows (with 'ok' and 'why').  ``min_blocks``, ``pad_rows``:
    the launch bounds and row stride of :func:`srmdp.kernels.cuda_launch.layout` (None: its defaults, i.e. the
    environment's
    SRMDP_CUDA_MIN_BLOCKS / SRMDP_CUDA_PAD_ROWS or the default rule).  ``contraction``: also each kernel's
    :func:`contraction_counts` (row key ``contraction``)."""
    from srmdp.kernels.cuda_launch import block_size, layout, signatures
    from srmdp.numerics.build import SPECIALISE_MAX_D
    from srmdp.numerics.build import kernels as build_kernels
    from srmdp.problems import load_problem

    problem = load_problem("gobet2016")

    ptxas = find_ptxas()
    if not ptxas:
        raise RuntimeError("no ptxas found (pip install -e .[cuda] brings nvidia-cuda-nvcc-cu12)")
    rows = []
    for d, basis, nb, mode, prec, arith in variants(ds, bases, precisions, arithmetics):
        if only is not None and not only(d, basis, mode, prec, arith):
            continue
        lay = layout(d, nb, arithmetic=arith, min_blocks=min_blocks, pad_rows=pad_rows)
        k = build_kernels(problem, basis, d, "cuda", lay, arithmetic=arith)
        src = {"step": k.step_thread if mode == "thread" else k.step_block, "test": k.test_errors}
        block = block_size(d, nb) if mode == "block" else 128
        specialised = d <= SPECIALISE_MAX_D["cuda"]
        sigs = signatures(prec)
        for name in kernels:
            # the error kernel does not depend on the launch mode: once per (d, basis, precision)
            if name == "test" and mode == "block" and basis == "LP0":
                continue
            t0 = time.perf_counter()
            bounds = src[name].targetoptions.get("launch_bounds")  # as the kernel's dispatcher compiles it
            ptx = kernel_ptx(k, src[name], sigs[name], bounds)
            t1 = time.perf_counter()
            rep = ptxas_report(ptx, ptxas, sass=sass, cache=Path(k.__file__).parent / "ptxas")
            if contraction:
                rep["contraction"] = contraction_counts(ptx)
            why = []
            if (rep["spill_stores"] or rep["spill_loads"]) and not bounds:  # under launch bounds: spills by choice
                why.append(f"spills {rep['spill_stores']}/{rep['spill_loads']} B")
            if rep["smem"] > SHARED_LIMIT:
                why.append(f"shared {rep['smem']} B > 48 KB")
            occ, blocks, limiter = occupancy(rep["registers"], block, rep["smem"])
            row = dict(
                d=d,
                basis=basis,
                mode=mode,
                precision=prec,
                arithmetic=arith,
                kernel=name,
                block=block,
                thread_row=dict(lay)["THREAD_ROW_DOUBLES"] if mode == "thread" else None,
                specialised=specialised,
                launch_bounds=bounds,
                compile_s=round(t1 - t0, 2),
                ok=not why,
                why="; ".join(why),
                occupancy=occ,
                blocks_per_sm=blocks,
                limiter=limiter,
                **rep,
            )
            rows.append(row)
            if verbose:
                extra = (
                    (
                        f" sass={rep['sass']} fp64={rep['sass_fp64']} path-loop={rep['loop_sass']}/fp64"
                        f" {rep['loop_fp64']} hot={rep['hot_sass']}/fp64 {rep['hot_fp64']}"
                        f"{rep['hot_fp64_ops'] or ''}"
                    )
                    if sass
                    else ""
                )
                print(
                    f"d={d:2d} {basis} {mode:6s} {prec:7s} a={arith[-2:]} {name:5s} B={block:3d}"
                    f" spec={int(specialised)}"
                    f" regs={rep['registers']:3d} stack={rep['stack']:5d} spill={rep['spill_stores']}/"
                    f"{rep['spill_loads']} smem={rep['smem']:5d} bounds={bounds or '-'}"
                    f" occ={100 * occ:5.2f}% ({blocks} blocks,"
                    f" {limiter}) ({t1 - t0:.1f}s){extra} {'OK' if not why else why}",
                    flush=True,
                )
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", default="1,2,4,6,8,9,11,12,13,14,15,16,17,18,19")
    ap.add_argument("--basis", default="LP0,LP1")
    ap.add_argument("--precision", default="float64,float32")
    ap.add_argument("--kernels", default="step,test")
    ap.add_argument("--arithmetic", default="float64", help="float64, float32 or both (comma-separated)")
    ap.add_argument("--sass", action="store_true", help="count SASS instructions, FP64 apart (nvdisasm)")
    ap.add_argument(
        "--compare-arithmetic",
        help="with --compare: compare the earlier rows of this arithmetic (e.g. float64) against this run's rows",
    )
    ap.add_argument("--float32-d", help="compile float32 only for these d (default: every d)")
    ap.add_argument("--modes", default="thread,block", help="launch modes of the step kernels to compile")
    ap.add_argument(
        "--min-blocks",
        type=int,
        help="launch bounds: blocks per SM of every specialised step kernel"
        " (0: none; default: SRMDP_CUDA_MIN_BLOCKS, else srmdp.kernels.cuda_launch's default rule)",
    )
    ap.add_argument(
        "--packed-rows", action="store_true", help="shared-memory rows at their packed length (SRMDP_CUDA_PAD_ROWS=0)"
    )
    ap.add_argument(
        "--contraction",
        action="store_true",
        help="also count each kernel's FMA, multiply and MUFU instructions, calls expanded (nvdisasm):"
        " --compare then says whether a change of the source kept the contractions",
    )
    ap.add_argument("--json")
    ap.add_argument("--compare", help="an earlier --json of this script: print the kernels' changes")
    ap.add_argument("--table", action="store_true", help="--compare as a Markdown table")
    args = ap.parse_args(argv)
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        print("unset NUMBA_ENABLE_CUDASIM: the simulator cannot compile PTX", file=sys.stderr)
        return 2
    stub_current_device()
    f32 = {int(v) for v in args.float32_d.split(",")} if args.float32_d else None
    modes = set(args.modes.split(","))

    def only(d, basis, mode, prec, arith):
        return mode in modes and (f32 is None or prec != "float32" or d in f32)

    rows = check(
        [int(v) for v in args.d.split(",")],
        args.basis.split(","),
        tuple(args.precision.split(",")),
        tuple(args.kernels.split(",")),
        only=only,
        arithmetics=tuple(args.arithmetic.split(",")),
        sass=args.sass,
        min_blocks=args.min_blocks,
        pad_rows=False if args.packed_rows else None,
        contraction=args.contraction,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        if args.compare_arithmetic:  # e.g. the committed float64 sweep ("before") against this run's float32 rows
            now = {x["arithmetic"] for x in rows}
            before = [
                dict(r, arithmetic=a)
                for r in before
                if r.get("arithmetic", "float64") == args.compare_arithmetic
                for a in now
            ]
        print("\n".join(compare(before, rows, args.table)))
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows)} kernels compiled for sm_90, {len(bad)} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
