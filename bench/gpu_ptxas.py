"""Compile every SRMDP CUDA kernel for sm_90 without a GPU and report ptxas resources.

    python bench/gpu_ptxas.py [--d 1,4,19] [--basis LP0,LP1] [--arithmetic float64,float32] [--json out.json]
                              [--compare before.json] [--sass] [--contraction]

Stubs numba-cuda's "current device" (compute capability 9.0) so that device functions compile
with no driver, calls ``numba.cuda.compile_ptx(..., cc=(9, 0))`` for each kernel, then runs the
ptxas of the ``nvidia-cuda-nvcc-cu12`` wheel with ``-arch=sm_90 -v``.  Exit status 1 when a kernel without
launch bounds spills registers (under launch bounds, i.e. a register cap, the spills are chosen: reported, pinned
in tests/test_sm90_compile.py) or uses more than 48 KB of static shared memory.  Must run *without*
NUMBA_ENABLE_CUDASIM (the simulator does not compile).

Each kernel's theoretical occupancy on sm_90 (:func:`occupancy`: registers, warps, blocks and shared
memory per SM, as CUDA's occupancy calculator) is printed and stored with its row; ``--compare`` prints
registers, spills and occupancy against an earlier JSON of this script (``--table``: as Markdown).
``--arithmetic``: the type the kernels compute in (``Case.arithmetic``; a row without the key is float64).
``--sass``: also disassemble each cubin (``nvdisasm`` of the nvidia-cuda-nvcc-cu12 wheel, else on PATH) and
count its instructions, FP64 ones apart, in the whole kernel and in the inner path loop (:func:`sass_counts`).
``--contraction``: also count each kernel's FMA, multiply and MUFU instructions with its calls expanded
(:func:`contraction_counts`); ``--compare`` then says per kernel whether a change of the source kept them, the SASS
evidence that it changed no value on the device (the argument at :data:`CONTRACTION`).  A source change is compared
as ``--json before.json`` on the old tree, ``--compare before.json`` on the new one.
"""

import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
SHARED_LIMIT = 48 * 1024
# sm_90 (H100) per-SM limits, CUDA occupancy calculator / CUDA C++ Programming Guide, compute capability 9.0
SM90 = dict(regs=65536, warps=64, blocks=32, reg_unit=256, smem=228 * 1024, smem_reserved=1024, smem_unit=128)


