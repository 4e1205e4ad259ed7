"""The report builds cleanly: latexmk on the committed paper/main.tex, tables/ and figures/ gives
no overfull box wider than 1 pt, no float too large by more than 1 pt, no "??" (an undefined reference or a missing
generated sentence), and the summary it prints agrees with a recount over the distinct cells (test_summary).

Slow (about 30 s of TeX); CI installs TeX (.ci/run). Skipped where latexmk is absent."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE_PT = 1.0

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("latexmk") is None, reason="no TeX installation (latexmk)"),
]


def problems(log: str) -> list:
    """Every overfull box wider than 1 pt, float too large by more than 1 pt, and undefined reference of a
    LaTeX log (a line each)."""
    out = []
    for m in re.finditer(r"Overfull \\[hv]box \((\d+(?:\.\d+)?)pt too (?:wide|high)\)[^\n]*", log):
        if float(m.group(1)) > TOLERANCE_PT:
            out.append(m.group(0))
    for m in re.finditer(r"Float too large for page by (\d+(?:\.\d+)?)pt[^\n]*", log):
        if float(m.group(1)) > TOLERANCE_PT:
            out.append(m.group(0))
    out += re.findall(r"LaTeX Warning: (?:Reference|Citation) [^\n]* undefined[^\n]*", log)
    return out


def test_the_log_check_catches_what_it_should():
    log = (
        "Overfull \\hbox (11.15692pt too wide) in paragraph at lines 36--36\n"
        "Overfull \\hbox (0.5pt too wide) in paragraph at lines 3--3\n"
        "LaTeX Warning: Float too large for page by 122.47136pt on input line 34.\n"
        "LaTeX Warning: Float too large for page by 0.2pt on input line 9.\n"
        "LaTeX Warning: Reference `tab:x' on page 3 undefined on input line 7.\n"
    )
    assert len(problems(log)) == 3


def test_the_report_builds_without_overfull_boxes_floats_too_large_or_question_marks(tmp_path):
    for folder in ("paper", "tables", "figures"):
        shutil.copytree(
            ROOT / folder,
            tmp_path / folder,
            ignore=shutil.ignore_patterns("*.pdf", "*.aux", "*.log", "*.fls", "*.fdb_latexmk")
            if folder == "paper"
            else None,
        )
    proc = subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-cd", str(tmp_path / "paper" / "main.tex")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = (tmp_path / "paper" / "main.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    assert problems(log) == []
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", str(tmp_path / "paper" / "main.pdf"), "-"], capture_output=True, text=True
        ).stdout
        assert "??" not in text
        pages = [" ".join(page.split()) for page in text.split("\f")]
        # page 1: the verdict with its counts (out of sample first); the scorecard follows it, by page 2
        assert "Verdict" in pages[0] and "Out of sample" in pages[0] and "Scorecard" in pages[0] + pages[1]
        # section 1 before its scorecard: at most 400 words (the forest plot is a raster: its labels are not text)
        verdict = text[text.index("Verdict\n") : text.index("Table R1")]
        assert len(verdict.split()) <= 400, len(verdict.split())
        # the result tables on landscape pages that a viewer shows turned, at 8 pt (\footnotesize of 10 pt)
        wide = [i + 1 for i, page in enumerate(pages) if re.search(r"Table (\d+|R5): (LP|Residuals)", page)]
        assert len(wide) >= 6, wide
        for n in wide:
            info = subprocess.run(
                ["pdfinfo", "-f", str(n), "-l", str(n), str(tmp_path / "paper" / "main.pdf")],
                capture_output=True,
                text=True,
            ).stdout
            assert re.search(r"rot:\s+90", info), (n, info)
        for tex in (tmp_path / "tables").glob("LP*.tex"):
            assert "\\footnotesize" in tex.read_text() and "\\scriptsize" not in tex.read_text(), tex.name


def test_the_printed_summary_agrees_with_a_recount():
    from test_summary import recount_numbers

    tex = (ROOT / "tables" / "summary.tex").read_text()
    line = next(x for x in tex.splitlines() if x.startswith("paper numbers (row $\\times$ indicator), each once"))
    assert [int(x) for x in re.findall(r"& (\d+)", line)] == [len(recount_numbers(r)) for r in ("paper-fit", "theory")]
