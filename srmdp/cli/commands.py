"""Command line: ``srmdp run``, ``srmdp aggregate``; ``srmdp solve``, ``srmdp eval``
(:mod:`srmdp.cli.solution`); and the subcommands other packages register as entry points of the group
``srmdp.commands`` (the paper's reproduction: ``srmdp cases``, ``srmdp campaign``, ``srmdp lsmdp``,
``srmdp beyond``, ``srmdp plan``).  ``srmdp run --table`` takes its case from the entry point of the group
``srmdp.tables`` (the paper's rows, :mod:`srmdp.paper.inputs.rows`).

Every input error is one line on stderr (``srmdp: error: ...``) and exit status 2, before any
compute (no result file is written); numerical failures exit with status 3, a result that cannot be
written after the compute with status 1, an interrupt with 130; ``srmdp solve --tol`` whose tolerance was not
met within the budget writes its finest answer and exits with status 4 (:data:`srmdp.cli.solution.TOL_NOT_MET`).
"""

import difflib
import os
import sys
from importlib.metadata import entry_points

from .. import __version__
from ..case.cases import Case
from ..case.readings import reading_names
from ..case.results import write_json_atomic
from ..exceptions import ConfigError, Interrupted
from ..kernels import stop
from ..options import add_arguments, case_options, make_case, on
from ..problems.adapt import adapted_spec
from ..runs.aggregate import aggregate
from ..runs.run import NumericalError, check_threads, run_case, summary_line
from ..solutions.prediction import run_line
from .common import Parser, check_out, exit_status, keep_partial, number, say_created
from .solution import add_parsers
from .solution import main as solution_main

# Subcommands of other packages (the paper's reproduction, srmdp.paper, registers campaign, lsmdp, beyond and
# plan): the entry points of this group, each main(argv) -> exit status.  The library never imports them.
COMMANDS_GROUP = "srmdp.commands"
# The paper's rows for `srmdp run --table T [--dt DT | --row R]`: the entry point named "paper" of this group,
# a function (table, dt=, row=, problem=, **case options) -> Case (srmdp.paper.inputs.rows.paper_case: a subclass of
# Case whose
# table and row join the result's case record, its case_hash and its label).
TABLES_GROUP = "srmdp.tables"


BUILTIN = ("run", "aggregate", "solve", "eval", "-h", "--help", "--version")


def build_parser():
    p = Parser(prog="srmdp", description="Stratified regression MDP (Gobet et al., SISC 2016).")
    p.add_argument("--version", action="version", version=f"srmdp {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")

    r = sub.add_parser("run", help="run one case (a paper row or free parameters)")
    add_arguments(r, "run")  # one argument per option of srmdp run (srmdp.options)
    # --out is checked after the case (a bad --table or a missing --d is named first), not by argparse
    r._option_string_actions["--out"].required = False

    a = sub.add_parser("aggregate", help="gather run chunks of one case into a summary")
    a.add_argument("chunks", nargs="+")
    a.add_argument("--expect-runs", type=int, help="fail naming the missing runs if fewer")
    a.add_argument(
        "--pool-devices",
        action="store_true",
        help="pool CPU and GPU chunks of the same case, seed, test points and random streams",
    )
    a.add_argument("--out", required=True)

    add_parsers(sub, number)
    for name, ep in sorted(plugin_commands().items()):  # listed in --help; main() hands their arguments over
        sub.add_parser(name, help=_plugin_help(ep), add_help=False)
    return p


def _plugin_help(ep) -> str:
    """A plugin command's line in ``srmdp --help``: its entry point's ``summary`` (loaded, not run)."""
    try:
        return str(ep.load().summary)
    except Exception:  # a broken or summary-less plugin is listed all the same; running it says what is wrong
        return f"see srmdp {ep.name} --help"


