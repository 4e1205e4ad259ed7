"""LaTeX output of the report: number formats, the Jinja environment of the templates, atomic writes, the PDF.

Templates are Jinja2 with LaTeX-safe delimiters: ``\\VAR{...}`` for values, ``\\BLOCK{...}`` for
statements, ``\\#{...}`` for comments, rendered with ``StrictUndefined`` (a missing value fails).
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

INDICATOR_TEX = {
    "mse_y_max": r"$\mathrm{MSE}_{Y,\max}$",
    "mse_y_av": r"$\mathrm{MSE}_{Y,\mathrm{av}}$",
    "mse_z_av": r"$\mathrm{MSE}_{Z,\mathrm{av}}$",
}
INDICATOR_LN_TEX = {k: r"$\ln" + v[1:] for k, v in INDICATOR_TEX.items()}  # axis labels: ln MSE_...


# --- formatting (also used by the tests to trace numbers back) ----------------------------------
def fmt_value(x, digits=3) -> str:
    return "--" if x is None else f"${x:.{digits}f}$"


def fmt_pm(x, se, digits=3) -> str:
    if x is None:
        return "--"
    if se is None or (isinstance(se, float) and not math.isfinite(se)):
        return f"${x:.{digits}f}$"
    digits = se_digits(se, digits)
    return f"${x:.{digits}f}\\pm{se:.{digits}f}$"


def se_digits(se, digits) -> int:
    """Enough decimals that a positive standard error does not print as 0 (one significant digit at least)."""
    if se and se > 0 and round(se, digits) == 0:
        return min(-math.floor(math.log10(se)), 9)
    return digits


def fmt_paper_seconds(s) -> str:
    """The paper's times as it prints them: two decimals (0.20, 171.92, 58066.33)."""
    return "--" if s is None else f"{s:.2f}"


def fmt_seconds(s) -> str:
    """Our times: two decimals from 1 s up (as the paper), three significant digits below (0.00273)."""
    if s is None:
        return "--"
    if s >= 1:
        return f"{s:.2f}"
    return f"{s:.3g}"


def fmt_sigma(z) -> str:
    """A difference in units of its standard error: ``$-1.8\\,\\sigma$`` (bold is kept for the equivalence rule's
    *differs*, :func:`fmt_delta`)."""
    return "--" if z is None else f"${z:+.1f}\\,\\sigma$"


def fmt_delta(x, verdict=None, raw=False) -> str:
    """A Delta: ``$+0.012$``, bold where the equivalence rule says it differs (the one meaning of bold in the
    report's tables, :mod:`srmdp.paper.models.equivalence`); ``raw``: ours - paper, not the rule's, marked with a
    dagger."""
    if x is None:
        return "--"
    mark = "^\\dagger" if raw else ""
    return f"$\\mathbf{{{x:+.3f}}}{mark}$" if verdict == "differs" else f"${x:+.3f}{mark}$"


def fmt_sci(x, digits=1) -> str:
    """A small number in scientific notation: ``$-1.9\\times10^{-7}$`` (``$0$`` when exactly zero)."""
    if x is None:
        return "--"
    if x == 0:
        return "$0$"
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"${mantissa}\\times10^{{{int(exponent)}}}$"


def fmt_z(z) -> str:
    """A z-score, never bold (bold is the equivalence rule's *differs*, :func:`fmt_delta`)."""
    return "--" if z is None else f"${z:+.1f}$"


def fmt_bytes(b) -> str:
    """Bytes in binary units, three significant digits: ``9.14 GiB``, ``512 B``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= size:
            v = b / size
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:.0f} {unit}"
    return f"{int(b)} B"


def fmt_slope(x) -> str:
    """A fitted exponent to two decimals, ``--`` where none could be fitted."""
    return "--" if x is None else f"{x:.2f}"


def tex_escape(text: str) -> str:
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("$", r"\$"),
        ("#", r"\#"),
        ("_", r"\_"),
        ("{", r"\{"),
        ("}", r"\}"),
        ("~", r"\textasciitilde{}"),
        ("^", r"\^{}"),
    ):
        text = text.replace(a, b)
    return text


def jinja_env(template_dir):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix="%%",
        line_comment_prefix="%#",
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        pm=fmt_pm,
        value=fmt_value,
        delta=fmt_delta,
        seconds=fmt_seconds,
        paper_seconds=fmt_paper_seconds,
        z=fmt_z,
        sigma=fmt_sigma,
        tex=tex_escape,
        sci=fmt_sci,
    )
    return env


def write_text(out, text):
    """Write ``text`` to ``out`` atomically (temp file + rename), creating its folder."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, out)


def run_logged(log_path, fn, *args, **kwargs):
    """Run ``fn`` with its messages and, on failure, its traceback in ``log_path`` (then re-raise)."""
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log, contextlib.redirect_stdout(log):
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            traceback.print_exc(file=log)
            raise
        print(f"{fn.__name__}: done")
    return out


# --- the report's PDF ---------------------------------------------------------------------------------
TEX_HINT = (
    "no TeX installation (latexmk) found; install one, e.g. on Debian/Ubuntu:"
    " apt-get install texlive-latex-base texlive-latex-recommended latexmk"
)


def build_pdf(main_tex, pdf, log_path) -> int:
    """latexmk -pdf on ``main_tex`` (in its folder); 0 on success, else a one-line reason on stderr."""
    main_tex = Path(main_tex).resolve()
    if shutil.which("latexmk") is None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text(TEX_HINT + "\n")
        print(f"srmdp: {TEX_HINT}", file=sys.stderr)
        return 1
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.run(
            ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-cd", str(main_tex)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    built = main_tex.with_suffix(".pdf")
    if proc.returncode != 0 or not built.exists():
        print(f"srmdp: latexmk failed on {main_tex} (exit {proc.returncode}); see {log_path}", file=sys.stderr)
        return 1
    if built.resolve() != Path(pdf).resolve():
        shutil.copyfile(built, pdf)
    return 0
