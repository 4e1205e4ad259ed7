"""Strata (A_Strat) and conditional logistic sampling (A_nu, Algorithm 3).

#C cells per axis on the box [-L, L]^d (width h = 2L/#C), K = #C^d strata, stratum index
k = sum_l c_l #C^l (int64).  ``outside`` selects what happens beyond the box:

* ``unbounded`` (0): the outer cells extend to +/-inf, as (A_Strat) requires;
* ``zero`` (1): strata cover only the box, samples come from nu restricted to box cells and the
  estimators are 0 outside the box;
* ``clamp`` (2): box-sampled as ``zero``, but a point outside the box uses the nearest cell's
  estimator (evaluated, i.e. extrapolated, at the point itself).

Local coordinates u_l = (x_l + L)/h - c_l - 1/2 (in [-1/2, 1/2) inside a box cell) are what the LP1
basis uses, so that its regression is well conditioned whatever the cell.
"""

import math

from .jit import device, inline
from .rng import EDGE_MARGIN, REAL, SAVE_REGISTERS, uniform_s

OUTSIDE_MODES = {"unbounded": 0, "zero": 1, "clamp": 2}
UNBOUNDED, ZERO, CLAMP = 0, 1, 2
DEFAULT_HALF_WIDTH = 6.5  # L of the box [-6.5, 6.5]^d of the paper (§5.1): a problem's BOX_HALF_WIDTH default
MAX_HALF_WIDTH = 700.0  # F(-L) = e^-L/(1+e^-L) stays a normal float64 (e^-708 is the limit)


@device
def logistic_cdf(x):
    """F_nu(x) = 1/(1+e^-x) (mu = 1) without overflow for any x."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@device
def logistic_in(a, b, v):
    """Inverse CDF of nu restricted to [a, b) at v in (0, 1] (Algorithm 3).

    An interval in the right half-line is reflected to the left one, where F is small and has
    full relative precision: no cancellation in F(b) - F(a) far in the tails.
    """
    flip = a >= 0.0
    if flip:
        a, b = -b, -a
    fa = 0.0 if a == -math.inf else logistic_cdf(a)
    fb = 1.0 if b == math.inf else logistic_cdf(b)
    p = fa + v * (fb - fa)
    if p >= 1.0:
        p = 1.0 - 1.1102230246251565e-16
    x = math.log(p) - math.log1p(-p)
    return -x if flip else x


@inline
def axis_cell(xl, ncell, half, h, mode):
    """(cell c, quotient t = (x + L)/h) of one coordinate by the exact division; c = -1 outside the
    box in mode ZERO, else outer points go to the outer cells.  Arithmetic: REAL (half, h of that type)."""
    t = (xl + half) / h
    if not t >= REAL(0.0):  # also catches NaN
        return (-1 if mode == ZERO else 0), t
    if t >= REAL(ncell):
        return (-1 if mode == ZERO else ncell - 1), t
    c = int(t)
    if c >= ncell:  # rounding at the upper edge
        c = ncell - 1
    return c, t


@inline
def locate(x, u, d, ncell, half, h, mode):
    """Stratum index of x (-1 outside the box in mode ZERO); fills local coordinates u."""
    k = 0
    if SAVE_REGISTERS:  # Horner over the axes: no power of #C held across the loop (registers on the GPU), same k
        for l in range(d - 1, -1, -1):
            c, t = axis_cell(x[l], ncell, half, h, mode)
            if c < 0:
                return -1
            u[l] = t - REAL(c) - REAL(0.5)
            k = k * ncell + c
        return k
    mult = 1
    for l in range(d):
        c, t = axis_cell(x[l], ncell, half, h, mode)
        if c < 0:
            return -1
        u[l] = t - REAL(c) - REAL(0.5)
        k += c * mult
        mult *= ncell
    return k


@device
def cell_setup(k, cell, d, ncell, half, h, unbounded):
    """Per-axis sampling data of stratum k into cell[3d]: (F(a), +/-(F(b)-F(a)), c + 1/2).

    Computed once per stratum; an interval in the right half-line is reflected to the left one
    (negative width), where F is small and keeps full relative precision: no cancellation in
    F(b) - F(a) far in the tails.
    """
    for l in range(d):
        c = k % ncell
        k = k // ncell
        # edges as one product (c - #C/2) h, exact factor: no multiply-add that a GPU compiler
        # could contract into an FMA, so the edge at 0 is exactly 0.0 on both targets and the
        # reflection test below takes the same branch on CPU and GPU
        a = (c - 0.5 * ncell) * h
        b = (c + 1 - 0.5 * ncell) * h
        if unbounded:
            if c == 0:
                a = -math.inf
            if c == ncell - 1:
                b = math.inf
        flip = a >= 0.0
        if flip:
            a, b = -b, -a
        fa = 0.0 if a == -math.inf else logistic_cdf(a)
        fb = 1.0 if b == math.inf else logistic_cdf(b)
        cell[l] = fa
        cell[d + l] = -(fb - fa) if flip else fb - fa
        cell[2 * d + l] = c + 0.5


@inline
def locate_fast(x, u, d, ncell, half, h, inv_h, mode, need_u):
    """:func:`locate`, bit for bit, with one multiplication by 1/h per axis instead of a division.

    The cell c = floor((x + L)/h) is taken from (x + L) * (1/h) unless that lies within
    ``ncell * EDGE_MARGIN`` (2^-40 in float64, 2^-16 in float32) of a cell edge (or outside the box), where
    the division decides as in :func:`locate`.  With ``need_u`` (LP1) the local coordinates need the exact
    quotient: every axis uses the division then.  half, h, inv_h: of type REAL.
    """
    if need_u:
        return locate(x, u, d, ncell, half, h, mode)
    eps = REAL(ncell) * EDGE_MARGIN  # >> the error of the product
    k = 0
    mult = 1
    for q in range(d):
        l = d - 1 - q if SAVE_REGISTERS else q  # Horner from the last axis (as locate), else powers of #C
        t = (x[l] + half) * inv_h
        if t >= eps and t < REAL(ncell) - eps:
            c = int(t)
            f = t - REAL(c)
            if f < eps or f > REAL(1.0) - eps:
                c = -1
        else:
            c = -1
        if c < 0:  # near an edge or outside the box: exactly as locate
            c, t = axis_cell(x[l], ncell, half, h, mode)
            if c < 0:
                return -1
        if SAVE_REGISTERS:
            k = k * ncell + c
        else:
            k += c * mult
            mult *= ncell
    return k


@inline
def sample_cell(s0, s1, cell, x, u, d, half, h, need_u):
    """x ~ nu_k by inverse CDF (Algorithm 3), d uniforms; fills local coordinates u if need_u.

    Computed in float64 (once per path, off the path loop) and stored in x and u, of type REAL: rounded there.
    Returns the advanced stream state (s0, s1).
    """
    for l in range(d):
        w = cell[d + l]
        v, s0, s1 = uniform_s(s0, s1)
        p = cell[l] + v * abs(w)
        # p <= F(b) <= 1/2 after reflection, except in a cell straddling 0, where 1 - p is
        # still accurate: one log, no cancellation
        if p >= 1.0:
            p = 1.0 - 1.1102230246251565e-16
        v = math.log(p / (1.0 - p))
        xl = -v if w < 0.0 else v
        x[l] = xl
        if need_u:
            u[l] = (xl + half) / h - cell[2 * d + l]
    return s0, s1
