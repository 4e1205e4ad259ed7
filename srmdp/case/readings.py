"""Readings: how the scheme is run outside the box, truncated, with or without the Z control variate.

A *reading* is the part of a case that the paper leaves open (outside the box [-L, L]^d: unbounded
strata, zero or clamped estimators; truncation of y and z) plus the control variates, the arithmetic and the
driver's curvature correction.  It is declared once, :class:`Reading` (its fields, their kinds and choices), and
every surface that names its parts derives them from there.  :func:`reading_of` reads it off a result file, old
ones included (a flag a file does not name is off), :func:`reading_key` off a named reading (the paper's presets
name theirs: :class:`srmdp.paper.inputs.preset_reading.PresetReading`), and :func:`same_reading` is the one matcher
every consumer uses: the chunk index, the aggregation, the report and the check that a preset's readings differ.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import MISSING, dataclass, field, fields
from functools import cache

from ..numerics.build import ARITHMETICS
from ..numerics.strata import OUTSIDE_MODES

# a reading field's kinds: one of its choices, a bound > 0 or None (no truncation), a flag
CHOICE, BOUND, FLAG = "choice", "bound", "flag"


def reading_field(
    default, kind, choices=None, *, absent=MISSING, required=False, result="always", job="always", variant=False
):
    """A field of :class:`Reading`, what every surface derives from it in its metadata: ``kind`` (:data:`CHOICE`,
    :data:`BOUND`, :data:`FLAG`) and ``choices``; ``absent``: its value in the key of a result that does not name it
    (one written before the field existed; default: ``default``); ``required``: a preset's reading must name it;
    ``result``: a run's result names it "always" or "where_on" (only where set, so that a file of the default
    reading keeps the form it had before the field); ``job``: a job's options give it "always" or "unset_at_default"
    (None at its default, so that those jobs' command lines stay as they were); ``variant``: a residual variant of
    the preset may change it (srmdp.paper.plan)."""
    meta = {"kind": kind, "choices": None if choices is None else tuple(choices), "required": required}
    meta.update(absent=default if absent is MISSING else absent, result=result, job=job, variant=variant)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Reading:
    """A reading, declared once: every surface that names the reading's parts (:class:`ReadingKey`, the presets'
    readings and their config's check and schema, a run's result, the command line of ``srmdp run``) derives them
    from these fields and their metadata (:func:`reading_field`).  The order is the key's (a file's key of 3 to 7
    fields compares by position)."""

    outside: str = reading_field("unbounded", CHOICE, OUTSIDE_MODES, absent=None, required=True)
    trunc_y: float | None = reading_field(None, BOUND, variant=True)  # None: no truncation (inf in a Case)
    trunc_z: float | None = reading_field(None, BOUND, variant=True)
    z_cv: bool = reading_field(False, FLAG)  # the Z control variate, beyond the paper
    martingale_cv: bool = reading_field(False, FLAG, result="where_on")  # with z_cv: the martingale ones too
    arithmetic: str = reading_field("float64", CHOICE, ARITHMETICS, job="unset_at_default", variant=True)
    curvature_correction: bool = reading_field(False, FLAG, result="where_on")  # the driver's, beyond the paper


def reading_fields() -> tuple:
    """The fields of :class:`Reading` (looked up when called: a test may declare a wider one)."""
    return fields(Reading)


def reading_names() -> tuple:
    return tuple(f.name for f in reading_fields())


@cache
def key_type(declaration=None):
    """The key of ``declaration``'s readings (default :class:`Reading`): a named tuple of its fields, each defaulting
    to its ``absent`` value, so that a shorter tuple (a file written before a field existed) still reads."""
    fs = fields(declaration or Reading)
    key = namedtuple("ReadingKey", [f.name for f in fs], defaults=[f.metadata["absent"] for f in fs])
    key.__doc__ = "What :func:`same_reading` compares (the fields of :class:`Reading`, in its order)."
    return key


ReadingKey = key_type(Reading)


def _key(values: dict):
    return key_type(Reading)(**values)


def reading_of(res: dict):
    """The :class:`ReadingKey` of a result; a field it does not name (a result written before the field existed)
    takes its ``absent`` value: a flag False, the arithmetic "float64"."""
    r = res.get("reading") or res.get("case") or {}
    out = {}
    for f in reading_fields():
        v = r.get(f.name)
        out[f.name] = bool(v) if f.metadata["kind"] == FLAG else f.metadata["absent"] if v is None else v
    return _key(out)


def same_reading(a: tuple, b: tuple) -> bool:
    """Whether two readings are equal: ``a`` and ``b`` are :class:`ReadingKey` s or tuples of their first 3 or more
    fields (a missing one takes its ``absent`` value); truncation bounds are compared as floats (None = no
    truncation), flags as booleans."""
    key = key_type(Reading)
    a, b = key(*a), key(*b)
    for f in reading_fields():
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.metadata["kind"] == FLAG:
            if bool(x) != bool(y):
                return False
        elif f.metadata["kind"] == BOUND:
            if (x is None) != (y is None) or (x is not None and not math.isclose(float(x), float(y))):
                return False
        elif x != y:
            return False
    return True


def reading_key(r):
    """The :class:`ReadingKey` of a named reading (an object with the fields of :class:`Reading`; one it lacks takes
    its ``absent`` value)."""
    out = {}
    for f in reading_fields():
        v = getattr(r, f.name, f.metadata["absent"])
        out[f.name] = bool(v) if f.metadata["kind"] == FLAG else v
    return _key(out)


def result_reading(case) -> dict:
    """The ``reading`` of a run's result: each field of :class:`Reading` from ``case`` (a flag as a boolean, a bound
    as JSON has it: None for no truncation), those declared "where_on" only where set."""
    out = {}
    for f in reading_fields():
        v = getattr(case, f.name)
        if f.metadata["kind"] == FLAG:
            v = bool(v)
        elif f.metadata["kind"] == BOUND and v is not None and math.isinf(v):
            v = None
        if f.metadata["result"] == "always" or v:
            out[f.name] = v
    return out


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