def case_from_args(args) -> Case:
    """The case of ``srmdp run``'s arguments: a paper row (``--table``) under the given reading, or the free case."""
    given = {o.name: getattr(args, o.name) for o in on("case") if "run" in o.surfaces}
    options = case_options({k: given[k] for k in reading_names() + ("precision",)})  # the reading (Reading's fields)
    free = {"d": args.d, "basis": args.basis, "cells": args.cells, "paths": args.paths}
    box = {"half-width": args.half_width, "strata": None if args.strata == "box" else args.strata}
    if args.table:
        free.update(box)  # a paper row is in the paper's box
        given = [k for k, v in free.items() if v is not None]
        if given:
            raise ConfigError(f"invalid arguments: --table cannot be combined with --{', --'.join(given)}")
        return paper_table_case()(args.table, dt=args.dt, row=args.row, problem=args.problem, **options)
    if args.row is not None:
        raise ConfigError(f"invalid row={args.row}: --row selects a row of --table, give --table too")
    missing = [k for k, v in dict(free, dt=args.dt).items() if v is None]
    if missing:
        raise ConfigError(
            f"missing --{', --'.join(missing)}: give --table T or all of --d --dt --basis --cells --paths"
        )
    if (
        args.strata == "adapted"
    ):  # as srmdp solve does it (srmdp.solutions.solve_request): the problem in adapted coordinates
        given["problem"] = adapted_spec(args.problem, args.d)
    return make_case(given)


def paper_table_case():
    """The function that maps a paper row to its case (entry point ``paper`` of :data:`TABLES_GROUP`)."""
    ep = next((ep for ep in entry_points(group=TABLES_GROUP) if ep.name == "paper"), None)
    if ep is None:
        raise ConfigError(
            "invalid arguments: --table needs the paper's rows (srmdp.paper), which this installation does not register"
        )
    return ep.load()


def plugin_commands() -> dict:
    """{name: entry point} of the subcommands other packages register (group ``srmdp.commands``)."""
    return {ep.name: ep for ep in entry_points(group=COMMANDS_GROUP)}


def _write(path, res):
    """Write a result atomically; an I/O failure is one line and exit status 1 (no partial file)."""
    try:
        write_json_atomic(path, res)
    except OSError as exc:
        print(f"srmdp: error: cannot write {path}: {exc.strerror or exc}; no result written", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] not in BUILTIN:
            plugin = plugin_commands().get(argv[0])
            if plugin is not None:
                return plugin.load()(argv[1:])
        if argv and argv[0].startswith("-") and argv[0] not in BUILTIN:  # else argparse asks for a COMMAND
            near = difflib.get_close_matches(argv[0], [a for a in BUILTIN if a.startswith("--")], n=1)
            hint = f" (did you mean {near[0]}?)" if near else " (srmdp --help lists the commands)"
            print(f"srmdp: error: unrecognized option {argv[0]}{hint}", file=sys.stderr)
            return 2
        args = build_parser().parse_args(argv)
        return exit_status(lambda: _command(args))
    except BrokenPipeError:  # stdout closed by its reader (`srmdp plan | head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # SIGPIPE


def _command(args) -> int:
    if args.command in ("solve", "eval"):
        return solution_main(args)
    if args.command == "aggregate":
        if args.expect_runs is not None and args.expect_runs < 1:
            raise ConfigError(f"invalid expect_runs={args.expect_runs}: must be an integer >= 1")
        created = check_out(args.out)
        res = aggregate(args.chunks, expect_runs=args.expect_runs, pool_devices=args.pool_devices)
        if _write(args.out, res):
            return 1
        say_created(created)
        print(summary_line(res))
        return 0
    # run: every check (arguments, output path, memory model) before any compilation or compute
    case = case_from_args(args)
    threads = check_threads(args.threads)
    if args.out is None:
        raise ConfigError("missing --out: the result JSON's file name")
    created = check_out(args.out)

    def say_prediction():
        print(f"srmdp: {run_line(case, args.runs, args.device, threads, args.test_points)}", file=sys.stderr)

    try:
        with stop.on_signals():
            res = run_case(
                case,
                runs=args.runs,
                run_start=args.run_start,
                test_points=args.test_points,
                seed=args.seed,
                device=args.device,
                threads=threads,
                progress=args.progress,
                before_compute=say_prediction,
            )
    except (NumericalError, Interrupted) as exc:
        partial = getattr(exc, "partial", None)
        stopped = isinstance(exc, Interrupted)
        what = f"{exc} ({exc.stage})" if stopped else f"numerical error: {exc}"
        kept = "no result written"
        if partial is not None:  # the runs done before it, beside the output (a job's output stays absent)
            extra = {"signal": exc.signal_name} if stopped else {}
            kept = keep_partial(args.out, partial, what, **extra)
        print(f"srmdp: {what}; {kept}", file=sys.stderr)
        return exc.exit_status if stopped else 3
    except MemoryError:
        print(
            f"srmdp: error: out of memory running {case.label} (the memory model's estimate is"
            " below what the machine could give now); no result written",
            file=sys.stderr,
        )
        return 2
    if _write(args.out, res):
        return 1
    say_created(created)
    print(summary_line(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
