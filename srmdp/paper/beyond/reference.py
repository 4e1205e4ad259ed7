"""The references of the suite beyond the paper: u(0, x0) of a problem in dimension d with its standard error and
how it was obtained (exact, quadrature or a Monte-Carlo estimate, plain NumPy); the workflow's reference jobs
(``srmdp beyond reference``, :mod:`srmdp.paper.beyond.cli`)."""

from __future__ import annotations

import time

from ...problems import load_problem

DEFAULT_REFERENCE_PATHS = 100_000


def closed_form_reference(problem: str) -> bool:
    """Whether the problem's reference is exact or a quadrature (cheap in any d), not a Monte-Carlo estimate."""
    prob = load_problem(problem)
    return prob.has_exact or hasattr(prob.module, "u_quadrature")


def compute_reference(problem: str, d: int, paths: int = DEFAULT_REFERENCE_PATHS) -> dict:
    """u(0, x0) of a suite problem with its standard error and how it was obtained (plain NumPy)."""
    prob = load_problem(problem)
    m = prob.module
    t0 = time.perf_counter()
    extra = {}
    if prob.has_exact:
        value, se = m.u_reference(prob.x0, d)
        method = "exact solution"
    elif hasattr(m, "u_quadrature"):
        value, se = m.u_quadrature(prob.x0, d), 0.0
        method = "quadrature of the Cole-Hopf formula (relative accuracy ~1e-13)"
    elif problem == "bs_diff_rates":
        value, se = m.u_reference(prob.x0, d, n_paths=paths)
        method = f"Monte-Carlo lower bound, {paths} paths (tight to < 5e-5 where checked, d = 1, 2)"
        extra = {
            "single_rate_lending": m.linear_price(prob.x0, d, rate=m.R_L),
            "single_rate_borrowing": m.linear_price(prob.x0, d, rate=m.R_B),
        }
    else:
        value, se = m.u_reference(prob.x0, d)
        method = "u_reference of the module"
    out = {
        "problem": problem,
        "d": d,
        "x0": prob.x0,
        "value": float(value),
        "se": float(se),
        "method": method,
        "seconds": time.perf_counter() - t0,
        "source_hash": prob.source_hash,
    }
    out.update(extra)
    return out
