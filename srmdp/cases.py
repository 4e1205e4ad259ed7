"""Cases: the numerical parameters of one SRMDP run, and the paper's 35 rows as data.

The paper's rows (table id, d, dt, #C, K, M, the #C and M formulas, its three MSE values and CPU/GPU
seconds) live only in ``config/paper_cases.csv``; they are read here for case parameters and, in
the workflow, for comparison, never copied into a result.
"""

import csv
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .kernels import F_DT, F_H, F_HALF, F_LY, F_LZ, F_SQDT, F_T, I_C, I_D, I_K, I_M, I_MODE
from .kernels import I_N, I_NB, I_P, I_RUN, I_SEED, N_FP, N_IP
from .rng import PATH_BITS, RUN_BITS, SEED_BITS, STEP_BITS, STRATUM_BITS
from .strata import OUTSIDE_MODES

BASES = {"LP0": 0, "LP1": 1}
PRECISIONS = ("float64", "float32")
BOX_HALF_WIDTH = 6.5  # the box [-6.5, 6.5]^d of §5.1
MATURITY = 1.0
REFERENCE_FILE = Path(__file__).resolve().parent.parent / "config" / "paper_cases.csv"


class ConfigError(ValueError):
    """Invalid input; the message is one line naming the field and what is allowed."""


