"""OLS on a local basis (§4.1) with O(nb^2 + (d+1) nb) work space per stratum.

Basis on stratum k: phi(u) = (phi_0 = 1, phi_1, ..., phi_{nb-1}) of the local cell coordinates u
(see :mod:`srmdp.numerics.bases`: LP0 is (1), LP1 is (1, u_1, ..., u_d)).  Instead of the paper's M x nb
Householder QR, the normal equations are accumulated in float64 (whatever the arithmetic of the paths, whose
per-path products phi_a phi_b and phi_a S_c are in REAL; bench/gpu_NOTES.md) on those centred/scaled
coordinates, G = sum phi phi^T (well conditioned: cond ~ 12 for LP1 in a box cell) and
r_c = sum phi S_c for the responses c = 0 (y) and 1..d (z components), then solved by Cholesky.
A numerically singular G (pivot <= 1e-12 x its diagonal) drops that basis direction (minimum-norm on
the remaining ones) and is counted as a fallback.

Flat arrays: G[a*nb + b] (upper triangle in, Cholesky factor L in the lower triangle out),
acc[c*nb + a], coefficients coef[i, k, c, a].  Kernel code (see :mod:`srmdp.numerics.jit`).
"""

import math

from .jit import device, inline
from .rng import REAL

PIVOT_RTOL = 1e-12


@inline
def accumulate_gram(G, phi, nb):
    """G += phi phi^T (upper triangle)."""
    for a in range(nb):
        for b in range(a, nb):
            G[a * nb + b] += phi[a] * phi[b]


@inline
def accumulate(acc, c, phi, value, nb):
    """r_c += phi * value."""
    for a in range(nb):
        acc[c * nb + a] += phi[a] * value


@device
def cholesky(G, nb):
    """In-place Cholesky of the upper-stored G; returns the number of dropped directions."""
    dropped = 0
    for i in range(nb):
        for j in range(i + 1):
            s = G[j * nb + i]
            for p in range(j):
                s -= G[i * nb + p] * G[j * nb + p]
            if i == j:
                if s > PIVOT_RTOL * abs(G[i * nb + i]) and s > 0.0:
                    G[i * nb + i] = math.sqrt(s)
                else:
                    G[i * nb + i] = 0.0
                    dropped += 1
            else:
                ljj = G[j * nb + j]
                G[i * nb + j] = s / ljj if ljj > 0.0 else 0.0
    return dropped


@device
def solve_into(G, acc, c, nb, coef, i, k, tmp):
    """Solve L L^T a = r_c, write a into coef[i, k, c, :]; returns False if non-finite."""
    for p in range(nb):
        s = acc[c * nb + p]
        for q in range(p):
            s -= G[p * nb + q] * tmp[q]
        lpp = G[p * nb + p]
        tmp[p] = s / lpp if lpp > 0.0 else 0.0
    ok = True
    for p in range(nb - 1, -1, -1):
        s = tmp[p]
        for q in range(p + 1, nb):
            s -= G[q * nb + p] * tmp[q]
        lpp = G[p * nb + p]
        tmp[p] = s / lpp if lpp > 0.0 else 0.0
        if not math.isfinite(tmp[p]):
            ok = False
    for p in range(nb):
        coef[i, k, c, p] = tmp[p]
    return ok


@inline
def evaluate(coef, i, k, c, phi, nb, bound):
    """T_L(psi(x)) = clip(a_0 + sum_{a >= 1} a_a phi_a, -L, L) (truncation of eq. PsiM); phi_0 = 1.

    In the arithmetic's type REAL, whatever the storage of coef."""
    lim = REAL(bound)
    v = REAL(coef[i, k, c, 0])
    for a in range(1, nb):
        v += REAL(coef[i, k, c, a]) * phi[a]
    if v > lim:
        return lim
    if v < -lim:
        return -lim
    return v


@device
def residual_variances(G, acc, nc, nb, paths, out, i, k, tmp):
    """For the curvature correction (:func:`srmdp.numerics.scheme.curvature_term`), after :func:`cholesky`: into out[i,
    k, c]
    the residual variance of response c < nc, sigma^2_c = (sum S_c^2 - |L^{-1} r_c|^2) / max(M - nb, 1) (the sum of
    squares at acc[nc nb + c]; |L^{-1} r_c|^2 = r_c^T G^{-1} r_c the fit's share), and into out[i, k, nc + p (p + 1)
    / 2 + q] the rows of L^{-1} (q <= p; a dropped direction's row 0), so that the variance of the fitted value at x
    is sigma^2_c |L^{-1} phi(x)|^2 = sigma^2_c phi^T (Phi^T Phi)^{-1} phi (float64)."""
    dof = max(paths - nb, 1)
    for c in range(nc):
        fit = 0.0
        for p in range(nb):
            s = acc[c * nb + p]
            for q in range(p):
                s -= G[p * nb + q] * tmp[q]
            lpp = G[p * nb + p]
            tmp[p] = s / lpp if lpp > 0.0 else 0.0
            fit += tmp[p] * tmp[p]
        out[i, k, c] = max(acc[nc * nb + c] - fit, 0.0) / dof
    for p in range(nb):
        row = nc + p * (p + 1) // 2
        lpp = G[p * nb + p]
        for q in range(p + 1):
            if lpp <= 0.0:
                out[i, k, row + q] = 0.0
            elif q == p:
                out[i, k, row + q] = 1.0 / lpp
            else:
                s = 0.0
                for r in range(q, p):
                    s += G[p * nb + r] * out[i, k, nc + r * (r + 1) // 2 + q]
                out[i, k, row + q] = -s / lpp
