"""The library floor (srmdp/, srmdp.paper excepted) holds no paper: no paper rows, table numbers, LaTeX or config
parsing, and it never imports srmdp.paper or the [paper] extra; the paper's commands are honest outside a
checkout (one line, exit status 2)."""

import ast
import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import srmdp.paper.subcommands as commands
from srmdp.cli.commands import main
from srmdp.paper.inputs.rows import TABLE_ALIASES, table_ids

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted(p for p in (ROOT / "srmdp").rglob("*.py") if "paper" not in p.relative_to(ROOT / "srmdp").parts)
# What only the paper's layer names, in any text of a library module (code, strings, comments, docstrings): a table id
# of the paper's rows (LP0d4, LP1d6_1, any LP<k>d<n>[_<m>] shape, its aliases) and references to the report (its
# tables R1..., tables/*.tex, paper/main.tex, "report Table ...").
REPORT_REFERENCE = re.compile(
    r"\bTables?\s+R\d+|\breport'?s?\s+[Tt]ables?\b|\btables/[\w*.-]+\.tex\b"
    r"|\bpaper/main\.tex\b"
)


def paper_names_in(text):
    """[(line number, what)] of the paper's table names and report references in ``text``."""
    ids = set(table_ids()) | set(TABLE_ALIASES)
    names = re.compile(
        r"\b(" + "|".join(sorted(map(re.escape, ids), key=len, reverse=True)) + r"|LP\d+d\d+(?:_\d+)*)\b"
    )
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        found += [(n, m.group(0)) for rx in (names, REPORT_REFERENCE) for m in rx.finditer(line)]
    return found


# the [paper] extra; scipy only at module level: a problem's reference solution may import it where it is called
# (srmdp/problems/bs_diff_rates.py), and numba imports it by itself where it is installed
PAPER_EXTRA_MODULES = {"snakemake", "yaml", "jsonschema", "jinja2", "matplotlib"}
# LaTeX markup in a string: a command (\le, \infty, \textbf, \begin, \midrule, ...) or $math$
LATEX = re.compile(
    r"\\(le|ge|infty|mathrm|text\w*|frac|begin|end|hline|toprule|midrule|bottomrule|renewcommand)\b"
    r"|\$[^$\n]+\$"
)


def _tree(path):
    return ast.parse(path.read_text(), filename=str(path))


def _imports(path, top_level=False):
    """Absolute names of the modules a library module imports (relative imports resolved); with ``top_level``,
    only those its import runs (module level)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = _tree(path)
    for node in tree.body if top_level else ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            mod = ".".join(x for x in (base, node.module) if x)
            yield mod
            yield from (f"{mod}.{a.name}" for a in node.names)


def _strings(tree):
    """String constants that are not docstrings."""
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and ast.get_docstring(n, clean=False) is not None
    }
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_the_library_covers_its_modules():
    names = {p.relative_to(ROOT).as_posix() for p in LIBRARY}
    assert {
        "srmdp/case/cases.py",
        "srmdp/case/readings.py",
        "srmdp/numerics/indicators.py",
        "srmdp/cli/commands.py",
        "srmdp/problems/gobet2016.py",
    } <= names
    every = {p.relative_to(ROOT).as_posix() for p in (ROOT / "srmdp").rglob("*.py")}
    assert every - names == {n for n in every if n.startswith("srmdp/paper/")} != set()


def test_the_paper_check_finds_table_names_and_report_references():
    """The check below can fail: it finds each kind of name it forbids, and passes the library's own words."""
    text = (
        "# as on LP0d4 dt=0.1\nrules of LP1d6_1 and LP1d6\nLP1d15_19, LP2d7 (a future table)\n"
        "# (report Table R3)\nsee tables/beyond.tex, paper/main.tex\nthe report's tables\n"
    )
    assert [n for n, _ in paper_names_in(text)] == [1, 2, 2, 3, 3, 4, 5, 5, 6]
    assert paper_names_in("basis LP0, d <= 4; LP2d, Table 1 of the paper; LP1 d=4; tables of results") == []


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_library_module_names_no_paper_table_nor_the_report(path):
    """The paper's table names and the report's references live in srmdp.paper (e.g. srmdp.paper.inputs.rows.rule_table
    names the table of each default rule)."""
    assert not paper_names_in(path.read_text()), (path, paper_names_in(path.read_text()))


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_library_module_holds_no_paper(path):
    imported = set(_imports(path))
    assert not {m for m in imported if m == "srmdp.paper" or m.startswith("srmdp.paper.")}, path
    assert not {m.split(".")[0] for m in imported} & PAPER_EXTRA_MODULES, path
    assert "scipy" not in {m.split(".")[0] for m in _imports(path, top_level=True)}, path
    tree = _tree(path)
    for node in _strings(tree):  # no LaTeX, no paper file, no workflow config
        assert not LATEX.search(node.value), (path, node.lineno, node.value)
        assert "paper_cases" not in node.value and "config.yaml" not in node.value, (path, node.lineno)


