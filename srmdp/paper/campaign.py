"""A resumable GPU campaign: within a time budget, run the next run chunks of the paper's rows.

    python -m srmdp campaign run --budget SECONDS --out DIR [options]     # compute, one sealed file per chunk
    python -m srmdp campaign run --budget SECONDS --out DIR --dry-run     # print the plan, no compute
    python -m srmdp campaign import DIR_OR_TGZ... [--into data/gpu/campaign]   # verify and add to the repository

(``bash bench/gpu_campaign.sh SECONDS OUTDIR`` prepares the GPU host's environment and calls ``run``.)

**Priority order.**  Per reading of the config, in its order (``paper-fit`` first: outside=zero,
trunc_y=trunc_z=1): (1) every row's first run (a cheap row's ``--first-runs`` runs, of at most
``CHEAP_FIRST_SECONDS`` in all, in one chunk), (2) every row's first ``--first-runs`` (2) runs; then
(3) more runs of the (row, reading) whose largest standard error of the three indicators is largest
(doubling its runs, up to ``--max-runs``, 8).  Within (1) and (2) the cheapest rows go first, so a short
slot covers as many rows as it can; up to ``PACK_MAX`` rows are packed into the time left (as many rows as
fit, and of those choices the most seconds of work: a dear row that fits alone is not crowded out by a cheaper
one).  A chunk that would not end in the time left is never started: the next one that does is taken, and the
campaign's last lines name what was not started and why.

**Never a repeated run.**  The run indices already present — chunk files under ``--data`` (the
repository's ``data/gpu/``, the single-run files there included) and under ``--out`` — are read first
(checksums verified, see :mod:`srmdp.paper.chunks` for which chunks belong together: same case, reading,
precision, seed, test points and random streams); each new chunk takes the lowest free indices of its
group.

**Chunk size and the budget.**  A run of a case costs K M N (N+1) / 2 path-steps plus per-step and
per-stratum overheads: this campaign's measurement of the case, else the repository's measurement of the
same case on the same GPU model, else the shape model fitted to every GPU run measured in the repository
(:mod:`srmdp.paper.shape_cost`: chunks and A/B files, per GPU model and arithmetic), else the throughput
table ``config/gpu_throughput.csv``; the first use of a (d, basis, precision) adds a compilation time.  A
chunk holds as many runs as fit in both the time left (x ``--safety``, 1.3) and ``--max-chunk-seconds``; at least
one; a heavy row (a run of ``HEAVY_RUN_SECONDS`` or more) one run per chunk.

**Cut-off.**  Each finished chunk is written at once (atomic write, sealed with a checksum, as
``srmdp run`` writes results) and, with ``--pack``, the folder is re-packed into a .tgz.  At the end of
the budget (less ``--reserve`` seconds) an alarm stops the chunk in flight: it is lost, nothing of it
is written; the finished ones stay.  A process killed from outside loses the same (at most the chunk
in flight, whose temp file is hidden and never read).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import shutil
import signal
import sys
import tarfile
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..aggregate import ChunkError, load_chunk
from ..cases import ARITHMETICS, PRECISIONS, ConfigError, check_seed_run, is_int
from ..cli_options import Parser, exit_status
from ..gpu import gpu_unavailable_reason
from ..indicators import indicators
from ..readings import reading_name, reading_of
from ..results import DEFAULT_STREAMS, check_writable, content_hash, cpu_model, identity_hash, write_json_atomic
from ..solver import check_threads, run_case
from . import REPOSITORY
from . import chunks as chunkmod
from .config_readings import check_readings, load_readings_data
from .cost import THROUGHPUT_FILE, CostModel, compiled_key, load_throughput
from .preset_reading import PresetReading, readings_from_config  # a config's readings (z_cv, rows: see there)
from .rows import PaperCase, case_of_record, find_row, paper_case, paper_rows
from .shape_cost import bench_points

DEFAULT_CONFIG = REPOSITORY / "config" / "config.yaml"
DEFAULT_DATA = "data/gpu"
ARCHIVE_DIR = "data/gpu/campaign"  # where the chunks are committed (and their path inside --pack)
ASSUMED_GPU = "NVIDIA H100 80GB HBM3"
SAFETY = 1.3  # planned seconds x SAFETY must fit the time left
HEAVY_RUN_SECONDS = 60.0  # a row whose run takes this long runs one run per chunk
PACK_MAX = 12  # first-run candidates up to this many are packed into the time left (2^n subsets), else cheapest first
CHEAP_FIRST_SECONDS = 30.0  # a row whose first runs take this long at most gets them in one chunk
NOMINAL_SE = 0.05  # dry run: the s.e. assumed for 2 runs of a row that has none yet


class CutOff(BaseException):
    """The budget's end: the chunk in flight is abandoned (a BaseException: no ``except Exception`` eats it)."""


