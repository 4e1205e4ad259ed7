"""Every option is declared once (srmdp.options.OPTIONS) and every surface takes exactly the options the declaration
gives it, with the declared defaults: srmdp.solve's keywords, `srmdp solve`, `srmdp run`, `srmdp campaign run`, the
fields of Case, run_case's keywords, and the workflow's run jobs (their options as data, rendered by command_line).

The check (:func:`mismatches`) is run on the real surfaces, and on copies with one option deleted or added by hand,
where it must name that option: the test can fail.
"""

import argparse
import copy
import inspect
import math
import re
from dataclasses import fields, make_dataclass

import pytest
import yaml

import srmdp
from srmdp import options as opts
from srmdp.case.cases import Case
from srmdp.cli.commands import build_parser
from srmdp.numerics.strata import OUTSIDE_MODES
from srmdp.paper.beyond_cli import build_parser as beyond_parser
from srmdp.paper.campaign.cli import build_parser as campaign_parser
from srmdp.paper.lsmdp import build_parser as lsmdp_parser
from srmdp.runs.run import run_case

# What a surface takes that is not an option: srmdp.solve's record and callback, run_case's backend and callback,
# the campaign's own planning (its --budget is the campaign's seconds, its --out a folder of chunks).
OWN = {
    "api": {"options", "report", "kwargs"},
    "run_case": {"case", "backend", "on_run", "before_compute"},
    "campaign": {
        "budget",
        "out",
        "data",
        "config",
        "readings",
        "cases",
        "case_list",
        "first_runs",
        "max_runs",
        "max_chunk_seconds",
        "min_chunk_seconds",
        "reserve",
        "safety",
        "throughput",
        "model",
        "pack",
        "dry_run",
        "check_only",
    },
    "solve": set(),
    "run": set(),
    "lsmdp": set(),
    "beyond_solve": {"mode"},  # the suite's own setting (the paper's box, adapted strata, or a tolerance)
    "case": set(opts.CASE_FROM_PROBLEM),
}


def subparser(parser, name):
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


def parser_options(p) -> dict:
    """{dest: default} of a parser's arguments (help aside)."""
    return {a.dest: a.default for a in p._actions if a.dest != "help"}


def real_surfaces() -> dict:
    """{surface: {name: default or None where the surface has no default to compare}} as the code has them."""
    top = build_parser()
    solve_params = inspect.signature(srmdp.solve).parameters
    return {
        "api": {f.name: f.default for f in fields(srmdp.SolveOptions)}
        | {k: v.default for k, v in solve_params.items() if v.default is not inspect.Parameter.empty},
        "solve": parser_options(subparser(top, "solve")),
        "run": parser_options(subparser(top, "run")),
        "campaign": parser_options(subparser(campaign_parser(), "run")),
        "lsmdp": parser_options(lsmdp_parser()),
        "beyond_solve": parser_options(subparser(beyond_parser(), "solve")),
        "case": {f.name: None for f in fields(Case)},
        "run_case": {k: None for k in inspect.signature(run_case).parameters},
    }


def mismatches(surfaces: dict, declared=opts.OPTIONS) -> list:
    """One line per option that a surface has and the declaration does not give it, or the other way round, or whose
    default on a command line differs from the declared one."""
    out = []
    for surface, have in surfaces.items():
        mine = {o.name: o for o in declared if surface in o.surfaces}
        names = set(have) - OWN[surface]
        out += [f"{n}: on {surface}, not declared there" for n in sorted(names - set(mine))]
        out += [f"{n}: declared on {surface}, missing there" for n in sorted(set(mine) - names)]
        if surface in ("solve", "run", "campaign", "lsmdp", "beyond_solve"):
            for n in sorted(names & set(mine)):
                o = mine[n]
                want = True if o.kind == "negate" else None if surface in o.required else o.default_on(surface)
                if have[n] != want:
                    out.append(f"{n}: default {have[n]!r} on {surface}, declared {want!r}")
    return out


def test_every_surface_takes_exactly_its_declared_options():
    assert mismatches(real_surfaces()) == []


