"""The paper's Tables 1-2 recomputed: how the cost and the memory of SRMDP and LSMDP grow with N.

* SRMDP's memory is :func:`srmdp.case.memory.coefficient_bytes` (N K (1+q) n_basis values) plus, for LP1
  on the paper's GPU, one M x (d+1) matrix A per stratum handled at once (its Householder QR), or one matrix in
  the sequential version that the paper's section 4.4 compares with LSMDP;
* LSMDP's is :func:`srmdp.paper.lsmdp.model_bytes` (all P = K M paths stored); the paper counts the
  paths of one time slice (P d values), which is what its 118 GB figure is (see
  :func:`srmdp.paper.report.claims.memory.text_claims`);
* exponents "as functions of N" are least-squares slopes of ln(quantity) against ln N over the rows
  of one paper table (the same #C and M formulas, N = 5, 10, 20, 50).

Models only: nothing here runs the scheme, reads a result or renders (:mod:`srmdp.paper.report.claims.tables`).
"""

from __future__ import annotations

import math

import numpy as np

from ....case.memory import GIB, coefficient_bytes
from ...inputs.rows import paper_case, paper_rows, paper_table_number, table_ids
from ...lsmdp import model_bytes as lsmdp_model_bytes

GPU_BYTES_PAPER = 6 * GIB  # "6 GBytes of global memory": the GTX TITAN Black's 6144 MiB; the paper's GB are GiB


PAPER_THREADS = 64 * 256  # "64 thread blocks each with 256 threads"


def slope(ns, values):
    """Least-squares slope of ln(values) against ln(ns); None with fewer than two distinct N."""
    ns = np.asarray(ns, float)
    values = np.asarray(values, float)
    ok = np.isfinite(values) & (values > 0)
    if len(set(ns[ok])) < 2:
        return None
    return float(np.polyfit(np.log(ns[ok]), np.log(values[ok]), 1)[0])


def lsmdp_slice_bytes(case, itemsize=4) -> int:
    """The paths of one time slice, as the paper counts LSMDP's memory: K M d values."""
    return case.strata * case.paths * case.d * itemsize


def qr_bytes(case, itemsize=4) -> int:
    """One stratum's matrix A of the paper's QR factorisation: M x nb values (0 for a constant basis, nb = 1)."""
    nb = case.n_basis
    return case.paths * nb * itemsize if nb > 1 else 0


# --- Table 1: simulations and cost ----------------------------------------------------------------
def cost_model(timings=None):
    """Per paper table: fitted exponents of N for #simulations and cost, beside the paper's formulas.

    ``timings``: {(table, row): seconds per run of ours} (optional, for the measured slope).
    """
    timings = timings or {}
    out = []
    for table in table_ids():
        rows = [r for r in paper_rows() if r["table"] == table]
        if len({r["dt"] for r in rows}) < 2:
            continue  # LP1d11..LP1d15_19: one N each (d varies), no slope in N
        d = rows[0]["d"]
        basis = rows[0]["basis"]
        ns = [r["steps"] for r in rows]
        ours = [(n, timings.get((table, r["row"]))) for n, r in zip(ns, rows, strict=True)]
        ours = [(n, t) for n, t in ours if t]
        out.append(
            {
                "table": table,
                "number": paper_table_number(table),
                "basis": basis,
                "d": d,
                "ns": ns,
                "claim_k": d / 2 if basis == "LP0" else d / 4,
                "fit_k": slope(ns, [r["K"] for r in rows]),
                "fit_m": slope(ns, [r["M"] for r in rows]),
                "fit_lsmdp_sims": slope(ns, [r["K"] * r["M"] for r in rows]),
                "claim_lsmdp_sims": 2 + (d / 2 if basis == "LP0" else d / 4),
                "claim_cost": 4 + (d / 2 if basis == "LP0" else d / 4),
                "fit_cost": slope(ns, [paper_case(table, row=r["row"]).path_steps for r in rows]),
                "fit_paper_cpu": slope(ns, [r["cpu_s"] for r in rows]),
                "fit_paper_gpu": slope(ns, [r["gpu_s"] for r in rows]),
                "fit_ours": slope([n for n, _ in ours], [t for _, t in ours]) if len(ours) >= 2 else None,
                "ours_ns": [n for n, _ in ours],
            }
        )
    return out


