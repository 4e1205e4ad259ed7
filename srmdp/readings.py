"""Readings: how the scheme is run outside the box, truncated, with or without the Z control variate.

A *reading* is the part of a case that the paper leaves open (outside the box [-L, L]^d: unbounded
strata, zero or clamped estimators; truncation of y and z) plus the control variates beyond the
paper.  :func:`reading_of` reads it off a result file, old ones included (a flag a file does not name is
off), :func:`reading_key` off a named reading (the paper's presets name theirs:
:class:`srmdp.paper.preset_reading.PresetReading`), and :func:`same_reading` is the one matcher every
consumer uses: the chunk index, the aggregation, the report and the check that a preset's readings differ.
"""

from __future__ import annotations

import math


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


def reading_key(r) -> tuple:
    """(outside, trunc_y, trunc_z, z_cv, martingale_cv, arithmetic) of a named reading (an object with outside,
    trunc_y, trunc_z and, optionally, z_cv, martingale_cv and arithmetic): what :func:`same_reading` compares."""
    return (r.outside, r.trunc_y, r.trunc_z, bool(getattr(r, "z_cv", False)), bool(getattr(r, "martingale_cv", False)),
            getattr(r, "arithmetic", "float64"))


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
