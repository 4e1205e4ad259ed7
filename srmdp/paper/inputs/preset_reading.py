"""The named readings of a preset (config ``readings``): parsed from the config, described in LaTeX.

The library's :mod:`srmdp.case.readings` matches a result to one of them (:func:`srmdp.case.readings.same_reading`, the
one matcher); :func:`readings_from_config` refuses two readings with equal parameters, which would both claim
the same results.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...case.readings import reading_key, reading_name
from ...options import case_options, command_line, taken_by


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


@dataclass(frozen=True)
class PresetReading:
    """One named reading of a preset (config ``readings``): how the scheme is run (outside the box, truncation,
    Z control variate).

    ``z_cv``: the Z control variate (``srmdp run --z-cv``, beyond the paper); such a reading is left out of
    the paper's tables and agreement and shown in ``tables/zcv.tex``.  ``rows``: the row keys
    (``LP1d4_r2``, ...) the reading runs, ``None`` for every row of the preset.  ``arithmetic``: the paths'
    arithmetic (``srmdp run --arithmetic``); a float32 reading (the paper's precision) is compared with its
    float64 twin in ``tables/arithmetic.tex``, not shown in the paper's tables.
    """

    name: str
    outside: str
    trunc_y: float | None
    trunc_z: float | None
    z_cv: bool = False
    rows: tuple | None = None
    martingale_cv: bool = False  # with z_cv: the martingale control variates too (srmdp run --martingale-cv)
    arithmetic: str = "float64"

    def run_options(self, surface: str = "run") -> dict:
        """The reading as options of ``srmdp run`` (or of the command ``surface``, :func:`srmdp.options.taken_by`;
        None: the default): the arithmetic only where it is not float64, so that a float64 reading's jobs keep the
        command line they had before the option."""
        values = {
            "outside": self.outside,
            "trunc_y": self.trunc_y,
            "trunc_z": self.trunc_z,
            "z_cv": bool(self.z_cv),
            "martingale_cv": bool(self.martingale_cv),
            "arithmetic": None if self.arithmetic == "float64" else self.arithmetic,
        }
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
        return out

    def runs_row(self, key: str) -> bool:
        """Whether this reading runs the paper row ``key`` (``LP1d4_r2``)."""
        return self.rows is None or key in self.rows


def reading_from_config(r: dict) -> PresetReading:
    """A :class:`PresetReading` from one entry of a config's ``readings`` list."""
    rows = r.get("rows")
    mart = bool(r.get("martingale_cv", False))
    return PresetReading(
        r["name"],
        r["outside"],
        r.get("trunc_y"),
        r.get("trunc_z"),
        bool(r.get("z_cv", False)) or mart,
        None if rows is None else tuple(rows),
        mart,
        r.get("arithmetic", "float64"),
    )


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