def test_the_check_names_an_option_deleted_from_one_surface():
    """The check fails on a copy of a surface without one of its options (`srmdp run` without --trunc-z, `srmdp solve`
    without --tol, Case without half_width, ...), on a parser whose --trunc-z was removed, and on a declaration that
    forgets where --seed is taken."""
    surfaces = real_surfaces()
    for surface, name in (
        ("run", "trunc_z"),
        ("solve", "tol"),
        ("case", "half_width"),
        ("campaign", "seed"),
        ("api", "martingale_cv"),
        ("run_case", "run_start"),
        ("lsmdp", "runs"),
        ("beyond_solve", "budget_s"),
    ):
        cut = copy.deepcopy(surfaces)
        del cut[surface][name]
        assert mismatches(cut) == [f"{name}: declared on {surface}, missing there"]
    # ... and on a parser built with the option removed (what a hand edit of a parser would do)
    run = subparser(build_parser(), "run")
    action = next(a for a in run._actions if a.dest == "trunc_z")
    run._remove_action(action)
    assert mismatches({"run": parser_options(run)}) == ["trunc_z: declared on run, missing there"]
    forgot = [
        o if o.name != "seed" else opts.Option(o.name, o.help, o.default, o.kind, surfaces=("api", "run"))
        for o in opts.OPTIONS
    ]
    assert sorted(mismatches(surfaces, forgot)) == [
        "seed: on beyond_solve, not declared there",
        "seed: on campaign, not declared there",
        "seed: on lsmdp, not declared there",
        "seed: on run_case, not declared there",
        "seed: on solve, not declared there",
    ]


def test_the_check_names_an_option_added_by_hand_or_a_changed_default():
    run = subparser(build_parser(), "run")
    run.add_argument("--keep")  # declared for solve, not for run
    assert mismatches({"run": parser_options(run)}) == ["keep: on run, not declared there"]
    grown = make_dataclass("Grown", [("stratify", bool, False)], bases=(Case,), frozen=True)
    assert mismatches({"case": {f.name: None for f in fields(grown)}}) == ["stratify: on case, not declared there"]
    solve = subparser(build_parser(), "solve")
    solve.set_defaults(runs=1)
    assert mismatches({"solve": parser_options(solve)}) == ["runs: default 1 on solve, declared None"]


def test_an_option_on_one_command_only_says_why():
    for o in opts.OPTIONS:
        for here, there in (("run", "solve"), ("solve", "run")):
            if here in o.surfaces and there not in o.surfaces:
                assert o.absent.get(there), f"{o.name}: on {here}, not on {there}, and no reason declared"
        for surface, d in o.differs.items():
            assert surface in o.surfaces and d.why, f"{o.name}: differs on {surface} without a reason"


def test_choice_lists_and_arithmetics_are_defined_once():
    from srmdp.case import cases
    from srmdp.numerics import build

    assert cases.ARITHMETICS is build.ARITHMETICS
    assert opts.BY_NAME["arithmetic"].choices is build.ARITHMETICS
    assert opts.BY_NAME["precision"].choices is cases.PRECISIONS
    assert opts.BY_NAME["device"].choices is opts.DEVICES
    assert srmdp.runs.run.DEVICES is opts.DEVICES and opts.BY_NAME["outside"].choices == tuple(OUTSIDE_MODES)


# --- the workflow: options as data, one renderer -------------------------------------------------------------------
def _run_args(line):
    return subparser(build_parser(), "run").parse_args(line.split() + ["--out", "x.json"])


@pytest.mark.parametrize("preset", ["config.yaml", "ci.yaml", "paper.yaml"])
def test_the_workflows_run_options_are_run_options_and_render_back(preset):
    """Every reading's and every suite case's options are options of `srmdp run`, and the command line rendered from
    them parses back to the same values and the same case."""
    from srmdp.paper.beyond import BeyondPlan
    from srmdp.paper.plan import Plan

    config = yaml.safe_load(open(srmdp.paper.REPOSITORY / "config" / preset))
    plan = Plan(config)
    groups = [r.run_options() | {"table": "LP1d4", "row": 1} for r in plan.readings]
    groups += [c.run_options() for c in BeyondPlan(plan).cases]
    assert groups
    for values in groups:
        args = _run_args(opts.command_line(values))
        for k, v in values.items():
            want = opts.BY_NAME[k].default_on("run") if v is None else v
            assert getattr(args, k) == want, (k, values)
    for r in plan.readings:
        args = _run_args(r.cli() + " --table LP1d4 --row 1")
        assert srmdp.cli.commands.case_from_args(args) == srmdp.paper.rows.paper_case("LP1d4", row=1, **r.options())


