"""Independent run sets of one paper row pooled into one: no run of ours is discarded by "the strongest run set".

Two run sets of a row are *the same thing measured twice* when they share the reading, the coefficients' storage,
the path arithmetic and the test points (their records say so), and *independent* when their random streams are
disjoint (another seed, or disjoint run indices of one seed: :func:`srmdp.paper.inputs.results.run_key`).  Such sets are
pooled -- their per-run errors concatenated and the indicators recomputed (:func:`srmdp.numerics.indicators.indicators`)
-- where their indicators also agree within both standard errors (a pair whose difference exceeds the rule's t on the
smaller set's degrees of freedom times sqrt(se_1^2 + se_2^2) is not pooled: a hidden difference of setting).  The
pooled set is one more run set of the row; :func:`srmdp.paper.report.verdict.paper_numbers` then judges the row by it
where
it has the most runs.
"""

from __future__ import annotations

import math

from ...numerics.indicators import INDICATORS
from ...runs.result import PER_RUN_FIELDS as PER_RUN
from ...runs.result import PerRun, concat
from ..inputs.results import arithmetic_of, run_key, storage_of


def _setting(res) -> tuple:
    return (storage_of(res), arithmetic_of(res), res.get("test_points"))


def _disjoint(a, b) -> bool:
    (sa, _, ra), (sb, _, rb) = run_key(a), run_key(b)
    return sa != sb or not set(ra) & set(rb)


def _agree(a, b, rule) -> bool:
    for k in INDICATORS:
        if a.get(k) is None or b.get(k) is None or not a.get(k + "_se") or not b.get(k + "_se"):
            return False
        t = rule.t(min(int(a["runs"]), int(b["runs"])))
        if abs(a[k] - b[k]) > t * math.hypot(a[k + "_se"], b[k + "_se"]):
            return False
    return True


def pooled(results, rule) -> list:
    """The pooled results of ``results`` (one row, one reading): one per setting with at least two run sets that are
    independent of each other and agree (module docstring), largest first; [] where there is none."""
    usable = [r for r in results if all((r.get("per_run") or {}).get(k) is not None for k in PER_RUN[:4])]
    out = []
    for setting in {_setting(r) for r in usable}:
        group = sorted((r for r in usable if _setting(r) == setting), key=lambda r: -int(r["runs"]))
        members = []
        for r in group:  # greedily, the largest first: each new member independent of and agreeing with all
            if all(_disjoint(r, m) and _agree(r, m, rule) for m in members):
                members.append(r)
        if len(members) >= 2:
            out.append(pool(members))
    return sorted(out, key=lambda r: -r["runs"])


def pool(members) -> dict:
    """One result of all the runs of ``members`` (independent run sets of one setting)."""
    per_run = concat(PerRun.from_dict(m["per_run"]) for m in members)  # the runs joined (srmdp.runs.result)
    first = members[0]
    out = {
        "case": first.get("case"),
        "reading": first.get("reading"),
        "device": "+".join(sorted({str(m.get("device")) for m in members})),
        "seed": "+".join(str(m.get("seed")) for m in members),
        "test_points": first.get("test_points"),
        "runs": per_run.runs,
        "per_run": per_run.to_dict(),
        "provenance": first.get("provenance"),
        "pooled_from": [m["_path"] for m in members],
        "_path": "+".join(m["_path"] for m in members),
        "_device": "pooled " + " + ".join(f"{m.get('device')} seed {m.get('seed')} ({m['runs']})" for m in members),
    }
    out.update(per_run.indicators())
    return out
