"""The package's import graph has no cycles: every import between srmdp modules, at module level or deferred
inside a function, read from the source.  A deferred import only hides a cycle from Python, not from a reader."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "srmdp"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set) -> set:
    """The srmdp modules ``path`` imports (relative or absolute, anywhere in the file)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [f"{target}.{a.name}" for a in node.names]
            candidates = names if node.module is None else [target] + names  # `from . import x`: x, not the package
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        found |= {c for c in candidates if c in modules and c != name}
    return found


def graph() -> dict:
    paths = {module_name(p): p for p in ROOT.rglob("*.py")}
    return {m: imports_of(p, set(paths)) for m, p in paths.items()}


def cycles(edges: dict) -> list:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_deferred_and_relative_imports():
    g = graph()
    assert "srmdp.refine.refine" in g["srmdp.solving"]  # deferred: `from .refine import refine` inside solve()
    assert "srmdp.paper.plan.preset" in g["srmdp.paper.plan.cli"]


def test_srmdp_has_no_import_cycle():
    assert cycles(graph()) == []


# The library reads bottom-up in floors: every import between srmdp's packages (deferred ones included) goes down or
# stays on its floor, and every subpackage's ``__init__`` says its job and what it may import.
# bottom-up; a module of a floor may import its own floor's and lower floors' modules only
FLOORS = [
    ["exceptions"],
    ["numerics"],
    ["problems"],
    ["case"],
    ["kernels"],
    ["options"],
    ["runs"],
    ["solutions"],
    ["refine"],
    ["solving"],
    ["cli", "__init__", "__main__"],
    ["paper"],
]
RANK = {name: i for i, names in enumerate(FLOORS) for name in names}


def floor_of(module: str) -> int:
    parts = module.split(".")
    return RANK[parts[1] if len(parts) > 1 else "__init__"]


def test_every_top_level_name_has_a_floor():
    names = {p.stem for p in ROOT.glob("*.py")} | {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert names - {"data"} <= set(RANK), sorted(names - set(RANK))
    assert len([p for p in ROOT.glob("*.py")]) <= 15


def test_no_import_goes_up_a_floor():
    up = [
        f"{a} -> {b}" for a, targets in graph().items() for b in targets if floor_of(b) > floor_of(a) and b != "srmdp"
    ]
    assert not up, up


def test_every_subpackage_states_its_job_and_what_it_may_import():
    for init in sorted(ROOT.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert len(doc.split()) >= 10, f"{init}: no docstring saying its job"
        assert "May import" in doc, f"{init}: its docstring does not say what it may import"


def test_the_backend_registry_is_the_devices_one_home():
    """Every device the options allow has one registry entry, and nothing above kernels/ branches on a device."""
    import re
    from pathlib import Path

    from srmdp.kernels.backends import BACKENDS
    from srmdp.options import DEVICES

    assert tuple(BACKENDS) == DEVICES
    root = Path(__file__).resolve().parent.parent / "srmdp"
    pattern = re.compile(r"device\s*[!=]=\s*[\"'](cpu|gpu)[\"']")
    found = [
        f"{p.relative_to(root)}:{n}"
        for p in root.rglob("*.py")
        if p.parts[-2] != "kernels" and "paper" not in p.parts and p.name != "build.py"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], found


# The paper's packages by job, bottom-up: a module of one may import its own package's and lower ones' only
PAPER_FLOORS = [
    ["__init__"],
    ["inputs"],
    ["models"],
    ["lsmdp"],
    ["report"],
    ["beyond"],
    ["plan"],
    ["campaign"],
    ["subcommands"],
]
PAPER_RANK = {name: i for i, names in enumerate(PAPER_FLOORS) for name in names}
PAPER = ROOT / "paper"


def paper_floor(module: str) -> int:
    parts = module.split(".")
    return PAPER_RANK[parts[2] if len(parts) > 2 else "__init__"]


def test_the_paper_is_at_most_eight_packages_by_job_each_saying_what_it_may_import():
    entries = {p.stem for p in PAPER.glob("*.py") if p.name != "__init__.py"} | {
        p.name for p in PAPER.iterdir() if (p / "__init__.py").is_file()
    }
    assert len(entries) <= 8 and entries == set(PAPER_RANK) - {"__init__"}, sorted(entries)
    for init in sorted(PAPER.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert len(doc.split()) >= 10 and "May import" in doc, init


def test_no_import_goes_up_a_floor_of_the_paper():
    up = [
        f"{a} -> {b}"
        for a, targets in graph().items()
        if a.startswith("srmdp.paper")
        for b in targets
        if b.startswith("srmdp.paper") and paper_floor(b) > paper_floor(a)
    ]
    assert not up, up


def test_a_render_rules_code_inputs_follow_the_imports_into_every_package():
    """paper_code (the render rules' inputs): the summary's files reach its sentences (imported two levels up and
    down), the models and the inputs; an unknown module is an error, never an empty list."""
    import pytest

    from srmdp.paper.plan.preset import paper_code

    files = paper_code("report.summary", "plan.preset")
    for f in ("report/sentences/words.py", "models/equivalence.py", "inputs/rows.py", "plan/preset.py"):
        assert f"srmdp/paper/{f}" in files, f
    with pytest.raises(ValueError, match="no module srmdp.paper.tables"):
        paper_code("tables")
