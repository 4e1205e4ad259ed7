"""The solution file format: one ``.npz`` (NumPy, no pickle) written by :meth:`srmdp.solutions.solution.Solution.save`
and read back by :func:`srmdp.solutions.solution.load` (through :func:`read`; this module never builds a Solution).

It holds ``coef`` (R_kept x N x K x (1+q) x nb) and ``meta``, a JSON text: format name and version, the
case, the problem (its spec and the sha256 of its source), seed, runs, the rules used, the solver's result
(indicators or u0, timings, the error estimate, provenance; a number that is not finite, a diagnostic say, is
written as null), the coefficients' sha256, and a checksum over all of it.  :func:`read` refuses, in one line
(:class:`~srmdp.exceptions.ConfigError`), a file that is unreadable, damaged (checksum, coefficient hash), of another
format version, or whose problem file has changed since it was saved; it rebuilds the kernels from the saved problem
spec.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np

from ..case.cases import Case
from ..case.results import checksum_ok, finite_or_null, seal, write_atomic
from ..exceptions import ConfigError
from ..problems import REGISTRY, Problem, load_problem
from ..problems.adapt import adapted_spec

FORMAT = "srmdp-solution"
SOLUTION_FORMAT_VERSION = 1
ZIP_MAGIC = b"PK\x03\x04"  # the first bytes of every .npz (a zip archive)


def saved_spec(problem: Problem) -> str:
    """The spec that finds the same file again from any working directory (absolute path for a user's file)."""
    base = problem.name if REGISTRY.get(problem.name) == problem.path else f"{problem.path}:{problem.name}"
    return adapted_spec(base, problem.adapted_d) if problem.adapted_d else base


def metadata(sol) -> dict:
    coef = sol.coefficients
    return {
        "format": FORMAT,
        "format_version": SOLUTION_FORMAT_VERSION,
        "problem": {
            "name": sol.problem.name,
            "spec": saved_spec(sol.problem),
            "path": str(sol.problem.path),
            "source_hash": sol.problem.source_hash,
        },
        "case": sol.case.as_dict(),
        "seed": sol.seed,
        "runs": sol.runs,
        "keep": sol.keep,
        "kept_runs": sol.kept_runs,
        "rules": sol.rules,
        "coef": {"shape": list(coef.shape), "dtype": coef.dtype.name, "sha256": _sha256(coef)},
        "result": sol.result.to_dict(),
    }


def save(sol, path):
    """Write ``sol`` to ``path`` (.npz: coefficients + JSON metadata, checksummed), atomically.  Another name is
    refused (ConfigError, one line): ``srmdp eval`` and the solve's log (``x.log`` beside ``x.npz``) go by it."""
    if not str(path).endswith(".npz"):
        raise ConfigError(f"invalid path={str(path)!r}: a solution file name ends with .npz")
    meta = seal(finite_or_null(metadata(sol)))
    text = json.dumps(meta, allow_nan=False)
    return write_atomic(path, lambda fh: np.savez(fh, coef=sol.coefficients, meta=np.array(text)), binary=True)


def _sha256(a: np.ndarray) -> str:
    h = hashlib.sha256()
    flat = np.ascontiguousarray(a).reshape(-1)
    step = 1 << 22
    for lo in range(0, flat.size, step):
        h.update(flat[lo : lo + step].tobytes())
    return h.hexdigest()


def read(path):
    """(case, coef, meta, problem) of a solution file; refuses a damaged file, another format version or a problem
    file changed since, in one line (ConfigError), and loads the problem from its saved spec."""
    where = f"invalid solution file {path}"
    if not Path(path).is_file():
        raise ConfigError(f"{where}: no such file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if head != ZIP_MAGIC:  # np.load would take it for a pickle and answer with its allow_pickle hint
        raise ConfigError(f"{where}: damaged or not an srmdp solution (not a .npz archive, which srmdp solve writes)")
    try:
        with np.load(path, allow_pickle=False) as f:
            if set(f.files) != {"coef", "meta"}:
                raise ConfigError(f"{where}: not an srmdp solution (arrays {', '.join(sorted(f.files))})")
            meta = json.loads(str(f["meta"][()]))
            coef = f["coef"]
    except ConfigError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        reason = " ".join(str(exc).split())[:120]
        raise ConfigError(f"{where}: damaged or not an srmdp solution ({type(exc).__name__}: {reason})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ConfigError(f"{where}: not an srmdp solution (no '{FORMAT}' metadata)")
    if meta.get("format_version") != SOLUTION_FORMAT_VERSION:
        raise ConfigError(
            f"{where}: format version {meta.get('format_version')!r}, this srmdp reads version"
            f" {SOLUTION_FORMAT_VERSION}; solve again with this version"
        )
    if "checksum" not in meta or not checksum_ok(meta):
        raise ConfigError(f"{where}: damaged (the metadata checksum does not match its content)")
    info = meta["coef"]
    if list(coef.shape) != info["shape"] or coef.dtype.name != info["dtype"] or _sha256(coef) != info["sha256"]:
        raise ConfigError(f"{where}: damaged (the coefficients do not match their recorded sha256, shape or type)")
    spec, saved = meta["problem"]["spec"], meta["problem"]["source_hash"]
    try:
        problem = load_problem(spec)  # the file as it is now (the cache is keyed by the file's content)
    except ConfigError as exc:
        raise ConfigError(f"{where}: its problem cannot be loaded: {' '.join(str(exc).split())}") from None
    if problem.source_hash != saved:
        raise ConfigError(
            f"{where}: the problem {spec} changed since the solution was saved (source hash"
            f" {problem.source_hash}, saved {saved}); solve again"
        )
    return Case.from_dict(dict(meta["case"], problem=spec)), coef, meta, problem
