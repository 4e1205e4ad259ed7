"""The paper's 35 rows: read from the package data ``srmdp/data/paper_cases.csv`` and mapped to cases.

A paper row's case is a :class:`PaperCase`: the library's :class:`~srmdp.case.cases.Case` (numbers only) named by
its table and row.  The name joins the case's record and so the identity (``case_hash``) of its results, exactly
as in every file written while the library's ``Case`` held it: chunks written before and after pool together.

The paper's rows (table id, d, dt, #C, K, M, the #C and M formulas, its three MSE values and CPU/GPU
seconds) live only in that file (:data:`REFERENCE_SOURCE`); they are read here, and only here, for case
parameters and, in the workflow, for comparison, never copied into a result.  ``srmdp run --table`` and
``srmdp cases`` reach them through the entry points of :mod:`srmdp.paper.subcommands` (the library never
imports this package).
"""

import csv
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ...case.cases import Case, is_int, plain
from ...exceptions import ConfigError
from ...numerics.rules import formula
from ...options import make_case

MATURITY = 1.0  # the paper's T
# The paper's 35 rows ship with the package (read through importlib.resources, never from the repository);
# REFERENCE_SOURCE is how tables and claims name that file in their "% source:" lines.
REFERENCE_SOURCE = "srmdp/data/paper_cases.csv"


@cache
def paper_rows():
    """All rows of the reference file, with a per-table row number (1-based) and basis."""
    rows = []
    counts = {}
    with resources.files("srmdp").joinpath("data", "paper_cases.csv").open(newline="") as fh:
        for raw in csv.DictReader(fh):
            table = raw["table"]
            counts[table] = counts.get(table, 0) + 1
            row = {
                "table": table,
                "row": counts[table],
                "basis": table[:3],
                "d": int(raw["d"]),
                "dt": float(raw["dt"]),
                "cells": int(raw["cells"]),
                "K": int(raw["K"]),
                "M": int(raw["M"]),
                "cells_formula": raw["cells_formula"],
                "paths_formula": raw["paths_formula"],
                "steps": int(round(MATURITY / float(raw["dt"]))),  # N = T / dt, the paper's T = 1
            }
            for key in ("mse_y_max", "mse_y_av", "mse_z_av", "cpu_s", "gpu_s"):
                row[key] = float(raw[key])
            rows.append(row)
    return tuple(rows)


def check_reference(rows=None):
    """#C^d = K and the formulas reproduce #C and M on every row; returns the list of problems."""
    problems = []
    for r in rows or paper_rows():
        n = r["steps"]
        if r["cells"] ** r["d"] != r["K"]:
            problems.append(f"{r['table']} row {r['row']}: #C^d != K")
        if formula(r["cells_formula"], n, r["d"]) != r["cells"]:
            problems.append(f"{r['table']} row {r['row']}: #C formula gives another value")
        if formula(r["paths_formula"], n, r["d"]) != r["M"]:
            problems.append(f"{r['table']} row {r['row']}: M formula gives another value")
    return problems


def table_ids():
    return sorted({r["table"] for r in paper_rows()}, key=lambda t: [r["table"] for r in paper_rows()].index(t))


# The paper labels its result tables table:LP0d4 ... table:LP1d15_19 (Tables 3-13, in the order of
# srmdp/data/paper_cases.csv); Tables 1 and 2 are its cost and memory comparisons.  Short names that the
# paper does not use but earlier versions of this repository did are accepted as aliases.
TABLE_ALIASES = {"LP1d6": "LP1d6_1"}
FIRST_RESULT_TABLE = 3  # the paper's Table 3 is LP0d4


# The table each dimension range of the library's default rules (srmdp.numerics.rules.RULES, in its order) comes from:
# the
# rule is the #C and M formulas of the table's first row.
RULE_TABLES = {"LP0": ("LP0d4", "LP0d6_1", "LP0d11"), "LP1": ("LP1d4", "LP1d6_1", "LP1d11")}


def rule_table(basis: str, d: int) -> str:
    """The paper's table whose first row's formulas :func:`srmdp.numerics.rules.paper_rule` applies to ``basis`` (LP0,
    LP1)
    in dimension ``d``."""
    from ...numerics.rules import RULES

    return RULE_TABLES[basis][next(j for j, (top, _, _) in enumerate(RULES[basis]) if d <= top)]


def canonical_table(table: str) -> str:
    """The paper's label of a table id or alias (``LP1d6`` -> ``LP1d6_1``); other names unchanged."""
    return TABLE_ALIASES.get(table, table) if isinstance(table, str) else table


def split_row_key(key: str) -> tuple[str, int]:
    """(table, row) of a row key such as ``LP1d4_r2`` (the inverse of ``PaperCase.label`` and ``Selected.key``)."""
    table, _, row = key.rpartition("_r")
    return table, int(row)


