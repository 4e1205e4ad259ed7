"""A resumable GPU campaign: within a time budget, run the next run chunks of the paper's rows.

    python -m srmdp campaign run --budget SECONDS --out DIR [options]     # compute, one sealed file per chunk
    python -m srmdp campaign run --budget SECONDS --out DIR --dry-run     # print the plan, no compute
    python -m srmdp campaign import DIR_OR_TGZ... [--into data/gpu/campaign]   # verify and add to the repository

(``bash bench/gpu/gpu_campaign.sh SECONDS OUTDIR`` prepares the GPU host's environment and calls ``run``.)
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ...case.cases import ARITHMETICS, PRECISIONS, ConfigError, check_seed_run, is_int
from ...case.results import check_writable
from ...cli.common import Parser, exit_status
from ...options import add_arguments
from ..models.cost import THROUGHPUT_FILE
from .chunk_files import ARCHIVE_DIR
from .importer import import_chunks
from .planner import SAFETY
from .refresh import refresh_chunks
from .runner import run_campaign
from .selection import DEFAULT_CONFIG

DEFAULT_DATA = "data/gpu"


def build_parser():
    p = Parser(prog="srmdp campaign", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    r = sub.add_parser("run", help="run the next chunks within a time budget")
    r.add_argument("--budget", required=True, type=float, help="seconds for the whole campaign")
    r.add_argument("--out", required=True, help="folder of the chunk files written (flat)")
    add_arguments(r, "campaign")  # the run options it takes (device, storage, arithmetic, seed, ...: srmdp.options)
    r.add_argument(
        "--data",
        action="append",
        default=None,
        help=f"folder(s) of chunks already present (default {DEFAULT_DATA}); repeatable",
    )
    r.add_argument("--config", default=str(DEFAULT_CONFIG), help="YAML config whose readings are used")
    r.add_argument("--readings", help="comma list of reading names, in priority order (default: the config's)")
    r.add_argument("--cases", default="all", help="all, or TABLE / TABLE:ROW items (comma list)")
    r.add_argument("--case-list", help="CSV of free cases (table,row,d,dt,basis,cells,paths) instead of the paper's")
    r.add_argument("--first-runs", type=int, default=2, help="runs every row gets first, per reading")
    r.add_argument("--max-runs", type=int, default=8, help="runs per row and reading at most (stage 3 stops there)")
    r.add_argument(
        "--max-chunk-seconds",
        type=float,
        default=120.0,
        help="planned seconds of one chunk at most (what a cut-off can lose)",
    )
    r.add_argument(
        "--min-chunk-seconds",
        type=float,
        default=10.0,
        help="stage 3: a chunk of a cheap row holds at least this many seconds of runs",
    )
    r.add_argument("--reserve", type=float, default=5.0, help="seconds kept at the end (packing, exit)")
    r.add_argument(
        "--safety",
        type=float,
        default=SAFETY,
        help=f"a chunk starts when its planned seconds x this fit the time left (default {SAFETY}; the"
        " budget's alarm stops a chunk that overruns: it alone is lost)",
    )
    r.add_argument("--throughput", default=str(THROUGHPUT_FILE), help="the assumed throughput table (CSV)")
    r.add_argument("--model", help=argparse.SUPPRESS)  # device model for --dry-run without the device
    r.add_argument("--pack", help="a .tgz re-packed after every chunk (paths data/gpu/campaign/<file>)")
    r.add_argument("--dry-run", action="store_true", help="print the chunks that would run (estimated times)")
    r.add_argument(
        "--check-only",
        action="store_true",
        help="check the arguments, the device and the chunks present, then stop (exit 0)",
    )

    i = sub.add_parser("import", help="verify chunk files (folders or .tgz) and add the new ones to the repository")
    i.add_argument("sources", nargs="+")
    i.add_argument("--into", default=ARCHIVE_DIR)
    i.add_argument("--data", action="append", default=None, help=f"chunks already present (default {DEFAULT_DATA})")
    f = sub.add_parser(
        "refresh",
        help="rerun chunks written by an older srmdp; rewrite them with the newer fields"
        " where the rerun reproduces them bit for bit",
    )
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
