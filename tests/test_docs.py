"""The README and the user guide (docs/) against the tree: the README is a front door (<= 250 lines) whose test command
is CI's and whose 15-line example really runs, the guide's map names every module of srmdp/ once and nothing else,
and every repository path, ``srmdp.`` name and link the README, the guide and srmdp/problems/README.md cite exists.
A module renamed, moved or removed without its documentation fails here."""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from srmdp.cli.commands import COMMANDS_GROUP, TABLES_GROUP

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, ROOT / "srmdp" / "problems" / "README.md", *DOCS]
# a repository path as these pages cite it (in backticks or a link): a top-level folder, then a file or a folder
PATH = re.compile(
    r"(?<![\w/.-])((?:srmdp|tests|config|bench|examples|data|workflow|docs|paper|tables|figures|\.ci)/[\w./-]*[\w/])"
)
NAME = re.compile(r"(?<![\w.])srmdp(?:\.[A-Za-z_]\w*)+")
# paths the pages name that a run writes or a campaign fills, not the checkout: the report the main job builds (its
# PDF is not committed), and the CPU evidence campaign's folder of committed chunks (absent before its first commit)
MADE = {"paper/main.pdf", "data/evidence"}
# entry-point groups, not modules (srmdp.cli.commands: the groups other packages register subcommands and rows in)
GROUPS = {COMMANDS_GROUP, TABLES_GROUP}
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


def fence_blocks(text: str, lang: str) -> list:
    """The fenced code blocks of ``text`` opened with ```LANG (``lang`` "": a bare fence), in order."""
    out, block, opened = [], None, None
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if block is None:
                block, opened = [], line[3:].strip()
                continue
            if opened == lang:
                out.append("".join(block))
            block = None
        elif block is not None:
            block.append(line)
    return out


def test_readme_is_a_front_door():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250
    text = "\n".join(lines)
    for page in DOCS:  # the README links every page of the guide
        if page.name != "README.md":
            assert f"(docs/{page.name})" in text, page.name


def test_readme_test_command_is_cis():
    """README's test command is the command CI's fast step runs (.ci/run)."""
    ci = (ROOT / ".ci" / "run").read_text()
    fast = re.search(r"step fast env (.*)", ci).group(1).strip()
    readme = README.read_text()
    assert fast in readme, fast
    assert 'NUMBA_ENABLE_CUDASIM=1 python -m pytest -q -n 2 --dist loadfile -m "not gpu and not slow"' == fast


def cited_paths(text: str):
    for m in PATH.findall(text):
        m = m.rstrip("/.")
        if any(c in m for c in "<>*…{}") or m.startswith(("results/", "out/")) or m in MADE:
            continue
        yield m


def test_every_path_the_pages_cite_exists():
    missing = []
    for page in PAGES:
        text = page.read_text()
        for m in cited_paths(text):
            if not (ROOT / m).exists():
                missing.append(f"{page.relative_to(ROOT)}: {m}")
    assert not missing, "\n".join(missing)


def test_every_link_resolves():
    missing = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if "://" in target:
                continue
            if not (page.parent / target).resolve().exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, "\n".join(missing)


def resolves(name: str) -> bool:
    """Whether a dotted ``srmdp.`` name is a module or an attribute of one (``srmdp.case.cases.Case``)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_srmdp_name_the_pages_cite_exists():
    missing = [
        f"{page.relative_to(ROOT)}: {name}"
        for page in PAGES
        for name in sorted(set(NAME.findall(page.read_text())))
        if name not in GROUPS and not resolves(name)
    ]
    assert not missing, "\n".join(missing)


def map_modules() -> list:
    """The modules docs/map.md's module table names, as paths (a row's folder: its own, else the row above's)."""
    text = (ROOT / "docs" / "map.md").read_text()
    table = text[text.index("| folder | modules |") :]
    out, folder = [], None
    for row in table.splitlines()[2:]:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[0]:
            folder = cells[0].strip("`")
        out += [folder + m for m in re.findall(r"`([\w]+\.py)`", cells[1])]
    return out


