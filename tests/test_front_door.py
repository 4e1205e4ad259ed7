"""The front door, as a new user meets it: every subcommand's bad input is one line and exit status 2 (no traceback),
abbreviations are refused, `srmdp --version` and a top-level help that lists every subcommand, outputs that follow
the umask, `srmdp run` and `srmdp solve` taking the same strata, `srmdp plan` saying what the workflow will really
compute (the workflow's one-line refusal of a misspelt preset key: tests/test_workflow.py).

Each check is exact (an exit status, a line count, a file mode, an equality of cases): nothing here is statistical,
and nothing is compiled or computed (every bad input is refused before that).
"""

import argparse
import os
import types
from pathlib import Path

import pytest

import srmdp
from srmdp.case.results import write_atomic, write_json_atomic
from srmdp.cli.commands import build_parser, case_from_args, main, plugin_commands
from srmdp.cli.solution import answer_lines
from srmdp.options import SolveOptions
from srmdp.paper import lsmdp
from srmdp.paper.beyond import cli as beyond_cli
from srmdp.paper.campaign import cli as campaign_cli
from srmdp.paper.plan.cli import published_or_done
from srmdp.paper.plan.preset import Plan, load_configs
from srmdp.problems.adapt import adapted_spec
from srmdp.solutions.solve_request import SolveRequest

ROOT = Path(__file__).resolve().parent.parent


def subcommands(parser) -> dict:
    """{name: parser} of a parser's subcommands."""
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


# The nested subcommands' own parsers (the top-level parser lists the plugin commands; main() hands them their argv)
NESTED = {"campaign": campaign_cli.build_parser, "beyond": beyond_cli.build_parser, "lsmdp": lsmdp.build_parser}


def all_commands() -> list:
    """Every command line prefix a user can type: [run], [campaign, run], [beyond, solve], ..."""
    out = []
    for name in subcommands(build_parser()):
        nested = subcommands(NESTED[name]()) if name in NESTED else {}
        out += [[name, sub] for sub in nested] or [[name]]
    return out


