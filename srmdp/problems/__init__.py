"""Problems: a BSDE / semilinear PDE is a plain Python module; this is where they are found and checked.

The contract (a user's file follows the same one as the modules shipped here):

* ``MATURITY`` (float > 0); optional ``BOX_HALF_WIDTH`` (the strata cover [-L, L]^d, default 6.5)
  and ``X0`` (the point x0 = (X0, ..., X0) where u(0, x0) is reported, default 0.0);
* ``terminal(T, x, d)`` -> g(x);
* ``driver(t, x, y, z, d)`` -> f(t, x, y, z), z of length d (it may depend on z);
* optional ``forward(t, x, dw, dt, d)``: one step of X in place given the Brownian increment dw
  (default X = W: ``x[l] += dw[l]``);
* optional ``y_exact(t, x, d)`` and ``z_exact(t, x, out, d)`` (both or neither): with them every
  run reports the error indicators, without them u(0, x0) and its standard error;
* optional ``driver_zz(t, x, y, z, l, d)`` -> d2f/dz_l^2 and ``driver_yy(t, x, y, z, d)`` -> d2f/dy^2, for the
  curvature correction (:mod:`srmdp.problems.curvature`; without them, central differences of ``driver``), and
  ``CURVATURE_CORRECTION`` (bool) to set that correction's default for the problem;
* optional ``forward_moments(t, x0, d) -> (mean, sd)`` (plain Python, scalars or length-d arrays): the law
  of X_t started at x0 = (X0, ..., X0), for strata where the paths are (:mod:`srmdp.problems.adapt`; without it a
  pilot simulation of ``forward`` stands in).

These functions, and any module-level helper functions they call, are kernel code (scalars, ``math``, loops over
and indexing of their arrays, which hold exactly d values; see :mod:`srmdp.numerics.jit`): :mod:`srmdp.numerics.build`
compiles them for the CPU and the GPU.  Other module contents (NumPy reference solutions, docs) stay plain Python.

A problem is named by a registered name (:data:`REGISTRY`: the problem modules of this package) or by a
path ``path/to/file.py`` (optionally ``path/to/file.py:NAME``, NAME being the name its results
report: one of the names the file answers to, its stem or the string of an optional module-level ``NAME``;
default the file's stem).  Any other NAME is an error listing those names, before anything is compiled.

May import: srmdp.numerics, srmdp.exceptions.
"""

import ast
import hashlib
import inspect
import math
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

from ..exceptions import ConfigError
from ..numerics.strata import DEFAULT_HALF_WIDTH, MAX_HALF_WIDTH

HERE = Path(__file__).resolve().parent
# the problem modules of this package (those that define a terminal condition; the others are its machinery)
REGISTRY = {
    p.stem: p
    for p in sorted(HERE.glob("*.py"))
    if not p.stem.startswith("_")
    and any(isinstance(n, ast.FunctionDef) and n.name == "terminal" for n in ast.parse(p.read_text()).body)
}
DEFAULT = "gobet2016"

# name -> (parameters, required)
CONTRACT = {
    "terminal": (("T", "x", "d"), True),
    "driver": (("t", "x", "y", "z", "d"), True),
    "forward": (("t", "x", "dw", "dt", "d"), False),
    "y_exact": (("t", "x", "d"), False),
    "z_exact": (("t", "x", "out", "d"), False),
    "driver_zz": (("t", "x", "y", "z", "l", "d"), False),
    "driver_yy": (("t", "x", "y", "z", "d"), False),
}
DEFAULT_FORWARD = '''

def forward(t, x, dw, dt, d):
    """X = W (the default forward SDE): X_{j+1} = X_j + Delta W_j."""
    for l in range(d):
        x[l] += dw[l]
'''


@dataclass(frozen=True)
class Problem:
    name: str
    path: Path
    source: str  # the module's text, with the default forward appended when it has none
    module: ModuleType  # the plain module (reference solutions and other Python-side helpers)
    maturity: float
    half_width: float
    x0: float
    has_exact: bool
    adapted_d: int = 0  # > 0: the problem in the coordinates of adapted strata of dimension d (srmdp.problems.adapt)
    curvature_correction: bool | None = (
        None  # CURVATURE_CORRECTION: the correction's default (srmdp.problems.curvature)
    )

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]

    @property
    def shipped(self) -> bool:
        """One of this package's problems (checked by its tests), not a user's file."""
        return self.path.parent == HERE

    def kernel_functions(self) -> list[str]:
        """The module-level functions defined in the file (compiled as kernel code)."""
        return [
            n for n, f in vars(self.module).items() if inspect.isfunction(f) and f.__module__ == self.module.__name__
        ]


def _fail(where, what):
    raise ConfigError(f"invalid problem {where}: {what}")


