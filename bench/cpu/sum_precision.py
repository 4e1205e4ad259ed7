"""Sums over paths in float32 or float64: the error of the normal equations' solution (why they stay float64).

    python bench/cpu/sum_precision.py

For M paths of an LP1 stratum in d = 4 (u uniform on [-1/2, 1/2)^d, a response y = 0.5 + 0.1 u_1 + noise 0.2,
the paper's sizes M = 125 ... 12 500) the coefficients are solved from G = sum phi phi^T and r = sum phi y
accumulated sequentially (path order, as the kernels do) in float32 and in float64 (float32 products either way);
printed: the largest coefficient difference against the float64 sums, and the coefficients' Monte-Carlo s.e.
"""

import numpy as np


def solve(phi, y, acc_dtype):
    nb = phi.shape[1]
    G = np.zeros((nb, nb), acc_dtype)
    r = np.zeros(nb, acc_dtype)
    for m in range(phi.shape[0]):  # sequential, one path at a time
        G += np.outer(phi[m], phi[m]).astype(np.float32).astype(acc_dtype)
        r += (phi[m] * y[m]).astype(np.float32).astype(acc_dtype)
    return np.linalg.solve(G.astype(np.float64), r.astype(np.float64))


rng = np.random.default_rng(1)
for m_paths in (125, 500, 2000, 12500):
    worst, se = 0.0, 0.0
    for _ in range(3):
        u = rng.uniform(-0.5, 0.5, (m_paths, 4)).astype(np.float32)
        phi = np.hstack([np.ones((m_paths, 1), np.float32), u])
        y = (0.5 + 0.1 * u[:, 0] + 0.2 * rng.standard_normal(m_paths)).astype(np.float32)
        a64 = solve(phi, y, np.float64)
        a32 = solve(phi, y, np.float32)
        worst = max(worst, float(np.abs(a32 - a64).max()))
        se = 0.2 * np.sqrt(12.0 / m_paths)  # s.e. of a slope coefficient (var u = 1/12)
    print(f"M = {m_paths:5d}: max |coef(float32 sums) - coef(float64 sums)| = {worst:.2e}, coefficient s.e. {se:.2e}"
          f" (ratio {worst / se:.1e})")
