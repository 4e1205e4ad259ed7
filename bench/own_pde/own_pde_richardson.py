"""Coverage of the Richardson value's estimate (srmdp.refine.richardson.extrapolate) on problems with exact solutions.

    nice -n 5 python bench/own_pde/own_pde_richardson.py --json data/own_pde/richardson_estimates.json
    python bench/own_pde/own_pde_richardson.py --from-json data/own_pde/richardson_estimates.json

Per problem, d and seed (``srmdp.solve(P, d, runs=4, seed, error=False, cells, paths, dt)``, one thread): a coarse
triple N = 1, 2, 5 at #C 3, M 100 and a fine one N = 2, 5, 10 at #C 5, M 400 (the ladder's shape, as in
bench/own_pde/own_pde_calibrate.py --richardson).  The fine value is extrapolated in dt where its triple confirms
the first order, and estimated by the library's :func:`srmdp.refine.richardson.extrapolate` two ways from the same
solves:
against the coarse triple's Richardson value ("richardson", the estimate before), and with the coarse triple's
Richardson values withheld, against the coarse N = 5 plain level with its dt term removed by the fine pair's
slope ("corrected plain", the estimate that needs no coarser Richardson value).  Calibration problems as in
own_pde_calibrate.py (quadratic_z, reaction_diffusion); held out as there: running_cost, hjb_lq, gobet2016 and
tests/data/curved_yz.py (a driver curved in y and z).  Prints per row and per group: estimated, within 1x and 2x,
the median u0_error / |error|.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from own_pde_calibrate import CALIBRATION, HELD_OUT, exact  # noqa: E402

SHAPE = {"coarse": (3, 100, (1, 2, 5)), "fine": (5, 400, (2, 5, 10))}
WAYS = ("richardson", "corrected plain")


def solve_levels(spec, d, seed):
    """The six levels' rows (coarse triple, then fine triple) and cases."""
    import srmdp
    from srmdp.problems import load_problem

    out, level = [], 0
    for key in ("coarse", "fine"):
        cells, paths, steps = SHAPE[key]
        for n in steps:
            s = srmdp.solve(
                spec,
                d=d,
                runs=4,
                seed=seed,
                threads=1,
                progress=False,
                error=False,
                cells=cells,
                paths=paths,
                dt=load_problem(spec).maturity / n,
            )
            row = {
                "level": level,
                "steps": n,
                "cells": cells,
                "paths": paths,
                "u0": s.result["u0"],
                "u0_se": s.result["u0_se"],
            }
            out.append((s.case, row))
            level += 1
    return out


def estimates(levels):
    """{way: (u0, u0_error, against_kind)} of the finest level's Richardson value, by extrapolate (None: refused)."""
    from srmdp.refine.richardson import extrapolate

    out = {}
    for way in WAYS:
        done = []
        for case, r in levels:
            row = dict(r, u0_error=None, best=None)
            extrapolate(case, row, done)
            if way == "corrected plain" and case.cells == SHAPE["coarse"][0]:
                row.pop("richardson", None)  # withheld: no coarser Richardson value
            done.append((case, row, None))
        ext = done[-1][1].get("richardson") or {}
        ok = ext.get("order_confirmed") and ext.get("u0_error") is not None
        out[way] = (ext.get("u0"), ext.get("u0_error") if ok else None, ext.get("against_kind"))
    return out


def solve_all(seeds, dims, say):
    out = []
    for group, problems in (("calibration", CALIBRATION), ("held-out", HELD_OUT)):
        for name, spec in problems.items():
            for d in dims:
                ex = exact(spec, d)
                c0 = time.process_time()
                for seed in range(seeds):
                    lv = solve_levels(spec, d, seed)
                    out.append(
                        {
                            "group": group,
                            "problem": name,
                            "d": d,
                            "seed": seed,
                            "exact": ex,
                            "levels": [[c.as_dict(), r] for c, r in lv],
                        }
                    )
                say(f"{group} {name} d={d}: {seeds} seeds, {time.process_time() - c0:.0f} CPU s")
    return out


def table(raw):
    rows = []
    for r in raw:
        lv = [
            (SimpleNamespace(**{k: c[k] for k in ("steps", "cells", "paths", "basis")}), row) for c, row in r["levels"]
        ]
        plain = lv[-1][1]["u0"]
        for way, (u, err, kind) in estimates(lv).items():
            rows.append(
                {
                    **{k: r[k] for k in ("group", "problem", "d", "seed", "exact")},
                    "way": way,
                    "u0": u,
                    "u0_error": err,
                    "against": kind,
                    "plain": plain,
                }
            )
    lines = [
        "| way | group | problem | d | estimated | within 1x | within 2x | median u0_error / |error| |"
        " median |error| Richardson / plain N = 10 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    keys = []
    for r in rows:
        k = (r["way"], r["group"], r["problem"], r["d"])
        if k not in keys:
            keys.append(k)
    keys += [(w, g, None, None) for w in WAYS for g in ("calibration", "held-out")]
    for k in keys:
        sel = [
            r
            for r in rows
            if (r["way"], r["group"]) == k[:2] and k[2] in (None, r["problem"]) and k[3] in (None, r["d"])
        ]
        ok = [r for r in sel if r["u0_error"] is not None]
        errs = [abs(r["u0"] - r["exact"]) for r in ok]
        n = max(len(ok), 1)
        hit1 = sum(e <= r["u0_error"] for e, r in zip(errs, ok, strict=True))
        hit2 = sum(e <= 2 * r["u0_error"] for e, r in zip(errs, ok, strict=True))
        med = (
            statistics.median([r["u0_error"] / max(e, 1e-12) for e, r in zip(errs, ok, strict=True)])
            if ok
            else math.nan
        )
        me = statistics.median(errs) if ok else math.nan
        mp = statistics.median([abs(r["plain"] - r["exact"]) for r in ok]) if ok else math.nan
        name = k[2] or "**all**"
        lines.append(
            f"| {k[0]} | {k[1]} | {name} | {k[3] or ''} | {len(ok)} of {len(sel)} | {100 * hit1 / n:.1f} % |"
            f" {100 * hit2 / n:.1f} % | {med:.2g} | {me:.2g} / {mp:.2g} |"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--json", help="write every level's numbers here")
    ap.add_argument("--from-json", help="read the levels from here instead of solving")
    args = ap.parse_args(argv)
    if args.from_json:
        raw = json.loads(Path(args.from_json).read_text())
    else:
        raw = solve_all(args.seeds, args.dims, lambda line: print(line, flush=True))
        if args.json:
            Path(args.json).write_text(json.dumps(raw) + "\n")
    print(table(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
