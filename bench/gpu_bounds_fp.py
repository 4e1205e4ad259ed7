"""Launch bounds change no arithmetic: the floating-point SASS of a step kernel with and without them (sm_90).

    python bench/gpu_bounds_fp.py [--d 4] [--basis LP0] [--mode block] [--arithmetic float32]

Under launch bounds (:func:`srmdp.cuda.launch_bounds`) two things change: ptxas caps the registers (spills: loads
and stores, no arithmetic), and the ziggurat's slow path (``rng.normal_slow_rounded``, ``@rare``) becomes a
``noinline`` call instead of being inlined at each of its call sites.  Without fast-math the only value-changing
freedom of the compiler is contraction (a multiply and an add fused into an FMA), which moves the FMA and the
multiply counts together.  So: the FMA, multiply and MUFU counts of the kernel without bounds must equal those of
the bounded kernel with each call replaced by the callee's (recursively; see CONTRACTION).  Prints every FP opcode
of both and exits 1 if those differ.  (Order and operands are not compared: equal counts with the same source and
no fast-math is the evidence; the argument is in bench/gpu_NOTES.md.)
"""

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpu_ptxas import find_tool, stub_current_device  # noqa: E402

FP = re.compile(r"^(F(FMA|MUL|ADD|SETP|MNMX|SEL|CHK)|D(FMA|MUL|ADD|SETP|MNMX)|MUFU|F2F|I2F|F2I|FRND|HFMA2)")
# Without fast-math the compiler may change a value in one way only: contracting a multiply and an add into an FMA
# (FFMA/DFMA in place of FMUL/DMUL + FADD/DADD).  So the evidence is that the FMA and multiply counts (and MUFU's)
# match: a contraction moves both.  Adds, comparisons, selects and conversions of a given value may differ in number
# with the code's placement (an add duplicated into both arms of a branch instead of a select before one add; one
# conversion per return point of a called function, shared ones when inlined) without changing any value.
CONTRACTION = re.compile(r"^(FFMA|FMUL|DFMA|DMUL|MUFU|HFMA2(?!\()|HMUL2)")


def functions_sass(ptx):
    """{function: Counter of its FP opcodes (with modifiers)}, {function: Counter of the functions it calls}."""
    ptxas, nvdisasm = find_tool("ptxas"), find_tool("nvdisasm")
    if not (ptxas and nvdisasm):
        sys.exit("gpu_bounds_fp: needs ptxas (nvidia-cuda-nvcc-cu12) and nvdisasm (pip install nvidia-cuda-nvdisasm:"
                 " in the [test] extra)")
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        subprocess.run([ptxas, "-arch=sm_90", str(src), "-o", str(cubin)], check=True, capture_output=True)
        text = subprocess.run([nvdisasm, str(cubin)], check=True, capture_output=True, text=True).stdout
    funcs, calls, name = {}, {}, None
    for line in text.splitlines():
        # a function starts at its section (.text.<kernel>) or, for device functions and ptxas's internal
        # subroutines placed in the kernel's section, at its label ($<kernel>$<function>:, $__internal_...:)
        m = re.match(r"\s*\.section\s+\.text\.([^,\s]+)", line) or re.match(r"\s*(\$[^\s:]+):", line)
        if m:
            name = m.group(1)
            funcs[name], calls[name] = Counter(), Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);", line)
        if m and name:
            op = m.group(1)
            if op.startswith("HFMA2") and re.match(r"\s*R\w+,\s*-RZ,\s*RZ,", m.group(2)):
                op = "HFMA2(constant)"  # ptxas's idiom for a constant into a register (-0 x 0 + imm): no data
            if FP.match(op):
                funcs[name][op] += 1
            if op.startswith("CALL"):
                t = re.search(r"`\(([^)]+)\)", m.group(2))
                calls[name][t.group(1) if t else m.group(2).strip()] += 1
    return funcs, calls


def expanded(funcs, calls, root):
    """FP opcodes of ``root`` with every call replaced by the callee's (recursively): the inlined equivalent."""
    total = Counter(funcs[root])
    for callee, n in calls[root].items():
        if callee not in funcs:
            raise RuntimeError(f"call target {callee[:80]!r} not found")
        for op, c in expanded(funcs, calls, callee).items():
            total[op] += n * c
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--basis", default="LP0")
    ap.add_argument("--mode", default="block")
    ap.add_argument("--arithmetic", default="float32")
    args = ap.parse_args(argv)
    stub_current_device()
    from numba import cuda

    from srmdp.bases import BASES
    from srmdp.build import kernels
    from srmdp.cuda import layout, signatures
    from srmdp.problems import load_problem

    problem = load_problem("gobet2016")
    nb = BASES[args.basis].size(args.d)
    out = {}
    for n in (0, 8):
        k = kernels(problem, args.basis, args.d, "cuda", layout(args.d, nb, arithmetic=args.arithmetic, min_blocks=n),
                    arithmetic=args.arithmetic)
        fn = k.step_thread if args.mode == "thread" else k.step_block
        bounds = fn.targetoptions.get("launch_bounds")
        ptx, _ = cuda.compile_ptx(fn.py_func, signatures("float32")["step"], cc=(9, 0), launch_bounds=bounds)
        out[n] = functions_sass(ptx) + (bounds,)
    (free, free_calls, _), (capped, calls, bounds) = out[0], out[8]
    kname = next(f for f in free if not any(f in c for c in free_calls.values()))
    kernel = next(f for f in capped if not any(f in c for c in calls.values()))  # the one nobody calls
    total = expanded(capped, calls, kernel)
    print(f"{args.basis} d={args.d} {args.mode} {args.arithmetic}: without bounds {len(free)} function(s),"
          f" {sum(free_calls[kname].values())} calls in the kernel; with bounds {bounds}: {len(capped)} functions,"
          f" {sum(calls[kernel].values())} in the kernel")
    free = {kname: expanded(free, free_calls, kname)}
    ops = sorted(set(free[kname]) | set(total))
    print(f"{'opcode':24s} {'no bounds':>10s} {'bounds: kernel + calls x callee':>32s}")
    for op in ops:
        print(f"{op:24s} {free[kname][op]:10d} {total[op]:32d}{'' if free[kname][op] == total[op] else '  DIFFERS'}")

    def contraction(c):
        return {op: n for op, n in c.items() if CONTRACTION.match(op)}

    same = contraction(free[kname]) == contraction(total)
    rest = "identical" if free[kname] == total else "differ (placement: " + ", ".join(
        op for op in ops if free[kname][op] != total[op]) + ")"
    print(f"FMA, multiply and MUFU instructions {'identical: the same contractions' if same else 'DIFFER'};"
          f" all FP instructions {rest}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
