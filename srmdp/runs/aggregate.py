"""Gather run chunks of one case into a summary, refusing chunks that do not belong together."""

import json
from pathlib import Path

import numpy as np

from ..case.readings import reading_of, same_reading
from ..case.results import FORMAT_VERSION, checksum_ok, identity_hash, streams_of
from ..exceptions import ChunkError, ConfigError
from .result import PerRun, RunResult, concat

REQUIRED = (
    "format_version",
    "case_hash",
    "case",
    "seed",
    "run_start",
    "runs",
    "test_points",
    "per_run",
    "device",
    "seconds_per_run",
)


def _no_constants(name):
    raise ValueError(f"non-finite number {name} (results are written without NaN or Infinity)")


def _is_count(v, low=0):
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def load_chunk(path) -> dict:
    """Read and check one chunk file; ChunkError (one line naming the file and what is wrong) otherwise."""
    return _load(path)[0]


def _load(path):
    """(data, ey, ez, u0, moments) of a checked chunk file: ey/ez float arrays of shape (runs, steps) (None
    without an exact solution), u0 of shape (runs,) and moments = (ey2, ez2) (None in chunks written before
    they were recorded)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(), parse_constant=_no_constants)
    except FileNotFoundError:
        raise ChunkError(f"missing chunk file {path}") from None
    except IsADirectoryError:
        raise ChunkError(f"chunk {path} is a directory, not a file") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        msg = str(exc).splitlines()[0] if str(exc) else ""
        raise ChunkError(
            f"corrupt chunk file {path}: {type(exc).__name__}: {msg}"
            " (truncated or damaged; delete it and rerun that chunk)"
        ) from None
    if not isinstance(data, dict):
        raise ChunkError(f"corrupt chunk file {path}: not a JSON object")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ChunkError(f"corrupt chunk file {path}: missing field(s) {', '.join(missing)}")
    if data["format_version"] != FORMAT_VERSION:
        raise ChunkError(
            f"chunk file {path} has format version {data['format_version']!r},"
            f" this srmdp reads {FORMAT_VERSION}; rerun it"
        )
    if not checksum_ok(data):
        raise ChunkError(
            f"corrupt chunk file {path}: checksum mismatch (content changed after it was written;"
            " delete it and rerun that chunk)"
        )
    case, per_run = data["case"], data["per_run"]
    if not isinstance(case, dict) or not isinstance(per_run, dict):
        raise ChunkError(f"corrupt chunk file {path}: case and per_run must be JSON objects")
    if not (
        _is_count(data["runs"], 1)
        and _is_count(data["run_start"], 0)
        and _is_count(data["test_points"], 1)
        and _is_count(data["seed"], 0)
    ):
        raise ChunkError(
            f"corrupt chunk file {path}: runs, run_start, test_points and seed must be integers"
            " (runs, test_points >= 1)"
        )
    try:
        expected = identity_hash(case, data["seed"], data["test_points"])
    except (TypeError, ValueError):
        expected = None
    if data["case_hash"] != expected:
        raise ChunkError(
            f"corrupt chunk file {path}: case_hash {data['case_hash']!r} does not match its case, seed and test_points"
        )
    if not isinstance(data["seconds_per_run"], (int, float)) or isinstance(data["seconds_per_run"], bool):
        raise ChunkError(f"corrupt chunk file {path}: seconds_per_run must be a number")
    n = case.get("steps")
    ey = ez = moments = None
    if "ey" in per_run or "ez" in per_run or "u0" not in per_run:  # errors (problems with an exact solution)
        ey, ez = per_run.get("ey"), per_run.get("ez")
        ok = (
            isinstance(ey, list)
            and isinstance(ez, list)
            and len(ey) == len(ez) == data["runs"]
            and all(isinstance(r, list) and len(r) == n for r in ey + ez)
        )
        if ok:
            try:
                ey = np.asarray(ey, dtype=float).reshape(data["runs"], n)
                ez = np.asarray(ez, dtype=float).reshape(data["runs"], n)
            except (TypeError, ValueError):
                ok = False
        if not ok:
            raise ChunkError(f"corrupt chunk file {path}: per-run errors do not match runs={data['runs']} x steps={n}")
        if not (np.all(np.isfinite(ey)) and np.all(np.isfinite(ez))):
            raise ChunkError(f"non-finite errors in chunk file {path}")
        if "ey2" in per_run or "ez2" in per_run:  # second moments (absent in chunks written before them)
            try:
                moments = tuple(np.asarray(per_run[k], dtype=float).reshape(ey.shape) for k in ("ey2", "ez2"))
            except (KeyError, TypeError, ValueError):
                raise ChunkError(
                    f"corrupt chunk file {path}: per-run ey2/ez2 do not match runs={data['runs']} x steps={n}"
                ) from None
            if not all(np.all(np.isfinite(m)) for m in moments):
                raise ChunkError(f"non-finite errors in chunk file {path}")
    u0 = per_run.get("u0")
    if u0 is not None:  # u(0, x0) per run (absent in chunks written before it existed)
        try:
            u0 = np.asarray(u0, dtype=float).reshape(data["runs"])
        except (TypeError, ValueError):
            raise ChunkError(f"corrupt chunk file {path}: per-run u0 does not match runs={data['runs']}") from None
        if not np.all(np.isfinite(u0)):
            raise ChunkError(f"non-finite u0 in chunk file {path}")
    return data, ey, ez, u0, moments


def _version(c):
    prov = c.get("provenance")
    return prov.get("versions", {}).get("srmdp") if isinstance(prov, dict) else None


def _mismatch(c, ref, pool_devices=False):
    """Name what differs between two chunks of supposedly the same case, or None.

    With ``pool_devices``, CPU and GPU chunks may be pooled: only where their random streams
    (:func:`srmdp.case.results.streams_of`) and everything else are identical.  Readings are compared by
    :func:`srmdp.case.readings.same_reading` (a flag an older file does not name is off)."""
    for key in ("device", "seed", "test_points"):
        if key == "device" and pool_devices:
            continue
        if c.get(key) != ref.get(key):
            return f"{key} {c.get(key)!r} != {ref.get(key)!r}"
    if not same_reading(reading_of(c), reading_of(ref)):
        return f"reading {c.get('reading')!r} != {ref.get('reading')!r}"
    if streams_of(c) != streams_of(ref):
        return f"streams {streams_of(c)!r} != {streams_of(ref)!r}"
    diff = sorted(k for k in set(c["case"]) | set(ref["case"]) if c["case"].get(k) != ref["case"].get(k))
    if diff:
        return "case " + ", ".join(f"{k} {c['case'].get(k)!r} != {ref['case'].get(k)!r}" for k in diff)
    if c["case_hash"] != ref["case_hash"]:
        return f"case_hash {c['case_hash']!r} != {ref['case_hash']!r}"
    return None


# Written into a summary whose chunks predate the reading's ``arithmetic`` field: what the field says and why.
ARITHMETIC_INFERRED = (
    "float64: the chunks predate the reading's arithmetic field, and every srmdp that wrote"
    " results without it computed the paths in float64 (srmdp run --arithmetic came later)"
)


def _reading_with_arithmetic(reading):
    """The chunks' reading with its path arithmetic always written: float64 (and the reason, ``arithmetic_recorded``)
    where the chunks predate the field, so that no reader has to infer it."""
    if not isinstance(reading, dict) or "arithmetic" in reading:
        return reading
    return {**reading, "arithmetic": "float64", "arithmetic_recorded": ARITHMETIC_INFERRED}


def aggregate(paths, expect_runs=None, run_start=0, pool_devices=False) -> RunResult:
    """Summary of the chunks in ``paths`` (all runs of one case, seed, test points and device).

    ``pool_devices``: CPU and GPU chunks of the same case, seed, test points and random streams are
    pooled (the summary's device is then ``cpu+gpu``)."""
    if not paths:
        raise ChunkError("no chunk files given")
    if expect_runs is not None and (not _is_count(expect_runs, 1) or not _is_count(run_start, 0)):
        raise ConfigError(f"invalid expect_runs={expect_runs!r}: must be an integer >= 1")
    loaded = [(Path(p), *_load(p)) for p in paths]
    chunks = [(p, c) for p, c, *_ in loaded]
    arrays = {id(c): (ey, ez, u0, moments) for _, c, ey, ez, u0, moments in loaded}
    ref_path, ref = chunks[0]
    for p, c in chunks[1:]:
        why = _mismatch(c, ref, pool_devices)
        if why:
            raise ChunkError(f"chunk {p} does not belong with {ref_path}: {why}")
    # one srmdp version; a run made from a source tree without installed metadata (the GPU hosts' chunks until
    # bench/gpu/gpu_env.sh recorded the tree's version) records none: it cannot contradict one, and the case hash
    # already holds every numerical parameter
    versioned = [(p, _version(c)) for p, c in chunks if _version(c) is not None]
    for p, v in versioned[1:]:
        if v != versioned[0][1]:
            raise ChunkError(
                f"chunk {p} does not belong with {versioned[0][0]}: srmdp version {v!r} != {versioned[0][1]!r}"
            )
    chunks.sort(key=lambda pc: pc[1]["run_start"])
    covered = []
    for p, c in chunks:
        covered.append((c["run_start"], c["run_start"] + c["runs"], p))
    for (a0, a1, pa), (b0, b1, pb) in zip(covered, covered[1:], strict=False):
        if b0 < a1:
            raise ChunkError(f"chunks {pa} and {pb} overlap (runs {a0}-{a1 - 1} and {b0}-{b1 - 1})")
    if expect_runs is not None:
        want = set(range(run_start, run_start + expect_runs))
        have = set()
        for a0, a1, _ in covered:
            have.update(range(a0, a1))
        if want - have:
            gaps = sorted(want - have)
            raise ChunkError(f"missing runs {_ranges(gaps)} of {expect_runs} (no chunk holds them)")
        extra = [str(p) for a0, a1, p in covered if a0 < run_start or a1 > run_start + expect_runs]
        if extra:
            raise ChunkError(
                f"chunk(s) {', '.join(extra)} hold runs outside {run_start}-"
                f"{run_start + expect_runs - 1} (--expect-runs {expect_runs})"
            )
    exact = arrays[id(ref)][0] is not None
    if any((arrays[id(c)][0] is not None) != exact for _, c in chunks):
        raise ChunkError(f"chunks of {ref_path} mix results with and without error indicators")
    runs = int(sum(c["runs"] for _, c in chunks))
    seconds = [c["seconds_per_run"] for _, c in chunks for _ in range(c["runs"])]
    # the chunks' per-run values joined (in run order), the indicators recomputed over all of them
    per_run = concat(PerRun.of(**_per_run(*arrays[id(c)])) for _, c in chunks)
    u0 = per_run.array("u0")
    slowest = [c.get("seconds_per_run_max", c["seconds_per_run"] if c["runs"] == 1 else None) for _, c in chunks]
    rss = [c.get("peak_rss_bytes") for _, c in chunks]
    path_steps = ref.get("path_steps_per_run")
    fastest = float(min(c.get("seconds_per_run_min", c["seconds_per_run"]) for _, c in chunks))
    return RunResult(
        format_version=FORMAT_VERSION,
        case_hash=ref["case_hash"],
        case=ref["case"],
        label=ref.get("label"),
        reading=_reading_with_arithmetic(ref.get("reading")),
        device="+".join(sorted({c["device"] for _, c in chunks})),
        seed=ref["seed"],
        runs=runs,
        test_points=ref["test_points"],
        chunks=[str(p) for p, _ in chunks],
        run_ranges=_merged(covered),  # the run indices it holds, [start, stop) ranges (a chunk's name may not say)
        path_steps_per_run=path_steps,
        seconds_per_run=float(np.mean(seconds)),
        seconds_per_run_min=fastest,
        diagnostics={
            "dropped_directions": int(sum(c.get("diagnostics", {}).get("dropped_directions", 0) for _, c in chunks))
        },
        per_run=per_run,
        provenance=ref.get("provenance"),
        chunk_commits=sorted(
            {str(c["provenance"].get("git_commit")) for _, c in chunks if isinstance(c.get("provenance"), dict)}
        ),
        # known where every chunk recorded it (or holds one run)
        seconds_per_run_max=float(max(slowest)) if all(v is not None for v in slowest) else None,
        # measured peak RSS: the largest of the chunk processes
        peak_rss_bytes=max(rss) if rss and all(_is_count(v, 1) for v in rss) else None,
        path_steps_per_second=path_steps / fastest if path_steps else None,
        indicators=per_run.indicators(),
        # u(0, x0): mean and standard error over the runs
        problem=ref.get("problem") if u0 is not None else None,
        x0=ref.get("x0") if u0 is not None else None,
        u0=float(u0.mean()) if u0 is not None else None,
        u0_se=float(u0.std(ddof=1) / np.sqrt(runs)) if u0 is not None and runs > 1 else None,
    )


def _per_run(ey, ez, u0, moments) -> dict:
    """A checked chunk's per-run arrays (:func:`_load`) by field."""
    ey2, ez2 = moments if moments is not None else (None, None)
    return dict(ey=ey, ez=ez, ey2=ey2, ez2=ez2, u0=u0)


def _merged(covered) -> list:
    """[[start, stop], ...] of sorted, non-overlapping (start, stop, path) ranges, adjacent ones joined."""
    out: list = []
    for a0, a1, _ in covered:
        if out and out[-1][1] == a0:
            out[-1][1] = a1
        else:
            out.append([int(a0), int(a1)])
    return out


def _ranges(values):
    out, start, prev = [], None, None
    for v in values:
        if start is None:
            start = prev = v
        elif v == prev + 1:
            prev = v
        else:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = v
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ", ".join(out)
