"""The named readings of a preset (config ``readings``): parsed from the config, described in LaTeX.

The library's :mod:`srmdp.case.readings` matches a result to one of them (:func:`srmdp.case.readings.same_reading`, the
one matcher); :func:`readings_from_config` refuses two readings with equal parameters, which would both claim
the same results.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...case.readings import FLAG, Reading, reading_fields, reading_key, reading_name
from ...options import case_options, command_line, taken_by


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


@dataclass(frozen=True)
class _Named:
    name: str


@dataclass(frozen=True)
class PresetReading(Reading, _Named):
    """One named reading of a preset (config ``readings``): its name, then the fields of
    :class:`srmdp.case.readings.Reading` (how the scheme is run: outside the box, truncation, the control
    variates, the arithmetic, the curvature correction), then the rows it runs.

    ``z_cv``: the Z control variate (``srmdp run --z-cv``, beyond the paper); such a reading is left out of
    the paper's tables and agreement and shown in ``tables/zcv.tex``.  ``rows``: the row keys
    (``LP1d4_r2``, ...) the reading runs, ``None`` for every row of the preset.  ``arithmetic``: the paths'
    arithmetic (``srmdp run --arithmetic``); a float32 reading (the paper's precision) is compared with its
    float64 twin in ``tables/arithmetic.tex``, not shown in the paper's tables.
    """

    rows: tuple | None = None

    def run_options(self, surface: str = "run") -> dict:
        """The reading as options of ``srmdp run`` (or of the command ``surface``, :func:`srmdp.options.taken_by`;
        None: the default): a field declared "unset_at_default" (the arithmetic) only where it is not its default, so
        that those jobs keep the command line they had before the option."""
        values = {}
        for f in reading_fields():
            v = getattr(self, f.name)
            v = bool(v) if f.metadata["kind"] == FLAG else v
            values[f.name] = None if f.metadata["job"] == "unset_at_default" and v == f.default else v
        return taken_by(values, surface)

    def options(self) -> dict:
        """The reading's fields of a case (:func:`srmdp.options.case_options`)."""
        return case_options(dict(self.run_options(), arithmetic=self.arithmetic))

    def cli(self) -> str:
        """The reading's arguments of ``srmdp run``."""
        return command_line(self.run_options())

    def describe(self) -> str:
        trunc = "no truncation"
        if self.trunc_y is not None or self.trunc_z is not None:
            trunc = f"truncation $|y|\\le{_g(self.trunc_y)}$, $|z_j|\\le{_g(self.trunc_z)}$"
        out = f"outside={self.outside}, {trunc}"
        if self.z_cv:
            out += ", $Z$ control variate $y^M_{i+1}(x_i)$"
            out += " and the martingale control variates" if self.martingale_cv else ""
            out += " (beyond the paper"
            out += f"; {_rows(len(self.rows))})" if self.rows is not None else ")"
        if self.arithmetic != "float64":
            out += f", {self.arithmetic} path arithmetic (sums over paths and solves in float64"
            out += f"; {_rows(len(self.rows))})" if self.rows is not None else ")"
        if self.curvature_correction:
            out += ", the driver's curvature correction (beyond the paper)"
        return out

    def runs_row(self, key: str) -> bool:
        """Whether this reading runs the paper row ``key`` (``LP1d4_r2``)."""
        return self.rows is None or key in self.rows


def reading_from_config(r: dict) -> PresetReading:
    """A :class:`PresetReading` from one entry of a config's ``readings`` list."""
    rows = r.get("rows")
    values = {}
    for f in reading_fields():  # a field the entry does not name: its default (a required one is checked before)
        v = r[f.name] if f.metadata["required"] else r.get(f.name, f.default)
        values[f.name] = bool(v) if f.metadata["kind"] == FLAG else v
    values["z_cv"] = values["z_cv"] or values["martingale_cv"]  # the martingale control variates imply z_cv
    return PresetReading(name=r["name"], rows=None if rows is None else tuple(rows), **values)


def _g(x):
    return "\\infty" if x is None else f"{x:g}"


def readings_from_config(entries, where: str = "config readings") -> list[PresetReading]:
    """The readings of a config's ``readings`` list; ValueError (one line) if two have equal parameters."""
    out = []
    for entry in entries:
        r = reading_from_config(entry)
        twin = reading_name(reading_key(r), out)
        if twin is not None:
            raise ValueError(
                f"{where}: readings {twin!r} and {r.name!r} have equal parameters"
                f" ({r.cli()}); each result would belong to both, keep one"
            )
        out.append(r)
    return out
