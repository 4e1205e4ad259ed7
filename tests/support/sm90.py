"""The offline sm_90 helpers of the GPU tools (bench/gpu/) and of their tests: no GPU, no driver.

- :func:`occupancy`: a kernel's theoretical occupancy on one SM, as CUDA's occupancy calculator computes it;
- :func:`stub_current_device`: numba-cuda compiles for compute capability 9.0 with no device;
- :func:`kernel_ptx`, :func:`ptxas_report`: a kernel's PTX and ptxas's resources (registers, spills, shared
  memory), both cached on disk beside the generated kernel module (:func:`cached`);
- :func:`sass_counts`, :func:`fp_by_function`, :func:`expanded`, :func:`contraction_counts`: scans of nvdisasm's
  SASS (instruction counts, FP64 apart, the path loop's; FMA, multiply and MUFU counts with calls expanded);
- :func:`life_ranges`, :func:`last_writer`: live registers along the SASS (``nvdisasm --print-life-ranges``);
- :func:`compare`, :func:`contraction_change`: report rows before and after a change of the source.

Imported as ``tests.support.sm90`` with the repository root on ``sys.path`` (the tools put it there; the tests' conftest
does).  Tested by tests/test_support_sm90_*.py.
"""

import functools
import os
import re
import subprocess
import sys
import tempfile
import types
from collections import Counter
from pathlib import Path

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
    limits = {
        "registers": arch["regs"] // per_warp // warps if registers else arch["blocks"],
        "warps": arch["warps"] // warps,
        "blocks": arch["blocks"],
        "shared": arch["smem"] // per_block,
    }
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
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


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

    Loops are the spans [label, backward BRA to it].  The path loop (over j > i,
    :func:`srmdp.numerics.scheme.continue_path`)
    is the largest loop nested in another one (the loop over paths); its ``hot`` count leaves out the loops nested
    in it (the ziggurat's rare branches, ``normal_slow``, a ``while`` loop inlined there)."""
    found, labels = labelled_matches(sass, INSN)
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
    return dict(
        out,
        loop_sass=len(body),
        loop_fp64=sum(fp64(op, a) for _, op, a in body),
        hot_sass=len(hot),
        hot_fp64=sum(fp64(op, a) for _, op, a in hot),
        hot_fp64_ops=sorted({op for _, op, a in hot if fp64(op, a)}),
    )


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
        sys.exit(
            "needs ptxas (nvidia-cuda-nvcc-cu12) and nvdisasm (pip install nvidia-cuda-nvdisasm: in the [test] extra)"
        )
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
def toolchain():
    """The versions the PTX and ptxas's report depend on besides the kernel's source: numba, llvmlite and the
    CUDA wheels (NVVM, ptxas)."""
    from importlib import metadata

    prefixes = ("numba", "llvmlite", "nvidia-cuda")
    names = sorted(
        f"{d.metadata['Name']} {d.version}"
        for d in metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith(prefixes)
    )
    return "; ".join(names)


def cached(folder, key_parts, make):
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


def context_files():
    """The library files that shape the PTX besides the generated module's text: every srmdp/kernels/cuda*.py (the
    backend
    and its launch geometry, the numba-cuda patches: no FMA contraction under SRMDP_CUDA_FMA=0, rare functions as
    calls; the kernel template), so that a module split among them stays covered."""
    import srmdp

    return sorted(Path(srmdp.__file__).parent.glob("kernels/cuda*.py"))


def compile_context():
    """What shapes the PTX besides the generated module's text: the text of :func:`context_files` and the NUMBA_* /
    SRMDP_CUDA_* settings."""
    import hashlib

    text = "".join(f.read_text() for f in context_files())
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(("NUMBA_", "SRMDP_CUDA_")))
    return hashlib.sha256(text.encode()).hexdigest(), env


def kernel_ptx(module, fn, sig, bounds, cc=(9, 0)):
    """``numba.cuda.compile_ptx`` of kernel ``fn`` (a dispatcher of the generated kernel ``module``), cached on disk
    beside the module: the module's folder is keyed by its source and numba's versions (srmdp.numerics.build.kernels),
    the
    file by the kernel, its signature, launch bounds, target, the toolchain's versions and the compile's context
    (:func:`compile_context`), so a change of any of them compiles anew.  SRMDP_PTX_CACHE=0 always compiles."""
    from numba import cuda

    folder = Path(module.__file__).parent / "ptx"
    key = (fn.__name__, str(sig), bounds, cc, toolchain(), compile_context())
    return cached(folder, key, lambda: cuda.compile_ptx(fn.py_func, sig, cc=cc, launch_bounds=bounds)[0])


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

        key = (ptx, os.path.realpath(ptxas), arch, toolchain())
        return _parse_ptxas(cached(cache, key, make))
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
    head = (
        "kernel",
        "basis",
        "mode",
        "precision",
        "arithmetic",
        "d",
        "regs before",
        "after",
        "spill B before",
        "after",
        "occupancy before",
        "after",
        "FMA/MUL/MUFU",
    )
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


_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*(?:\(\*[^)]*\)\s*)?//\s*\|\s*(\d*)\s*([^|]*)\|")
_WIDE = ("D", "IMAD.WIDE", "F2F.F64", "I2F.F64", "LDC.64", "LDG.E.64", "LDS.64", "LDL.64", "MOV.64")


def life_ranges(cubin, nvdisasm):
    """[(address, instruction, live GPR count, one character per register: blank = not live)], labels."""
    txt = subprocess.run(
        [nvdisasm, "-plr", "-lrm", "narrow", str(cubin)], capture_output=True, text=True, check=True
    ).stdout
    found, labels = labelled_matches(txt, _LINE)
    return [(addr, m.group(2).strip(), int(m.group(3) or 0), m.group(4)) for addr, m in found], labels


def last_writer(rows, idx, reg):
    """The last instruction before rows[idx] (textually) whose destination is register ``reg``."""
    for j in range(idx - 1, -1, -1):
        parts = re.sub(r"^@!?U?P\w+\s+", "", rows[j][1]).split(None, 1)
        if len(parts) > 1:
            m = re.match(r"R(\d+)", parts[1].split(",")[0].strip())
            if m:
                base = int(m.group(1))
                if base == reg or (base + 1 == reg and (parts[0].startswith(_WIDE) or ".64" in parts[0])):
                    return rows[j]
    return None
