"""The Python API (srmdp.solve / Solution / srmdp.load) and the CLI commands solve / eval, on small cases.

Every evaluation goes through the compiled estimator; these tests check that it is the solver's own (u0 and
per-run values bit-identical to run_case), that it is right (errors against the exact solution agree with
the solver's test-point errors within their standard errors), that files round-trip bit for bit, and that
bad files, bad points and cases that do not fit are refused in one line before anything is computed.
"""

import contextlib
import io
import json
import math
import os
import zipfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from conftest import HEAT_PROBLEM

import srmdp
import srmdp.runs.run
from srmdp.case.cases import Case
from srmdp.case.results import seal
from srmdp.cli.commands import main
from srmdp.exceptions import ConfigError
from srmdp.numerics.rules import paper_rule
from srmdp.paper.inputs.rows import paper_rows, rule_table
from srmdp.problems import gobet2016
from srmdp.solutions.solution_file import SOLUTION_FORMAT_VERSION
from srmdp.solutions.solve_request import check_memory
from srmdp.solving import solve

TINY = dict(d=2, cells=3, paths=20, seed=3)  # dt = T/5: N = 5, K = 9
HEAT = HEAT_PROBLEM


@pytest.fixture(scope="module")
def sol():
    return solve("gobet2016", runs=3, progress=False, threads=1, **TINY)


@pytest.fixture(scope="module")
def heat_file(tmp_path_factory):
    """A user's problem file (the heat equation; u = sum cos(x_l/4) e^{-(T-t)/32}), compiled once here."""
    path = tmp_path_factory.mktemp("user") / "heat.py"
    path.write_text(HEAT)
    return path