def test_importing_the_library_loads_neither_the_paper_nor_its_extra():
    """Every library module imported in a fresh interpreter adds no srmdp.paper and no [paper]-extra module to
    those its own dependencies load (numba itself imports PyYAML and SciPy where they are installed)."""
    mods = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in LIBRARY]
    mods = [m.removesuffix(".__init__") for m in mods if not m.endswith("__main__")]
    extra = sorted(PAPER_EXTRA_MODULES | {"scipy"})
    code = (
        "import importlib, json, sys\n"
        "import numpy, numba, numba.cuda, tqdm\n"
        "before = set(sys.modules)\n"
        f"for m in {mods!r}:\n    importlib.import_module(m)\n"
        "print(json.dumps(sorted(m for m in set(sys.modules) - before if m.startswith('srmdp.paper')"
        f" or m.split('.')[0] in {extra!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(out.stdout) == []


def test_case_holds_no_paper_row():
    """Case has no table/row, as a field, an attribute or in its record: the paper's layer names its rows
    (srmdp.paper.inputs.rows.PaperCase)."""
    from srmdp.case.cases import Case

    assert not {f.name for f in dataclasses.fields(Case)} & {"table", "row"}
    case = Case(d=2, dt=0.5, basis="LP0", cells=2, paths=4)
    assert not hasattr(case, "table") and not hasattr(case, "row")
    assert not {"table", "row"} & set(case.as_dict()) and case.label == "LP0_d2_dt0.5_C2_M4"


def test_srmdp_exports_no_paper():
    """Everything srmdp exports is defined on the library floor."""
    import srmdp

    where = {n: getattr(getattr(srmdp, n), "__module__", "srmdp") or "srmdp" for n in srmdp.__all__}
    assert not {n: m for n, m in where.items() if m.startswith("srmdp.paper")}
    assert not any(hasattr(srmdp, n) for n in ("paper_case", "paper_rows", "rule_table"))


def _one_line_exit_2(capsys, argv, *keywords):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "this command needs the repository checkout: " in err and all(k in err for k in keywords), err


@pytest.mark.parametrize("command", ["plan", "campaign", "beyond"])
def test_checkout_commands_outside_a_checkout_say_so_in_one_line(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(commands, "REPOSITORY", tmp_path)  # a folder without Snakefile and config/
    _one_line_exit_2(capsys, [command], "Snakefile", "config/config.yaml", ".[paper]")


def test_checkout_commands_without_the_paper_extra_say_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(commands, "PAPER_EXTRA", (*commands.PAPER_EXTRA, "no_such_module_srmdp"))
    _one_line_exit_2(capsys, ["plan"], "no_such_module_srmdp", ".[paper]")


def test_checkout_commands_run_in_the_checkout(capsys):
    assert commands.checkout_problem() is None
    assert main(["plan", "--help"]) == 0 and "usage: srmdp plan" in capsys.readouterr().out


def test_the_campaign_needs_the_checkout_but_not_the_paper_extra(monkeypatch, capsys):
    # GPU hosts have the library and numba-cuda only: `srmdp campaign` runs there (tests/test_bare_gpu_host.py)
    monkeypatch.setattr(commands, "PAPER_EXTRA", (*commands.PAPER_EXTRA, "no_such_module_srmdp"))
    with pytest.raises(SystemExit) as exc:
        main(["campaign", "run", "--help"])
    assert exc.value.code == 0 and "--budget" in capsys.readouterr().out
