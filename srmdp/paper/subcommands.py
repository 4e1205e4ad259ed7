"""The paper's subcommands of ``srmdp`` (entry points of the group ``srmdp.commands``, see pyproject.toml).

``srmdp cases`` and ``srmdp lsmdp`` read only the paper's rows (package data) and run anywhere.  ``srmdp plan``
and ``srmdp beyond`` read the repository's ``config/`` and ``workflow/`` and import the ``[paper]`` extra
(PyYAML, Jinja2, ...): outside a checkout, or without the extra, they print one line and exit with status 2
before importing anything else.  ``srmdp campaign`` needs the checkout (its config, throughput table and chunks)
but none of the extra: it runs on GPU hosts that have only the library and numba-cuda.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

from . import REPOSITORY

# the modules of the [paper] extra (pyproject.toml) that the paper's commands and the workflow's jobs import
PAPER_EXTRA = ("snakemake", "yaml", "jsonschema", "jinja2", "matplotlib", "scipy")
CHECKOUT_FILES = ("Snakefile", "config/config.yaml")


def checkout_problem(extra=None) -> str | None:
    """Why the paper's checkout commands cannot run here (one phrase), or None; ``extra``: the modules of the
    [paper] extra the command imports (None: all of them)."""
    missing = [f for f in CHECKOUT_FILES if not (REPOSITORY / f).is_file()]
    if missing:
        return (
            f"{REPOSITORY} has no {' or '.join(missing)}; clone the repository and run"
            f' `pip install -e ".[paper]"` in it'
        )
    absent = [m for m in (PAPER_EXTRA if extra is None else extra) if importlib.util.find_spec(m) is None]
    if absent:
        return f'the [paper] extra is not installed (no {", ".join(absent)}): `pip install -e ".[paper]"`'
    return None


def _in_checkout(name: str, summary: str, extra=None, module=None):
    """The entry point of ``srmdp NAME``: srmdp.paper.MODULE.main (MODULE: ``name`` unless given), once the
    checkout and the modules ``extra`` of the [paper] extra are there; ``summary``: its line in ``srmdp --help``."""
    module = module or name

    def main(argv=None) -> int:
        why = checkout_problem(extra)
        if why is not None:
            print(f"srmdp {name}: error: this command needs the repository checkout: {why}", file=sys.stderr)
            return 2
        return importlib.import_module(f"{__package__}.{module}").main(argv)

    main.__doc__ = f"``srmdp {name}`` (:func:`srmdp.paper.{module}.main`), in a checkout with the [paper] extra."
    main.summary = summary
    return main


plan = _in_checkout("plan", "a preset's jobs and their estimated cost, without running (checkout)", module="plan.cli")
# the library, numba-cuda and the checkout's files: no extra
campaign = _in_checkout("campaign", "the resumable GPU campaign of the paper's rows (checkout)", extra=())
beyond = _in_checkout(
    "beyond", "references, solves and coverage of the suite beyond the paper (checkout)", module="beyond.cli"
)


def lsmdp(argv=None) -> int:
    """``srmdp lsmdp`` (:func:`srmdp.paper.lsmdp.main`): a paper row, runs anywhere."""
    from .lsmdp import main

    return main(argv)


lsmdp.summary = "the non-stratified LSMDP baseline on a paper row"


def cases(argv=None) -> int:
    """``srmdp cases [--table T]``: the paper's 35 rows (table, row, d, dt, #C, K, M)."""
    from ..cli.common import Parser, exit_status

    p = Parser(prog="srmdp cases", description="List the paper's cases.")
    p.add_argument("--table", help="only this table (an id or alias, e.g. LP1d6)")
    args = p.parse_args(argv)
    return exit_status(lambda: _cases(args.table))


cases.summary = "the paper's 35 rows (table, row, d, dt, #C, K, M)"


def _cases(table) -> int:
    from ..exceptions import ConfigError
    from .inputs.rows import canonical_table, check_reference, paper_rows

    bad = check_reference()
    table = canonical_table(table)
    if table and table not in {r["table"] for r in paper_rows()}:
        raise ConfigError(
            f"invalid table={table!r}: allowed values are {', '.join(sorted({r['table'] for r in paper_rows()}))}"
        )
    for r in paper_rows():
        if table and r["table"] != table:
            continue
        print(
            f"{r['table']:<10} row {r['row']}  d={r['d']:<3} dt={r['dt']:<5g} #C={r['cells']:<3}"
            f" K={r['K']:<8} M={r['M']}"
        )
    for line in bad:
        print(f"srmdp: warning: {line}", file=sys.stderr)
    return 0
