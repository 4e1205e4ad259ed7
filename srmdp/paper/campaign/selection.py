"""Which readings and rows a campaign runs: the config's readings (checked, without PyYAML), the paper's rows
(``--cases``) or a CSV of free cases (``--case-list``)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ...case.cases import ConfigError
from ...options import make_case
from .. import REPOSITORY
from ..inputs.config_readings import check_readings, load_readings_data
from ..inputs.preset_reading import PresetReading, readings_from_config  # a config's readings (z_cv, rows: see there)
from ..inputs.rows import PaperCase, find_row, paper_case, paper_rows

DEFAULT_CONFIG = REPOSITORY / "config" / "config.yaml"


def load_readings(config_path) -> list:
    """The config's readings, checked (:func:`readings_from_config`); PyYAML is not needed (see
    :mod:`srmdp.paper.inputs.config_readings`)."""
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
            raise ConfigError(
                f"invalid readings={spec!r}: {name!r} is not a reading of the config; allowed: {', '.join(by_name)}"
            )
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
        options = reading.options() | {"precision": precision}
        options |= {} if arithmetic is None else {"arithmetic": arithmetic}
        own = {k: self.spec[k] for k in ("table", "row")}
        return make_case({k: v for k, v in self.spec.items() if k not in own} | options, PaperCase, **own)


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
            out.append(
                Row(
                    r["table"],
                    r["row"],
                    {
                        "d": case.d,
                        "dt": case.dt,
                        "basis": case.basis,
                        "cells": case.cells,
                        "paths": case.paths,
                        "table": case.table,
                        "row": case.row,
                    },
                    i,
                )
            )
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
        raise ConfigError(
            f"invalid case-list={str(path)!r}: missing column(s) {', '.join(missing)}"
            f" (needs {','.join(CASE_LIST_FIELDS)})"
        )
    out = []
    for i, raw in enumerate(reader):
        try:
            spec = {
                "table": raw["table"].strip(),
                "row": int(raw["row"]),
                "d": int(raw["d"]),
                "dt": float(raw["dt"]),
                "basis": raw["basis"].strip(),
                "cells": int(raw["cells"]),
                "paths": int(raw["paths"]),
            }
        except (TypeError, ValueError):
            raise ConfigError(
                f"invalid case-list={str(path)!r}: line {i + 2} is not table,row,d,dt,basis,cells,paths"
                " with numbers where numbers belong"
            ) from None
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
