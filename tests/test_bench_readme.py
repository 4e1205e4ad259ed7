"""bench/README.md lists every file of bench/ (a tool added without a line there fails here)."""

from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_bench_readme_names_every_tool():
    text = (BENCH / "README.md").read_text()
    files = sorted(p.name for p in BENCH.iterdir() if p.is_file() and p.name != "README.md")
    assert files and not [n for n in files if f"`{n}`" not in text]
