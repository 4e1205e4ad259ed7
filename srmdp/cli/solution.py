"""``srmdp solve`` (a problem -> a solution file) and ``srmdp eval`` (a solution file at points -> y, z).

    srmdp solve --problem my_pde.py --d 4 [--dt --basis --cells --paths --runs ...] --out sol.npz
    srmdp eval sol.npz --step 0 --points pts.csv [--out vals.csv]

Input errors are one line on stderr and exit status 2 before anything is computed (see :mod:`srmdp.cli.commands`).
``srmdp solve --tol`` exits with status :data:`TOL_NOT_MET` (4) when the tolerance was not met within the budget:
the finest answer is still saved, and the last line on stdout says so.
Points: CSV (comma-separated, one point a line, an optional header line, ``#`` comments) or ``.npy``
(an (n, d) array); values: CSV with the header ``y,z_1,...,z_d`` (to stdout without ``--out``) or
``.npy`` (an (n, 1 + d) array, columns y, z_1..z_d), chosen by the extension of ``--out``.
"""

import io
import sys
from pathlib import Path

import numpy as np

from ..exceptions import TOL_NOT_MET, ConfigError, Interrupted
from ..kernels import stop
from ..options import SolveOptions, add_arguments
from ..runs.run import log_line, progress_log
from .common import check_out, keep_partial, say_created


def add_parsers(sub, number):
    s = sub.add_parser(
        "solve",
        help="solve a problem and save the solution (.npz) for `srmdp eval` / srmdp.load",
        description="Solve a problem (the paper's, gobet2016, unless --problem names another) and save the solution.",
    )
    add_arguments(s, "solve")  # one argument per option of srmdp solve (srmdp.options)

    e = sub.add_parser("eval", help="evaluate a saved solution: y and z at time step i at given points")
    e.add_argument("solution", help="a solution file written by `srmdp solve` (or Solution.save)")
    when = e.add_mutually_exclusive_group(required=True)
    when.add_argument(
        "--step",
        type=int,
        help="time index i (t_i = i dt), 0..N-1; y and z are the scheme's estimators y^M_i, z^M_i (at i = 0, z is"
        " the cells' regression: at x0 srmdp.load(FILE).z0(), from first steps out of x0, is the better z(0, x0))",
    )
    when.add_argument("--time", type=number, help="time t_i on the grid (instead of --step)")
    e.add_argument("--points", required=True, help="points, CSV (n lines of d numbers) or .npy (n x d)")
    e.add_argument("--run", type=int, help="one kept run's estimators (default: the mean over the kept runs)")
    e.add_argument("--threads", type=int, help="CPU threads (default: all)")
    e.add_argument("--out", help="values, .csv or .npy (default: CSV on stdout)")


def z0_note(sol, path) -> str:
    """What eval's z is at step 0, and where the better z(0, x0) is (with its value where the solve recorded it)."""
    note = (
        "srmdp: z at t_0 is the cells' regression estimator z^M_0 (its error at a point: the cells' fit and the"
        f" regression noise); at x0 the better estimate is srmdp.load({str(path)!r}).z0() (first steps out of x0"
    )
    if "z0" not in sol.result:
        return note + ")"
    value, se = np.asarray(sol.result["z0"]), np.asarray(sol.result["z0_se"])
    shown = ", ".join(f"{v:.4g} ± {e:.2g}" for v, e in zip(value[:4], se[:4], strict=True))
    return note + f", recorded by the solve: z(0, x0) ≈ ({shown}{', …' if value.size > 4 else ''}))"