def occupancy(registers, threads, smem=0, arch=SM90):
    """Theoretical occupancy of a kernel on one SM: (resident warps / max warps, blocks per SM, limiter).

    Registers are allocated per warp in units of ``reg_unit`` (registers x 32 rounded up to 256 on sm_90);
    each block takes its static shared memory plus 1 KB reserved by the system, rounded up to 128 B.
    """
    warps = -(-threads // 32)
    per_warp = -(-registers * 32 // arch["reg_unit"]) * arch["reg_unit"]
    per_block = -(-(smem + arch["smem_reserved"]) // arch["smem_unit"]) * arch["smem_unit"]
    limits = {"registers": arch["regs"] // per_warp // warps if registers else arch["blocks"],
              "warps": arch["warps"] // warps, "blocks": arch["blocks"], "shared": arch["smem"] // per_block}
    blocks = min(limits.values())
    limiter = min(limits, key=lambda k: (limits[k], k == "registers"))  # registers only when they alone limit
    return blocks * warps / arch["warps"], blocks, limiter


def stub_current_device(cc=(9, 0)):
    """Make numba-cuda believe a device of compute capability ``cc`` is current."""
    import numba.cuda.compiler as compiler
    import numba.cuda.dispatcher as dispatcher

    fake = types.SimpleNamespace(compute_capability=cc, name=f"sm_{cc[0]}{cc[1]} stub")
    dispatcher.get_current_device = lambda: fake
    compiler.get_current_device = lambda: fake


def find_ptxas():
    env = os.environ.get("SRMDP_PTXAS")
    if env:
        return env
    try:
        import nvidia.cuda_nvcc

        for base in nvidia.cuda_nvcc.__path__:
            cand = Path(base) / "bin" / "ptxas"
            if cand.exists():
                return str(cand)
    except ImportError:
        pass
    import shutil

    return shutil.which("ptxas")


_RE = {
    "registers": re.compile(r"Used (\d+) registers"),
    "stack": re.compile(r"(\d+) bytes stack frame"),
    "spill_stores": re.compile(r"(\d+) bytes spill stores"),
    "spill_loads": re.compile(r"(\d+) bytes spill loads"),
    "smem": re.compile(r"(\d+) bytes smem"),
}


def find_tool(name):
    """A CUDA binary (ptxas, nvdisasm) of the CUDA wheels (nvidia-cuda-nvcc-cu12; nvidia-cuda-nvdisasm, which
    installs under nvidia/cu13), else on PATH."""
    import shutil

    for base in sys.path:
        for sub in ("cuda_nvcc", "cu13"):
            cand = Path(base) / "nvidia" / sub / "bin" / name
            if cand.exists():
                return str(cand)
    return shutil.which(name)


# FP64 SASS: the double-precision pipe (DADD, DMUL, DFMA, DSETP, DMNMX, ...) and conversions to or from double
_FP64 = re.compile(r"^(D[A-Z]+\b|[FI]2[FI]\S*\.F64|F2F\S*\.F64|MUFU\.\w+\.64|DMMA)")
_INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def labelled_matches(text, pattern):
    """[(address, match)] of the SASS lines ``pattern`` matches (group 1: the address), and {label: address of the
    first instruction after it} (``.L_x_N:`` lines)."""
    rows, labels, pending = [], {}, []
    for line in text.splitlines():
        lab = re.match(r"^\s*(\.L_x_\d+):", line)
        if lab:
            pending.append(lab.group(1))
            continue
        m = pattern.search(line)
        if m:
            addr = int(m.group(1), 16)
            for name in pending:
                labels[name] = addr
            pending = []
            rows.append((addr, m))
    return rows, labels


def sass_counts(sass):
    """Instruction counts of a kernel's SASS: total and FP64, and those of the path loop.

    Loops are the spans [label, backward BRA to it].  The path loop (over j > i, :func:`srmdp.scheme.continue_path`)
    is the largest loop nested in another one (the loop over paths); its ``hot`` count leaves out the loops nested
    in it (the ziggurat's rare branches, ``normal_slow``, a ``while`` loop inlined there)."""
    found, labels = labelled_matches(sass, _INSN)
    lines = [(addr, m.group(2), m.group(3).replace(" ", "")) for addr, m in found]

    def fp64(op, args):
        return bool(_FP64.match(op) or _FP64.match(op + args))

    loops = []
    for addr, op, args in lines:
        t = re.search(r"\((\.L_x_\d+)\)", args)
        if op.startswith("BRA") and t and labels.get(t.group(1), addr + 1) <= addr:
            loops.append((labels[t.group(1)], addr))
    nested = [a for a in loops if any(b != a and b[0] <= a[0] and a[1] <= b[1] for b in loops)]
    out = {"sass": len(lines), "sass_fp64": sum(fp64(op, a) for _, op, a in lines)}
    if not nested:
        return dict(out, loop_sass=0, loop_fp64=0, hot_sass=0, hot_fp64=0, hot_fp64_ops=[])
    lo, hi = max(nested, key=lambda a: a[1] - a[0])
    inner = [b for b in loops if b != (lo, hi) and lo <= b[0] and b[1] <= hi]
    body = [x for x in lines if lo <= x[0] <= hi]
    hot = [x for x in body if not any(b[0] <= x[0] <= b[1] for b in inner)]
    return dict(out, loop_sass=len(body), loop_fp64=sum(fp64(op, a) for _, op, a in body), hot_sass=len(hot),
                hot_fp64=sum(fp64(op, a) for _, op, a in hot),
                hot_fp64_ops=sorted({op for _, op, a in hot if fp64(op, a)}))


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
        sys.exit("needs ptxas (nvidia-cuda-nvcc-cu12) and nvdisasm (pip install nvidia-cuda-nvdisasm:"
                 " in the [test] extra)")
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        subprocess.run([ptxas, "-arch=sm_90", str(src), "-o", str(cubin)], check=True, capture_output=True)
        text = subprocess.run([nvdisasm, str(cubin)], check=True, capture_output=True, text=True).stdout
    return fp_by_function(text)


def fp_by_function(text):
    """:func:`functions_sass` of nvdisasm's text."""
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


def kernel_function(funcs, calls):
    """The kernel among :func:`functions_sass`'s functions: the one nobody calls."""
    return next(f for f in funcs if not any(f in c for c in calls.values()))


def contraction_counts(ptx):
    """The kernel's FMA, multiply and MUFU counts with every call replaced by the callee's (:func:`expanded`): equal
    counts before and after a change of the source = the same contractions (:data:`CONTRACTION`)."""
    funcs, calls = functions_sass(ptx)
    total = expanded(funcs, calls, kernel_function(funcs, calls))
    return {op: n for op, n in sorted(total.items()) if CONTRACTION.match(op)}


@functools.cache
def _toolchain():
    """The versions the PTX and ptxas's report depend on besides the kernel's source: numba, llvmlite and the
    CUDA wheels (NVVM, ptxas)."""
    from importlib import metadata

    prefixes = ("numba", "llvmlite", "nvidia-cuda")
    names = sorted(f"{d.metadata['Name']} {d.version}" for d in metadata.distributions()
                   if (d.metadata["Name"] or "").lower().startswith(prefixes))
    return "; ".join(names)


def _cached(folder, key_parts, make):
    """``make()``'s text, kept in ``folder`` under a hash of ``key_parts`` (None: no cache, always ``make()``).
    Written atomically: processes compiling in parallel share the folder."""
    if folder is None or os.environ.get("SRMDP_PTX_CACHE") == "0":
        return make()
    import hashlib

    path = Path(folder) / (hashlib.sha256(repr(key_parts).encode()).hexdigest()[:24] + ".txt")
    if path.exists():
        return path.read_text()
    text = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return text


def _compile_context():
    """What shapes the PTX besides the generated module's text: the numba-cuda patches (srmdp/cuda_patches.py: no
    FMA contraction under SRMDP_CUDA_FMA=0, rare functions as calls), srmdp/cuda.py which applies them, and the
    NUMBA_* / SRMDP_CUDA_* settings."""
    import hashlib

    import srmdp.cuda
    import srmdp.cuda_patches

    text = "".join(Path(m.__file__).read_text() for m in (srmdp.cuda, srmdp.cuda_patches))
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(("NUMBA_", "SRMDP_CUDA_")))
    return hashlib.sha256(text.encode()).hexdigest(), env


def kernel_ptx(module, fn, sig, bounds, cc=(9, 0)):
    """``numba.cuda.compile_ptx`` of kernel ``fn`` (a dispatcher of the generated kernel ``module``), cached on disk
    beside the module: the module's folder is keyed by its source and numba's versions (srmdp.build.kernels), the
    file by the kernel, its signature, launch bounds, target, the toolchain's versions and the compile's context
    (:func:`_compile_context`), so a change of any of them compiles anew.  SRMDP_PTX_CACHE=0 always compiles."""
    from numba import cuda

    folder = Path(module.__file__).parent / "ptx"
    key = (fn.__name__, str(sig), bounds, cc, _toolchain(), _compile_context())
    return _cached(folder, key, lambda: cuda.compile_ptx(fn.py_func, sig, cc=cc, launch_bounds=bounds)[0])


def _ptxas_text(ptx, ptxas, arch, cubin):
    src = cubin.with_suffix(".ptx")
    src.write_text(ptx)
    out = subprocess.run([ptxas, f"-arch={arch}", "-v", str(src), "-o", str(cubin)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"ptxas failed: {out.stderr.strip()[:2000]}")
    return out.stderr + out.stdout


def ptxas_report(ptx, ptxas, arch="sm_90", sass=False, cache=None):
    """ptxas's resources of ``ptx`` (registers, stack, spills, shared memory), with ``sass`` its SASS counts.
    ``cache``: a folder keeping ptxas's report per (PTX, ptxas, arch) (not with ``sass``, which needs the cubin)."""
    if not sass:
        def make():
            with tempfile.TemporaryDirectory() as tmp:
                return _ptxas_text(ptx, ptxas, arch, Path(tmp) / "k.cubin")

        key = (ptx, os.path.realpath(ptxas), arch, _toolchain())
        return _parse_ptxas(_cached(cache, key, make))
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        text = _ptxas_text(ptx, ptxas, arch, cubin)
        tool = find_tool("nvdisasm")
        if not tool:
            raise RuntimeError("no nvdisasm (pip install nvidia-cuda-nvcc-cu12 or nvidia-cuda-nvdisasm-cu12)")
        dis = subprocess.run([tool, "-hex", str(cubin)], capture_output=True, text=True, check=True).stdout
    rep = _parse_ptxas(text)
    rep.update(sass_counts(dis))
    return rep


def _parse_ptxas(text):
    rep = {}
    for key, rx in _RE.items():
        vals = [int(v) for v in rx.findall(text)]
        rep[key] = max(vals) if vals else 0
    return rep


def variants(ds, bases, precisions=("float64", "float32"), arithmetics=("float64",)):
    from srmdp.bases import BASES

    for d in ds:
        for basis in bases:
            nb = BASES[basis].size(d)
            modes = ("thread", "block") if basis == "LP0" else ("block",)
            for mode in modes:
                for arith in arithmetics:
                    for prec in precisions:
                        yield d, basis, nb, mode, prec, arith


def check(ds, bases, precisions=("float64", "float32"), kernels=("step", "test"), verbose=True, only=None,
          arithmetics=("float64",), sass=False, min_blocks=None, pad_rows=None, contraction=False):
    """Compile and assemble; returns the list of report rows (with 'ok' and 'why').  ``min_blocks``, ``pad_rows``:
    the launch bounds and row stride of :func:`srmdp.cuda_launch.layout` (None: its defaults, i.e. the environment's
    SRMDP_CUDA_MIN_BLOCKS / SRMDP_CUDA_PAD_ROWS or the default rule).  ``contraction``: also each kernel's
    :func:`contraction_counts` (row key ``contraction``)."""
    from srmdp.build import SPECIALISE_MAX_D
    from srmdp.build import kernels as build_kernels
    from srmdp.cuda_launch import block_size, layout, signatures
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
            row = dict(d=d, basis=basis, mode=mode, precision=prec, arithmetic=arith, kernel=name, block=block,
                       thread_row=dict(lay)["THREAD_ROW_DOUBLES"] if mode == "thread" else None,
                       specialised=specialised, launch_bounds=bounds, compile_s=round(t1 - t0, 2), ok=not why,
                       why="; ".join(why), occupancy=occ, blocks_per_sm=blocks, limiter=limiter, **rep)
            rows.append(row)
            if verbose:
                extra = (f" sass={rep['sass']} fp64={rep['sass_fp64']} path-loop={rep['loop_sass']}/fp64"
                         f" {rep['loop_fp64']} hot={rep['hot_sass']}/fp64 {rep['hot_fp64']}"
                         f"{rep['hot_fp64_ops'] or ''}") if sass else ""
                print(f"d={d:2d} {basis} {mode:6s} {prec:7s} a={arith[-2:]} {name:5s} B={block:3d}"
                      f" spec={int(specialised)}"
                      f" regs={rep['registers']:3d} stack={rep['stack']:5d} spill={rep['spill_stores']}/"
                      f"{rep['spill_loads']} smem={rep['smem']:5d} bounds={bounds or '-'}"
                      f" occ={100 * occ:5.2f}% ({blocks} blocks,"
                      f" {limiter}) ({t1 - t0:.1f}s){extra} {'OK' if not why else why}", flush=True)
    return rows


def _key(r):
    return (r["kernel"], r["basis"], r["mode"], r["precision"], r.get("arithmetic", "float64"), r["d"])


def contraction_change(before, after):
    """'same', the opcodes whose counts differ ('FFMA 389 -> 390'), or '-' where a row has no counts."""
    if "contraction" not in before or "contraction" not in after:
        return "-"
    b, a = before["contraction"], after["contraction"]
    diff = [f"{op} {b.get(op, 0)} -> {a.get(op, 0)}" for op in sorted(set(b) | set(a)) if b.get(op, 0) != a.get(op, 0)]
    return "; ".join(diff) or "same"


def compare(before, after, markdown=False):
    """Lines comparing two lists of rows (registers, spill stores, occupancy, contractions) kernel by kernel."""
    old = {_key(r): r for r in before}
    head = ("kernel", "basis", "mode", "precision", "arithmetic", "d", "regs before", "after", "spill B before",
            "after", "occupancy before", "after", "FMA/MUL/MUFU")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] if markdown else ["  ".join(head)]
    for r in sorted(after, key=_key):
        b = old.get(_key(r))
        if b is None:
            continue
        cells = [*_key(r), b["registers"], r["registers"], b["spill_stores"], r["spill_stores"]]
        cells += [f"{100 * occupancy(x['registers'], x['block'], x['smem'])[0]:.2f} %" for x in (b, r)]
        cells.append(contraction_change(b, r))
        lines.append("| " + " | ".join(map(str, cells)) + " |" if markdown else "  ".join(map(str, cells)))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", default="1,2,4,6,8,9,11,12,13,14,15,16,17,18,19")
    ap.add_argument("--basis", default="LP0,LP1")
    ap.add_argument("--precision", default="float64,float32")
    ap.add_argument("--kernels", default="step,test")
    ap.add_argument("--arithmetic", default="float64", help="float64, float32 or both (comma-separated)")
    ap.add_argument("--sass", action="store_true", help="count SASS instructions, FP64 apart (nvdisasm)")
    ap.add_argument("--compare-arithmetic", help="with --compare: compare the earlier rows of this arithmetic"
                    " (e.g. float64) against this run's rows")
    ap.add_argument("--float32-d", help="compile float32 only for these d (default: every d)")
    ap.add_argument("--modes", default="thread,block", help="launch modes of the step kernels to compile")
    ap.add_argument("--min-blocks", type=int, help="launch bounds: blocks per SM of every specialised step kernel"
                    " (0: none; default: SRMDP_CUDA_MIN_BLOCKS, else srmdp.cuda_launch's default rule)")
    ap.add_argument("--packed-rows", action="store_true",
                    help="shared-memory rows at their packed length (SRMDP_CUDA_PAD_ROWS=0)")
    ap.add_argument("--contraction", action="store_true",
                    help="also count each kernel's FMA, multiply and MUFU instructions, calls expanded (nvdisasm):"
                    " --compare then says whether a change of the source kept the contractions")
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
    rows = check([int(v) for v in args.d.split(",")], args.basis.split(","), tuple(args.precision.split(",")),
                 tuple(args.kernels.split(",")), only=only, arithmetics=tuple(args.arithmetic.split(",")),
                 sass=args.sass, min_blocks=args.min_blocks, pad_rows=False if args.packed_rows else None,
                 contraction=args.contraction)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        if args.compare_arithmetic:  # e.g. the committed float64 sweep ("before") against this run's float32 rows
            now = {x["arithmetic"] for x in rows}
            before = [dict(r, arithmetic=a) for r in before
                      if r.get("arithmetic", "float64") == args.compare_arithmetic for a in now]
        print("\n".join(compare(before, rows, args.table)))
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows)} kernels compiled for sm_90, {len(bad)} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
