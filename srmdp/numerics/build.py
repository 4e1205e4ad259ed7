"""The kernel builder: one generated module per (problem, basis, d, target), compiled once, cached on disk.

Numba's disk cache cannot serve functions built by a factory (a closure that holds another compiled
function is keyed on a pickle with a random id: every process recompiled, ~10 s).  Here the kernel
code (:mod:`srmdp.numerics.jit`) lives as plain module-level functions in :data:`KERNEL_MODULES`; for a
case the builder writes their source, the target's top-level kernels and the case's bindings (the
sizes D and NB as constants, the basis, the problem) into one module

    <cache>/<target>-<problem>-<basis>-d<d>-<hash>/kernels.py   (+ problem.py, the problem's file)

whose decorators ``inline``/``device``/``kernel`` are the target's compilers with ``cache=True``,
and imports it.  The folder's name is a hash of everything generated (and of the Numba versions), so
a change anywhere -- a kernel module, the problem's file, a size -- makes a new folder and a stale
kernel is never run (Numba alone only checks the time stamp of the file that defines a function, not
of the functions it calls).  The pattern of CuPy's and Devito's kernel caches.

The arithmetic (``Case.arithmetic``, apart from the storage ``precision``) is a binding too: ``REAL`` is the
type a path is computed in (np.float64 or np.float32); the kernel code casts with ``REAL(...)`` where a
float64 value (a record field, a literal, an int) would promote a float32 expression, a no-op in float64.
In float32 the problem's functions are compiled from a rewritten source (:func:`single_precision_source`):
its float literals and float constants become float32, so that a user's ``driver`` written with ``0.5`` or
``(2.0 + d)`` computes in float32 without a change to the file.

The cache root is ``$SRMDP_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/srmdp`` (``~/.cache/srmdp``).
"""

import ast
import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import textwrap
from functools import cache
from pathlib import Path

from ..exceptions import ConfigError
from .bases import BASES
from .bases import __name__ as BASES_MODULE
from .jit import ARITHMETICS

PACKAGE = Path(__file__).resolve().parent.parent  # srmdp/: the kernel modules are named by their path in it
KERNEL_MODULES = ("numerics/rng", "numerics/strata", "numerics/regression", "numerics/bases", "numerics/scheme")
TARGET_MODULES = {"cpu": "kernels/cpu_kernels", "cuda": "kernels/cuda_kernels", "cudasim": "kernels/cuda_kernels"}
# loop bounds d, nb compiled as constants up to this d (CPU: unrolled loops, ~38 % on LP0 d=4, at a
# compile time growing with d; GPU: per-path vectors in registers, beyond it they would spill)
SPECIALISE_MAX_D = {"cpu": 12, "cuda": 8, "cudasim": 8}
# locate_fast's margin around a cell edge, relative to #C, within which the exact division decides: far above the
# error of (x + L) * (1/h) against (x + L) / h in the arithmetic's type (a few units of its last place)
EDGE_MARGIN = {"float64": 2.0**-40, "float32": 2.0**-16}
# the relative step of the central differences of a driver without driver_zz / driver_yy (srmdp.numerics.scheme): about
# the
# fourth root of the arithmetic's epsilon (rounding eps |f| / h^2 against truncation h^2 |f_4| / 12)
FD_STEP = {"float64": 2.0**-13, "float32": 2.0**-6}
SECOND_DERIVATIVES = ("driver_zz", "driver_yy")  # optional problem functions of the curvature correction
REAL_NAME = "_srmdp_real"  # the arithmetic's type in a rewritten problem module (a name no problem file uses)

