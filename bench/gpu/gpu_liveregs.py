"""Where the registers of a step kernel go: live registers along its SASS (sm_90), the path loop's and the peak's.

    python bench/gpu/gpu_liveregs.py --d 4 --basis LP0 --mode block [--arithmetic float32] [--min-blocks 0]
                                 [--at ADDR ...]

Compiles the kernel as ``bench/gpu/gpu_ptxas.py`` does (the same PTX, launch bounds by srmdp.kernels.cuda_launch's rule
unless
``--min-blocks``), assembles it with a CUDA 13 ptxas and prints ``nvdisasm --print-life-ranges``' count of live
registers: the kernel's peak, the path loop's (the largest loop nested in another,
:func:`tests.support.sm90.sass_counts`)
peak with and without its inner loops (the ziggurat's slow path), and for the loop head, the peaks and each
``--at`` address the live registers with the instruction that last wrote each (textually before it: a hint, not a
dataflow proof).  Why CUDA 13: nvdisasm 13 (nvidia-cuda-nvdisasm) computes life ranges only for the ELF format of
its own ptxas, not for the 12.9 ptxas's cubins.  Install one apart from the project's environment, e.g.
``pip install --no-deps --target /tmp/nvcc13 nvidia-cuda-nvcc==13.5.37``, and set
SRMDP_PTXAS13=/tmp/nvcc13/nvidia/cu13/bin/ptxas.  Its register counts may differ from 12.9's by a few (equal on
LP0 d=4 block: 92 without bounds); the counts of record stay those of ``bench/gpu/gpu_ptxas.py``.  No GPU needed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.support.sm90 import find_tool, last_writer, life_ranges, stub_current_device  # noqa: E402


def show_live(rows, addr):
    idx = next(i for i, r in enumerate(rows) if r[0] == addr)
    live = [r for r, ch in enumerate(rows[idx][3][1:]) if ch != " "]
    print(f"-- {rows[idx][2]} live at {addr:x} ({rows[idx][1][:60]})")
    for reg in live:
        w = last_writer(rows, idx, reg)
        print(f"   R{reg:<3d} <- " + (f"{w[0]:x} {w[1][:70]}" if w else "?"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--basis", default="LP0")
    ap.add_argument("--mode", default="block", choices=("thread", "block"))
    ap.add_argument("--arithmetic", default="float32")
    ap.add_argument("--min-blocks", type=int, help="launch bounds (0: none; default: srmdp.kernels.cuda_launch's rule)")
    ap.add_argument("--at", nargs="*", default=[], help="hex SASS addresses to list the live registers of")
    args = ap.parse_args(argv)
    ptxas = os.environ.get("SRMDP_PTXAS13")
    nvdisasm = find_tool("nvdisasm")
    if not ptxas or not nvdisasm:
        print("needs SRMDP_PTXAS13 (a CUDA 13 ptxas) and nvdisasm 13 (see the docstring)", file=sys.stderr)
        return 2
    stub_current_device()
    from numba import cuda

    from srmdp.kernels.cuda_launch import layout, signatures
    from srmdp.numerics.bases import BASES
    from srmdp.numerics.build import kernels
    from srmdp.problems import load_problem

    nb = BASES[args.basis].size(args.d)
    lay = layout(args.d, nb, arithmetic=args.arithmetic, min_blocks=args.min_blocks)
    k = kernels(load_problem("gobet2016"), args.basis, args.d, "cuda", lay, arithmetic=args.arithmetic)
    fn = k.step_thread if args.mode == "thread" else k.step_block
    bounds = fn.targetoptions.get("launch_bounds")
    ptx, _ = cuda.compile_ptx(fn.py_func, signatures("float32")["step"], cc=(9, 0), launch_bounds=bounds)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "k.ptx").write_text(ptx)
        out = subprocess.run(
            [ptxas, "-arch=sm_90", "-v", f"{tmp}/k.ptx", "-o", f"{tmp}/k.cubin"],
            capture_output=True,
            text=True,
            check=True,
        )
        rows, labels = life_ranges(Path(tmp) / "k.cubin", nvdisasm)
    print(
        f"d={args.d} {args.basis} {args.mode} {args.arithmetic} bounds={bounds}:",
        "; ".join(re.findall(r"Used \d+ registers|\d+ bytes spill stores|\d+ bytes spill loads", out.stderr)),
    )
    loops = []
    for addr, ins, _, _ in rows:
        m = re.search(r"BRA.*`\((\.L_x_\d+)\)", ins)
        if m and labels.get(m.group(1), 1 << 62) <= addr:
            loops.append((labels[m.group(1)], addr))
    nested = [a for a in loops if any(b != a and b[0] <= a[0] and a[1] <= b[1] for b in loops)]
    peak = max(rows, key=lambda r: r[2])
    print(f"kernel: {len(rows)} instructions, peak {peak[2]} live at {peak[0]:x}")
    at = [int(a, 16) for a in args.at]
    if nested:
        lo, hi = max(nested, key=lambda a: a[1] - a[0])
        inner = [b for b in loops if b != (lo, hi) and lo <= b[0] and b[1] <= hi]
        body = [r for r in rows if lo <= r[0] <= hi]
        hot = [r for r in body if not any(b[0] <= r[0] <= b[1] for b in inner)]
        hpeak = max(hot, key=lambda r: r[2])
        print(
            f"path loop {lo:x}-{hi:x}: {len(body)} instructions, peak {max(r[2] for r in body)} live; without its "
            f"inner loops {len(hot)} instructions, peak {hpeak[2]} at {hpeak[0]:x}"
        )
        at = [lo, hpeak[0]] + at
    for a in dict.fromkeys(at + [peak[0]]):
        show_live(rows, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