# --- chunk files and run ranges -----------------------------------------------------------------------
def chunk_name(case, reading: str, device: str, seed: int, run_start: int, runs: int, test_points: int = 1000) -> str:
    """File name of a campaign chunk: row, reading, precision (``.f32a`` after it: float32 arithmetic), device,
    seed and run range."""
    tp = "" if test_points == 1000 else f".tp{test_points}"
    arith = ".f32a" if case.arithmetic == "float32" else ""
    return (f"{case.label}.{reading}.{case.precision}{arith}.{device}.seed{seed}{tp}"
            f".runs{run_start:04d}-{run_start + runs - 1:04d}.json")


def free_range(used, n: int) -> tuple[int, int]:
    """(start, count): the lowest run index not in ``used``, and up to n consecutive free runs from it."""
    start = 0
    while start in used:
        start += 1
    count = 0
    while count < n and start + count not in used:
        count += 1
    return start, count


# --- readings and cases ---------------------------------------------------------------------------------
def load_readings(config_path) -> list:
    """The config's readings, checked (:func:`readings_from_config`); PyYAML is not needed (see
    :mod:`srmdp.paper.config_readings`)."""
    data = load_readings_data(config_path)
    check_readings(data, f"invalid config={str(config_path)!r}")
    try:
        out = readings_from_config(data, f"invalid config={str(config_path)!r}")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not out:
        raise ConfigError(f"invalid config={str(config_path)!r}: it defines no readings")
    return out


def select_readings(all_readings, spec):
    if not spec:
        return list(all_readings)
    by_name = {r.name: r for r in all_readings}
    out = []
    for name in spec.split(","):
        name = name.strip()
        if name not in by_name:
            raise ConfigError(f"invalid readings={spec!r}: {name!r} is not a reading of the config;"
                              f" allowed: {', '.join(by_name)}")
        out.append(by_name[name])
    return out


@dataclass(frozen=True)
class Row:
    """One row the campaign may run: a paper row or a free case of a case list."""
    table: str
    row: int
    spec: dict  # PaperCase fields (table and row too) other than the reading, the precision and the arithmetic
    order: int

    @property
    def label(self) -> str:
        return f"{self.table}_r{self.row}"

    def case(self, reading: PresetReading, precision: str, arithmetic: str | None = None) -> PaperCase:
        """The row under ``reading``; ``arithmetic`` (the campaign's --arithmetic) overrides the reading's."""
        options = reading.options() | ({} if arithmetic is None else {"arithmetic": arithmetic})
        return PaperCase(**self.spec, precision=precision, **options)


def paper_selection(spec: str | None) -> list:
    """Rows of the paper: ``all`` or ``TABLE`` / ``TABLE:ROW`` items, comma-separated."""
    chosen = {(r["table"], r["row"]) for r in paper_rows()}
    if spec and spec.strip() != "all":
        chosen = set()
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            table, _, row = item.partition(":")
            if row:
                try:
                    number = int(row)
                except ValueError:
                    raise ConfigError(f"invalid cases item {item!r}: the row must be an integer (TABLE:ROW)") from None
                r = find_row(table, row=number)  # one-line error naming the allowed tables/rows
                chosen.add((r["table"], r["row"]))
            else:
                find_row(table, row=1)
                chosen |= {(r["table"], r["row"]) for r in paper_rows() if r["table"] == table}
    out = []
    for i, r in enumerate(paper_rows()):
        if (r["table"], r["row"]) in chosen:
            case = paper_case(r["table"], row=r["row"])
            out.append(Row(r["table"], r["row"], {"d": case.d, "dt": case.dt, "basis": case.basis, "cells": case.cells,
                                                  "paths": case.paths, "table": case.table, "row": case.row}, i))
    if not out:
        raise ConfigError(f"invalid cases={spec!r}: selects no row")
    return out


CASE_LIST_FIELDS = ("table", "row", "d", "dt", "basis", "cells", "paths")