# --- Table 2: memory ------------------------------------------------------------------------------
def memory_model():
    """Per paper row: SRMDP and LSMDP bytes in the paper's float32, and their ratio."""
    out = []
    for r in paper_rows():
        case = paper_case(r["table"], row=r["row"], precision="float32")
        coef = coefficient_bytes(case)
        qr = qr_bytes(case)
        srmdp = coef + qr * min(PAPER_THREADS, case.strata)
        sequential = coef + qr  # the sequential version of \S4.4: one QR matrix in flight
        sl = lsmdp_slice_bytes(case)
        full = lsmdp_model_bytes(case) // 2  # model_bytes counts float64; the paper computed in float32
        out.append(
            {
                "table": r["table"],
                "number": paper_table_number(r["table"]),
                "row": r["row"],
                "d": r["d"],
                "n": case.steps,
                "K": case.strata,
                "M": case.paths,
                "basis": case.basis,
                "coef": coef,
                "qr": qr,
                "srmdp": srmdp,
                "lsmdp_slice": sl,
                "lsmdp_full": full,
                "sequential": sequential,
                "ratio_slice": sl / srmdp,
                "ratio_sequential": sl / sequential,
                "ratio_full": full / srmdp,
            }
        )
    return out


def memory_exponents():
    """Per paper table with several N: fitted exponents of SRMDP and LSMDP memory against N."""
    rows = memory_model()
    out = []
    for table in table_ids():
        mine = [r for r in rows if r["table"] == table]
        if len({r["n"] for r in mine}) < 2:
            continue
        d, basis = mine[0]["d"], mine[0]["basis"]
        ns = [r["n"] for r in mine]
        out.append(
            {
                "table": table,
                "number": mine[0]["number"],
                "d": d,
                "basis": basis,
                "claim_srmdp": (1 + d / 2) if basis == "LP0" else max(1 + d / 4, 2),
                "fit_srmdp": slope(ns, [r["srmdp"] for r in mine]),
                "fit_coef": slope(ns, [r["coef"] for r in mine]),
                "claim_lsmdp": (2 + d / 2) if basis == "LP0" else 2 + d / 4,
                "fit_lsmdp": slope(ns, [r["lsmdp_slice"] for r in mine]),
                "fit_ratio": slope(ns, [r["ratio_slice"] for r in mine]),
                "fit_ratio_sequential": slope(ns, [r["ratio_sequential"] for r in mine]),
            }
        )
    return out


def d19_memory(budget=GPU_BYTES_PAPER):
    """Table 13's d = 19 row in float32 under Table 2's LP1 model (one QR matrix per thread of the paper's 64 x 256
    in flight): coefficients, one matrix, the total with every thread holding one, and how many fit ``budget``."""
    case = paper_case("LP1d15_19", row=5, precision="float32")
    coef, qr = coefficient_bytes(case), qr_bytes(case)
    return {
        "coef": coef,
        "qr": qr,
        "all": coef + qr * min(PAPER_THREADS, case.strata),
        "fits": int((budget - coef) // qr) if budget > coef else 0,
        "threads": PAPER_THREADS,
    }


def max_dimension(bytes_of, budget, d_max=40):
    """Largest d with bytes_of(d) <= budget (bytes_of increasing in d), or None."""
    best = None
    for d in range(1, d_max + 1):
        if bytes_of(d) <= budget:
            best = d
    return best


def dimension_gain(n_steps=5, cells=2, budget=GPU_BYTES_PAPER):
    """Largest d that fits ``budget`` bytes, SRMDP (coefficients) vs LSMDP (one slice of paths),
    at N = n_steps with #C = cells and M = N^2 (LP0) or (d+1) N^2 (LP1), float32."""
    out = {}
    for basis, nb, m in (
        ("LP0", lambda d: 1, lambda d: n_steps**2),
        ("LP1", lambda d: d + 1, lambda d: (d + 1) * n_steps**2),
    ):
        srmdp = max_dimension(lambda d, nb=nb: n_steps * cells**d * (d + 1) * nb(d) * 4, budget)
        lsmdp = max_dimension(lambda d, m=m: cells**d * m(d) * d * 4, budget)
        out[basis] = {
            "srmdp": srmdp,
            "lsmdp": lsmdp,
            "gain": None if None in (srmdp, lsmdp) else srmdp - lsmdp,
            "asymptotic": math.log(n_steps) / math.log(cells),
        }
    return out