@dataclass(frozen=True)
class Case:
    d: int
    dt: float
    basis: str
    cells: int
    paths: int
    outside: str = "unbounded"
    trunc_y: float = math.inf
    trunc_z: float = math.inf
    precision: str = "float64"
    maturity: float = MATURITY
    half_width: float = BOX_HALF_WIDTH
    table: str = ""
    row: int = 0
    problem: str = field(default="gobet2016")

    def __post_init__(self):
        self.validate()

    # --- derived quantities -------------------------------------------------------------------
    @property
    def steps(self) -> int:
        return int(round(self.maturity / self.dt))

    @property
    def strata(self) -> int:
        return self.cells**self.d

    @property
    def n_basis(self) -> int:
        return 1 if self.basis == "LP0" else self.d + 1

    @property
    def path_steps(self) -> int:
        """Path steps of one run: sum_i K M (N - i) forward steps (pass 1 only)."""
        n = self.steps
        return self.strata * self.paths * n * (n + 1) // 2

    @property
    def label(self) -> str:
        return f"{self.table}_r{self.row}" if self.table else (
            f"{self.basis}_d{self.d}_dt{self.dt:g}_C{self.cells}_M{self.paths}")

    def as_dict(self) -> dict:
        out = asdict(self)
        for key in ("trunc_y", "trunc_z"):
            out[key] = None if math.isinf(out[key]) else out[key]
        out.update(steps=self.steps, strata=self.strata, n_basis=self.n_basis)
        return out

    # --- validation ---------------------------------------------------------------------------
    def validate(self):
        def bad(name, value, allowed):
            raise ConfigError(f"invalid {name}={value!r}: {allowed}")

        if not isinstance(self.d, (int, np.integer)) or isinstance(self.d, bool) or self.d < 1:
            bad("d", self.d, "the dimension must be an integer >= 1")
        if self.basis not in BASES:
            bad("basis", self.basis, f"allowed values are {', '.join(BASES)}")
        if not (isinstance(self.dt, (int, float)) and math.isfinite(self.dt) and self.dt > 0):
            bad("dt", self.dt, "the time step must be a number > 0")
        n = self.maturity / self.dt
        if abs(n - round(n)) > 1e-9 * max(1.0, n) or round(n) < 1:
            bad("dt", self.dt, f"the time step must divide T={self.maturity:g} (T/dt an integer)")
        if round(n) >= 2**STEP_BITS:
            bad("dt", self.dt, f"N = T/dt must be < {2**STEP_BITS}")
        if not isinstance(self.cells, (int, np.integer)) or self.cells < 1:
            bad("cells", self.cells, "#C must be an integer >= 1")
        if self.cells**self.d >= 2**STRATUM_BITS:
            bad("cells", self.cells, f"K = #C^d must be < 2^{STRATUM_BITS}")
        need = 1 if self.basis == "LP0" else self.d + 1
        if not isinstance(self.paths, (int, np.integer)) or self.paths < need:
            bad("paths", self.paths, f"M must be an integer >= {need} (the {self.basis} dimension)")
        if self.paths >= 2**PATH_BITS:
            bad("paths", self.paths, f"M must be < 2^{PATH_BITS}")
        if self.outside not in OUTSIDE_MODES:
            bad("outside", self.outside, f"allowed values are {', '.join(OUTSIDE_MODES)}")
        for name in ("trunc_y", "trunc_z"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not v > 0:
                bad(name, v, "a truncation bound must be a number > 0 (inf for none)")
        if self.precision not in PRECISIONS:
            bad("precision", self.precision, f"allowed values are {', '.join(PRECISIONS)}")

    # --- kernel parameters --------------------------------------------------------------------
    def params(self, seed: int, run: int, test_points: int = 0):
        """The (fp, ip) arrays read by the kernels (see srmdp.kernels)."""
        check_seed_run(seed, run)
        fp = np.zeros(N_FP)
        ip = np.zeros(N_IP, dtype=np.int64)
        fp[F_DT] = self.maturity / self.steps
        fp[F_SQDT] = math.sqrt(fp[F_DT])
        fp[F_T] = self.maturity
        fp[F_HALF] = self.half_width
        fp[F_H] = 2.0 * self.half_width / self.cells
        fp[F_LY] = self.trunc_y
        fp[F_LZ] = self.trunc_z
        ip[I_N] = self.steps
        ip[I_D] = self.d
        ip[I_NB] = self.n_basis
        ip[I_C] = self.cells
        ip[I_MODE] = OUTSIDE_MODES[self.outside]
        ip[I_M] = self.paths
        ip[I_SEED] = seed
        ip[I_RUN] = run
        ip[I_K] = self.strata
        ip[I_P] = test_points
        return fp, ip


def check_seed_run(seed, run, runs=1):
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**SEED_BITS:
        raise ConfigError(f"invalid seed={seed!r}: must be an integer in [0, 2^{SEED_BITS})")
    if not isinstance(run, (int, np.integer)) or run < 0 or run + runs > 2**RUN_BITS:
        raise ConfigError(f"invalid run index {run!r}: runs must lie in [0, 2^{RUN_BITS})")


# --- the paper's rows -----------------------------------------------------------------------------
def _formula(expr: str, n: int, d: int) -> int:
    value = eval(expr, {"__builtins__": {}}, {"floor": math.floor, "sqrt": math.sqrt, "N": n, "d": d})
    return int(value)


@lru_cache(maxsize=None)
def paper_rows(path: str = str(REFERENCE_FILE)):
    """All rows of the reference file, with a per-table row number (1-based) and basis."""
    rows = []
    counts = {}
    with open(path, newline="") as fh:
        for raw in csv.DictReader(fh):
            table = raw["table"]
            counts[table] = counts.get(table, 0) + 1
            row = {
                "table": table,
                "row": counts[table],
                "basis": table[:3],
                "d": int(raw["d"]),
                "dt": float(raw["dt"]),
                "cells": int(raw["cells"]),
                "K": int(raw["K"]),
                "M": int(raw["M"]),
                "cells_formula": raw["cells_formula"],
                "paths_formula": raw["paths_formula"],
            }
            for key in ("mse_y_max", "mse_y_av", "mse_z_av", "cpu_s", "gpu_s"):
                row[key] = float(raw[key])
            rows.append(row)
    return tuple(rows)


def check_reference(rows=None):
    """#C^d = K and the formulas reproduce #C and M on every row; returns the list of problems."""
    problems = []
    for r in rows or paper_rows():
        n = int(round(MATURITY / r["dt"]))
        if r["cells"] ** r["d"] != r["K"]:
            problems.append(f"{r['table']} row {r['row']}: #C^d != K")
        if _formula(r["cells_formula"], n, r["d"]) != r["cells"]:
            problems.append(f"{r['table']} row {r['row']}: #C formula gives another value")
        if _formula(r["paths_formula"], n, r["d"]) != r["M"]:
            problems.append(f"{r['table']} row {r['row']}: M formula gives another value")
    return problems


def table_ids():
    return sorted({r["table"] for r in paper_rows()}, key=lambda t: [r["table"] for r in paper_rows()].index(t))


def find_row(table: str, dt=None, row=None, d=None):
    """The paper row of ``table`` selected by its row number, or by dt (and d) when unambiguous."""
    rows = [r for r in paper_rows() if r["table"] == table]
    if not rows:
        raise ConfigError(f"invalid table={table!r}: allowed values are {', '.join(table_ids())}")
    if row is not None:
        sel = [r for r in rows if r["row"] == row]
    else:
        sel = [r for r in rows if (dt is None or math.isclose(r["dt"], dt)) and (d is None or r["d"] == d)]
    if len(sel) != 1:
        choices = "; ".join(f"row {r['row']}: d={r['d']} dt={r['dt']:g} #C={r['cells']} M={r['M']}" for r in rows)
        what = "matches no row" if not sel else "is ambiguous"
        raise ConfigError(f"invalid row selection for table {table} ({what}): give --row among {choices}")
    return sel[0]


def paper_case(table: str, dt=None, row=None, d=None, **options) -> Case:
    r = find_row(table, dt=dt, row=row, d=d)
    return Case(d=r["d"], dt=r["dt"], basis=r["basis"], cells=r["cells"], paths=r["M"],
                table=r["table"], row=r["row"], **options)
