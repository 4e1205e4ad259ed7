"""Allen-Cahn: du/dt + Lap u + u - u^3 = 0 on [0, T) x R^d, u(T, x) = 1 / (2 + 0.4 |x|^2).

BSDE: X = x + sqrt(2) W (so sigma = sqrt(2) I), -dY = f dt - Z dW with f(t, x, y, z) = y - y^3.
E, Han & Jentzen (Comm. Math. Stat. 2017, Sec. 4.2) solve it in d = 100 with T = 0.3, x0 = 0.
"""

import math

MATURITY = 0.3
X0 = 0.0  # u(0, x0) is reported at x0 = (0, ..., 0)
BOX_HALF_WIDTH = 3.0  # strata on [-3, 3]^d, where u varies (default 6.5, the paper's box)
SQRT2 = math.sqrt(2.0)


def terminal(T, x, d):
    s = 0.0
    for l in range(d):
        s += x[l] * x[l]
    return 1.0 / (2.0 + 0.4 * s)


def driver(t, x, y, z, d):
    return y - y * y * y


def forward(t, x, dw, dt, d):
    for l in range(d):
        x[l] += SQRT2 * dw[l]
