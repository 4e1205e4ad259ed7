"""The defaults a case, a run and a solve share, in one table (:data:`DEFAULTS`): :class:`srmdp.case.cases.Case`'s
fields, :func:`srmdp.runs.run.run_case`'s keywords and :class:`srmdp.options.SolveOptions`' fields (with
:func:`srmdp.solve`'s ``problem``) take theirs from here.  The reading's are its declaration's
(:class:`srmdp.case.readings.Reading`).

Where a surface means something else by its default it keeps its own, and ``tests/test_defaults.py`` names each
such difference and why: a Case holds "no truncation" as inf (None in JSON and in the API), a solve turns the Z
control variate and the curvature correction on for problems other than the paper's (None: automatic), and its
runs (2, 4 with a tolerance) are an estimate's where ``run_case``'s one run is a chunk's.
"""

from __future__ import annotations

from dataclasses import fields

from .readings import Reading

DEFAULTS = {
    "problem": "gobet2016",  # the paper's problem
    "precision": "float64",  # the coefficients' storage
    "half_width": None,  # None: the problem's BOX_HALF_WIDTH
    "seed": 0,
    "run_start": 0,  # a run's first run index (the workflow's chunks start later)
    "test_points": 1000,  # test points per run and time step for the error indicators
    "device": "cpu",
    "threads": None,  # None: all
    **{f.name: f.default for f in fields(Reading)},  # the reading's
}