def test_command_line_refuses_an_option_the_command_does_not_take():
    with pytest.raises(ValueError, match="keep"):
        opts.command_line({"keep": "all"})
    assert opts.command_line({"trunc_y": 0.1 + 0.2, "z_cv": False, "martingale_cv": True}) == (
        "--trunc-y 0.30000000000000004 --martingale-cv"
    )  # a float exactly; a default flag left out
    assert opts.command_line({"z_cv": False}, "solve") == "--no-z-cv"  # solve's default is None (auto)


def test_make_case_is_the_one_way_from_options_to_a_case():
    c = opts.make_case(
        {
            "d": 2,
            "dt": 0.5,
            "basis": "LP0",
            "cells": 2,
            "paths": 4,
            "trunc_y": None,
            "trunc_z": 1,
            "martingale_cv": True,
        }
    )
    assert c.trunc_y == math.inf and c.trunc_z == 1.0 and isinstance(c.trunc_z, float) and c.z_cv
    with pytest.raises(ValueError, match="seed"):
        opts.case_options({"seed": 0})


@pytest.mark.parametrize("preset", ["config.yaml", "ci.yaml", "paper.yaml"])
def test_every_run_job_of_the_workflow_passes_declared_run_options_only(preset):
    """The residual, multicore and like-for-like jobs' arguments (srmdp.paper.plan) parse with `srmdp run`'s parser,
    the LSMDP jobs' with `srmdp lsmdp`'s, the suite's solves with `srmdp beyond solve`'s: an argument that is not a
    declared option there fails here (argparse exits)."""
    from srmdp.paper.beyond import BeyondPlan
    from srmdp.paper.plan import Plan

    plan = Plan(yaml.safe_load(open(srmdp.paper.REPOSITORY / "config" / preset)))
    jobs = [
        (plan.residual_options(v.name, k), plan.residual_args(v.name, k))
        for v in plan.variants
        for k in plan.residual_rows
    ]
    jobs += [(plan.multicore_options(k), plan.multicore_args(k)) for k in plan.multicore]
    jobs += [(plan.multicore_options(k, like=True), plan.multicore_args(k, like=True)) for k in plan.likeforlike]
    for values, line in jobs:  # the line gives exactly the job's options (data), each parsed back to its value
        args = _run_args(line)
        assert args.table and args.row >= 1
        for k, v in values.items():
            assert getattr(args, k) == (opts.BY_NAME[k].default_on("run") if v is None else v), (k, line)
    for s in plan.lsmdp:  # the LSMDP baseline's jobs: declared options of `srmdp lsmdp`
        values = plan.lsmdp_options(s.key)
        args = lsmdp_parser().parse_args(plan.lsmdp_args(s.key).split() + ["--out", "x.json"])
        assert args.table == s.table and args.row == s.row
        for k, v in values.items():
            assert getattr(args, k) == (opts.BY_NAME[k].default_on("lsmdp") if v is None else v), (k, s.key)
    beyond = BeyondPlan(plan)
    for s in beyond.solves:  # the suite's srmdp.solve jobs: declared options of `srmdp beyond solve`
        line = beyond.solve_args(s.key).split() + ["--out", "x.json"]
        args = subparser(beyond_parser(), "solve").parse_args(line)
        assert (args.problem, args.d, args.mode, args.tol, args.budget_s, args.runs, args.seed) == (
            s.problem,
            s.d,
            s.mode,
            s.tol,
            s.budget_s,
            s.runs,
            plan.seed,
        )


def test_the_plans_jobs_build_no_command_line_by_hand():
    """The jobs of srmdp.paper.plan_jobs and the readings pass their options as data: no string in those modules
    holds an option flag (``--x``); command_line renders them (the rules add only --device, --threads, --out)."""
    import ast

    for name in ("plan_jobs", "preset_reading"):
        tree = ast.parse((srmdp.paper.REPOSITORY / "srmdp" / "paper" / f"{name}.py").read_text())
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        flags = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and id(n) not in docs
            and re.search(r"(^|\s)--[a-z]", n.value)
        ]
        assert not flags, (name, flags)


def test_a_job_never_drops_a_reading_setting_silently():
    """A reading's setting that a command does not take is an error, not left out (LSMDP has no Z control
    variate)."""
    from srmdp.paper.preset_reading import PresetReading

    assert PresetReading("a", "zero", 1.0, 1.0).run_options("lsmdp") == {
        "outside": "zero",
        "trunc_y": 1.0,
        "trunc_z": 1.0,
    }
    with pytest.raises(ValueError, match="z_cv"):
        PresetReading("b", "zero", 1.0, 1.0, z_cv=True).run_options("lsmdp")
