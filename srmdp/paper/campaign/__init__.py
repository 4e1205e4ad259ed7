"""A resumable GPU campaign: within a time budget, run the next run chunks of the paper's rows.

    python -m srmdp campaign run --budget SECONDS --out DIR [options]     # compute, one sealed file per chunk
    python -m srmdp campaign run --budget SECONDS --out DIR --dry-run     # print the plan, no compute
    python -m srmdp campaign import DIR_OR_TGZ... [--into data/gpu/campaign]   # verify and add to the repository

(``bash bench/gpu/gpu_campaign.sh SECONDS OUTDIR`` prepares the GPU host's environment and calls ``run``.)

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
(checksums verified, see :mod:`srmdp.paper.inputs.chunks` for which chunks belong together: same case, reading,
precision, seed, test points and random streams); each new chunk takes the lowest free indices of its
group.

**Chunk size and the budget.**  A run of a case costs K M N (N+1) / 2 path-steps plus per-step and
per-stratum overheads: this campaign's measurement of the case, else the repository's measurement of the
same case on the same GPU model, else the shape model fitted to every GPU run measured in the repository
(:mod:`srmdp.paper.models.shape_cost`: chunks and A/B files, per GPU model and arithmetic), else the throughput
table ``config/gpu_throughput.csv``; the first use of a (d, basis, precision) adds a compilation time.  A
chunk holds as many runs as fit in both the time left (x ``--safety``, 1.3) and ``--max-chunk-seconds``; at least
one; a heavy row (a run of ``HEAVY_RUN_SECONDS`` or more) one run per chunk.

**Cut-off.**  Each finished chunk is written at once (atomic write, sealed with a checksum, as
``srmdp run`` writes results) and, with ``--pack``, the folder is re-packed into a .tgz.  At the end of
the budget (less ``--reserve`` seconds) an alarm stops the chunk in flight: it is lost, nothing of it
is written; the finished ones stay.  A process killed from outside loses the same (at most the chunk
in flight, whose temp file is hidden and never read).

**Modules.**  :mod:`.selection` (the readings and rows to run), :mod:`.planner` (the next chunk: priority
order, sizing), :mod:`.budget` (the alarm at the budget's end), :mod:`.device` (the device's model and check),
:mod:`.chunk_files` (chunk names, the .tgz), :mod:`.runner` (the campaign loop), :mod:`.importer` and
:mod:`.refresh` (``import``, ``refresh``), :mod:`.cli` (the command line; ``python -m srmdp.paper.campaign``).

May import: the solver library, :mod:`srmdp.paper.inputs`, :mod:`srmdp.paper.models` and
:mod:`srmdp.paper.plan`.
"""

from .budget import CutOff
from .chunk_files import ARCHIVE_DIR, chunk_name, pack
from .cli import DEFAULT_DATA, build_parser, main, validate_run_args
from .device import ASSUMED_GPU, device_model
from .importer import import_chunks, imported_run
from .planner import CHEAP_FIRST_SECONDS, HEAVY_RUN_SECONDS, PACK_MAX, SAFETY, ChunkPlan, Planner, Slot, free_range
from .refresh import refresh_chunks
from .runner import NOMINAL_SE, run_campaign
from .selection import DEFAULT_CONFIG, Row, case_list, load_readings, paper_selection, select_readings

__all__ = [
    "ARCHIVE_DIR",
    "ASSUMED_GPU",
    "CHEAP_FIRST_SECONDS",
    "DEFAULT_CONFIG",
    "DEFAULT_DATA",
    "HEAVY_RUN_SECONDS",
    "NOMINAL_SE",
    "PACK_MAX",
    "SAFETY",
    "ChunkPlan",
    "CutOff",
    "Planner",
    "Row",
    "Slot",
    "build_parser",
    "case_list",
    "chunk_name",
    "device_model",
    "free_range",
    "import_chunks",
    "imported_run",
    "load_readings",
    "main",
    "pack",
    "paper_selection",
    "refresh_chunks",
    "run_campaign",
    "select_readings",
    "validate_run_args",
]
