"""Importing chunk files into the repository (``srmdp campaign import``): verified, new runs only; a plain
``srmdp run`` result is named and recorded as a campaign chunk."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

from ...case.cases import ConfigError
from ...case.readings import reading_name, reading_of
from ...case.results import write_json_atomic
from ...runs.aggregate import ChunkError
from ..inputs import chunks as chunkmod
from ..inputs.rows import case_of_record
from .chunk_files import chunk_name
from .selection import DEFAULT_CONFIG, load_readings


def imported_run(data: dict, source_name: str, readings) -> tuple[str, dict]:
    """(canonical chunk name, sealed-to-be copy) of a plain ``srmdp run`` result (no ``campaign`` record).

    The copy gets the ``campaign`` record a campaign chunk has, saying what the file itself says: the reading it
    was run under (named after the config's readings), its coefficient storage and path arithmetic, the device
    model, and where it came from (the file's name and checksum).  Raises ConfigError when its reading is none
    of the config's (the workflow would not read it)."""
    name = reading_name(data, readings)
    if name is None:
        raise ConfigError(f"its reading {reading_of(data)} is none of the config's")
    case = case_of_record(data["case"])
    hw = (data.get("provenance") or {}).get("hardware") or {}
    arithmetic = (data.get("reading") or {}).get("arithmetic") or data["case"].get("arithmetic") or "float64"
    out = dict(data)
    out.pop("checksum", None)
    out["campaign"] = {
        "reading_name": name,
        "stage": "imported srmdp run result",
        "precision": data["case"].get("precision", "float64"),
        "arithmetic": arithmetic,
        "device_model": hw.get("model"),
        "imported_from": source_name,
        "source_checksum": data.get("checksum"),
        "imported_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return chunk_name(
        case, name, data["device"], data["seed"], int(data["run_start"]), int(data["runs"]), int(data["test_points"])
    ), out


def import_chunks(sources, into, data_dirs, out=print, readings=None) -> int:
    """Verify the chunk files of folders/.tgz archives and copy those that are new into ``into``.

    Every chunk is read with its checksum verified (:func:`srmdp.runs.aggregate.load_chunk`); a chunk that fails,
    or whose runs clash with runs already present in its group, is refused and not copied.  A plain
    ``srmdp run`` result (no ``campaign`` record) is imported under its chunk name (:func:`chunk_name`) with the
    record of :func:`imported_run` (reading, storage, arithmetic, device model, source), sealed again.  Exit
    status 0 when nothing was refused, 3 otherwise (the chunks that passed are imported all the same)."""
    into = Path(into)
    refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for src in sources:
            src = Path(src)
            if src.is_dir():
                files += sorted(src.rglob("*.json"))
            elif src.is_file() and tarfile.is_tarfile(src):
                dest = Path(tmp) / f"t{len(files)}"
                with tarfile.open(src) as tar:
                    members = [
                        m
                        for m in tar.getmembers()
                        if m.isfile()
                        and m.name.endswith(".json")
                        and not m.name.startswith("/")
                        and ".." not in Path(m.name).parts
                    ]
                    tar.extractall(dest, members=members, filter="data")
                files += sorted(dest.rglob("*.json"))
            else:
                raise ConfigError(f"invalid source={str(src)!r}: not a folder or a .tgz archive")
        groups = chunkmod.index(chunkmod.result_paths(*data_dirs, into), verify=True)
        checksums = {c.checksum for g in groups.values() for c in g.chunks}
        # an imported srmdp run result is there under another checksum: that of the file it came from
        checksums |= {(c.data.get("campaign") or {}).get("source_checksum") for g in groups.values() for c in g.chunks}
        checksums.discard(None)
        added = 0
        for f in files:
            try:
                new = chunkmod.index([f], verify=True)
            except ChunkError as exc:
                out(f"import: refused {f.name}: {' '.join(str(exc).split())}")
                refused += 1
                continue
            for key, g in new.items():
                c = g.chunks[0]
                if c.checksum is not None and c.checksum in checksums:
                    out(f"import: {f.name} is already there")
                    continue
                present = groups[key].chunks if key in groups else []
                clash = [x.path for x in present if x.run_start < c.stop and c.run_start < x.stop]
                if clash:
                    out(f"import: refused {f.name}: runs {c.run_start}-{c.stop - 1} already in {', '.join(clash)}")
                    refused += 1
                    continue
                into.mkdir(parents=True, exist_ok=True)
                target = into / f.name
                if "campaign" not in c.data:  # a plain srmdp run result: named and recorded as a chunk
                    try:
                        name, record = imported_run(c.data, f.name, readings or load_readings(DEFAULT_CONFIG))
                    except ConfigError as exc:
                        out(f"import: refused {f.name}: {exc}")
                        refused += 1
                        continue
                    target = into / name
                    if target.exists():
                        out(f"import: refused {f.name}: {target} exists (another chunk of that name)")
                        refused += 1
                        continue
                    write_json_atomic(target, record)
                    c = chunkmod.index([target], verify=True)[key].chunks[0]
                else:
                    tmpf = into / f".{f.name}.tmp"
                    shutil.copyfile(f, tmpf)
                    os.replace(tmpf, target)
                    c.path = str(target)
                if f.name != target.name:
                    out(
                        f"import: {f.name} is a srmdp run result: {c.data['campaign']['precision']} storage,"
                        f" {c.data['campaign']['arithmetic']} arithmetic, {c.data['campaign']['device_model']}"
                    )
                if key in groups:
                    groups[key].chunks.append(c)
                else:
                    g.chunks[0] = c
                    groups[key] = g
                checksums.update(x for x in (c.checksum, g.chunks[0].data.get("checksum")) if x)
                added += 1
                out(f"import: {f.name} -> {target}")
    out(f"import: {added} chunk file(s) added to {into}" + (f"; {refused} refused" if refused else ""))
    return 3 if refused else 0
