"""The campaign's planner: the next chunk, in priority order, given the chunks present and the time left (the
order and the sizing: see :mod:`srmdp.paper.campaign`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...case.results import DEFAULT_STREAMS, identity_hash
from ...numerics.indicators import indicators
from ..inputs.preset_reading import PresetReading
from ..inputs.rows import PaperCase
from .selection import Row

SAFETY = 1.3  # planned seconds x SAFETY must fit the time left
HEAVY_RUN_SECONDS = 60.0  # a row whose run takes this long runs one run per chunk
PACK_MAX = 12  # first-run candidates up to this many are packed into the time left (2^n subsets), else cheapest first
CHEAP_FIRST_SECONDS = 30.0  # a row whose first runs take this long at most gets them in one chunk


def free_range(used, n: int) -> tuple[int, int]:
    """(start, count): the lowest run index not in ``used``, and up to n consecutive free runs from it."""
    start = 0
    while start in used:
        start += 1
    count = 0
    while count < n and start + count not in used:
        count += 1
    return start, count


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

    def __init__(
        self,
        rows,
        readings,
        groups,
        cost,
        *,
        precision="float32",
        arithmetic=None,
        seed=0,
        test_points=1000,
        first_runs=2,
        max_runs=100,
        max_chunk_seconds=120.0,
        min_chunk_seconds=10.0,
        safety=SAFETY,
    ):
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
