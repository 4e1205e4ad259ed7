"""Refreshing chunk files written by an older srmdp (``srmdp campaign refresh``): rerun, and rewritten with the
newer fields only where the rerun reproduces them bit for bit."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from ...case.results import write_json_atomic
from ...runs.aggregate import load_chunk
from ...runs.run import run_case
from ..inputs.rows import case_of_record
from .device import check_device


def refresh_chunks(paths, threads=None, out=print, runner=None) -> int:
    """Rerun the runs of chunk files written by an older srmdp, on this machine's device of the chunk's kind,
    and rewrite each with the fields added since (e.g. the per-run moments ``ey2``/``ez2``) -- only where the
    rerun reproduces the chunk's per-run errors and u0 bit for bit; the campaign metadata is kept, with
    ``refreshed_utc``.  A chunk that is not reproduced is left as it is (exit 3)."""

    run = runner or run_case
    chunks = [(Path(p), load_chunk(p)) for p in paths]  # all checked (checksums) before any compute
    if runner is None:
        for device in sorted({c["device"] for _, c in chunks}):  # and the devices they need
            check_device(device, threads if device == "cpu" else None)
    failures = 0
    for path, old in chunks:
        case = case_of_record(old["case"])  # its table and row too: the same case_hash
        res = run(
            case,
            runs=old["runs"],
            run_start=old["run_start"],
            test_points=old["test_points"],
            seed=old["seed"],
            device=old["device"],
            threads=threads if old["device"] == "cpu" else None,
        )
        same = [k for k in ("ey", "ez", "u0") if k in old["per_run"]]
        diff = [k for k in same if res["per_run"].get(k) != old["per_run"][k]]
        if diff or not same:
            failures += 1
            out(f"{path}: NOT reproduced ({', '.join(diff) or 'no per-run values'} differ); left as it is")
            continue
        res = replace(
            res,
            campaign=dict(old.get("campaign") or {}, refreshed_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
        )
        write_json_atomic(path, res)
        out(
            f"{path}: reproduced bit for bit ({', '.join(same)}); rewritten with"
            f" {', '.join(sorted(set(res['per_run']) - set(old['per_run']))) or 'no new per-run field'}"
        )
    return 3 if failures else 0
