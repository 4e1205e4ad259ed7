"""Gather run chunks of one case into a summary, refusing chunks that do not belong together."""

import json
import math
from pathlib import Path

import numpy as np

from .cases import ConfigError
from .errors import indicators
from .results import FORMAT_VERSION

REQUIRED = ("format_version", "case_hash", "case", "seed", "run_start", "runs", "test_points", "per_run",
            "device", "seconds_per_run")


class ChunkError(ConfigError):
    """A chunk file is unreadable, incomplete, or does not belong with the others."""


def load_chunk(path) -> dict:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ChunkError(f"missing chunk file {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ChunkError(f"corrupt chunk file {path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(data, dict):
        raise ChunkError(f"corrupt chunk file {path}: not a JSON object")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise ChunkError(f"corrupt chunk file {path}: missing field(s) {', '.join(missing)}")
    if data["format_version"] != FORMAT_VERSION:
        raise ChunkError(f"chunk file {path} has format version {data['format_version']},"
                         f" this srmdp reads {FORMAT_VERSION}; rerun it")
    ey, ez = data["per_run"].get("ey"), data["per_run"].get("ez")
    n = data["case"].get("steps")
    ok = (isinstance(ey, list) and isinstance(ez, list) and len(ey) == len(ez) == data["runs"]
          and all(isinstance(r, list) and len(r) == n for r in ey + ez))
    if not ok:
        raise ChunkError(f"corrupt chunk file {path}: per-run errors do not match runs={data['runs']}")
    return data


def aggregate(paths, expect_runs=None, run_start=0) -> dict:
    """Summary of the chunks in ``paths`` (all runs of one case, seed, test points and device)."""
    if not paths:
        raise ChunkError("no chunk files given")
    chunks = [(Path(p), load_chunk(p)) for p in paths]
    ref_path, ref = chunks[0]
    for p, c in chunks[1:]:
        for key in ("case_hash", "device"):
            if c[key] != ref[key]:
                raise ChunkError(f"chunk {p} does not match {ref_path}: {key} {c[key]!r} != {ref[key]!r}")
    chunks.sort(key=lambda pc: pc[1]["run_start"])
    covered = []
    for p, c in chunks:
        covered.append((c["run_start"], c["run_start"] + c["runs"], p))
    for (a0, a1, pa), (b0, b1, pb) in zip(covered, covered[1:]):
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
    ey = np.concatenate([np.asarray(c["per_run"]["ey"], dtype=float) for _, c in chunks])
    ez = np.concatenate([np.asarray(c["per_run"]["ez"], dtype=float) for _, c in chunks])
    if not (np.all(np.isfinite(ey)) and np.all(np.isfinite(ez))):
        bad = [str(p) for p, c in chunks if not np.all(np.isfinite(c["per_run"]["ey"]))]
        raise ChunkError(f"non-finite errors in chunk(s) {', '.join(bad) or '?'}")
    runs = int(ey.shape[0])
    seconds = [c["seconds_per_run"] for _, c in chunks for _ in range(c["runs"])]
    out = {
        "format_version": FORMAT_VERSION,
        "case_hash": ref["case_hash"],
        "case": ref["case"],
        "label": ref.get("label"),
        "reading": ref.get("reading"),
        "device": ref["device"],
        "seed": ref["seed"],
        "runs": runs,
        "test_points": ref["test_points"],
        "chunks": [str(p) for p, _ in chunks],
        "path_steps_per_run": ref.get("path_steps_per_run"),
        "seconds_per_run": float(np.mean(seconds)),
        "seconds_per_run_min": float(min(c.get("seconds_per_run_min", c["seconds_per_run"]) for _, c in chunks)),
        "diagnostics": {"dropped_directions": int(sum(c.get("diagnostics", {}).get("dropped_directions", 0)
                                                      for _, c in chunks))},
        "per_run": {"ey": ey.tolist(), "ez": ez.tolist()},
        "provenance": ref.get("provenance"),
    }
    if out["path_steps_per_run"]:
        out["path_steps_per_second"] = out["path_steps_per_run"] / out["seconds_per_run_min"]
    out.update(indicators(ey, ez))
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


def finite_or_none(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x
