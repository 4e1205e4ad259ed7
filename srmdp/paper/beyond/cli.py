"""``srmdp beyond``: the workflow's jobs of the suite beyond the paper that are not ``srmdp run``: a reference
(:mod:`srmdp.paper.beyond.reference`), a solve through :func:`srmdp.solve` and the coverage of u0_error
(:mod:`srmdp.paper.beyond.solve`)."""

from __future__ import annotations

import sys

from ...case.results import check_writable, write_json_atomic
from ...cli.common import Parser, exit_status
from ...options import add_arguments
from .. import REPOSITORY
from .reference import DEFAULT_REFERENCE_PATHS, compute_reference
from .solve import MODES, SuiteSolve, measure_coverage, run_solve, write_json


def build_parser():
    p = Parser(prog="srmdp beyond", description="references of the suite's problems")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    r = sub.add_parser("reference", help="u(0, x0) of a suite problem in dimension d, with its standard error")
    r.add_argument("--problem", required=True)
    r.add_argument("--d", type=int, required=True)
    r.add_argument("--paths", type=int, default=DEFAULT_REFERENCE_PATHS)
    r.add_argument("--out", required=True)
    v = sub.add_parser("solve", help="one suite solve through srmdp.solve (rules, adapted strata or tol)")
    add_arguments(v, "beyond_solve")  # its options (srmdp.options), and the suite's mode:
    v.add_argument("--mode", choices=MODES, required=True, help="rules: the paper's box; adapted strata; tol")
    c = sub.add_parser("coverage", help="coverage of u0_error over seeds (problems with an exact solution)")
    c.add_argument("--seeds", type=int, default=20)
    c.add_argument("--dims", type=int, nargs="+", default=[2, 4])
    c.add_argument("--out", required=True)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command == "solve":
        return exit_status(lambda: _solve(args))
    if args.command == "coverage":
        return exit_status(lambda: _coverage(args))
    return exit_status(lambda: _reference(args))


def _solve(args) -> int:
    check_writable(args.out)
    s = SuiteSolve(args.problem, args.d, args.mode, args.tol, args.budget_s, args.runs)
    out = run_solve(s, args.seed)
    write_json(args.out, out)
    print(
        f"{s.key}: u0 = {out['u0']:.6g} +- {out['u0_se']:.2g}, u0_error {out['u0_error']}, {out['cpu_seconds']:.0f}"
        " CPU s"
    )
    return 0


def _coverage(args) -> int:
    check_writable(args.out)
    out = measure_coverage(args.seeds, tuple(args.dims), root=REPOSITORY)
    out.pop("raw")
    write_json(args.out, out)
    return 0


def _reference(args) -> int:
    check_writable(args.out)
    ref = compute_reference(args.problem, args.d, args.paths)
    write_json_atomic(args.out, ref)
    print(
        f"{args.problem} d={args.d}: u(0, x0) = {ref['value']:.7g} +- {ref['se']:.2g} ({ref['method']},"
        f" {ref['seconds']:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
