"""The kernel builder: one generated module per (problem, basis, d, target), compiled once, cached on disk.

Numba's disk cache cannot serve functions built by a factory (a closure that holds another compiled
function is keyed on a pickle with a random id: every process recompiled, ~10 s).  Here the kernel
code (:mod:`srmdp.jit`) lives as plain module-level functions in :data:`KERNEL_MODULES`; for a
case the builder writes their source, the target's top-level kernels and the case's bindings (the
sizes D and NB as constants, the basis, the problem) into one module

    <cache>/<target>-<problem>-<basis>-d<d>-<hash>/kernels.py   (+ problem.py, the problem's file)

whose decorators ``inline``/``device``/``kernel`` are the target's compilers with ``cache=True``,
and imports it.  The folder's name is a hash of everything generated (and of the Numba versions), so
a change anywhere -- a kernel module, the problem's file, a size -- makes a new folder and a stale
kernel is never run (Numba alone only checks the time stamp of the file that defines a function, not
of the functions it calls).  The pattern of CuPy's and Devito's kernel caches.

The cache root is ``$SRMDP_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/srmdp`` (``~/.cache/srmdp``).
"""

import ast
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
from functools import cache
from pathlib import Path

from .bases import BASES
from .exceptions import ConfigError

PACKAGE = Path(__file__).resolve().parent
KERNEL_MODULES = ("rng", "strata", "regression", "bases", "scheme")
TARGET_MODULES = {"cpu": "cpu_kernels", "cuda": "cuda_kernels", "cudasim": "cuda_kernels"}
# loop bounds d, nb compiled as constants up to this d (CPU: unrolled loops, ~38 % on LP0 d=4, at a
# compile time growing with d; GPU: per-path vectors in registers, beyond it they would spill)
SPECIALISE_MAX_D = {"cpu": 12, "cuda": 8, "cudasim": 8}

_CPU = '''import math
import numpy as np
from numba import njit
# no NRT in the shared code: it never allocates, and without it no reference counting is emitted
# around the arrays of the inlined hot-path functions
inline = njit(error_model="numpy", inline="always", _nrt=False, cache=True)
device = njit(error_model="numpy", _nrt=False, cache=True)
kernel = njit(parallel=True, cache=True)
'''
_CUDA = '''import math
import numpy as np
from numba import cuda
inline = cuda.jit(device=True, forceinline=True)
device = inline
LAUNCH_BOUNDS = {}  # kernel name -> (max threads per block, min blocks per SM): the register cap of ptxas


def kernel(fn):
    return cuda.jit(fn, cache=True, launch_bounds=LAUNCH_BOUNDS.get(fn.__name__))
'''
_CUDASIM = '''import math
import numpy as np
from numba import cuda
inline = cuda.jit(device=True)
device = inline
kernel = cuda.jit
'''
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


def _literal(value) -> str:
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


def problem_source(problem, target: str) -> str:
    wrap = "\n".join(f"{n} = inline({n})" for n in problem.kernel_functions() + (
        [] if "forward" in problem.module.__dict__ else ["forward"]))
    return (HEADERS[target] + f"# ---- problem {problem.name}: {problem.path}\n" + problem.source
            + "\n\n# ---- compiled as kernel code\n" + wrap + "\n")


def kernel_source(problem, basis: str, d: int, target: str, problem_module: str, extra=None) -> str:
    """The generated kernel module's text (d = 0: sizes read from the case record at run time)."""
    b = BASES[basis]
    spec = 0 < d <= SPECIALISE_MAX_D[target]
    names = ["terminal", "driver", "forward"] + (["y_exact", "z_exact"] if problem.has_exact else [])
    extra = dict(extra or {})
    header = HEADERS[target]
    if "LAUNCH_BOUNDS" in extra:  # read by the header's kernel decorator: bound before the kernels are defined
        header += f"LAUNCH_BOUNDS = {dict(extra.pop('LAUNCH_BOUNDS'))!r}\n"
    parts = [header] + [_module_source(m) for m in KERNEL_MODULES + (TARGET_MODULES[target],)]
    binds = {"D": int(d) if spec else 0, "NB": b.size(d) if spec else 0, "NEEDS_U": b.local_coordinates,
             "REPLAY": target != "cpu", "LEAN": spec and target != "cpu"}
    binds.update(extra)
    if b.fill.__module__ != __package__ + ".bases":  # a basis registered elsewhere: its fill(phi, u, d) too
        parts.append(f"# ---- basis {b.name}: {inspect.getsourcefile(b.fill)}\n"
                     + textwrap.dedent(inspect.getsource(b.fill)))
    footer = ["# ---- bindings of this build"] + [f"{k} = {_literal(v)}" for k, v in binds.items()]
    footer += [f"basis_phi = {b.fill.__name__}", f"from {problem_module} import {', '.join(names)}  # noqa"]
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
def kernels(problem, basis: str, d: int, target: str, extra_items=()):
    """The compiled-on-demand kernel module for (problem, basis, d, target); cached per process and on disk.

    ``extra_items``: further module constants (name, value) of the target (e.g. the GPU's tile layout).
    """
    extra = dict(extra_items)
    psrc = problem_source(problem, target)
    key_text = psrc + "\0" + kernel_source(problem, basis, d, target, "PROBLEM", extra) + "\0" + _versions(target)
    key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
    folder = cache_root() / f"{target}-{problem.name}-{basis}-d{d}-{key}"
    pname, kname = f"srmdp_k{key}_problem", f"srmdp_k{key}"
    _write_folder(folder, {"problem.py": psrc, "kernels.py": kernel_source(problem, basis, d, target, pname, extra)})
    _import(pname, folder / "problem.py")
    return _import(kname, folder / "kernels.py")


def cpu_problem_module(problem):
    """The problem's functions compiled (lazily, njit) for the CPU, as a module (cached on disk)."""
    folder = cache_root() / f"check-{problem.name}-{problem.source_hash}"
    _write_folder(folder, {"problem.py": problem_source(problem, "cpu")})
    return _import(f"srmdp_check_{problem.source_hash}", folder / "problem.py")


@cache
def check_compiles(problem):
    """Compile the problem's kernel functions for the CPU with the solver's argument types, before any run:
    a function that does not compile is one ConfigError line naming the file and the function."""
    from numba import types

    try:
        mod = cpu_problem_module(problem)
    except Exception as exc:
        raise ConfigError(f"invalid problem file {problem.path}: {type(exc).__name__}: {exc}") from None
    f8, i8, vec = types.float64, types.int64, types.float64[::1]
    sigs = {"terminal": (f8, vec, i8), "driver": (f8, vec, f8, vec, i8), "forward": (f8, vec, vec, f8, i8),
            "y_exact": (f8, vec, i8), "z_exact": (f8, vec, vec, i8)}
    for name, sig in sigs.items():
        fn = getattr(mod, name, None)
        if fn is None:
            continue
        try:
            fn.compile(sig)
        except Exception as exc:
            first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
            raise ConfigError(f"invalid problem file {problem.path}: function {name} does not compile as kernel code"
                              f" ({first}); use only scalars, math.* and indexing of its array arguments") from None
    return True
