"""Launch bounds change no arithmetic: the floating-point SASS of a step kernel with and without them (sm_90).

    python bench/gpu/gpu_bounds_fp.py [--d 4] [--basis LP0] [--mode block] [--arithmetic float32]

Under launch bounds (:func:`srmdp.kernels.cuda_launch.launch_bounds`) two things change: ptxas caps the registers
(spills: loads
and stores, no arithmetic), and the ziggurat's slow path (``rng.normal_slow_rounded``, ``@rare``) becomes a
``noinline`` call instead of being inlined at each of its call sites.  Without fast-math the only value-changing
freedom of the compiler is contraction (a multiply and an add fused into an FMA), which moves the FMA and the
multiply counts together.  So: the FMA, multiply and MUFU counts of the kernel without bounds must equal those of
the bounded kernel with each call replaced by the callee's (recursively; see CONTRACTION).  Prints every FP opcode
of both and exits 1 if those differ.  (Order and operands are not compared: equal counts with the same source and
no fast-math is the evidence; the argument is in bench/gpu_NOTES.md.)
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.sm90 import (  # noqa: E402
    CONTRACTION,
    expanded,
    functions_sass,
    kernel_function,
    kernel_ptx,
    stub_current_device,
)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--basis", default="LP0")
    ap.add_argument("--mode", default="block")
    ap.add_argument("--arithmetic", default="float32")
    args = ap.parse_args(argv)
    stub_current_device()
    from srmdp.kernels.cuda_launch import layout, signatures
    from srmdp.numerics.bases import BASES
    from srmdp.numerics.build import kernels
    from srmdp.problems import load_problem

    problem = load_problem("gobet2016")
    nb = BASES[args.basis].size(args.d)
    out = {}
    for n in (0, 8):
        k = kernels(
            problem,
            args.basis,
            args.d,
            "cuda",
            layout(args.d, nb, arithmetic=args.arithmetic, min_blocks=n),
            arithmetic=args.arithmetic,
        )
        fn = k.step_thread if args.mode == "thread" else k.step_block
        bounds = fn.targetoptions.get("launch_bounds")
        ptx = kernel_ptx(k, fn, signatures("float32")["step"], bounds)
        out[n] = functions_sass(ptx) + (bounds,)
    (free, free_calls, _), (capped, calls, bounds) = out[0], out[8]
    kname, kernel = kernel_function(free, free_calls), kernel_function(capped, calls)
    total = expanded(capped, calls, kernel)
    print(
        f"{args.basis} d={args.d} {args.mode} {args.arithmetic}: without bounds {len(free)} function(s),"
        f" {sum(free_calls[kname].values())} calls in the kernel; with bounds {bounds}: {len(capped)} functions,"
        f" {sum(calls[kernel].values())} in the kernel"
    )
    free = {kname: expanded(free, free_calls, kname)}
    ops = sorted(set(free[kname]) | set(total))
    print(f"{'opcode':24s} {'no bounds':>10s} {'bounds: kernel + calls x callee':>32s}")
    for op in ops:
        print(f"{op:24s} {free[kname][op]:10d} {total[op]:32d}{'' if free[kname][op] == total[op] else '  DIFFERS'}")

    def contraction(c):
        return {op: n for op, n in c.items() if CONTRACTION.match(op)}

    same = contraction(free[kname]) == contraction(total)
    rest = (
        "identical"
        if free[kname] == total
        else "differ (placement: " + ", ".join(op for op in ops if free[kname][op] != total[op]) + ")"
    )
    print(
        f"FMA, multiply and MUFU instructions {'identical: the same contractions' if same else 'DIFFER'};"
        f" all FP instructions {rest}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