def case_list(path) -> list:
    """Free cases from a CSV with columns table,row,d,dt,basis,cells,paths (e.g. a tiny test preset)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError(f"invalid case-list={str(path)!r}: cannot read it ({exc.strerror or exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [f for f in CASE_LIST_FIELDS if f not in (reader.fieldnames or [])]
    if missing:
        raise ConfigError(f"invalid case-list={str(path)!r}: missing column(s) {', '.join(missing)}"
                          f" (needs {','.join(CASE_LIST_FIELDS)})")
    out = []
    for i, raw in enumerate(reader):
        try:
            spec = {"table": raw["table"].strip(), "row": int(raw["row"]), "d": int(raw["d"]), "dt": float(raw["dt"]),
                    "basis": raw["basis"].strip(), "cells": int(raw["cells"]), "paths": int(raw["paths"])}
        except (TypeError, ValueError):
            raise ConfigError(f"invalid case-list={str(path)!r}: line {i + 2} is not table,row,d,dt,basis,cells,paths"
                              " with numbers where numbers belong") from None
        if not spec["table"]:
            raise ConfigError(f"invalid case-list={str(path)!r}: line {i + 2} has an empty table name")
        PaperCase(**spec)  # validates (one line naming the field)
        out.append(Row(spec["table"], spec["row"], spec, i))
    if not out:
        raise ConfigError(f"invalid case-list={str(path)!r}: no case in it")
    labels = [r.label for r in out]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise ConfigError(f"invalid case-list={str(path)!r}: duplicate table/row {', '.join(dup)}")
    return out


# --- the planner --------------------------------------------------------------------------------------------
@dataclass
class Slot:
    """One (row, reading) of the campaign: its case and the group of chunks it adds to."""
    row: Row
    reading: PresetReading
    case: PaperCase
    case_hash: str
    streams: str = DEFAULT_STREAMS
    failed: str | None = None
    pending: set = field(default_factory=set)  # run indices planned in a dry run
    se: float | None = None  # largest s.e. of the three indicators (None: unknown or < 2 runs)

    @property
    def key(self):
        return (self.case_hash, self.streams)

    @property
    def name(self) -> str:
        return f"{self.row.label} {self.reading.name}"


@dataclass
class ChunkPlan:
    slot: Slot
    run_start: int
    runs: int
    stage: str
    seconds: float


class Planner:
    """The next chunk, in priority order, given the chunks present and the time left."""
    def __init__(self, rows, readings, groups, cost, *, precision="float32", arithmetic=None, seed=0,
                 test_points=1000,
                 first_runs=2, max_runs=100, max_chunk_seconds=120.0, min_chunk_seconds=10.0, safety=SAFETY):
        self.readings = readings
        self.groups = groups  # {group key: chunks.Group}, updated as chunks are written
        self.cost = cost
        self.first_runs = first_runs
        self.max_runs = max_runs
        self.max_chunk_seconds = max_chunk_seconds
        self.min_chunk_seconds = min_chunk_seconds
        self.slots = []
        self.safety = safety  # planned seconds x safety must fit the time left
        self.skipped: dict = {}  # slot name -> (seconds its chunk needs x safety, seconds that were left)
        for reading in readings:
            for row in rows:
                if not reading.runs_row(row.label):  # a reading restricted to some rows (its ``rows`` key)
                    continue
                case = row.case(reading, precision, arithmetic)
                self.slots.append(Slot(row, reading, case, identity_hash(case.as_dict(), seed, test_points)))
        for s in self.slots:
            self.refresh(s)

    # --- state of a slot -------------------------------------------------------------------------
    def group(self, slot):
        return self.groups.get(slot.key)

    def used(self, slot) -> set:
        g = self.group(slot)
        return (g.used() if g else set()) | slot.pending

    def have(self, slot) -> int:
        return len(self.used(slot))

    def refresh(self, slot):
        """Recompute a slot's largest standard error from its chunks' per-run errors."""
        g = self.group(slot)
        slot.se = None
        if g is None or g.runs < 2:
            return
        import numpy as np


        cs = sorted(g.chunks, key=lambda c: c.run_start)
        ey = np.concatenate([np.asarray(c.data["per_run"]["ey"], float) for c in cs])
        ez = np.concatenate([np.asarray(c.data["per_run"]["ez"], float) for c in cs])
        ind = indicators(ey, ez)
        ses = [ind.get(k + "_se") for k in ("mse_y_max", "mse_y_av", "mse_z_av")]
        ses = [s for s in ses if s is not None and math.isfinite(s)]
        slot.se = max(ses) if ses else None

    def free_range(self, slot, n) -> tuple[int, int]:
        return free_range(self.used(slot), n)

    # --- sizing ------------------------------------------------------------------------------------
    def fit(self, slot, want, left) -> tuple[int, float]:
        """Runs of ``slot`` (<= want) that fit ``left`` seconds and the chunk cap, and their seconds."""
        per_run = max(self.cost.run_seconds(slot.case), 1e-6)
        comp = self.cost.compile_seconds(slot.case) + self.cost.chunk_overhead
        by_budget = math.floor((left / self.safety - comp) / per_run)
        by_cap = max(1, math.floor((self.max_chunk_seconds - comp) / per_run))
        if per_run >= HEAVY_RUN_SECONDS:  # a heavy row: one run per chunk (a cut-off loses one run at most)
            by_cap = 1
        n = min(want, by_budget, by_cap)
        return (n, comp + n * per_run) if n >= 1 else (0, comp + per_run)

    # --- priority order ----------------------------------------------------------------------------
    def stages(self):
        """(name, reading, runs wanted): every row's first run, then ``first_runs`` each, per reading in the
        config's order; then more runs where the s.e. is largest, up to ``max_runs``."""
        for reading in self.readings:
            yield f"first runs, {reading.name}: 1 each", reading, 1
            if self.first_runs > 1:
                yield f"first runs, {reading.name}: {self.first_runs} each", reading, self.first_runs
        yield "largest s.e.", None, self.max_runs

    def candidates(self, stage_reading, target=None):
        if stage_reading is not None:
            out = []
            for s in self.slots:
                if s.failed or s.reading is not stage_reading:
                    continue
                goal = min(target or self.first_runs, self.first_runs)
                if goal < self.first_runs and self.first_runs * self.cost.run_seconds(s.case) <= CHEAP_FIRST_SECONDS:
                    goal = self.first_runs  # a cheap row: its first runs in one chunk
                want = goal - self.have(s)
                if want > 0:
                    out.append((self.cost.chunk_seconds(s.case, want), s.row.order, s, want))
            out.sort(key=lambda t: (t[0], t[1]))
            return [(s, want) for _, _, s, want in out]
        out = []
        for s in self.slots:
            have = self.have(s)
            if s.failed or have < self.first_runs or have >= self.max_runs:
                continue
            se = s.se if s.se is not None else math.inf
            # double the runs, or more where a run is cheap: a chunk of at least min_chunk_seconds
            cheap = math.floor(self.min_chunk_seconds / max(self.cost.run_seconds(s.case), 1e-6))
            out.append((-se, s.row.order, s, min(max(have, cheap), self.max_runs - have)))
        out.sort(key=lambda t: (t[0], t[1]))
        return [(s, want) for _, _, s, want in out]

    def next(self, left: float) -> ChunkPlan | None:
        """The first chunk in priority order that fits ``left`` seconds (None: nothing fits or is left); a chunk
        that would not end in the time left is never started: it is noted in ``skipped`` (slot name -> (seconds
        it needs, seconds left))."""
        for stage, reading, target in self.stages():
            cands = self.candidates(reading, target)
            if reading is not None and 1 < len(cands) <= PACK_MAX:
                cands = self.packed(cands, left)
            for slot, want in cands:
                start, count = self.free_range(slot, want)
                n, secs = self.fit(slot, count, left)
                if n >= 1:
                    return ChunkPlan(slot, start, n, stage, secs)
                self.skipped[slot.name] = (secs * self.safety, left)
        return None

    def packed(self, cands, left: float) -> list:
        """The first-run candidates reordered so that the time left holds as many rows as it can and, among the
        ways to hold that many, the most seconds of work: the chosen chunks first (cheapest first), then the rest.
        Cheapest-first alone would fill a window with a cheap heavy row and leave a dearer one that fitted alone
        never started."""
        sized = []
        for slot, want in cands:
            n, secs = self.fit(slot, self.free_range(slot, want)[1], left)
            sized.append(secs if n >= 1 else math.inf)
        best, best_key = (), (0, 0.0)
        for mask in range(1, 1 << len(cands)):
            pick = [i for i in range(len(cands)) if mask >> i & 1]
            total = sum(sized[i] for i in pick)
            if total * self.safety <= left and (len(pick), total) > best_key:
                best, best_key = tuple(pick), (len(pick), total)
        return [cands[i] for i in best] + [c for i, c in enumerate(cands) if i not in best]

    def progress(self) -> str:
        parts = []
        for reading in self.readings:
            slots = [s for s in self.slots if s.reading is reading]
            done = sum(self.have(s) >= self.first_runs for s in slots)
            parts.append(f"{reading.name} {done}/{len(slots)} rows with >= {self.first_runs} runs")
        return ", ".join(parts)


