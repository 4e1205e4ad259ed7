"""bench/README.md lists every file of bench/ by its path inside bench/ (a tool added without a line there fails
here), and every ``bench/...`` path that the repository's code, tests, notes and docs cite exists, unless the same
text says where the removed file lives in git (``git show <commit>:bench/...``): a tool moved or removed without its
references fails here.  No tool is run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# where bench paths are cited: code, tests, workflow, config, docs and the bench notes.  data/ is left out: its logs
# and READMEs record the paths of the commit that wrote them.
CITING = [
    "srmdp",
    "tests",
    "workflow",
    "config",
    "bench",
    "paper",
    "examples",
    ".ci",
    "README.md",
    "docs",
    "Snakefile",
    "pyproject.toml",
]
TEXT = {".py", ".sh", ".md", ".smk", ".yaml", ".yml", ".toml", ".tex", ".csv", ".txt", ""}
# a path under bench/ as cited: not after "<commit>:" (git show of a retired file), a folder or a word
CITED = re.compile(r"(?<![\w:/.-])bench/[\w./-]*\w\.(?:py|sh|md)\b")
# the README's own rows name tools relative to bench/ (gpu/gpu_ptxas.py)
RELATIVE = re.compile(r"(?<![\w:/.-])(?:gpu|cpu|own_pde)/[\w.-]*\w\.(?:py|sh|md)\b")
# a removed file that its citing text points into git for (git show 15455c8:bench/zcv_variants.py)
IN_GIT = re.compile(r"\b[0-9a-f]{7,40}:(bench/[\w./-]*\w\.(?:py|sh|md))\b")


def bench_files():
    return sorted(
        p.relative_to(BENCH).as_posix()
        for p in BENCH.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name != "README.md" and not p.name.startswith(".")
    )


def citing_files():
    for name in CITING:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for p in paths:
            if p.is_file() and p.suffix in TEXT and "__pycache__" not in p.parts and ".snakemake" not in p.parts:
                yield p


def test_bench_readme_names_every_tool():
    text = (BENCH / "README.md").read_text()
    files = bench_files()
    assert "gpu/gpu_ptxas.py" in files and "NOTES.md" in files  # the walk sees the folders and the top
    assert not [n for n in files if f"`{n}`" not in text]


def test_every_cited_bench_path_exists():
    missing = []
    for p in citing_files():
        try:
            text = p.read_text()
        except UnicodeDecodeError:
            continue
        found = CITED.findall(text)
        if p == BENCH / "README.md":
            found += ["bench/" + m for m in RELATIVE.findall(text)]
        in_git = set(IN_GIT.findall(text))
        missing += [f"{p.relative_to(ROOT)}: {m}" for m in found if not (ROOT / m).is_file() and m not in in_git]
    assert not missing, "\n".join(missing)


def test_the_citation_pattern_finds_paths_and_skips_retired_ones():
    text = (
        "run `python bench/gpu/gpu_ptxas.py --d 4`; notes in bench/gpu_NOTES.md. "
        "`git show 3593697:bench/sum_precision.py > /tmp/sum_precision.py`; /work/main/bench/gpu_bench.py"
    )
    assert CITED.findall(text) == ["bench/gpu/gpu_ptxas.py", "bench/gpu_NOTES.md"]
    assert RELATIVE.findall("`gpu/gpu_warm.py`, `../data/own_pde/calibration.json`") == ["gpu/gpu_warm.py"]
    assert IN_GIT.findall(text) == ["bench/sum_precision.py"]
