"""Readings: how the scheme is run outside the box, truncated, with or without the Z control variate.

A *reading* is the part of a case that the paper leaves open (outside the box [-L, L]^d: unbounded
strata, zero or clamped estimators; truncation of y and z) plus the control variates beyond the
paper.  :class:`Reading` is one named reading of a configuration; :func:`reading_of` reads it off a
result file, old ones included (a flag a file does not name is off), and :func:`same_reading` is the
one matcher every consumer uses: the chunk index, the aggregation and the report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """One reading of a preset: how the scheme is run (outside the box, truncation, Z control variate).

    ``z_cv``: the Z control variate (``srmdp run --z-cv``, beyond the paper); such a reading is left out of
    the paper's tables and agreement and shown in ``tables/zcv.tex``.  ``rows``: the row keys
    (``LP1d4_r2``, ...) the reading runs, ``None`` for every row of the preset.
    """

    name: str
    outside: str
    trunc_y: float | None
    trunc_z: float | None
    z_cv: bool = False
    rows: tuple | None = None
    martingale_cv: bool = False  # with z_cv: the martingale control variates too (srmdp run --martingale-cv)

    def options(self) -> dict:
        return {
            "outside": self.outside,
            "trunc_y": math.inf if self.trunc_y is None else float(self.trunc_y),
            "trunc_z": math.inf if self.trunc_z is None else float(self.trunc_z),
            "z_cv": bool(self.z_cv or self.martingale_cv),
            "martingale_cv": bool(self.martingale_cv),
        }

    def cli(self) -> str:
        out = f"--outside {self.outside}"
        if self.trunc_y is not None:
            out += f" --trunc-y {self.trunc_y:g}"
        if self.trunc_z is not None:
            out += f" --trunc-z {self.trunc_z:g}"
        if self.z_cv:
            out += " --z-cv"
        if self.martingale_cv:
            out += " --martingale-cv"
        return out

    def describe(self) -> str:
        trunc = "no truncation"
        if self.trunc_y is not None or self.trunc_z is not None:
            trunc = f"truncation $|y|\\le{_g(self.trunc_y)}$, $|z_j|\\le{_g(self.trunc_z)}$"
        out = f"outside={self.outside}, {trunc}"
        if self.z_cv:
            out += ", $Z$ control variate $y^M_{i+1}(x_i)$"
            out += " and the martingale control variates" if self.martingale_cv else ""
            out += " (beyond the paper"
            out += f"; {len(self.rows)} rows)" if self.rows is not None else ")"
        return out

    def runs_row(self, key: str) -> bool:
        """Whether this reading runs the paper row ``key`` (``LP1d4_r2``)."""
        return self.rows is None or key in self.rows


def reading_from_config(r: dict) -> Reading:
    """A :class:`Reading` from one entry of a config's ``readings`` list."""
    rows = r.get("rows")
    mart = bool(r.get("martingale_cv", False))
    return Reading(r["name"], r["outside"], r.get("trunc_y"), r.get("trunc_z"), bool(r.get("z_cv", False)) or mart,
                   None if rows is None else tuple(rows), mart)


def _g(x):
    return "\\infty" if x is None else f"{x:g}"


def reading_of(res: dict) -> tuple:
    """(outside, trunc_y, trunc_z, z_cv, martingale_cv, arithmetic) of a result; the flags are False and the
    arithmetic "float64" where it does not name them (results written before they existed)."""
    r = res.get("reading") or res.get("case") or {}
    return (r.get("outside"), r.get("trunc_y"), r.get("trunc_z"), bool(r.get("z_cv", False)),
            bool(r.get("martingale_cv", False)), r.get("arithmetic") or "float64")


def same_reading(a: tuple, b: tuple) -> bool:
    """(outside, trunc_y, trunc_z[, z_cv[, martingale_cv[, arithmetic]]]) equal, truncation bounds compared as
    floats (None = no truncation); a missing flag is False, a missing arithmetic "float64"."""
    if a[0] != b[0] or any(bool(a[j] if len(a) > j else False) != bool(b[j] if len(b) > j else False)
                           for j in (3, 4)):
        return False
    if (a[5] if len(a) > 5 else "float64") != (b[5] if len(b) > 5 else "float64"):
        return False
    for x, y in zip(a[1:3], b[1:3], strict=True):
        if (x is None) != (y is None):
            return False
        if x is not None and not math.isclose(float(x), float(y)):
            return False
    return True


def reading_name(res_or_triple, readings) -> str | None:
    """Name of the configured reading (objects with name/outside/trunc_y/trunc_z[/z_cv]) a result was run under."""
    triple = res_or_triple if isinstance(res_or_triple, tuple) else reading_of(res_or_triple)
    for r in readings:
        if same_reading(triple, (r.outside, r.trunc_y, r.trunc_z, bool(getattr(r, "z_cv", False)),
                                 bool(getattr(r, "martingale_cv", False)), getattr(r, "arithmetic", "float64"))):
            return r.name
    return None


def matches(res: dict, reading) -> bool:
    """Whether the result ``res`` was run under ``reading`` (an object with outside, trunc_y, trunc_z and,
    optionally, z_cv and martingale_cv)."""
    return reading_name(res, (reading,)) == reading.name