# --- running ----------------------------------------------------------------------------------------------
def device_model(device: str) -> str:
    """The device's name as results record it (provenance.hardware.model), without running anything."""
    if device == "cpu":

        return cpu_model()
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba-cuda simulator"
    from numba import cuda

    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def _alarm(signum, frame):
    raise CutOff()


def pack(out_dir: Path, target: Path):
    """Re-pack the campaign folder's chunk files into ``target`` (.tgz) as data/gpu/campaign/<name>."""
    tmp = target.with_name(f".{target.name}.tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for f in sorted(out_dir.glob("*.json")):
            tar.add(f, arcname=f"{ARCHIVE_DIR}/{f.name}")
    os.replace(tmp, target)


def _fmt_ind(res):
    def one(k):
        v, se = res.get(k), res.get(k + "_se")
        if v is None:
            return "nan"
        return f"{v:.3f}" + (f"±{se:.3f}" if se is not None else "")

    return f"MSE_Y,max {one('mse_y_max')}  MSE_Z,av {one('mse_z_av')}"


def run_campaign(args, out=print, runner=None) -> int:
    """The campaign loop (see the module docstring); ``runner`` replaces run_case in tests."""
    t0 = time.monotonic()
    deadline = t0 + args.budget
    out_dir = Path(args.out)
    readings = select_readings(load_readings(args.config), args.readings)
    rows = case_list(args.case_list) if args.case_list else paper_selection(args.cases)
    table = load_throughput(args.throughput)
    if not args.dry_run and runner is None:
        _check_device(args.device, args.threads)
    model = args.model
    if model is None:
        try:
            model = device_model(args.device)
        except Exception:
            if not args.dry_run:
                raise
            model = ASSUMED_GPU  # a dry run without a GPU plans for the H100
    threads = args.threads or (os.cpu_count() or 1)
    cost = CostModel(table, args.device, model, threads)
    paths = chunkmod.result_paths(*args.data, out_dir)
    groups = chunkmod.index(paths, verify=True)
    if getattr(args, "check_only", False):
        return 0
    for g in groups.values():
        for a, b in g.overlaps():
            out(f"campaign: warning: {a} and {b} hold the same run indices ({g.label}); `srmdp aggregate` will"
                " refuse them together: delete one")
        for c in g.chunks:
            cost.learn(c.data)
    cost.learn_points(bench_points(*args.data))  # the A/B files of the GPU sessions: more shapes for the model
    planner = Planner(rows, readings, groups, cost, precision=args.precision, arithmetic=args.arithmetic,
                      seed=args.seed,
                      test_points=args.test_points, first_runs=args.first_runs, max_runs=args.max_runs,
                      max_chunk_seconds=args.max_chunk_seconds, min_chunk_seconds=args.min_chunk_seconds,
                      safety=args.safety)
    present = sum(planner.have(s) for s in planner.slots)
    arithmetic = args.arithmetic or "each reading's"
    out(f"campaign: budget {args.budget:.0f} s on {args.device} ({model}), {args.precision} storage,"
        f" {arithmetic} arithmetic, seed {args.seed},"
        f" {args.test_points} test points, {len(rows)} rows x {len(readings)} readings; {len(paths)} files scanned,"
        f" {present} runs present; {planner.progress()}" + (" [dry run: nothing is computed]" if args.dry_run else ""))
    if not args.dry_run:
        out_dir.mkdir(parents=True, exist_ok=True)
    run = run_case if runner is None and not args.dry_run else runner

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":  # the simulator's uint64 arithmetic wraps in numpy scalars

        warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
    use_alarm = not args.dry_run and hasattr(signal, "setitimer")
    old_handler = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    done, failures, total_ps, clock = [], 0, 0, 0.0
    cut = None
    try:
        while True:
            now = t0 + clock if args.dry_run else time.monotonic()
            left = deadline - now - args.reserve
            plan = planner.next(left)
            if plan is None:
                break
            s = plan.slot
            name = chunk_name(s.case, s.reading.name, args.device, args.seed, plan.run_start, plan.runs,
                                       args.test_points)
            head = (f"chunk {len(done) + 1}: {s.row.label:<13} {s.reading.name:<9} {args.precision} runs"
                    f" {plan.run_start}-{plan.run_start + plan.runs - 1} ({plan.stage})")
            if args.dry_run:
                s.pending.update(range(plan.run_start, plan.run_start + plan.runs))
                cost.compiled.add(compiled_key(s.case))
                clock += plan.seconds
                have = planner.have(s)  # s.e. ~ 1/sqrt(runs); a nominal value where no run is there yet
                if s.se is not None:
                    s.se *= math.sqrt((have - plan.runs) / have)
                elif have >= 2:
                    s.se = NOMINAL_SE * math.sqrt(2 / have)
                done.append(plan)
                total_ps += plan.runs * s.case.path_steps
                out(f"{head}: planned {plan.seconds:.3g} s -> {name}")
                continue
            started = time.monotonic()
            try:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, max(deadline - args.reserve - started, 1e-3))
                res = run(s.case, runs=plan.runs, run_start=plan.run_start, test_points=args.test_points,
                          seed=args.seed, device=args.device, threads=args.threads)
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except CutOff:
                cut = (head, time.monotonic() - started, plan.seconds)
                break
            except ConfigError as exc:  # e.g. the case does not fit the device's memory
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                s.failed = " ".join(str(exc).split())
                out(f"{head}: skipped: {s.failed}")
                continue
            except Exception as exc:  # NumericalError and the like: this row is left for later sessions
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                s.failed = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
                failures += 1
                out(f"{head}: FAILED ({s.failed}); no file written")
                continue
            wall = time.monotonic() - started
            hw = (res.get("provenance") or {}).get("hardware") or {}
            res["campaign"] = {"reading_name": s.reading.name, "stage": plan.stage, "planned_seconds": plan.seconds,
                               "wall_seconds": wall, "device_model": hw.get("model", model),
                               "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            path = out_dir / name
            if path.exists():  # another group with the same name (other random streams): never overwrite

                path = out_dir / f"{name[:-5]}.{content_hash(res['per_run'])[:8]}.json"
            write_json_atomic(path, res)
            data = chunkmod.index([path], verify=True)
            for key, g in data.items():
                if key in groups:
                    groups[key].chunks.extend(g.chunks)
                else:
                    groups[key] = g
                if key[0] == s.case_hash:
                    s.streams = key[1]
            cost.learn(res, session=True)
            cost.learn_chunk(res, wall)
            planner.refresh(s)
            if args.pack:
                pack(out_dir, Path(args.pack))
            done.append(plan)
            total_ps += plan.runs * s.case.path_steps
            left = deadline - time.monotonic()
            out(f"{head}: {wall:.3g} s (planned {plan.seconds:.3g}), {res.get('path_steps_per_second', 0):.3g}"
                f" path-steps/s, {_fmt_ind(res)}; {planner.have(s)} runs now -> {path}; {left:.0f} s left")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)
    elapsed = clock if args.dry_run else time.monotonic() - t0
    runs = sum(p.runs for p in done)
    out(f"campaign: {len(done)} chunks, {runs} runs, {total_ps:.3g} path-steps in {elapsed:.0f} s"
        f"{' (planned)' if args.dry_run else ''}; {planner.progress()}")
    if cut:
        out(f"campaign: cut off at the budget's end: {cut[0]} lost after {cut[1]:.1f} s (planned {cut[2]:.3g} s);"
            " the finished chunks are written")
    done_names = {p.slot.name for p in done}
    skipped = [f"{name} (needs ~{need:.0f} s with the margin, {left:.0f} s were left)"
               for name, (need, left) in planner.skipped.items() if name not in done_names]
    if skipped:
        out("campaign: not started, as they would not end in the time left: " + "; ".join(skipped))
    short = [s for s in planner.slots if not s.failed and planner.have(s) < args.first_runs]
    if short:
        shown = ", ".join(f"{s.name} ({planner.have(s)} runs, ~{cost.run_seconds(s.case):.3g} s/run)" for s in short)
        out(f"campaign: still below {args.first_runs} runs (next time): {shown}")
    failed = [f"{s.name}: {s.failed}" for s in planner.slots if s.failed]
    if failed:
        out("campaign: left out: " + "; ".join(failed))
    return 3 if failures else 0


