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
    assert "srmdp.paper.plan" in g["srmdp.paper.plan_cli"]


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
        if init.parent.name != "paper":
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
        if p.parts[-2] not in ("kernels", "paper", "campaign") and p.name != "build.py"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], found