def paper_table_number(table: str) -> int:
    """The number the paper gives a result table (LP0d4 -> 3 ... LP1d15_19 -> 13)."""
    ids = table_ids()
    table = canonical_table(table)
    if table not in ids:
        raise ConfigError(f"invalid table={table!r}: allowed values are {', '.join(ids)}")
    return FIRST_RESULT_TABLE + ids.index(table)


def find_row(table: str, dt=None, row=None, d=None):
    """The paper row of ``table`` selected by its row number, or by dt (and d) when unambiguous."""
    table = canonical_table(table)
    rows = [r for r in paper_rows() if r["table"] == table]
    if not rows:
        raise ConfigError(f"invalid table={table!r}: allowed values are {', '.join(table_ids())}")
    if row is not None:
        sel = [r for r in rows if r["row"] == row]
    else:
        sel = [r for r in rows if (dt is None or math.isclose(r["dt"], dt)) and (d is None or r["d"] == d)]
    if not sel and row is None and dt is not None and d is None:
        allowed = ", ".join(f"{v:g}" for v in sorted({r["dt"] for r in rows}, reverse=True))
        raise ConfigError(f"invalid dt={dt!r} for table {table}: allowed values are {allowed}")
    if not sel and row is not None:
        raise ConfigError(f"invalid row={row!r} for table {table}: allowed values are 1..{len(rows)}")
    if (
        len(sel) == 1
        and row is not None
        and (dt is not None and not math.isclose(sel[0]["dt"], dt) or d is not None and sel[0]["d"] != d)
    ):
        r = sel[0]
        given = " ".join(f"{k}={v!r}" for k, v in (("d", d), ("dt", dt)) if v is not None)
        raise ConfigError(
            f"invalid row={row!r} for table {table}: it has d={r['d']} dt={r['dt']:g}, not {given};"
            " give --dt or --row alone"
        )
    if len(sel) != 1:
        choices = "; ".join(f"row {r['row']}: d={r['d']} dt={r['dt']:g} #C={r['cells']} M={r['M']}" for r in rows)
        what = "matches no row" if not sel else "is ambiguous"
        raise ConfigError(f"invalid row selection for table {table} ({what}): give --row among {choices}")
    return sel[0]


@dataclass(frozen=True)
class PaperCase(Case):
    """A case named by a table and a row: a paper row's (:func:`paper_case`) or a campaign case list's.

    ``table`` and ``row`` are part of its record (:meth:`as_dict`), so of its results' ``case_hash``: the record is
    the one written while the library's ``Case`` held them (same keys, same order), so a new chunk of a row pools
    with the chunks committed before."""

    table: str = ""
    row: int = 0

    def validate(self):
        super().validate()
        if not isinstance(self.table, str) or not self.table:
            raise ConfigError(f"invalid table={self.table!r}: must be a table id (a non-empty string)")
        if not is_int(self.row) or self.row < 0:
            raise ConfigError(f"invalid row={plain(self.row)!r}: must be an integer >= 0")

    @property
    def label(self) -> str:
        return f"{self.table}_r{self.row}"

    def as_dict(self) -> dict:
        out = super().as_dict()
        keys = [k for k in out if k not in ("table", "row")]
        at = keys.index("half_width") + 1  # where the files written while Case held them have table and row
        return {k: out[k] for k in (*keys[:at], "table", "row", *keys[at:])}


def case_of_record(record: dict) -> Case:
    """The case of a result's case record: a :class:`PaperCase` where it names a table (a paper row's, or a
    campaign case list's), else a :class:`Case` (a record of a free case written while Case held an empty table
    and row 0 drops them)."""
    return (PaperCase if record.get("table") else Case).from_dict(record)


PAPER_PROBLEM = "gobet2016"  # the problem of the paper's rows (srmdp/problems/gobet2016.py)


def paper_case(table: str, dt=None, row=None, d=None, problem=PAPER_PROBLEM, **options) -> PaperCase:
    """The case of a paper row (selected as :func:`find_row` does), with the reading's ``options``; ``problem``
    must be the paper's (``srmdp run --table`` passes its ``--problem``)."""
    if problem != PAPER_PROBLEM:
        raise ConfigError(
            f"invalid arguments: --table selects a row of the paper, whose problem is {PAPER_PROBLEM}, not {problem}"
        )
    r = find_row(table, dt=dt, row=row, d=d)
    row_values = {"d": r["d"], "dt": r["dt"], "basis": r["basis"], "cells": r["cells"], "paths": r["M"]}
    return make_case(row_values | options, PaperCase, table=r["table"], row=r["row"])