def refused(capsys, argv) -> str:
    """Run ``srmdp ARGV`` in this process; it must exit with status 2 and one line on stderr (no traceback)."""
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, (argv, status, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, (argv, err)
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_the_walk_reaches_every_command():
    names = {c[0] for c in all_commands()}
    assert names == {"run", "aggregate", "solve", "eval"} | set(plugin_commands())
    assert {("campaign", "run"), ("beyond", "solve")} <= {tuple(c) for c in all_commands()}


def test_every_command_refuses_an_unknown_option_in_one_line(capsys, in_root):
    for cmd in all_commands():
        line = refused(capsys, [*cmd, "--no-such-option"])
        assert "--no-such-option" in line or "usage" in line or "required" in line, (cmd, line)


def _long_options(parser):
    return [s for a in parser._actions for s in a.option_strings if s.startswith("--") and len(s) > 6]


def test_every_command_refuses_an_abbreviated_option(capsys, in_root):
    """``--path 300`` is not ``--paths 300``: no parser takes an abbreviation of its options."""
    top = build_parser()
    for cmd in all_commands():
        parser = NESTED[cmd[0]]() if cmd[0] in NESTED else subcommands(top)[cmd[0]]
        if len(cmd) > 1:
            parser = subcommands(parser)[cmd[1]]
        assert parser.allow_abbrev is False, cmd
        for opt in _long_options(parser)[:1]:  # refused (argparse may name a missing required option first)
            refused(capsys, [*cmd, opt[:-1], "1"])
    line = refused(capsys, ["run", "--table", "LP1d4", "--dt", "0.2", "--out", "x.json", "--path", "300"])
    assert line == "srmdp: error: unrecognized arguments: --path 300"
    assert refused(capsys, ["plan", "--hel"]).startswith("srmdp plan: error: unrecognized argument --hel; srmdp plan [")


BAD = [
    (["run", "--table", "NOSUCH"], "table='NOSUCH'"),  # the bad table first, not the missing --out
    (["run", "--d", "2", "--dt", "0.1"], "missing --basis"),
    (["run", "--table", "LP1d4", "--dt", "0.2", "--strata", "adapted", "--out", "x.json"], "--strata"),
    (["run", "--d", "2", "--dt", "0.1", "--basis", "LP1", "--cells", "2", "--paths", "9"], "missing --out"),
    (["aggregate", "nosuch-chunk.json", "--out", "x.json"], "nosuch-chunk.json"),
    (["solve", "--problem", "nosuch.py", "--d", "2", "--out", "x.npz"], "nosuch.py"),
    (["solve", "--d", "2", "--strata", "diagonal", "--out", "x.npz"], "strata"),
    (["eval", "nosuch.npz", "--step", "0", "--points", "p.csv"], "nosuch.npz"),
    (["cases", "--table", "NOSUCH"], "NOSUCH"),
    (["lsmdp", "--table", "NOSUCH", "--row", "1", "--out", "x.json"], "NOSUCH"),
    (["plan", "nosuch.yaml"], "nosuch.yaml"),
    (["plan", "--bogus"], "unrecognized argument --bogus"),
    (["--versoin"], "did you mean --version?"),
    (["campaign", "run", "--budget", "-5", "--out", "nosuch-folder"], "budget"),
    (["beyond", "solve", "--problem", "nosuch"], ""),
]


@pytest.mark.parametrize("argv,names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_status_2(capsys, in_root, argv, names):
    assert names in refused(capsys, argv)


def test_plan_outside_the_checkout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "repository's root" in refused(capsys, ["plan"])


def test_eval_of_a_junk_file_says_so(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("junk.npz").write_bytes(bytes(range(256)) * 2)
    Path("p.csv").write_text("0,0\n")
    line = refused(capsys, ["eval", "junk.npz", "--step", "0", "--points", "p.csv"])
    assert "not a .npz archive" in line and "pickle" not in line


def test_version_and_a_help_that_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"srmdp {srmdp.__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listed = {line.split()[0] for line in out.splitlines() if line.startswith("    ") and line.split()}
    assert {"run", "aggregate", "solve", "eval"} | set(plugin_commands()) <= listed, out


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_follow_the_umask(tmp_path, umask):
    """Results (.json) and solutions/values (binary: .npz, .npy) get 0666 less the umask, as open() would give."""
    old = os.umask(umask)
    try:
        write_json_atomic(tmp_path / "r.json", {"a": 1})
        write_atomic(tmp_path / "s.npz", lambda fh: fh.write(b"x"), binary=True)
    finally:
        os.umask(old)
    for name in ("r.json", "s.npz"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


def test_run_and_solve_take_the_same_strata():
    """`srmdp run --strata S --half-width L` computes the very case a solve computes with the same options (run's
    declared defaults: no Z control variate, no curvature correction)."""
    problem = str(ROOT / "examples" / "allen_cahn.py")
    common = ["--problem", problem, "--d", "2", "--dt", "0.15", "--basis", "LP1", "--cells", "3", "--paths", "30"]
    for strata in ("box", "adapted"):
        args = build_parser().parse_args(["run", *common, "--half-width", "2.5", "--strata", strata, "--out", "x.json"])
        opts = SolveOptions(
            d=2, dt=0.15, cells=3, paths=30, half_width=2.5, strata=strata, z_cv=False, curvature_correction=False
        )
        req = SolveRequest.make(problem, opts)
        solved, _ = req.case_at(req.steps)
        assert case_from_args(args) == solved
        assert solved.problem == (adapted_spec(problem, 2) if strata == "adapted" else problem)
    assert build_parser().parse_args(["run", *common, "--out", "x.json"]).strata == "box"  # the workflow's default


def _solution(rules, steps, cells, paths, refinement=()):
    from srmdp.solutions.row import Row

    case = types.SimpleNamespace(steps=steps, time_step=1.0 / steps, cells=cells, paths=paths)
    rows = [Row.of(r) for r in refinement]  # Solution.refinement: the rows as records
    return types.SimpleNamespace(case=case, rules=rules, refinement=rows, result={"runs": 4}, runs=4)


def test_the_rules_lines_describe_the_answer_returned():
    rules = {"dt": "T/10 = 0.1 (N = 10)", "cells": "rule = 5", "paths": "rule = 500"}
    # a plain solve: its rules, as they chose the answer
    assert answer_lines(_solution(rules, 10, 5, 500)) == [f"{k}: {v}" for k, v in rules.items()]
    # a refinement whose answer is a step at N = 5 with M doubled: the lines give the answer's N and M
    rows = [
        {"level": 0, "kind": "rule", "steps": 5, "cells": 5, "paths": 500},
        {"level": 3, "kind": "fill-paths", "steps": 5, "cells": 5, "paths": 1000},
    ]
    lines = answer_lines(_solution(rules, 5, 5, 1000, rows))
    assert lines[0].startswith("dt: T/5 = 0.2 (N = 5) (a step of the refinement changed it")
    assert lines[1] == "cells: rule = 5"
    assert lines[2].startswith("paths: 1000 (a step")
    assert lines[3] == "answer: level 3 (fill-paths) of the refinement: N = 5, dt = 0.2, #C = 5, M = 1000, 4 runs"


def test_plan_counts_the_jobs_the_workflow_will_run(in_root, tmp_path):
    """The default preset's results are committed (data/summaries/default/): its main job computes none of its
    jobs, and srmdp plan says 0; with nothing published it computes them all."""
    plan = Plan(load_configs(["config/config.yaml"]))
    jobs = plan.jobs(2)
    done = published_or_done(plan)
    assert plan.cost_report(2, done=done).splitlines()[0].endswith("this run computes 0 of them:")
    empty = Plan(load_configs(["config/config.yaml"]) | {"summaries_dir": str(tmp_path), "results_dir": str(tmp_path)})
    assert f"computes {len(jobs)} of them" in empty.cost_report(2, done=published_or_done(empty)).splitlines()[0]


def test_a_yaml_error_names_the_file_and_line(capsys, in_root, tmp_path):
    bad = tmp_path / "garbage.yaml"
    bad.write_text("cases:\n  - table: LP1d4\n    rows: [1\n")
    line = refused(capsys, ["plan", str(bad)])
    assert f"invalid YAML in {bad} at line 4" in line, line