def read_points(path) -> np.ndarray:
    """Points from a CSV or .npy file (ConfigError, one line, if unreadable or not numbers)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"invalid points={str(path)!r}: no such file")
    if p.suffix.lower() == ".npy":
        try:
            pts = np.load(p, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise ConfigError(
                f"invalid points file {path}: not a readable .npy array ({' '.join(str(exc).split())})"
            ) from None
        if pts.dtype.kind not in "fiu":
            raise ConfigError(f"invalid points file {path}: an array of numbers is needed, not {pts.dtype}")
        return np.asarray(pts, dtype=np.float64)
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid points file {path}: cannot read it as text ({exc})") from None
    rows = []
    first = True
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            rows.append([float(v) for v in line.split(",")])
        except ValueError:
            if not first:
                raise ConfigError(f"invalid points file {path}: line {n} is not comma-separated numbers") from None
        first = False  # a first line that is not numbers is a header
    if not rows:
        raise ConfigError(f"invalid points file {path}: no points")
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise ConfigError(f"invalid points file {path}: lines have different numbers of columns ({sorted(widths)})")
    return np.array(rows, dtype=np.float64)


def _atomic_bytes(path, data: bytes):
    from ..case.results import write_atomic

    write_atomic(path, lambda fh: fh.write(data), binary=True)


def values_csv(y, z) -> str:
    d = z.shape[1]
    out = io.StringIO()
    out.write(",".join(["y"] + [f"z_{l + 1}" for l in range(d)]) + "\n")
    for a, b in zip(y, z, strict=True):
        out.write(",".join(repr(float(v)) for v in (a, *b)) + "\n")
    return out.getvalue()


def answer_lines(sol) -> list:
    """What ``srmdp solve`` says of the answer it returns: the rule that chose each of its parameters, and for a
    refinement its level (a step of the refinement may change a parameter after the rules chose it: that
    parameter's line gives the answer's value and says so)."""
    c = sol.case
    expected = {  # {parameter: (how its rule's line ends when it chose the answer's value, the answer's value)}
        "dt": (f"(N = {c.steps})", f"T/{c.steps} = {c.time_step:g} (N = {c.steps})"),
        "cells": (f"= {c.cells}", str(c.cells)),
        "paths": (f"= {c.paths}", str(c.paths)),
    }
    lines = []
    for key, how in sol.rules.items():
        if key not in expected or how.endswith(expected[key][0]):
            lines.append(f"{key}: {how}")
        else:
            lines.append(f"{key}: {expected[key][1]} (a step of the refinement changed it; its rule gave {how})")
    key = (c.steps, c.cells, c.paths)
    same = [r for r in sol.refinement if (r.steps, r.cells, r.paths) == key]
    row = same[-1] if same else None
    if row is not None:
        lines.append(
            f"answer: level {row.level} ({row.kind}) of the refinement: N = {c.steps}, dt = {c.time_step:g},"
            f" #C = {c.cells}, M = {c.paths}, {sol.result.get('runs', sol.runs)} runs"
        )
    return lines


def log_path(out) -> str:
    """The progress log of ``srmdp solve --out x.npz``: ``x.log`` (a line per run and level, flushed per line)."""
    return str(out).removesuffix(".npz") + ".log"


def interrupted_answer(exc) -> dict:
    """What a stopped solve keeps (``OUT.partial.json``): the answer so far (a completed level's result, its
    error not estimated), the levels completed, and the runs of the case that was running."""

    def plain(x):  # a RunResult as its JSON form (the file is JSON)
        return x.to_dict() if hasattr(x, "to_dict") else x

    levels = [plain(lv) for lv in exc.levels]
    part, answer = plain(exc.partial), plain(exc.answer)
    runs = sum(int(lv.get("runs") or 0) for lv in levels) + (int(part["runs"]) if part else 0)
    best = answer if answer is not None else part
    return {
        "status": f"{exc} before the end: the error is not estimated",
        "success": False,
        "stage": exc.stage,
        "runs": runs,
        "u0": None if best is None else best.get("u0"),
        "u0_se": None if best is None else best.get("u0_se"),
        "u0_error": None,
        "answer": answer,
        "completed_levels": levels,
        "interrupted_case": part,
    }


def main(args):
    """Run ``solve`` or ``eval``; ConfigError propagates to :func:`srmdp.cli.commands.main` (exit status 2)."""
    if args.command == "solve":
        from ..runs.run import NumericalError, summary_line
        from ..solving import solve

        if not str(args.out).endswith(".npz"):
            raise ConfigError(f"invalid out={args.out!r}: a solution file name ends with .npz")
        created = check_out(args.out)

        def report(line):
            print(f"srmdp: {line}", file=sys.stderr, flush=True)
            log_line(line)

        log = log_path(args.out)
        try:
            with stop.on_signals(), progress_log(log):
                sol = solve(args.problem, options=SolveOptions.from_args(args), progress=args.progress, report=report)
        except NumericalError as exc:
            print(f"srmdp: numerical error: {exc}; no solution written", file=sys.stderr)
            return 3
        except Interrupted as exc:
            kept = keep_partial(args.out, interrupted_answer(exc), f"{exc} ({exc.stage})", signal=exc.signal_name)
            print(f"srmdp: {exc} ({exc.stage}); no solution written; {kept}", file=sys.stderr)
            return exc.exit_status
        for line in answer_lines(sol):
            print(f"srmdp: {line}", file=sys.stderr)
        try:
            sol.save(args.out)
        except OSError as exc:
            print(f"srmdp: error: cannot write {args.out}: {exc.strerror or exc}; no solution written", file=sys.stderr)
            return 1
        say_created(created)
        if sol.u0_error is None and sol.tol is None:  # said first: the line after it shows a s.e., not an accuracy
            print(f"srmdp: {sol.message}")
            if sol.u0_error_hint:
                print(f"srmdp: {sol.u0_error_hint}")
        print(summary_line(sol.result))
        if sol.u0_error is not None:
            tol = "" if sol.tol_met is None else ", tol met" if sol.tol_met else ", tol NOT met"
            print(
                f"estimated total error of u0: {sol.u0_error:.2g} (u0 = {sol.result['u0']:.6g}; bias included,"
                f" srmdp.solutions.error_estimate){tol}"
            )
        elif sol.u0_error_reason and sol.tol is not None:
            print(f"estimated total error of u0: not given ({sol.u0_error_reason})")
        ext = sol.result.get("extrapolated")
        if ext:  # the refinement's answer is extrapolated in dt (srmdp.refine.refine); y, z are the level's own
            print(
                f"u0 is extrapolated in dt (Richardson) from levels {ext['partners']}; the level's own u0 is"
                f" {ext['plain_u0']:.6g} ± {ext['plain_u0_se']:.2g}"
            )
        print(f"srmdp: solution saved to {args.out} (srmdp eval {args.out} --step 0 --points pts.csv)")
        if sol.tol_met is False:
            print(
                f"srmdp: tol = {sol.tol:g} NOT met ({sol.result.get('refinement_stop')}); exit status {TOL_NOT_MET}",
                file=sys.stderr,
            )
            return TOL_NOT_MET
        return 0

    # eval: every check (file, step, points, output) before the kernels are built
    from ..runs.run import check_threads
    from ..solutions.solution import load

    check_threads(args.threads)
    sol = load(args.solution, threads=args.threads)
    step = sol.step_of(args.time) if args.time is not None else args.step
    pts = read_points(args.points)
    sol._check(step, pts, args.run)
    created = None
    if args.out is not None:
        if Path(args.out).suffix.lower() not in (".csv", ".npy"):
            raise ConfigError(f"invalid out={args.out!r}: the values file ends with .csv or .npy")
        created = check_out(args.out)
    y, z = sol.evaluate(step, pts, run=args.run)
    if step == 0:
        print(z0_note(sol, args.solution), file=sys.stderr)
    if args.out is None:
        sys.stdout.write(values_csv(y, z))
        return 0
    try:
        if Path(args.out).suffix.lower() == ".npy":
            buf = io.BytesIO()
            np.save(buf, np.column_stack([y, z]))
            _atomic_bytes(args.out, buf.getvalue())
        else:
            _atomic_bytes(args.out, values_csv(y, z).encode())
    except OSError as exc:
        print(f"srmdp: error: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    say_created(created)
    print(f"srmdp: {len(y)} points at t_{step} = {sol.times[step]:g} -> {args.out}", file=sys.stderr)
    return 0