def _check_device(device, threads):
    if device == "gpu":

        reason = gpu_unavailable_reason()
        if reason:
            raise ConfigError(f"invalid device='gpu': {reason}")
    elif threads is not None:

        check_threads(threads)


# --- importing chunks into the repository -------------------------------------------------------------------
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
    out["campaign"] = {"reading_name": name, "stage": "imported srmdp run result",
                       "precision": data["case"].get("precision", "float64"), "arithmetic": arithmetic,
                       "device_model": hw.get("model"), "imported_from": source_name,
                       "source_checksum": data.get("checksum"),
                       "imported_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return chunk_name(case, name, data["device"], data["seed"], int(data["run_start"]), int(data["runs"]),
                      int(data["test_points"])), out


def import_chunks(sources, into, data_dirs, out=print, readings=None) -> int:
    """Verify the chunk files of folders/.tgz archives and copy those that are new into ``into``.

    Every chunk is read with its checksum verified (:func:`srmdp.aggregate.load_chunk`); a chunk that fails,
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
                    members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".json")
                               and not m.name.startswith("/") and ".." not in Path(m.name).parts]
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
                    out(f"import: {f.name} is a srmdp run result: {c.data['campaign']['precision']} storage,"
                        f" {c.data['campaign']['arithmetic']} arithmetic, {c.data['campaign']['device_model']}")
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


# --- command line -------------------------------------------------------------------------------------------
def refresh_chunks(paths, threads=None, out=print, runner=None) -> int:
    """Rerun the runs of chunk files written by an older srmdp, on this machine's device of the chunk's kind,
    and rewrite each with the fields added since (e.g. the per-run moments ``ey2``/``ez2``) -- only where the
    rerun reproduces the chunk's per-run errors and u0 bit for bit; the campaign metadata is kept, with
    ``refreshed_utc``.  A chunk that is not reproduced is left as it is (exit 3)."""

    run = runner or run_case
    chunks = [(Path(p), load_chunk(p)) for p in paths]  # all checked (checksums) before any compute
    if runner is None:
        for device in sorted({c["device"] for _, c in chunks}):  # and the devices they need
            _check_device(device, threads if device == "cpu" else None)
    failures = 0
    for path, old in chunks:
        case = case_of_record(old["case"])  # its table and row too: the same case_hash
        res = run(case, runs=old["runs"], run_start=old["run_start"], test_points=old["test_points"],
                  seed=old["seed"], device=old["device"], threads=threads if old["device"] == "cpu" else None)
        same = [k for k in ("ey", "ez", "u0") if k in old["per_run"]]
        diff = [k for k in same if res["per_run"].get(k) != old["per_run"][k]]
        if diff or not same:
            failures += 1
            out(f"{path}: NOT reproduced ({', '.join(diff) or 'no per-run values'} differ); left as it is")
            continue
        res["campaign"] = dict(old.get("campaign") or {},
                               refreshed_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        write_json_atomic(path, res)
        out(f"{path}: reproduced bit for bit ({', '.join(same)}); rewritten with"
            f" {', '.join(sorted(set(res['per_run']) - set(old['per_run']))) or 'no new per-run field'}")
    return 3 if failures else 0


def build_parser():
    p = Parser(prog="srmdp campaign", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    r = sub.add_parser("run", help="run the next chunks within a time budget")
    r.add_argument("--budget", required=True, type=float, help="seconds for the whole campaign")
    r.add_argument("--out", required=True, help="folder of the chunk files written (flat)")
    r.add_argument("--device", choices=["gpu", "cpu"], default="gpu")
    r.add_argument("--precision", default="float32", help="coefficient storage (float32 as the paper)")
    r.add_argument("--arithmetic", help="path arithmetic of every reading (default: the reading's, float64 unless"
                   " the config says; float32: the paper's precision, its chunks are their own cases)")
    r.add_argument("--seed", type=int, default=0, help="seed of the streams (0: that of data/gpu's runs)")
    r.add_argument("--test-points", type=int, default=1000)
    r.add_argument("--data", action="append", default=None,
                   help=f"folder(s) of chunks already present (default {DEFAULT_DATA}); repeatable")
    r.add_argument("--config", default=str(DEFAULT_CONFIG), help="YAML config whose readings are used")
    r.add_argument("--readings", help="comma list of reading names, in priority order (default: the config's)")
    r.add_argument("--cases", default="all", help="all, or TABLE / TABLE:ROW items (comma list)")
    r.add_argument("--case-list", help="CSV of free cases (table,row,d,dt,basis,cells,paths) instead of the paper's")
    r.add_argument("--first-runs", type=int, default=2, help="runs every row gets first, per reading")
    r.add_argument("--max-runs", type=int, default=8, help="runs per row and reading at most (stage 3 stops there)")
    r.add_argument("--max-chunk-seconds", type=float, default=120.0,
                   help="planned seconds of one chunk at most (what a cut-off can lose)")
    r.add_argument("--min-chunk-seconds", type=float, default=10.0,
                   help="stage 3: a chunk of a cheap row holds at least this many seconds of runs")
    r.add_argument("--reserve", type=float, default=5.0, help="seconds kept at the end (packing, exit)")
    r.add_argument("--safety", type=float, default=SAFETY,
                   help=f"a chunk starts when its planned seconds x this fit the time left (default {SAFETY}; the"
                   " budget's alarm stops a chunk that overruns: it alone is lost)")
    r.add_argument("--threads", type=int, help="CPU threads (device cpu)")
    r.add_argument("--throughput", default=str(THROUGHPUT_FILE), help="the assumed throughput table (CSV)")
    r.add_argument("--model", help=argparse.SUPPRESS)  # device model for --dry-run without the device
    r.add_argument("--pack", help="a .tgz re-packed after every chunk (paths data/gpu/campaign/<file>)")
    r.add_argument("--dry-run", action="store_true", help="print the chunks that would run (estimated times)")
    r.add_argument("--check-only", action="store_true",
                   help="check the arguments, the device and the chunks present, then stop (exit 0)")

    i = sub.add_parser("import", help="verify chunk files (folders or .tgz) and add the new ones to the repository")
    i.add_argument("sources", nargs="+")
    i.add_argument("--into", default=ARCHIVE_DIR)
    i.add_argument("--data", action="append", default=None, help=f"chunks already present (default {DEFAULT_DATA})")
    f = sub.add_parser("refresh", help="rerun chunks written by an older srmdp; rewrite them with the newer fields"
                       " where the rerun reproduces them bit for bit")
    f.add_argument("chunks", nargs="+")
    f.add_argument("--threads", type=int, help="CPU threads (chunks of device cpu)")
    return p


def validate_run_args(args):
    """One-line ConfigError for any bad argument, before any compute."""
    if not (math.isfinite(args.budget) and args.budget > 0):
        raise ConfigError(f"invalid budget={args.budget!r}: must be a number of seconds > 0")
    if args.precision not in PRECISIONS:
        raise ConfigError(f"invalid precision={args.precision!r}: allowed values are {', '.join(PRECISIONS)}")
    if args.arithmetic is not None and args.arithmetic not in ARITHMETICS:
        raise ConfigError(f"invalid arithmetic={args.arithmetic!r}: allowed values are {', '.join(ARITHMETICS)}")
    check_seed_run(args.seed, 0)
    if not is_int(args.test_points) or args.test_points < 1:
        raise ConfigError(f"invalid test_points={args.test_points!r}: must be an integer >= 1")
    if args.first_runs < 1:
        raise ConfigError(f"invalid first_runs={args.first_runs}: must be an integer >= 1")
    if args.max_runs < args.first_runs:
        raise ConfigError(f"invalid max_runs={args.max_runs}: must be >= first_runs={args.first_runs}")
    if not (math.isfinite(args.max_chunk_seconds) and args.max_chunk_seconds > 0):
        raise ConfigError(f"invalid max_chunk_seconds={args.max_chunk_seconds!r}: must be a number > 0")
    if not (math.isfinite(args.min_chunk_seconds) and 0 <= args.min_chunk_seconds <= args.max_chunk_seconds):
        raise ConfigError(f"invalid min_chunk_seconds={args.min_chunk_seconds!r}: must be in [0, max_chunk_seconds]")
    if not (math.isfinite(args.safety) and 1.0 <= args.safety <= 10.0):
        raise ConfigError(f"invalid safety={args.safety!r}: must be a number in [1, 10]")
    if not (math.isfinite(args.reserve) and 0 <= args.reserve < args.budget):
        raise ConfigError(f"invalid reserve={args.reserve!r}: must be a number in [0, budget)")
    if args.cases != "all" and args.case_list:
        raise ConfigError("invalid arguments: give --cases or --case-list, not both")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"invalid out={args.out!r}: exists and is not a folder")
    if not args.dry_run:

        check_writable(out / ".campaign-probe")
    for d in args.data:
        if not Path(d).is_dir():
            raise ConfigError(f"invalid data={d!r}: not a folder (the chunks already present)")
    if args.pack:
        pk = Path(args.pack)
        if pk.is_dir() or pk.suffix not in (".tgz", ".gz"):
            raise ConfigError(f"invalid pack={args.pack!r}: give a .tgz file name")
        if not args.dry_run:

            check_writable(pk)
    if args.threads is not None and args.device != "cpu":
        raise ConfigError("invalid threads: --threads is for --device cpu")


def main(argv=None):
    args = build_parser().parse_args(argv)
    return exit_status(lambda: _command(args), interrupted="the finished chunks are written")


def _command(args) -> int:
    if args.command == "refresh":
        return refresh_chunks(args.chunks, args.threads, out=lambda line: print(line, flush=True))
    if args.command == "import":
        args.data = args.data or ([DEFAULT_DATA] if Path(DEFAULT_DATA).is_dir() else [])
        return import_chunks(args.sources, args.into, args.data)
    if args.data is None:
        args.data = [DEFAULT_DATA] if Path(DEFAULT_DATA).is_dir() else []
    validate_run_args(args)
    return run_campaign(args, out=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
