"""Readings: how the scheme is run outside the box, truncated, with or without the Z control variate.

A *reading* is the part of a case that the paper leaves open (outside the box [-L, L]^d: unbounded
strata, zero or clamped estimators; truncation of y and z) plus the control variates beyond the
paper.  :func:`reading_of` reads it off a result file, old ones included (a flag a file does not name is
off), :func:`reading_key` off a named reading (the paper's presets name theirs:
:class:`srmdp.paper.inputs.preset_reading.PresetReading`), and :func:`same_reading` is the one matcher every
consumer uses: the chunk index, the aggregation, the report and the check that a preset's readings differ.
"""

from __future__ import annotations

import math
from typing import NamedTuple


class ReadingKey(NamedTuple):
    """What :func:`same_reading` compares: a tuple, so that a shorter one (a file written before the flags
    existed) still reads, the missing fields taking their defaults."""

    outside: str | None
    trunc_y: float | None
    trunc_z: float | None
    z_cv: bool = False
    martingale_cv: bool = False
    arithmetic: str = "float64"
    curvature_correction: bool = False


def reading_of(res: dict) -> ReadingKey:
    """The :class:`ReadingKey` of a result; the flags are False and the arithmetic "float64" where it does not
    name them (results written before they existed)."""
    r = res.get("reading") or res.get("case") or {}
    return ReadingKey(
        r.get("outside"),
        r.get("trunc_y"),
        r.get("trunc_z"),
        bool(r.get("z_cv", False)),
        bool(r.get("martingale_cv", False)),
        r.get("arithmetic") or "float64",
        bool(r.get("curvature_correction", False)),
    )


def same_reading(a: tuple, b: tuple) -> bool:
    """Whether two readings are equal: ``a`` and ``b`` are :class:`ReadingKey` s or tuples of their first 3 to 7
    fields (a missing flag is False, a missing arithmetic "float64"); truncation bounds are compared as floats
    (None = no truncation)."""
    a, b = ReadingKey(*a), ReadingKey(*b)
    if a.outside != b.outside or bool(a.z_cv) != bool(b.z_cv) or bool(a.martingale_cv) != bool(b.martingale_cv):
        return False
    if a.arithmetic != b.arithmetic or bool(a.curvature_correction) != bool(b.curvature_correction):
        return False
    for x, y in ((a.trunc_y, b.trunc_y), (a.trunc_z, b.trunc_z)):
        if (x is None) != (y is None):
            return False
        if x is not None and not math.isclose(float(x), float(y)):
            return False
    return True


def reading_key(r) -> ReadingKey:
    """The :class:`ReadingKey` of a named reading (an object with outside, trunc_y, trunc_z and, optionally, z_cv,
    martingale_cv and arithmetic)."""
    return ReadingKey(
        r.outside,
        r.trunc_y,
        r.trunc_z,
        bool(getattr(r, "z_cv", False)),
        bool(getattr(r, "martingale_cv", False)),
        getattr(r, "arithmetic", "float64"),
        bool(getattr(r, "curvature_correction", False)),
    )


def reading_name(res_or_triple, readings) -> str | None:
    """Name of the configured reading (objects with name/outside/trunc_y/trunc_z[/z_cv]) a result was run under."""
    triple = res_or_triple if isinstance(res_or_triple, tuple) else reading_of(res_or_triple)
    for r in readings:
        if same_reading(triple, reading_key(r)):
            return r.name
    return None


def matches(res: dict, reading) -> bool:
    """Whether the result ``res`` was run under ``reading`` (an object with outside, trunc_y, trunc_z and,
    optionally, z_cv and martingale_cv)."""
    return reading_name(res, (reading,)) == reading.name