def test_the_map_names_every_module_once():
    named = map_modules()
    tree = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "srmdp").rglob("*.py")
        if "__pycache__" not in p.parts and p.name not in ("__init__.py", "__main__.py")
    )
    assert sorted(set(named)) == sorted(named), [m for m in named if named.count(m) > 1]
    assert sorted(set(named) - set(tree)) == [], "named in docs/map.md, not in the tree"
    assert sorted(set(tree) - set(named)) == [], "in the tree, not named in docs/map.md"


def test_the_check_finds_a_missing_module(monkeypatch):
    """The map check can fail: a module the map does not name, or a name with no module, is caught."""
    named = map_modules()
    assert "srmdp/cli/commands.py" in named and "srmdp/paper/campaign/runner.py" in named
    assert (
        not resolves("srmdp.no_such_module") and not resolves("srmdp.case.cases.NoSuchName") and resolves("srmdp.solve")
    )
    assert list(cited_paths("see `srmdp/no_such.py` and `tables/<table>.tex`")) == ["srmdp/no_such.py"]


def test_the_guide_example_is_the_shipped_file():
    """docs/problem-file.md's complete example is examples/allen_cahn.py verbatim (its commands use that file)."""
    block = fence_blocks((ROOT / "docs" / "problem-file.md").read_text(), "python")[0]
    assert block == (ROOT / "examples" / "allen_cahn.py").read_text()


def _masked(line: str) -> str:
    """A summary line without its timings (seconds per run, path-steps per second: this machine's)."""
    return re.sub(r"\S+ s/run\s+\S+ path-steps/s", "<timing>", line)


@pytest.mark.slow
def test_the_readme_example_runs_and_prints_what_the_readme_shows(tmp_path):
    """The README's own-PDE example, run as written: its problem file, its two commands, and the output it shows
    (u0, its standard error and the estimated error are bit-reproducible: fixed seed; only the timings differ)."""
    text = README.read_text()
    section = text[text.index("## Your own PDE") : text.index("## The guide")]
    (problem,) = fence_blocks(section, "python")
    (commands,) = fence_blocks(section, "bash")
    (shown,) = fence_blocks(section, "")
    assert len(problem.splitlines()) + len(commands.splitlines()) <= 15
    (tmp_path / "my_pde.py").write_text(problem)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # the CPU path, as a user runs it
    proc = subprocess.run(commands, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.splitlines()
    assert [_masked(s) for s in shown.splitlines()] == [_masked(s) for s in out[:2]]
    assert out[-3].startswith("y,z_1,z_2,z_3,z_4") and len(out[-2].split(",")) == 5  # srmdp eval's CSV, 2 points


def _documented_repr() -> tuple[str, str]:
    """(the Python example's solve call, the `print(sol)` output) that docs/solve.md shows."""
    text = (ROOT / "docs" / "solve.md").read_text()
    (call,) = re.findall(r"^sol = (srmdp\.solve\(.*\))$", fence_blocks(text, "python")[0], re.M)
    shown = re.search(r"`(<srmdp\.Solution [^`]*>)`", text).group(1)
    return call, " ".join(shown.split())


def _shape(text: str) -> str:
    """A line with its numbers masked: the words, names and punctuation that a format fixes."""
    return re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "<n>", text)


def test_the_documented_print_sol_has_the_real_format(root):
    """docs/solve.md's `print(sol)` output has the words and fields of Solution.__repr__ (numbers masked), checked on
    a cheaper solve of the same kind (the same problem and options but d, M and the runs)."""
    import srmdp

    _, shown = _documented_repr()
    sol = srmdp.solve(str(root / "examples" / "allen_cahn.py"), d=2, cells=5, paths=50, runs=2, progress=False)
    assert _shape(repr(sol)) == _shape(shown), (repr(sol), shown)


@pytest.mark.slow  # the documented solve itself: ~45 s of CPU
def test_the_documented_print_sol_is_what_the_documented_solve_prints(root, monkeypatch):
    import srmdp

    call, shown = _documented_repr()
    monkeypatch.chdir(root)
    sol = eval(call.replace(")", ", progress=False)"), {"srmdp": srmdp})  # the documented call, fixed seed
    assert repr(sol) == shown
