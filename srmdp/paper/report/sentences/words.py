"""The words the sentences share: counts and plurals, lists, a row's place, a p-value, a duration, the indicators'
names typeset in a config's prose."""

from __future__ import annotations

import re

from ...inputs.rows import paper_table_number
from ..latex import tex_escape
from ..verdict import HIGH_D


def verb(n: int, verb: str) -> str:
    """``verb`` agreeing with a count: "1 differs", "2 differ"."""
    return verb + "s" if n == 1 else verb


def join(items, empty="none") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``empty`` for no item."""
    items = list(items)
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def plural(n, word, plural=None) -> str:
    """``n word``, the word in the plural unless n is 1 (``3 rows``, ``1 row``); ``plural`` where not word + s."""
    return f"{n} {word if n == 1 else (plural or word + 's')}"


MSE_NAME = re.compile(r"MSE_([YZ])(?:,(max|av))?")


def prose(text: str) -> str:
    """A config's prose for LaTeX: escaped, with the indicators' names (MSE_Y,max, MSE_Z,av, MSE_Y) typeset."""
    out, at = [], 0
    for m in MSE_NAME.finditer(text):
        sub = m[1] if not m[2] else m[1] + "," + ("\\max" if m[2] == "max" else "\\mathrm{av}")
        out += [tex_escape(text[at : m.start()]), f"$\\mathrm{{MSE}}_{{{sub}}}$"]
        at = m.end()
    return "".join(out) + tex_escape(text[at:])


def fmt_p(p: float) -> str:
    if p >= 1e-3:
        return f"$p={p:.2g}$"
    m, e = f"{p:.1e}".split("e")
    return f"$p={m}\\times10^{{{int(e)}}}$"


def duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds < 3600 else f"{seconds / 3600:.1f} h"


def place(table, dt, d) -> str:
    return f"T.{paper_table_number(table)} $\\Delta t={dt:g}$" + (f" $d={d}$" if table in HIGH_D else "")


def row_words(r) -> str:
    return f"T.{r['number']} $\\Delta t={r['dt']}$" + (f" $d={r['d']}$" if r["table"] in HIGH_D else "")


def precision_pair(storage, arithmetic) -> str:
    """A storage/arithmetic pair in words; float32 path arithmetic keeps its sums over paths and its solves in
    float64 (srmdp.numerics.scheme), so it is not the paper's float32 throughout and is not called so."""
    if arithmetic == "float32":
        return f"{storage} storage, float32 path arithmetic (sums and solves in float64)"
    return storage if storage == arithmetic else f"{storage} storage, {arithmetic} arithmetic"


def precisions(cs) -> str:
    """The storage/arithmetic pairs of some cells in words: ``float32 storage, float64 arithmetic``."""
    pairs = sorted({(c.storage, c.arithmetic) for c in cs})
    return join(precision_pair(st, ar) for st, ar in pairs)


def sign_of(text: str) -> int:
    """The sign a prediction states first: +1, -1, or 0 where it begins with neither."""
    t = text.strip()
    return 1 if t.startswith("+") else -1 if t.startswith(("-", "\\textminus", "−")) else 0


def counts(x) -> str:
    return f"{x['reproduced']} reproduced, {x['differs']} {verb(x['differs'], 'differ')}, {x['undecided']} undecided"
