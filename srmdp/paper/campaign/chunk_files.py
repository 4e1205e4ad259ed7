"""The campaign's chunk files: their names, and the .tgz the campaign folder is re-packed into after every
chunk (``--pack``)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

ARCHIVE_DIR = "data/gpu/campaign"  # where the chunks are committed (and their path inside --pack)


def chunk_name(case, reading: str, device: str, seed: int, run_start: int, runs: int, test_points: int = 1000) -> str:
    """File name of a campaign chunk: row, reading, precision (``.f32a`` after it: float32 arithmetic), device,
    seed and run range."""
    tp = "" if test_points == 1000 else f".tp{test_points}"
    arith = ".f32a" if case.arithmetic == "float32" else ""
    return (
        f"{case.label}.{reading}.{case.precision}{arith}.{device}.seed{seed}{tp}"
        f".runs{run_start:04d}-{run_start + runs - 1:04d}.json"
    )


def pack(out_dir: Path, target: Path):
    """Re-pack the campaign folder's chunk files into ``target`` (.tgz) as data/gpu/campaign/<name>."""
    tmp = target.with_name(f".{target.name}.tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for f in sorted(out_dir.glob("*.json")):
            tar.add(f, arcname=f"{ARCHIVE_DIR}/{f.name}")
    os.replace(tmp, target)
