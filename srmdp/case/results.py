"""Result files: provenance and atomic writes (temp file + rename, so no partial file is read)."""

import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from ..exceptions import ConfigError

FORMAT_VERSION = 1
# the counter-based streams common to the CPU and GPU paths (a result names another family in "streams")
DEFAULT_STREAMS = "shared"


def streams_of(res: dict) -> str:
    """The random-stream family of a result: its ``streams`` field (top level or hardware), else shared."""
    hw = (res.get("provenance") or {}).get("hardware") or {}
    return str(res.get("streams") or hw.get("streams") or DEFAULT_STREAMS)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str | None:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            dirty = subprocess.run(
                ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout.strip()
            return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for pkg in ("srmdp", "numpy", "numba", "llvmlite", "numba-cuda", "cupy-cuda12x", "cupy-cuda13x"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def provenance(seed: int, hardware: dict) -> dict:
    return {
        "seed": seed,
        "versions": versions(),
        "git_commit": git_commit(),
        "host": platform.node(),
        "platform": platform.platform(),
        "cpus": usable_cpus(),
        "hardware": hardware,
    }


def usable_cpus() -> int | None:
    """Logical CPUs this process may run on (its affinity mask; os.cpu_count() where there is none)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def peak_rss_bytes() -> int | None:
    """The process's peak resident set size so far (getrusage ru_maxrss: KiB on Linux, bytes on macOS),
    None where the platform has no getrusage.  A high-water mark of the whole process: interpreter,
    Numba, the kernels (and LLVM's peak if they were compiled here), then the case's arrays."""
    try:
        import resource
    except ImportError:
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)


def content_hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def finite_or_null(obj):
    """``obj`` (JSON-like: dicts, lists, numbers) with every non-finite float replaced by None (JSON null): a
    diagnostic that is NaN or inf must not stop a result from being written."""
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


CHECKSUM_KEY = "checksum"


def checksum(data: dict) -> str:
    """sha256 (16 hex digits) of the canonical JSON of ``data`` without its checksum field."""
    body = {k: v for k, v in data.items() if k != CHECKSUM_KEY}
    text = json.dumps(json.loads(json.dumps(body, allow_nan=False)), sort_keys=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def seal(data: dict) -> dict:
    """A copy of ``data`` with a checksum over all its other fields (see :func:`checksum_ok`)."""
    out = {k: v for k, v in data.items() if k != CHECKSUM_KEY}
    out[CHECKSUM_KEY] = checksum(out)
    return out


def checksum_ok(data: dict) -> bool:
    """True when ``data`` has no checksum (older files) or its checksum matches its content."""
    if CHECKSUM_KEY not in data:
        return True
    try:
        return data[CHECKSUM_KEY] == checksum(data)
    except (TypeError, ValueError):  # NaN/Infinity or non-JSON content: cannot match what was written
        return False


def check_writable(path):
    """Refuse, before any compute, an output path that could not be written (ConfigError)."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"invalid out={str(path)!r}: is a directory, give a file name")
    parent = path.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent  # the directories below it will be created when writing
    try:
        if not parent.is_dir():
            raise NotADirectoryError(20, "a path component is not a directory")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=parent)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise ConfigError(f"invalid out={str(path)!r}: cannot write there ({exc.strerror or exc})") from None
    return path


def new_directory(path):
    """The topmost directory above ``path`` that does not exist (written files create it), else None."""
    missing, parent = None, Path(path).absolute().parent
    while not parent.exists() and parent != parent.parent:
        missing, parent = parent, parent.parent
    return missing


def identity_hash(case: dict, seed: int, test_points: int) -> str:
    """The case_hash of a result: what must agree for chunks to be aggregated together."""
    return content_hash({"case": case, "seed": seed, "test_points": test_points, "format_version": FORMAT_VERSION})


def write_json_atomic(path, data, sealed=None):
    """Write ``data`` as JSON to ``path`` atomically: a reader sees the old file or the whole new one.

    The JSON goes to a hidden temp file ``.<name>.<random>.tmp`` in the same directory, is flushed
    and fsync'ed, then renamed over ``path`` (``os.replace``, atomic on POSIX), and the directory is
    fsync'ed so the rename survives a crash.  A process killed before the rename leaves at most the
    hidden temp file, which no step reads; it never leaves a truncated ``path``.  Result
    dictionaries (with a ``case_hash``) are sealed with a checksum of their content, which
    :mod:`srmdp.runs.aggregate` verifies.
    """
    if hasattr(data, "to_dict") and not isinstance(data, dict):  # a record (srmdp.runs.result.RunResult)
        data = data.to_dict()
    if sealed is None:  # result and chunk files (they carry a case_hash) get a checksum
        sealed = isinstance(data, dict) and "case_hash" in data
    if sealed:
        data = seal(data)
    write_atomic(path, lambda fh: fh.write(json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n"))


def write_atomic(path, write, binary=False):
    """Write a file atomically: ``write(fh)`` fills a hidden temp file ``.<name>.<random>.tmp`` in the same
    directory, which is flushed, fsync'ed and renamed over ``path`` (``os.replace``, atomic on POSIX); then
    the directory is fsync'ed so the rename survives a crash.  The one writer of results, solutions and
    evaluations: a reader sees the old file or the whole new one, never a truncated one.  The file gets the mode
    ``open`` would give it (0666 less the umask), not mkstemp's 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb" if binary else "w") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # some file systems cannot fsync a directory; the rename itself is still atomic
        pass
    return path


def _umask() -> int:
    """The process's umask (read by setting it and setting it back: POSIX has no other way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_json(path):
    with open(path) as fh:
        return json.load(fh)
