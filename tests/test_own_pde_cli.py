"""``srmdp solve`` as a new user meets it: the exit status of an unmet tolerance, the help of the negated flags,
``file.py:NAME`` with an unknown NAME, and the divergence message.  Nothing here compiles a kernel."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from srmdp.cli.commands import build_parser, main
from srmdp.cli.solution import TOL_NOT_MET
from srmdp.exceptions import ConfigError
from srmdp.kernels.divergence import divergence
from srmdp.problems import load_problem

ROOT = Path(__file__).resolve().parent.parent
ALLEN_CAHN = str(ROOT / "examples" / "allen_cahn.py")


class _Sol:
    """What ``srmdp solve`` reads of a Solution, for a refinement that did or did not meet its tolerance."""

    def __init__(self, met):
        self.tol, self.tol_met, self.rules, self.u0_error, self.u0_error_reason = 0.01, met, {}, 0.05, None
        self.case, self.refinement, self.runs = SimpleNamespace(steps=40, time_step=0.025, cells=5, paths=500), [], 4
        self.result = {
            "u0": 1.0,
            "refinement_stop": None if met else "budget: level N = 40 would take about 90 s",
            "extrapolated": {"partners": [3, 2], "plain_u0": 1.1, "plain_u0_se": 0.01},
        }

    def save(self, path):
        Path(path).write_bytes(b"x")


@pytest.mark.parametrize("met, status", [(True, 0), (False, TOL_NOT_MET)])
def test_an_unmet_tolerance_has_its_own_exit_status(monkeypatch, tmp_path, capsys, met, status):
    import srmdp.runs.run
    import srmdp.solving

    monkeypatch.setattr(srmdp.solving, "solve", lambda *a, **k: _Sol(met))
    monkeypatch.setattr(srmdp.runs.run, "summary_line", lambda res: "summary")
    out = tmp_path / "s.npz"
    rc = main(["solve", "--problem", "quadratic_z", "--d", "2", "--tol", "0.01", "--no-progress", "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == status and out.is_file()  # the answer is saved either way
    assert ("NOT met" in cap.err and f"exit status {TOL_NOT_MET}" in cap.err) == (not met)
    assert "extrapolated in dt (Richardson) from levels [3, 2]" in cap.out
    assert TOL_NOT_MET not in (0, 1, 2, 3, 130)  # distinct from the other documented statuses


def test_negated_flags_are_described_by_what_they_do():
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["solve"]
    helps = {a.option_strings[0]: a.help for a in sub._actions if a.option_strings}
    assert helps["--no-error"].startswith("do not estimate")
    assert helps["--no-guard"].startswith("turn the divergence guard off")
    assert "status 4" in helps["--tol"]


def test_an_unknown_name_in_file_py_name_is_an_error_listing_the_names(monkeypatch, tmp_path, capsys):
    import srmdp.numerics.build

    def no_compile(*a, **k):  # the error comes before anything is compiled
        raise AssertionError("compiled")

    monkeypatch.setattr(srmdp.numerics.build, "check_compiles", no_compile)
    with pytest.raises(ConfigError, match=r"no problem named 'nosuch'; names found: allen_cahn"):
        load_problem(f"{ALLEN_CAHN}:nosuch")
    assert load_problem(f"{ALLEN_CAHN}:allen_cahn").name == "allen_cahn"
    rc = main(["solve", "--problem", f"{ALLEN_CAHN}:nosuch", "--d", "2", "--out", str(tmp_path / "s.npz")])
    assert rc == 2 and "names found: allen_cahn" in capsys.readouterr().err
    # a file's own NAME string is a name it answers to
    f = tmp_path / "mine.py"
    f.write_text(Path(ALLEN_CAHN).read_text() + '\nNAME = "ac"\n')
    assert load_problem(f"{f}:ac").name == "ac"
    with pytest.raises(ConfigError, match=r"names found: mine, ac"):
        load_problem(f"{f}:acx")


class _Case:
    dt = 0.2
    d = 1
    z_cv = True
    problem = "x.py"


def test_the_divergence_message_names_each_step_once():
    a = np.ones(5)
    a[:4] = 11.0 * 40  # a jump at i = 3 against i = 4 = N - 1
    msg = divergence(a, _Case)
    assert "at i=4" in msg and msg.count("at i=4") == 1, msg
    a = np.ones(6)
    a[:2] = 40.0  # a jump at i = 1 against i = 2; i = 5 is N - 1
    msg = divergence(a, _Case)
    assert msg.count("at i=2") == 1 and msg.count("at i=5") == 1, msg