def _number(mod, where, key, default, check, allowed):
    v = getattr(mod, key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not check(v):
        _fail(where, f"{key} = {v!r}: {allowed}")
    return float(v)


def load_problem(spec: str = DEFAULT) -> Problem:
    """The problem named by ``spec`` (a registered name or ``file.py[:NAME]``), checked against the contract.

    Every violation is one ConfigError line naming the file and the function; compilation is
    checked by :func:`srmdp.numerics.build.check_compiles` before anything runs.  Loaded problems are cached per
    process under (spec, the sha256 of the file's text): a file edited while the process runs (a
    notebook, say) is loaded again at the next call.
    """
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"invalid problem={spec!r}: a registered name ({', '.join(REGISTRY)}) or path/to/file.py")
    from .adapt import split_spec

    base, adapted_d = split_spec(spec)
    path, name = _locate(base)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid problem={spec!r}: cannot read {path}: {exc}") from None
    return _load(spec, path, name, adapted_d, text)


def _locate(spec: str):
    """(path, name) of a registered name or ``file.py[:NAME]``; ConfigError otherwise."""
    path_part, name = spec.rsplit(":", 1) if ".py:" in spec else (spec, "")
    if path_part in REGISTRY:
        path, name = REGISTRY[path_part], name or path_part
    elif path_part.endswith(".py"):
        path = Path(path_part).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(f"invalid problem={spec!r}: no such file {path_part}")
        name = name or path.stem
    else:
        raise ConfigError(
            f"invalid problem={spec!r}: allowed values are {', '.join(REGISTRY)} or path/to/file.py[:NAME]"
        )
    return path, name


@cache
def _load(spec: str, path: Path, name: str, adapted_d, text: str) -> Problem:
    """The problem of ``text`` (the file's content is part of the cache key, so an edited file is reloaded)."""
    if adapted_d is not None:
        return _adapted(_load(spec.rpartition("#")[0], path, name, None, text), adapted_d)
    where = f"file {path}"
    mod_name = f"srmdp_user_problem_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
    module = ModuleType(mod_name)
    module.__file__ = str(path)
    try:
        exec(compile(text, str(path), "exec"), module.__dict__)
    except Exception as exc:  # the user's file itself fails: one line, file and line number
        line = getattr(exc, "lineno", None) or (
            exc.__traceback__.tb_next.tb_lineno if exc.__traceback__.tb_next else "?"
        )
        _fail(where, f"importing it raised {type(exc).__name__} at line {line}: {exc}")
    sys.modules.setdefault(mod_name, module)
    found = [path.stem] + [v for v in [module.__dict__.get("NAME")] if isinstance(v, str) and v != path.stem]
    if name not in found:  # a typo is not a new label (nor a new kernel to compile)
        raise ConfigError(
            f"invalid problem={spec!r}: {path.name} has no problem named {name!r}; names found:"
            f" {', '.join(found)} (path/to/file.py[:NAME], NAME the file's stem or its NAME string)"
        )
    for fn, (params, required) in CONTRACT.items():
        f = module.__dict__.get(fn)
        if f is None:
            if required:
                _fail(where, f"function {fn}{params} is missing".replace("'", ""))
            continue
        if not inspect.isfunction(f):
            _fail(where, f"{fn} must be a plain function, not {type(f).__name__}")
        got = tuple(inspect.signature(f).parameters)
        if len(got) != len(params):
            _fail(where, f"function {fn} takes ({', '.join(got)}); the contract is {fn}({', '.join(params)})")
    has_y, has_z = "y_exact" in module.__dict__, "z_exact" in module.__dict__
    if has_y != has_z:
        _fail(where, "define both y_exact and z_exact, or neither")
    maturity = _number(module, where, "MATURITY", None, lambda v: v > 0, "must be a number > 0")
    half = _number(
        module,
        where,
        "BOX_HALF_WIDTH",
        DEFAULT_HALF_WIDTH,
        lambda v: 0 < v <= MAX_HALF_WIDTH,
        f"must be a number in (0, {MAX_HALF_WIDTH:g}]",
    )
    x0 = _number(module, where, "X0", 0.0, lambda v: True, "must be a finite number")
    curvature = module.__dict__.get("CURVATURE_CORRECTION")
    if curvature is not None and not isinstance(curvature, bool):
        _fail(where, f"CURVATURE_CORRECTION = {curvature!r}: True or False (leave it out for the default)")
    source = text if "forward" in module.__dict__ else text.rstrip() + "\n" + DEFAULT_FORWARD
    return Problem(
        name=name,
        path=path,
        source=source,
        module=module,
        maturity=maturity,
        half_width=half,
        x0=x0,
        has_exact=has_y,
        curvature_correction=curvature,
    )


def _adapted(base: Problem, d: int) -> Problem:
    """``base`` in the coordinates of strata where the paths are (:mod:`srmdp.problems.adapt`), for dimension d."""
    from .adapt import HALF_WIDTH, adapted_source

    source = adapted_source(base, d)
    module = ModuleType(f"{base.module.__name__}_adapted_d{d}")
    module.__file__ = str(base.path)
    exec(compile(source, f"{base.path}#adapted", "exec"), module.__dict__)
    sys.modules.setdefault(module.__name__, module)
    return Problem(
        name=base.name,
        path=base.path,
        source=source,
        module=module,
        maturity=base.maturity,
        half_width=HALF_WIDTH,
        x0=0.0,
        has_exact=base.has_exact,
        adapted_d=int(d),
        curvature_correction=base.curvature_correction,
    )
