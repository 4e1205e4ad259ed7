"""Local bases on a stratum: what phi is, how many functions it has, whether it needs local coordinates.

A basis is one :class:`Basis` instance plus one kernel function ``fill(phi, u, d)`` that writes
phi(u) of the local cell coordinates u (u_l in [-1/2, 1/2) inside a box cell, see
:mod:`srmdp.numerics.strata`); phi_0 = 1 always (the estimator's constant term, see
:func:`srmdp.numerics.regression.evaluate`).  Adding a basis = one ``@inline`` function and one entry of
:data:`BASES`: its size, kernels, default #C and M (:mod:`srmdp.numerics.rules`, by ``rules``), cost and memory
models, and the CLI's choices all derive from it.
A basis registered from another module (``BASES["X"] = Basis("X", fill, ...)``) works the same: the
builder compiles its ``fill`` from that module's source (``tests/test_toy_basis.py``).

* LP0: (1), the local constant of §4.1 (nb = 1; no local coordinates needed);
* LP1: (1, u_1, ..., u_d), the local linear basis of §4.1 (nb = d + 1);
* LP2d: (1, u_1, ..., u_d, u_1^2, ..., u_d^2), local quadratics without cross terms (nb = 2d + 1),
  beyond the paper.
"""

from dataclasses import dataclass

from .jit import inline


@inline
def lp0_phi(phi, u, d):
    phi[0] = 1.0


@inline
def lp1_phi(phi, u, d):
    phi[0] = 1.0
    for l in range(d):
        phi[1 + l] = u[l]


@inline
def lp2d_phi(phi, u, d):
    phi[0] = 1.0
    for l in range(d):
        phi[1 + l] = u[l]
        phi[1 + d + l] = u[l] * u[l]


@dataclass(frozen=True)
class Basis:
    name: str
    fill: object  # the kernel function fill(phi, u, d)
    per_axis: int  # functions per axis besides the constant: nb(d) = 1 + per_axis * d
    local_coordinates: bool  # whether fill reads u (else the cell lookup skips computing it)
    rules: str  # the paper's basis whose #C and M rules it follows (srmdp.numerics.rules), with M scaled by nb

    def size(self, d: int) -> int:
        """nb(d): the number of basis functions in dimension d."""
        return 1 + self.per_axis * int(d)


BASES = {
    b.name: b
    for b in (
        Basis("LP0", lp0_phi, 0, False, rules="LP0"),
        Basis("LP1", lp1_phi, 1, True, rules="LP1"),
        Basis("LP2d", lp2d_phi, 2, True, rules="LP1"),
    )
}
