"""Run chunks kept in the repository (``data/gpu/``): which runs of which case are already there.

A *chunk* is a result file of ``srmdp run`` (or of :func:`srmdp.runs.run.run_case`) holding runs
``run_start .. run_start + runs - 1`` of one case.  Chunks *pool* (are aggregated together, and
share one set of run indices that must not repeat) when their runs are draws of the same random
streams under the same numerical parameters:

* the same ``case_hash`` — case (paper row, reading outside/trunc_y/trunc_z, precision, #C, M, ...),
  seed and test points, see :func:`srmdp.case.results.identity_hash`;
* the same random streams (:func:`streams_of`): today the CPU and the GPU share one counter-based
  stream, so CPU and GPU chunks of the same case_hash pool; a result that declares another stream
  family (``"streams"`` field) pools only with results of that family.

One function, :func:`group_key`, decides this for the campaign planner (never repeat a run index of a
group), for the workflow (one ``srmdp aggregate`` per group) and for the report (one line per group).
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field

from ...case.readings import reading_of
from ...case.results import content_hash, streams_of
from ...runs.aggregate import load_chunk


def group_key(res: dict) -> tuple:
    """What chunks must share to be pooled: (case_hash, streams)."""
    return (res.get("case_hash"), streams_of(res))


def group_id(res: dict) -> str:
    """A short, path-safe name of a result's group: ``<precision>-s<seed>-<hash>``."""
    case = res.get("case") or {}
    return f"{case.get('precision', 'float64')}-s{res.get('seed')}-{content_hash(list(group_key(res)))[:8]}"


@dataclass
class Chunk:
    path: str
    run_start: int
    runs: int
    device: str
    model: str
    checksum: str | None
    data: dict = field(repr=False)

    @property
    def stop(self) -> int:
        return self.run_start + self.runs


@dataclass
class Group:
    """The chunks of one (case_hash, streams) group."""

    key: tuple
    table: str
    row: int
    reading: tuple
    precision: str
    seed: int
    test_points: int
    streams: str
    chunks: list = field(default_factory=list)

    @property
    def id(self) -> str:
        return group_id(self.chunks[0].data)

    @property
    def label(self) -> str:
        return f"{self.table}_r{self.row}"

    @property
    def runs(self) -> int:
        return len(self.used())

    @property
    def devices(self) -> list:
        return sorted({c.device for c in self.chunks})

    @property
    def paths(self) -> list:
        return [c.path for c in sorted(self.chunks, key=lambda c: (c.run_start, c.path))]

    def used(self) -> set:
        out = set()
        for c in self.chunks:
            out.update(range(c.run_start, c.stop))
        return out

    def overlaps(self) -> list:
        """Pairs of chunk paths whose run ranges overlap."""
        cs = sorted(self.chunks, key=lambda c: (c.run_start, c.path))
        return [
            (a.path, b.path)
            for i, a in enumerate(cs)
            for b in cs[i + 1 :]
            if b.run_start < a.stop and a.run_start < b.stop
        ]


def _light_load(path):
    """A result dict, or None when the file is not a result of a case (JSON read, no checksum check)."""
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("case"), dict)
        and "case_hash" in data
        and "run_start" in data
        and "runs" in data
        and "per_run" in data
        and "chunks" not in data
    ):
        return None
    return data


def result_paths(*folders) -> list:
    """Every ``*.json`` under the folders (recursively), each real file once, sorted."""
    seen, out = set(), []
    for folder in folders:
        if folder is None or not os.path.isdir(folder):
            continue
        for p in sorted(glob.glob(os.path.join(str(folder), "**", "*.json"), recursive=True)):
            real = os.path.realpath(p)
            if real not in seen and os.path.isfile(p):
                seen.add(real)
                out.append(p)
    return out


def index(paths, verify=False) -> dict:
    """{group_key: Group} of the chunk files among ``paths`` (other JSON files are skipped).

    With ``verify``, each chunk is read by :func:`srmdp.runs.aggregate.load_chunk` (checksum, fields,
    per-run arrays), which raises a one-line :class:`srmdp.runs.aggregate.ChunkError` on a bad file.  Two
    files with the same content (the same checksum: a chunk copied from a campaign folder into the
    repository) count once.
    """
    groups: dict = {}
    seen_checksums: set = set()
    for p in paths:
        data = _light_load(p)
        if data is None or not data["case"].get("table"):
            continue  # not a chunk of a named case (a benchmark dump, a summary, ...)
        if verify:
            data = load_chunk(p)
        ck = data.get("checksum")
        if ck is not None:
            if ck in seen_checksums:
                continue
            seen_checksums.add(ck)
        key = group_key(data)
        case = data["case"]
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(
                key=key,
                table=case["table"],
                row=int(case.get("row", 0)),
                reading=reading_of(data),
                precision=case.get("precision", "float64"),
                seed=data.get("seed"),
                test_points=data.get("test_points"),
                streams=streams_of(data),
            )
        hw = (data.get("provenance") or {}).get("hardware") or {}
        g.chunks.append(
            Chunk(
                path=str(p),
                run_start=int(data["run_start"]),
                runs=int(data["runs"]),
                device=str(data.get("device")),
                model=str(hw.get("model") or "?"),
                checksum=ck,
                data=data,
            )
        )
    return groups


def aggregate_flags(group: Group) -> str:
    """Extra ``srmdp aggregate`` options for a group (CPU and GPU chunks of one group are pooled)."""
    return "--pool-devices" if len(group.devices) > 1 else ""