@pytest.fixture(scope="module")
def saved(sol, tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "sol.npz"
    sol.save(path)
    return path


def _one_line_config_error(fn, *args, match=None, **kwargs):
    with pytest.raises(ConfigError, match=match) as err:
        fn(*args, **kwargs)
    assert "\n" not in str(err.value)
    return str(err.value)


def run_cli(argv, env=None):
    """main(argv) in-process; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(os.environ, env or {}))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(contextlib.redirect_stdout(out))
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def _refused(status, stderr, *keywords):
    assert status == 2, (status, stderr)
    assert "Traceback" not in stderr and stderr.count("\n") == 1 and stderr.startswith("srmdp: error: "), stderr
    assert all(k in stderr for k in keywords), (keywords, stderr)


# --- the paper's rules ---------------------------------------------------------------------------
def test_default_cells_and_paths_are_the_papers_formulas():
    """Every paper row whose table is the rule for its (basis, d) is reproduced by srmdp.numerics.rules."""
    checked = 0
    for r in paper_rows():
        rule = paper_rule(r["basis"], r["d"], int(round(1 / r["dt"])))
        if rule_table(r["basis"], r["d"]) == r["table"] and (r["table"] != "LP1d11" or r["row"] == 1):
            assert (rule.cells, rule.paths) == (r["cells"], r["M"]), r
            checked += 1
    assert checked == 4 + 3 + 3 + 4 + 4 + 1
    assert (paper_rule("LP1", 12, 5).cells, paper_rule("LP1", 12, 5).paths) == (2, 2000)
    assert paper_rule("LP1", 2, 5).cells == 3 and "at d = 4" in paper_rule("LP1", 2, 5).cells_formula
    assert paper_rule("LP2d", 4, 5).paths == 9 * 25


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_solve_reports_the_rules_it_used(sol):
    assert sol.case.dt == 0.2 and sol.case.cells == 3 and sol.case.paths == 20
    assert set(sol.rules) == {"dt"} and "T/5" in sol.rules["dt"]
    s = solve("gobet2016", d=2, dt=0.5, runs=1, progress=False, threads=1)
    assert (s.case.cells, s.case.paths) == (paper_rule("LP1", 2, 2).cells, paper_rule("LP1", 2, 2).paths)
    assert set(s.rules) == {"cells", "paths"}


def test_a_plain_solve_says_its_outcome(sol):
    """success / status / message, as SciPy's results say them: a solve without tol succeeds (status 0, the exit
    status of srmdp solve); its one-line message names the level and what its error estimate says, or why none."""
    assert sol.success == (sol.u0_error is not None) and sol.status == 0 and "\n" not in sol.message
    level = f"solved at N = {sol.steps}, #C = {sol.case.cells}, M = {sol.case.paths}"
    if sol.u0_error is None:  # said first: its s.e. is not its accuracy (issue 54 item 3)
        assert sol.message.startswith(f"error NOT estimated ({sol.u0_error_reason}): ")
        assert sol.message.endswith(level)
    else:
        assert sol.message == f"{level}; estimated total error of u0 {sol.u0_error:.3g}"


# --- the estimator is the solver's ---------------------------------------------------------------
def test_solution_is_the_run_estimator(sol):
    """u0 per run (computed by run_case through the backend) equals the Solution's evaluation, bit for bit;
    u0() is their mean and standard error; the same case through run_case gives the same indicators."""
    x0 = np.zeros((1, 2))
    per_run = [sol.evaluate(0, x0, run=r)[0][0] for r in range(3)]
    assert per_run == sol.result["per_run"]["u0"]
    assert sol.u0() == (sol.result["u0"], sol.result["u0_se"])
    assert sol.coefficients.shape == (3, 5, 9, 3, 3) and not sol.coefficients.flags.writeable
    res = srmdp.run_case(sol.case, runs=3, test_points=1000, seed=3, threads=1)
    for key in ("mse_y_max", "mse_y_av", "mse_z_av", "u0", "u0_se"):
        assert res[key] == sol.result[key], key
    y, z = sol.evaluate(2, np.ones((4, 2)))
    ys = [sol.y(2, np.ones((4, 2)), run=r) for r in range(3)]
    np.testing.assert_allclose(y, np.mean(ys, axis=0), rtol=1e-15)
    assert z.shape == (4, 2) and np.array_equal(sol.z(2, np.ones((4, 2))), z)


def test_solution_agrees_with_the_exact_solution():
    """|y^M_i - y_i|^2 and |z^M_i - z_i|^2 over independent nu-points (NumPy logistic draws) have the means the
    solver measured at its own test points, within 4 standard errors of the difference (per step)."""
    s = solve("gobet2016", d=2, cells=4, paths=100, runs=1, seed=11, test_points=4000, progress=False, threads=1)
    ey, ez = np.array(s.result["per_run"]["ey"][0]), np.array(s.result["per_run"]["ez"][0])
    rng = np.random.default_rng(7)
    n = 20000
    for i in range(s.steps):
        X = rng.logistic(0.0, 1.0, size=(n, 2))
        y, z = s.evaluate(i, X)
        ye, ze = gobet2016.solution(s.times[i], X)
        sy = (y - ye) ** 2
        sz = np.sum((z - ze) ** 2, axis=1)
        for got, ref, name in ((sy, ey[i], "y"), (sz, ez[i], "z")):
            se = got.std(ddof=1) * math.sqrt(1 / n + 1 / 4000)
            assert abs(got.mean() - ref) < 4 * se, (i, name, got.mean(), ref, se)


def test_u0_at_other_points_and_time_grid(sol):
    u = sol.u0(0.5)
    vals = [sol.y(0, np.full((1, 2), 0.5), run=r)[0] for r in range(3)]
    assert u.value == pytest.approx(np.mean(vals), rel=1e-15)
    assert u.se == pytest.approx(np.std(vals, ddof=1) / math.sqrt(3), rel=1e-12)
    assert sol.u0([0.5, 0.5]) == u
    assert sol.step_of(0.4) == 2 and np.allclose(sol.times, [0, 0.2, 0.4, 0.6, 0.8])
    _one_line_config_error(sol.step_of, 0.3, match="invalid t=0.3")
    _one_line_config_error(sol.evaluate, 5, np.zeros((1, 2)), match=r"invalid step i=5: must be an integer in 0..4")
    _one_line_config_error(sol.evaluate, 0, np.zeros((3, 3)), match=r"shape \(3, 3\)")
    _one_line_config_error(sol.evaluate, 0, [[0.0, np.nan]], match="not finite")
    _one_line_config_error(sol.evaluate, 0, np.zeros((1, 2)), run=7, match="invalid run=7")


def test_keep_last(sol):
    s = solve("gobet2016", runs=3, keep="last", progress=False, threads=1, **TINY)
    assert s.coefficients.shape[0] == 1 and s.kept_runs == [2]
    assert np.array_equal(s.coefficients[0], sol.coefficients[2])
    assert s.u0() == sol.u0()  # the mean over all runs, recorded during the solve
    assert s.u0(0.5).se is None


# --- files ----------------------------------------------------------------------------------------
def test_save_load_round_trip_is_bit_identical(sol, saved):
    back = srmdp.load(saved)
    X = np.random.default_rng(1).normal(size=(50, 2)) * 3
    for i in (0, 4):
        for run in (None, 1):
            a, b = sol.evaluate(i, X, run=run), back.evaluate(i, X, run=run)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert back.case == Case(**{**sol.case.__dict__})
    assert back.u0() == sol.u0() and back.rules == sol.rules
    assert back.result.to_dict() == json.loads(json.dumps(sol.result.to_dict()))
    assert back.provenance["seed"] == 3 and back.provenance["versions"]["numpy"]


def _rewrite(src, dst, meta=None, coef=None):
    with np.load(src) as f:
        m = json.loads(str(f["meta"][()]))
        c = f["coef"]
    if meta is not None:
        m = meta(m)
    np.savez(dst, coef=c if coef is None else coef(c), meta=np.array(json.dumps(m)))
    return dst


def _bump_version(m):
    m["format_version"] = SOLUTION_FORMAT_VERSION + 1
    return seal(m)


def _alter_seed(m):
    m["seed"] = 4  # content changed, checksum not updated
    return m


def _alter_coef(c):
    c = c.copy()
    c[0, 0, 0, 0, 0] += 1e-12
    return c


def test_damaged_or_foreign_files_are_refused_in_one_line(saved, tmp_path):
    data = saved.read_bytes()
    cases = {}
    (tmp_path / "trunc.npz").write_bytes(data[: len(data) // 2])
    cases["trunc.npz"] = "damaged or not an srmdp solution"
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0xFF  # inside the coefficients' bytes: the zip CRC or our sha256 catches it
    (tmp_path / "flip.npz").write_bytes(bytes(flipped))
    cases["flip.npz"] = "damaged"
    cases[_rewrite(saved, tmp_path / "version.npz", meta=_bump_version).name] = (
        f"format version {SOLUTION_FORMAT_VERSION + 1}, this srmdp reads version {SOLUTION_FORMAT_VERSION}"
    )
    cases[_rewrite(saved, tmp_path / "meta.npz", meta=_alter_seed).name] = "checksum does not match"
    cases[_rewrite(saved, tmp_path / "coef.npz", coef=_alter_coef).name] = "coefficients do not match"
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    cases["other.npz"] = "not an srmdp solution"
    (tmp_path / "text.npz").write_text("hello")
    cases["text.npz"] = "damaged or not an srmdp solution"
    cases["missing.npz"] = "no such file"
    pts = tmp_path / "p.csv"
    pts.write_text("0,0\n")
    for name, words in cases.items():
        msg = _one_line_config_error(srmdp.load, tmp_path / name)
        assert words in msg and name in msg, (name, msg)
        status, out, err = run_cli(["eval", tmp_path / name, "--step", "0", "--points", pts])
        _refused(status, err, words)
        assert out == ""


@pytest.mark.slow  # compile-dominated (25-70 s in the fast suite on 2 cores): the slow suite
def test_a_changed_problem_file_is_refused(tmp_path, heat_file):
    s = solve(str(heat_file), d=1, cells=3, paths=10, progress=False, threads=1)
    assert s.u0().value == pytest.approx(math.exp(-0.5 / 32), abs=0.05)  # u = cos(x/4) e^{-(T-t)/32}
    s.save(tmp_path / "s.npz")
    assert np.array_equal(srmdp.load(tmp_path / "s.npz").y(0, [[0.3]]), s.y(0, [[0.3]]))
    try:
        heat_file.write_text(HEAT.replace("0.25", "0.5"))
        _one_line_config_error(
            srmdp.load, tmp_path / "s.npz", match=r"heat.py:heat(#adapted-d1)? changed since the solution was saved"
        )
        heat_file.unlink()
        _one_line_config_error(srmdp.load, tmp_path / "s.npz", match=r"its problem cannot be loaded: .*no such file")
    finally:
        heat_file.write_text(HEAT)
    assert np.array_equal(srmdp.load(tmp_path / "s.npz").y(0, [[0.3]]), s.y(0, [[0.3]]))  # restored: accepted


# --- the CLI --------------------------------------------------------------------------------------
def test_cli_solve_then_eval_csv_and_npy(tmp_path, sol):
    out = tmp_path / "s.npz"
    status, stdout, stderr = run_cli(
        [
            "solve",
            "--problem",
            "gobet2016",
            "--d",
            2,
            "--cells",
            3,
            "--paths",
            20,
            "--runs",
            3,
            "--seed",
            3,
            "--threads",
            1,
            "--no-progress",
            "--out",
            out,
        ]
    )
    assert status == 0, stderr
    assert "u(0, x0" not in stdout and "MSE_Y,max" in stdout and "dt: T/5" in stderr
    X = np.array([[0.0, 0.0], [1.5, -2.0], [7.0, 0.1]])
    (tmp_path / "p.csv").write_text("x1,x2\n" + "\n".join(",".join(repr(float(v)) for v in row) for row in X) + "\n")
    np.save(tmp_path / "p.npy", X)
    y, z = sol.evaluate(1, X)
    status, stdout, stderr = run_cli(["eval", out, "--step", 1, "--points", tmp_path / "p.csv"])
    assert status == 0, stderr
    lines = stdout.splitlines()
    assert lines[0] == "y,z_1,z_2" and len(lines) == 4
    assert np.array_equal(np.loadtxt(io.StringIO(stdout), delimiter=",", skiprows=1), np.column_stack([y, z]))
    for src, dst in (("p.csv", "v.npy"), ("p.npy", "v.csv"), ("p.npy", "w.npy")):
        status, _, stderr = run_cli(["eval", out, "--time", 0.2, "--points", tmp_path / src, "--out", tmp_path / dst])
        assert status == 0, stderr
        got = np.load(tmp_path / dst) if dst.endswith(".npy") else np.loadtxt(tmp_path / dst, delimiter=",", skiprows=1)
        assert np.array_equal(got, np.column_stack([y, z])), (src, dst)
    status, stdout, _ = run_cli(["eval", out, "--step", 0, "--points", tmp_path / "p.npy", "--run", 2])
    assert np.array_equal(
        np.loadtxt(io.StringIO(stdout), delimiter=",", skiprows=1), np.column_stack(sol.evaluate(0, X, run=2))
    )


def test_a_solution_file_name_ends_with_npz(sol, tmp_path):
    msg = _one_line_config_error(sol.save, tmp_path / "s.bin")
    assert "ends with .npz" in msg and not (tmp_path / "s.bin").exists()


def test_cli_out_in_a_missing_directory_says_it_created_it(tmp_path):
    out = tmp_path / "new" / "sub" / "s.npz"
    argv = ["solve", "--problem", "gobet2016", "--d", 2, "--cells", 3, "--paths", 20, "--seed", 3, "--threads", 1]
    status, _, stderr = run_cli([*argv, "--no-progress", "--out", out])
    assert status == 0 and out.is_file(), stderr
    said = f"srmdp: created the directory {tmp_path / 'new'} (--out)"
    assert said in stderr.splitlines(), stderr
    status, _, stderr = run_cli([*argv, "--no-progress", "--out", out])  # the directory is there now: nothing said
    assert status == 0 and "created the directory" not in stderr, stderr
    status, _, stderr = run_cli([*argv, "--d", 0, "--no-progress", "--out", tmp_path / "other" / "s.npz"])
    assert status == 2 and len(stderr.splitlines()) == 1 and not (tmp_path / "other").exists(), stderr


def test_cli_eval_at_step_0_names_the_better_z0(tmp_path, sol, saved):
    """eval's z at step 0 is the cells' regression (the same numbers as Solution.evaluate); stderr says so and names
    Solution.z0(), with its value where the solve recorded it; at another step nothing is added."""
    (tmp_path / "p.csv").write_text("0,0\n1,1\n")
    status, stdout, stderr = run_cli(["eval", saved, "--step", 0, "--points", tmp_path / "p.csv"])
    assert status == 0, stderr
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert np.array_equal(
        np.loadtxt(io.StringIO(stdout), delimiter=",", skiprows=1), np.column_stack(sol.evaluate(0, X))
    )
    note = stderr.strip()
    assert len(note.splitlines()) == 1 and "regression estimator z^M_0" in note and ".z0()" in note, note
    if "z0" in sol.result:
        z0, se = sol.z0()
        assert f"z(0, x0) ≈ ({z0[0]:.4g} ± {se[0]:.2g}, {z0[1]:.4g} ± {se[1]:.2g})" in note, note
    status, _, stderr = run_cli(["eval", saved, "--step", 1, "--points", tmp_path / "p.csv"])
    assert status == 0 and stderr == "", stderr
    assert "at i = 0, z is the cells' regression: at x0 srmdp.load(FILE).z0()" in _eval_help()


def _eval_help() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["eval", "--help"])
    return " ".join(out.getvalue().split())


def test_cli_eval_refuses_bad_input_before_compute(tmp_path, saved):
    (tmp_path / "three.csv").write_text("1,2,3\n")
    (tmp_path / "bad.csv").write_text("1,2\n1,x\n")
    (tmp_path / "ragged.csv").write_text("1,2\n1\n")
    (tmp_path / "nan.csv").write_text("1,nan\n")
    (tmp_path / "empty.csv").write_text("# nothing\n")
    (tmp_path / "ok.csv").write_text("1,2\n")
    np.save(tmp_path / "strings.npy", np.array(["a", "b"]))
    (tmp_path / "dir.csv").mkdir()
    with mock.patch.object(srmdp.solutions.solution.Solution, "evaluate", side_effect=AssertionError("computed")):
        for argv, words in [
            (["--step", 0, "--points", tmp_path / "three.csv"], ("shape (1, 3)", "d = 2")),
            (["--step", 0, "--points", tmp_path / "bad.csv"], ("line 2",)),
            (["--step", 0, "--points", tmp_path / "ragged.csv"], ("different numbers of columns",)),
            (["--step", 0, "--points", tmp_path / "nan.csv"], ("not finite",)),
            (["--step", 0, "--points", tmp_path / "empty.csv"], ("no points",)),
            (["--step", 0, "--points", tmp_path / "strings.npy"], ("array of numbers",)),
            (["--step", 0, "--points", tmp_path / "none.csv"], ("no such file",)),
            (["--step", 5, "--points", tmp_path / "ok.csv"], ("invalid step i=5",)),
            (["--time", 0.3, "--points", tmp_path / "ok.csv"], ("invalid t=0.3",)),
            (["--step", 0, "--points", tmp_path / "ok.csv", "--out", tmp_path / "v.txt"], (".csv or .npy",)),
            (["--step", 0, "--points", tmp_path / "ok.csv", "--out", tmp_path / "dir.csv"], ("is a directory",)),
            (["--step", 0, "--points", tmp_path / "ok.csv", "--threads", 0], ("threads=0",)),
            (["--step", 0, "--points", tmp_path / "ok.csv", "--run", 9], ("invalid run=9",)),
            (["--points", tmp_path / "ok.csv"], ("--step", "--time")),
        ]:
            status, stdout, stderr = run_cli(["eval", saved, *argv])
            _refused(status, stderr, *words)
            assert stdout == ""


def test_cli_solve_refuses_before_compute(tmp_path):
    with mock.patch.object(srmdp.runs.run, "make_backend", side_effect=AssertionError("computed")):
        for argv, words, env in [
            (["--d", 2, "--out", tmp_path / "s.txt"], ("ends with .npz",), None),
            (["--d", 0, "--out", tmp_path / "s.npz"], ("invalid d=0",), None),
            (["--d", 2, "--dt", 0.3, "--out", tmp_path / "s.npz"], ("invalid dt=0.3",), None),
            (["--d", 2, "--paths", 2, "--out", tmp_path / "s.npz"], ("invalid paths=2",), None),
            (["--d", 2, "--problem", "nope", "--out", tmp_path / "s.npz"], ("invalid problem='nope'",), None),
            (["--d", 2, "--runs", 0, "--out", tmp_path / "s.npz"], ("invalid runs=0",), None),
            (["--d", 2, "--out", tmp_path / "s.npz"], ("needs", "GiB", "available"), {"SRMDP_MEMORY_LIMIT": "1K"}),
            (["--out", tmp_path / "s.npz"], ("--d",), None),
        ]:
            status, stdout, stderr = run_cli(["solve", *argv], env)
            _refused(status, stderr, *words)
    assert not list(tmp_path.iterdir())


def test_memory_is_refused_up_front():
    case = Case(d=2, dt=0.2, basis="LP1", cells=3, paths=20)
    one = check_memory(case, 1, "all", 1000, available=2**40)
    coef = srmdp.case.memory.coefficient_bytes(case)
    assert check_memory(case, 4, "all", 1000, available=2**40) > one + 3 * coef - 1
    last = check_memory(case, 4, "last", 1000, available=2**40)  # one run's coefficients, four runs' results
    msg = _one_line_config_error(check_memory, case, 4, "all", 1000, available=last)
    assert "4 kept run(s)" in msg and "keep='last'" in msg
    assert check_memory(case, 4, "last", 1000, available=last)
    with mock.patch.object(srmdp.runs.run, "make_backend", side_effect=AssertionError("computed")):
        with mock.patch.dict(os.environ, {"SRMDP_MEMORY_LIMIT": str(last)}):
            _one_line_config_error(solve, "gobet2016", runs=4, progress=False, match="keep='last'", **TINY)


def test_problem_as_a_path_or_a_loaded_problem(heat_file):
    from srmdp.problems import load_problem

    a = solve(Path(heat_file), d=1, cells=3, paths=10, progress=False, threads=1)
    b = solve(load_problem(str(heat_file)), d=1, cells=3, paths=10, progress=False, threads=1)
    c = solve(load_problem("gobet2016"), d=2, cells=3, paths=20, progress=False, threads=1, seed=3)
    assert np.array_equal(a.coefficients, b.coefficients) and c.case.problem == "gobet2016"
    _one_line_config_error(solve, 3.5, d=1, match="invalid problem=3.5")
    _one_line_config_error(solve, "gobet2016", match="invalid d=None")
    _one_line_config_error(solve, "gobet2016", d=2, keep="some", match="invalid keep='some'")


def test_zip_of_a_solution_is_plain_numpy(saved):
    """The file is an ordinary .npz (no pickle): two arrays, readable by any NumPy."""
    with zipfile.ZipFile(saved) as z:
        assert sorted(z.namelist()) == ["coef.npy", "meta.npy"]
    with np.load(saved, allow_pickle=False) as f:
        assert json.loads(str(f["meta"][()]))["format"] == "srmdp-solution"