_CPU = """import math
import numpy as np
from numba import njit
# no NRT in the shared code: it never allocates, and without it no reference counting is emitted
# around the arrays of the inlined hot-path functions
inline = njit(error_model="numpy", inline="always", _nrt=False, cache=True)
device = njit(error_model="numpy", _nrt=False, cache=True)
rare = device
kernel = njit(parallel=True, cache=True)
"""
# the probe's compile of a user's functions (srmdp.problems.checks): the same code with bounds checking, so that an
# index outside the arrays raises IndexError at the probe instead of reading past them; the runs never use it
_CPU_PROBE = """import math
import numpy as np
from numba import njit
inline = njit(error_model="numpy", boundscheck=True, _nrt=False, cache=True)
device = inline
rare = inline
kernel = njit(boundscheck=True, cache=True)
"""
_CUDA = """import math
import numpy as np
from numba import cuda
inline = cuda.jit(device=True, forceinline=True)
device = inline
from srmdp.kernels.cuda import keep_as_call
LAUNCH_BOUNDS = {}  # kernel name -> (max threads per block, min blocks per SM): the register cap of ptxas


def kernel(fn):
    return cuda.jit(fn, cache=True, launch_bounds=LAUNCH_BOUNDS.get(fn.__name__))


def rare(fn):  # a call, never inlined, under a register cap (launch bounds): its temporaries spill, not the loop's
    return cuda.jit(keep_as_call(fn), device=True) if LAUNCH_BOUNDS else inline(fn)
"""
_CUDASIM = """import math
import numpy as np
from numba import cuda
inline = cuda.jit(device=True)
device = inline
rare = inline
kernel = cuda.jit
"""
HEADERS = {"cpu": _CPU, "cuda": _CUDA, "cudasim": _CUDASIM}


def cache_root() -> Path:
    root = os.environ.get("SRMDP_KERNEL_CACHE")
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "srmdp" / "kernels"


def current_target(device: str) -> str:
    if device == "cpu":
        return "cpu"
    return "cudasim" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else "cuda"


@cache
def _module_source(name: str) -> str:
    """The kernel module's text without its relative imports (all names live in one module)."""
    text = (PACKAGE / f"{name}.py").read_text()
    lines = text.splitlines()
    drop = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            drop.update(range(node.lineno - 1, node.end_lineno))
    kept = [line for j, line in enumerate(lines) if j not in drop]
    return f"# ---- srmdp/{name}.py\n" + "\n".join(kept) + "\n"


class Int32Array(tuple):
    """A constant int32 array of a generated module (hashable, so it can key the build)."""


class RealType(str):
    """The arithmetic's NumPy scalar type as a binding of a generated module (``np.float32``)."""


def _literal(value) -> str:
    if isinstance(value, RealType):
        return f"np.{value}"
    if isinstance(value, Int32Array):
        return f"np.array({list(value)!r}, np.int32)"
    return repr(value)


def _versions(target: str) -> str:
    import numba

    out = f"python {sys.version_info[:3]} numba {numba.__version__}"
    if target == "cuda":
        try:
            import numba_cuda

            out += f" numba-cuda {getattr(numba_cuda, '__version__', '?')}"
        except ImportError:
            pass
    return out


class _Float32Rewrite(ast.NodeTransformer):
    """Inside functions: float literals, float module constants, ``math.pi``/``math.e``/``math.inf`` and
    ``float(...)`` become the arithmetic's type, and so does the other operand of an arithmetic operation with
    one of them (``2.0 + d``: an int would promote a float32 to float64)."""

    CONSTANTS = ("pi", "e", "inf", "tau")

    def __init__(self, float_names):
        self.float_names = set(float_names)
        self.depth = 0

    def _real(self, node):
        return ast.Call(ast.Name(REAL_NAME, ast.Load()), [node], [])

    @staticmethod
    def _is_real(node):
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == REAL_NAME

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Constant(self, node):
        if self.depth and isinstance(node.value, float):
            return self._real(node)
        return node

    def visit_Name(self, node):
        if self.depth and isinstance(node.ctx, ast.Load) and node.id in self.float_names:
            return self._real(node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if self.depth and isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in self.CONSTANTS:
            return self._real(node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.depth and isinstance(node.func, ast.Name) and node.func.id == "float":
            node.func = ast.Name(REAL_NAME, ast.Load())
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if self.depth and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod)):
            if self._is_real(node.left) and not self._is_real(node.right):
                node.right = self._real(node.right)
            elif self._is_real(node.right) and not self._is_real(node.left):
                node.left = self._real(node.left)
        return node


