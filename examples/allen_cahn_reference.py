"""u(0, 0) of examples/allen_cahn.py by finite differences (a check for the README's example, not part of srmdp).

u depends on x through r = |x| only, so du/dt + u_rr + (d-1)/r u_r + u - u^3 = 0 on r in [0, R]: Crank-Nicolson
for the diffusion, the reaction solved exactly over half steps (Strang splitting), u(T, R) kept at the boundary.
Needs SciPy.  Usage: python examples/allen_cahn_reference.py [d]   (d = 4: 0.453314)
"""

import sys

import numpy as np
from scipy.linalg import solve_banded


def u00(d=4, T=0.3, R=12.0, n=2000, m=1000):
    r = np.linspace(0.0, R, n + 1)
    h, dt = r[1] - r[0], T / m
    lo, di, up = np.zeros(n + 1), np.full(n + 1, -2.0 / h**2), np.zeros(n + 1)
    di[0], up[0] = -2.0 * d / h**2, 2.0 * d / h**2  # r = 0: d u_rr by symmetry
    lo[1:n] = 1 / h**2 - (d - 1) / (2 * h * r[1:n])
    up[1:n] = 1 / h**2 + (d - 1) / (2 * h * r[1:n])
    di[n] = 0.0  # r = R: the terminal value is kept
    a = np.zeros((3, n + 1))  # banded I - dt/2 L
    a[0, 1:], a[1], a[2, :-1] = -0.5 * dt * up[:-1], 1.0 - 0.5 * dt * di, -0.5 * dt * lo[1:]

    def explicit(u):  # (I + dt/2 L) u
        v = u + 0.5 * dt * di * u
        v[:-1] += 0.5 * dt * up[:-1] * u[1:]
        v[1:] += 0.5 * dt * lo[1:] * u[:-1]
        return v

    def react(u, tau):  # du/dtau = u - u^3 exactly
        return np.sign(u) / np.sqrt(1.0 + (1.0 / u**2 - 1.0) * np.exp(-2.0 * tau))

    u = 1.0 / (2.0 + 0.4 * r**2)
    for _ in range(m):
        u = react(solve_banded((1, 1), a, explicit(react(u, 0.5 * dt))), 0.5 * dt)
    return u[0]


if __name__ == "__main__":
    d = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    coarse, fine = u00(d, n=1000, m=500), u00(d)
    print(f"u(0, 0) = {fine:.6f} (d = {d}; change from half the resolution: {abs(fine - coarse):.1e})")
