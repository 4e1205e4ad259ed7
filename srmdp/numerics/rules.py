"""The paper's rules for the numerical parameters: the defaults of :func:`srmdp.solve` and ``srmdp solve``.

The paper (§5.2) takes K = #C^d of order N^{d/2} with LP0 and N^{d/4} with LP1, and M of order N^2
per stratum (Theorem 4.5: the statistical error is of order N nb / M), N = T / Δt.  Its result tables
(§5) fix the constants; the formulas are those of the paper's first row in the dimension range of d
(:data:`RULES`; the paper's layer names the table each range comes from and its tests check the formulas
against the paper's rows, ``srmdp/data/paper_cases.csv``):

=====  ==========  ===============================
basis  d           #C, M
=====  ==========  ===============================
LP0    d <= 4      floor(4 sqrt N), N^2
LP0    5, 6        floor(2 sqrt N), N^2
LP0    d >= 7      floor(sqrt N), N^2
LP1    d <= 4      floor(3 sqrt(d sqrt N) - 5), (d+1) N^2
LP1    5 ... 10    floor(1.5 sqrt(d sqrt N) - 3), (d+1) N^2
LP1    d >= 11     2, 2000
=====  ==========  ===============================

For d < 4 the #C formula is evaluated at d = 4 (the paper's smallest dimension: fewer cells per
axis would make a one-dimensional problem a single global regression).  #C is at least 1 and M at
least the basis dimension.  LP2d (beyond the paper) takes LP1's #C and M = (2d+1) N^2 (M grows
with the basis dimension nb as the paper's N nb / M error term asks).  The default time step is
Δt = T/5 (N = 5, the paper's coarsest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .bases import BASES

DEFAULT_STEPS = 5
# basis -> ((largest d of the range, its #C formula, its M formula), ...), the ranges in increasing d
# (a basis beyond the paper follows the rules of the paper's basis it names in Basis.rules)
RULES = {
    "LP0": ((4, "floor(4*sqrt(N))", "N**2"), (6, "floor(2*sqrt(N))", "N**2"), (math.inf, "floor(sqrt(N))", "N**2")),
    "LP1": (
        (4, "floor(3*sqrt(d*sqrt(N))-5)", "(d+1)*N**2"),
        (10, "floor(1.5*sqrt(d*sqrt(N))-3)", "(d+1)*N**2"),
        (math.inf, "2", "2000"),
    ),
}
SMALLEST_D = 4  # the paper's smallest dimension; the #C formula is evaluated at max(d, 4)


def formula(expr: str, n: int, d: int) -> int:
    """Value of one of the paper's #C / M formulas (``floor(4*sqrt(N))``, ``(d+1)*N**2``) at N and d."""
    value = eval(expr, {"__builtins__": {}}, {"floor": math.floor, "sqrt": math.sqrt, "N": n, "d": d})
    return int(value)


@dataclass(frozen=True)
class Rule:
    cells: int
    paths: int
    scope: str  # the paper's basis and dimension range the formulas are taken from ("LP0, d <= 4")
    cells_formula: str  # as the paper writes it, with " at d = 4" where evaluated there
    paths_formula: str


def rule_range(basis: str, d: int) -> tuple[float, float]:
    """(smallest, largest) d of the range of :data:`RULES` that holds ``d`` for the paper's ``basis``."""
    low = 1
    for top, _, _ in RULES[basis]:
        if d <= top:
            return low, top
        low = top + 1
    raise ValueError(d)


def _scope(basis: str, d: int) -> str:
    low, top = rule_range(basis, d)
    if low == 1:
        return f"{basis}, d <= {top}"
    return f"{basis}, d >= {low}" if top == math.inf else f"{basis}, {low} <= d <= {top}"


def paper_rule(basis: str, d: int, steps: int) -> Rule:
    """#C and M for ``basis`` in dimension ``d`` with N = ``steps`` time steps (see the module docstring)."""
    b = BASES[basis]
    cf, pf = next((cf, pf) for top, cf, pf in RULES[b.rules] if d <= top)
    cells = max(1, formula(cf, steps, max(int(d), SMALLEST_D)))
    nb = b.size(d)
    # the paper's M = (d+1) N^2 is nb N^2 for LP1: M grows with the basis dimension (error term N nb / M)
    paths = max(formula(pf.replace("(d+1)", f"({nb})"), steps, d), nb)
    if b.per_axis > 1:
        pf = pf.replace("(d+1)", f"({b.per_axis}*d+1)")
    at = f" at d = {SMALLEST_D}" if d < SMALLEST_D and "d" in cf else ""
    return Rule(cells, paths, _scope(b.rules, d), cf.replace("**", "^") + at, pf.replace("**", "^"))