def single_precision_source(problem) -> str:
    """The problem file's source with its functions' float constants in float32 (module docstring)."""
    floats = [n for n, v in vars(problem.module).items() if isinstance(v, float) and not n.startswith("__")]
    tree = _Float32Rewrite(floats).visit(ast.parse(problem.source))
    return f"{REAL_NAME} = np.float32\n" + ast.unparse(ast.fix_missing_locations(tree))


def problem_source(problem, target: str, arithmetic: str = "float64") -> str:
    wrap = "\n".join(
        f"{n} = inline({n})"
        for n in problem.kernel_functions() + ([] if "forward" in problem.module.__dict__ else ["forward"])
    )
    source = problem.source if arithmetic == "float64" else single_precision_source(problem)
    return _problem_prefix(problem, target) + source + "\n\n# ---- compiled as kernel code\n" + wrap + "\n"


def _problem_prefix(problem, target: str) -> str:
    """What the generated problem module puts before the file's source (the file's name, not its path: the text keys
    the build, and a problem's kernels are the same in every checkout)."""
    return HEADERS[target] + f"# ---- problem {problem.name}: {problem.path.name}\n"


def kernel_source(
    problem, basis: str, d: int, target: str, problem_module: str, extra=None, arithmetic: str = "float64"
) -> str:
    """The generated kernel module's text (d = 0: sizes read from the case record at run time)."""
    if arithmetic not in ARITHMETICS:
        raise ConfigError(f"invalid arithmetic={arithmetic!r}: allowed values are {', '.join(ARITHMETICS)}")
    b = BASES[basis]
    spec = 0 < d <= SPECIALISE_MAX_D[target]
    names = ["terminal", "driver", "forward"] + (["y_exact", "z_exact"] if problem.has_exact else [])
    extra = dict(extra or {})
    header = HEADERS[target]
    if "LAUNCH_BOUNDS" in extra:  # read by the header's kernel decorator: bound before the kernels are defined
        header += f"LAUNCH_BOUNDS = {dict(extra.pop('LAUNCH_BOUNDS'))!r}\n"
    parts = [header] + [_module_source(m) for m in KERNEL_MODULES + (TARGET_MODULES[target],)]
    binds = {
        "D": int(d) if spec else 0,
        "NB": b.size(d) if spec else 0,
        "NEEDS_U": b.local_coordinates,
        "REPLAY": target != "cpu",
        "SAVE_REGISTERS": spec and target != "cpu",
        "REAL": RealType(arithmetic),
        "FLOAT32_ARITHMETIC": arithmetic == "float32",
    }
    binds.update(extra)
    if b.fill.__module__ != BASES_MODULE:  # a basis registered elsewhere: its fill(phi, u, d) too
        parts.append(
            f"# ---- basis {b.name}: {inspect.getsourcefile(b.fill)}\n" + textwrap.dedent(inspect.getsource(b.fill))
        )
    footer = ["# ---- bindings of this build"] + [f"{k} = {_literal(v)}" for k, v in binds.items()]
    footer += [f"EDGE_MARGIN = REAL({EDGE_MARGIN[arithmetic]!r})"]
    footer += [f"basis_phi = {b.fill.__name__}", f"from {problem_module} import {', '.join(names)}  # noqa"]
    if binds.get("CURVATURE"):  # the curvature correction's second derivatives: the problem's, else central differences
        footer += [f"FD_STEP = REAL({FD_STEP[arithmetic]!r})"]
        for n in SECOND_DERIVATIVES:
            own = n in problem.module.__dict__
            footer.append(f"from {problem_module} import {n}  # noqa" if own else f"{n} = central_{n}")
    return "\n".join(parts) + "\n" + "\n".join(footer) + "\n"


