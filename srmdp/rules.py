"""The paper's rules for the numerical parameters: the defaults of :func:`srmdp.solve` and ``srmdp solve``.

The paper (§5.2) takes K = #C^d of order N^{d/2} with LP0 and N^{d/4} with LP1, and M of order N^2
per stratum (Theorem 4.5: the statistical error is of order N nb / M), N = T / Δt.  Its tables fix
the constants; the formulas are those of the first row of the paper's table whose dimension range contains
d (:data:`TABLES`; tests/test_api.py checks them against ``srmdp/data/paper_cases.csv``, columns
``cells_formula`` and ``paths_formula``, read by :mod:`srmdp.paper.rows`):

=====  ==========  =========================  ===============================
basis  d           table (its formulas)       #C, M
=====  ==========  =========================  ===============================
LP0    d <= 4      LP0d4                      floor(4 sqrt N), N^2
LP0    5, 6        LP0d6_1                    floor(2 sqrt N), N^2
LP0    d >= 7      LP0d11                     floor(sqrt N), N^2
LP1    d <= 4      LP1d4 (at d = 4)           floor(3 sqrt(d sqrt N) - 5), (d+1) N^2
LP1    5 ... 10    LP1d6_1                    floor(1.5 sqrt(d sqrt N) - 3), (d+1) N^2
LP1    d >= 11     LP1d11, row 1              2, 2000
=====  ==========  =========================  ===============================

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
# basis -> ((largest d, the paper's table, its first row's #C formula, its M formula), ...)
# (a basis beyond the paper follows the tables of the paper's basis it names in Basis.rules)
TABLES = {
    "LP0": ((4, "LP0d4", "floor(4*sqrt(N))", "N**2"), (6, "LP0d6_1", "floor(2*sqrt(N))", "N**2"),
            (math.inf, "LP0d11", "floor(sqrt(N))", "N**2")),
    "LP1": ((4, "LP1d4", "floor(3*sqrt(d*sqrt(N))-5)", "(d+1)*N**2"),
            (10, "LP1d6_1", "floor(1.5*sqrt(d*sqrt(N))-3)", "(d+1)*N**2"), (math.inf, "LP1d11", "2", "2000")),
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
    table: str
    cells_formula: str  # as the paper writes it, with " at d = 4" where evaluated there
    paths_formula: str

    def describe(self) -> str:
        return (f"#C = {self.cells} ({self.cells_formula}) and M = {self.paths} ({self.paths_formula}),"
                f" the rules of the paper's table {self.table}")


def paper_rule(basis: str, d: int, steps: int) -> Rule:
    """#C and M for ``basis`` in dimension ``d`` with N = ``steps`` time steps (see the module docstring)."""
    b = BASES[basis]
    table, cf, pf = next((t, cf, pf) for top, t, cf, pf in TABLES[b.rules] if d <= top)
    cells = max(1, formula(cf, steps, max(int(d), SMALLEST_D)))
    nb = b.size(d)
    # the paper's M = (d+1) N^2 is nb N^2 for LP1: M grows with the basis dimension (error term N nb / M)
    paths = max(formula(pf.replace("(d+1)", f"({nb})"), steps, d), nb)
    if b.per_axis > 1:
        pf = pf.replace("(d+1)", f"({b.per_axis}*d+1)")
    at = f" at d = {SMALLEST_D}" if d < SMALLEST_D and "d" in cf else ""
    return Rule(cells, paths, table, cf.replace("**", "^") + at, pf.replace("**", "^"))
