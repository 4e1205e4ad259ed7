"""A bounded solution with g = 0 and a running cost (the divergence guard's false alarm on a bounded solution).

u(t, x) = (T - t) cos(s), s = (x_1 + ... + x_d) / sqrt(d), X = W: du/dt + Lap u / 2 + f = 0 with
f(t, x) = cos(s) (1 + (T - t) / 2) (Lap cos(s) = -cos(s)); |u| <= T, u(T, .) = 0, z = grad u.
"""

import math

MATURITY = 1.0


def terminal(T, x, d):
    return 0.0


def _s(x, d):
    s = 0.0
    for l in range(d):
        s += x[l]
    return s / math.sqrt(d)


def driver(t, x, y, z, d):
    return math.cos(_s(x, d)) * (1.0 + (MATURITY - t) / 2.0)


def y_exact(t, x, d):
    return (MATURITY - t) * math.cos(_s(x, d))


def z_exact(t, x, out, d):
    g = -(MATURITY - t) * math.sin(_s(x, d)) / math.sqrt(d)
    for l in range(d):
        out[l] = g
