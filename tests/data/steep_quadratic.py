"""A driver steeply quadratic in z without a closed-form solution: the divergence detector's test problem.

PDE: du/dt + 1/2 Lap u + (a/2) |grad u|^2 = 0, u(T, x) = g(x) = ln(1 + kappa + (sin S1 + cos S2)/2), X = W,
with a = 5 and the terminal condition of ``srmdp/problems/quadratic_z.py`` (whose own a is 1).  By Cole-Hopf
u = (1/a) ln E[exp(a g(x + W_{T-t}))], so min g <= u <= max g: |u| <= ln(2 + kappa) < 1 everywhere.  Without
truncation the scheme's z-estimates in the outer cells feed the driver and its estimators blow up (max |y|
over the strata ~1e3 at t = 0 at d = 4, dt = 0.2): a solve must stop and say so.
"""

import math

MATURITY = 1.0
KAPPA = 0.6
A = 5.0


def terminal(T, x, d):
    s1 = 0.0
    s2 = 0.0
    for l in range(d):
        s1 += x[l]
        if l % 2 == 0:
            s2 += x[l]
        else:
            s2 -= x[l]
    r = 1.0 / math.sqrt(d)
    return math.log(1.0 + KAPPA + 0.5 * (math.sin(s1 * r) + math.cos(s2 * r)))


def driver(t, x, y, z, d):
    s = 0.0
    for l in range(d):
        s += z[l] * z[l]
    return 0.5 * A * s