def _import(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def _write_folder(folder: Path, files: dict):
    """Create ``folder`` with ``files`` atomically (a temp folder renamed into place): concurrent
    processes building the same kernels never see a half-written module."""
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    for fname, text in files.items():
        (tmp / fname).write_text(text)
    try:
        os.rename(tmp, folder)
    except OSError:  # another process was first: use its folder
        for f in tmp.iterdir():
            f.unlink()
        tmp.rmdir()


@cache
def kernels(problem, basis: str, d: int, target: str, extra_items=(), arithmetic: str = "float64"):
    """The compiled-on-demand kernel module for (problem, basis, d, target, arithmetic); cached per process and
    on disk.

    ``extra_items``: further module constants (name, value) of the target (e.g. the GPU's tile layout).
    """
    extra = dict(extra_items)
    psrc = problem_source(problem, target, arithmetic)
    key_text = (
        psrc + "\0" + kernel_source(problem, basis, d, target, "PROBLEM", extra, arithmetic) + "\0" + _versions(target)
    )
    key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
    tag = "" if arithmetic == "float64" else "-f32"
    folder = cache_root() / f"{target}-{problem.name}-{basis}-d{d}{tag}-{key}"
    pname, kname = f"srmdp_k{key}_problem", f"srmdp_k{key}"
    _write_folder(
        folder, {"problem.py": psrc, "kernels.py": kernel_source(problem, basis, d, target, pname, extra, arithmetic)}
    )
    _import(pname, folder / "problem.py")
    return _import(kname, folder / "kernels.py")


def cpu_problem_module(problem, arithmetic: str = "float64"):
    """The problem's functions compiled (lazily, njit) for the CPU, as a module (cached on disk)."""
    tag = "" if arithmetic == "float64" else "-f32"
    folder = cache_root() / f"check-{problem.name}{tag}-{problem.source_hash}"
    _write_folder(folder, {"problem.py": problem_source(problem, "cpu", arithmetic)})
    return _import(f"srmdp_check{tag.replace('-', '_')}_{problem.source_hash}", folder / "problem.py")


def cpu_probe_module(problem, arithmetic: str = "float64"):
    """The problem's functions compiled for the CPU with bounds checking (:data:`_CPU_PROBE`), as a module (cached on
    disk): what the probe calls (:func:`srmdp.problems.checks.check_problem`); the runs use :func:`kernels`."""
    tag = "" if arithmetic == "float64" else "-f32"
    source = _CPU_PROBE + problem_source(problem, "cpu", arithmetic).removeprefix(_CPU)
    key = hashlib.sha256(source.encode()).hexdigest()[:16]  # the generated text: a changed header is a new folder
    folder = cache_root() / f"probe-{problem.name}{tag}-{key}"
    _write_folder(folder, {"problem.py": source})
    return _import(f"srmdp_probe{tag.replace('-', '_')}_{key}", folder / "problem.py")


# the problem functions' argument types in the solver's calls (the arithmetic's float type f, its contiguous vectors v)
def _signatures(f, v, i):
    return {
        "terminal": (f, v, i),
        "driver": (f, v, f, v, i),
        "forward": (f, v, v, f, i),
        "y_exact": (f, v, i),
        "z_exact": (f, v, v, i),
        "driver_zz": (f, v, f, v, i, i),
        "driver_yy": (f, v, f, v, i),
    }


def _compile_cause(exc, offset: int, problem=None, generated: str = "") -> str:
    """The line of a Numba compile error that says why (the undefined name, the construct), with the problem file's
    line where Numba names one in the ``generated`` module (``offset``: the lines it puts before the file's source);
    Numba's own lines (its library's, in a nested error) are never reported as the user's."""
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    why = next((ln for ln in lines if not ln.startswith(("Failed in ", "During: ", "- Resolution failure"))), "")
    why = why.removesuffix(":").removesuffix(" found for signature") or type(exc).__name__
    call = next((ln.removeprefix(">>> ") for ln in lines if ln.startswith(">>> ")), None)
    if why.startswith("No implementation of function") and call:  # the call as typed: zeros(int64), exp(array(...))
        why = f"no implementation of {call} in kernel code"
    if "NRT required" in text:  # an allocation anywhere below the user's construct (x * x, np.zeros, a list, a dict)
        why = "it allocates (a list, a dict, an array such as x * x or np.zeros, a string): kernel code cannot"
    line = _user_line(exc, text, offset, problem, generated)
    if line is not None:
        code = problem.source.splitlines()[line - 1].strip()
        why += f" (the problem file's line {line}: `{code}`)"
    return why


def _user_line(exc, text: str, offset: int, problem, generated: str):
    """The problem file's line of a compile error: the first place in the ``generated`` module's file that Numba's
    message names (the innermost of the user's code), else the error's ``loc``; None where neither is the user's."""
    if problem is None or not generated:
        return None
    n_source = len(problem.source.splitlines())
    folder = re.escape(Path(generated).parent.name)
    found = [int(m) for m in re.findall(folder + r'/problem\.py(?:", line | \()(\d+)', text)]
    loc = getattr(exc, "loc", None)
    if loc is not None and str(getattr(loc, "filename", "")) == generated and getattr(loc, "line", None):
        found.append(int(loc.line))
    for at in found:
        if offset < at <= offset + n_source:
            return at - offset
    return None


@cache
def check_compiles(problem, arithmetic: str = "float64"):
    """Compile the problem's kernel functions for the CPU with the solver's argument types (in the arithmetic's
    type), before any run: a function that does not compile is one ConfigError line naming the file, the function
    and the cause."""
    from numba import types

    try:
        mod = cpu_problem_module(problem, arithmetic)
    except Exception as exc:
        raise ConfigError(f"invalid problem file {problem.path}: {type(exc).__name__}: {exc}") from None
    f8, i8 = (types.float32 if arithmetic == "float32" else types.float64), types.int64
    # the file's line numbers in Numba's messages (float32: a rewritten source, no line numbers)
    offset = _problem_prefix(problem, "cpu").count("\n") if arithmetic == "float64" else 10**9
    for name, sig in _signatures(f8, f8[::1], i8).items():
        fn = getattr(mod, name, None)
        if fn is None:
            continue
        try:
            fn.compile(sig)
        except Exception as exc:
            raise ConfigError(
                f"invalid problem file {problem.path}: function {name} does not compile as kernel code:"
                f" {_compile_cause(exc, offset, problem, mod.__file__)}; use only numbers, math.*, loops over and"
                " indexing of its array arguments (docs/problem-file.md)"
            ) from None
    return True


def check_returns(problem, arithmetic: str = "float64"):
    """After :func:`check_compiles`: a function of the contract that returns a value (not :data:`IN_PLACE`) and whose
    compiled return type is not a real number (a tuple, a complex, a string, nothing) is one ConfigError line naming
    the function and its line.  Checked after the probe's calls: a function that only raises returns nothing, and
    its raise is the line to report."""
    from numba import types

    mod = cpu_problem_module(problem, arithmetic)
    f8, i8 = (types.float32 if arithmetic == "float32" else types.float64), types.int64
    for name, sig in _signatures(f8, f8[::1], i8).items():
        fn = getattr(mod, name, None)
        if fn is None or name in IN_PLACE:
            continue
        fn.compile(sig)  # compiled by check_compiles: this looks it up
        wrong = _not_a_number(fn.overloads[sig].signature.return_type)
        if wrong:
            raise ConfigError(
                f"invalid problem file {problem.path}: function {name}{_def_line(problem, name)} returns {wrong};"
                " it must return a real number (a float)"
            )


IN_PLACE = ("forward", "z_exact")  # the problem functions that write into an array argument (their return is unused)


def _not_a_number(rt) -> str | None:
    """What a compiled function's return type ``rt`` is when it is not a real number (an int, a float, a bool)."""
    from numba import types

    if isinstance(rt, (types.Integer, types.Float, types.Boolean)):
        return None
    if isinstance(rt, types.Complex):
        return f"a complex number ({rt})"
    if isinstance(rt, types.BaseTuple):
        return f"a tuple ({rt})"
    if isinstance(rt, (types.UnicodeType, types.StringLiteral)):
        return "a string"
    if isinstance(rt, types.NoneType):
        return "nothing (no return statement)"
    if isinstance(rt, types.Optional):
        return f"None where a branch has no return ({rt})"
    return f"a {rt}"


def _def_line(problem, name: str) -> str:
    """' (line N)': where ``name`` is defined in the problem's file, or '' (a function the file does not define)."""
    fn = getattr(problem.module, name, None)
    code = getattr(fn, "__code__", None)
    if code is None or code.co_filename != str(problem.path):
        return ""
    return f" (line {code.co_firstlineno})"
