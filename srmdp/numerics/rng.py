"""Random streams: every draw is a pure function of (seed, domain, run, time step, stratum, path).

One Philox4x32-10 call (Salmon et al. 2011) maps the *counter* (path m, stratum k, time step i,
run) under the *key* (seed, domain) to a 128-bit state; the path's draws then come from
xoroshiro128++ started at that state.  Philox is a bijection of the counter for a fixed key, so two
different (run, i, k, m) never start at the same state; the layout below is checked against the
largest paper case in ``tests/test_rng.py``.  Normals use Doornik's 128-layer ziggurat (ZIGNOR),
one 64-bit draw per normal in ~97.2 % of the cases (the rectangle test; bench/gpu_NOTES.md).

Kernel code (see :mod:`srmdp.numerics.jit`): the stream state travels as two uint64 scalars ``(s0, s1)``,
passed in and returned, so that it stays in registers along a path.  uint64 arithmetic uses
``np.uint64`` constants so that Numba never promotes to float.
"""

import math

import numpy as np

from .jit import inline, rare

U64 = np.uint64
# --- bound by srmdp.numerics.build in each generated module (these defaults only make the kernel modules importable)
# True in the GPU's kernels specialised on d (d <= 8), where registers decide the occupancy (bench/gpu_NOTES.md):
# forms of the same arithmetic that hold fewer values across loops
SAVE_REGISTERS = False
REAL = np.float64  # the type a path is computed in (Case.arithmetic); REAL(v) casts, a no-op in float64
FLOAT32_ARITHMETIC = False  # REAL is np.float32
EDGE_MARGIN = (
    2.0**-40
)  # srmdp.numerics.strata.locate_fast's margin around a cell edge (srmdp.numerics.build.EDGE_MARGIN)

# Counter layout (bits): c0 = path m | c1 = stratum k low 32 | c2 = stratum k high 16 + step i << 16
# | c3 = run.  Key: k0 = seed low 32, k1 = seed high 31 bits + domain << 31.
PATH_BITS = 32
STRATUM_BITS = 48
STEP_BITS = 16
RUN_BITS = 32
SEED_BITS = 63
DOMAIN_PATHS = 0  # simulation clouds C_{i,k}
DOMAIN_TEST = 1  # test points R_{i,m} of the error indicators

_M0 = U64(0xD2511F53)
_M1 = U64(0xCD9E8D57)
_W0 = U64(0x9E3779B9)
_W1 = U64(0xBB67AE85)
_MASK32 = U64(0xFFFFFFFF)
_MASK31 = U64(0x7FFFFFFF)
_MASK16 = U64(0xFFFF)
_S11 = U64(11)
_S15 = U64(15)
_S17 = U64(17)
_S28 = U64(28)
_S36 = U64(36)
_S47 = U64(47)
_S49 = U64(49)
_S16 = U64(16)
_S21 = U64(21)
_S31 = U64(31)
_S32 = U64(32)
_ONE = U64(1)
_ZERO = U64(0)
_LOW7 = U64(127)
_TWO_M53 = 2.0**-53
_TWO_M52 = 2.0**-52


def _ziggurat_tables(layers=128, r=3.442619855899, v=9.91256303526217e-3):
    """Doornik (2005) ZIGNOR tables: layer abscissae X[0..C] and ratios X[i+1]/X[i]."""
    x = np.zeros(layers + 1)
    f = math.exp(-0.5 * r * r)
    x[0] = v / f
    x[1] = r
    for i in range(2, layers):
        x[i] = math.sqrt(-2.0 * math.log(v / x[i - 1] + f))
        f = math.exp(-0.5 * x[i] * x[i])
    ratio = x[1:] / x[:-1]
    return x, ratio, r


ZIG_X, ZIG_RATIO, ZIG_R = _ziggurat_tables()
# The rectangle test |u| < ZIG_RATIO[idx] of u = n 2^-52, n = (r >> 11) - 2^52 an integer, exactly as integers:
# |n| < ZIG_RATIO[idx] 2^52 (a real, exact in float64) <=> |n| < ceil(ZIG_RATIO[idx] 2^52); and the layer's
# abscissa scaled by 2^-52 in float32 (a power of 2: the rounding of ZIG_X), so that the float32 normal is
# float32(n) * ZIG_X_F32_SCALED[idx]: the same draw, rounded twice (|error| <= 2^-23 of it), no float64 op.
ZIG_LIMIT = np.array([math.ceil(v * 2.0**52) for v in ZIG_RATIO.tolist()], np.int64)
ZIG_X_F32_SCALED = (ZIG_X * 2.0**-52).astype(np.float32)
_HALF_RANGE = np.int64(2**52)


@inline
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 (Salmon et al. 2011) of counter (c0..c3) under key (k0, k1), 32-bit words."""
    for _ in range(10):
        p0 = _M0 * c0
        p1 = _M1 * c2
        n0 = (p1 >> _S32) ^ c1 ^ k0
        n2 = (p0 >> _S32) ^ c3 ^ k1
        c1 = p1 & _MASK32
        c3 = p0 & _MASK32
        c0 = n0
        c2 = n2
        k0 = (k0 + _W0) & _MASK32
        k1 = (k1 + _W1) & _MASK32
    return c0, c1, c2, c3


@inline
def seed_state(seed, domain, run, step, stratum, path):
    """(s0, s1): the start of stream (seed, domain, run, step, stratum, path)."""
    s = U64(seed)
    kk = U64(stratum)
    pp = U64(path)
    # SAVE_REGISTERS: path >> 32 is 0 (path < 2^PATH_BITS, checked by Case and the solver), but it makes the key depend
    # on the path, so that the compiler does not hoist the 20 round keys out of a loop over paths (on the GPU:
    # 40 registers held across it); the same bits either way
    zero = (pp >> _S32) if SAVE_REGISTERS else _ZERO
    k0 = (s & _MASK32) | zero
    k1 = ((s >> _S32) & _MASK31) | (U64(domain) << _S31) | zero
    c0 = pp & _MASK32
    c1 = kk & _MASK32
    c2 = ((kk >> _S32) & _MASK16) | ((U64(step) & _MASK16) << _S16)
    c3 = U64(run) & _MASK32
    r0, r1, r2, r3 = philox4x32(c0, c1, c2, c3, k0, k1)
    s0 = r0 | (r1 << _S32)
    s1 = r2 | (r3 << _S32)
    if s0 == _ZERO and s1 == _ZERO:
        s0 = _ONE
    return s0, s1


@inline
def next_s(s0, s1):
    """xoroshiro128++ (Blackman & Vigna 2019): (64-bit draw, s0, s1)."""
    t = s0 + s1
    res = ((t << _S17) | (t >> _S47)) + s0
    s1 = s1 ^ s0
    n0 = ((s0 << _S49) | (s0 >> _S15)) ^ s1 ^ (s1 << _S21)
    n1 = (s1 << _S28) | (s1 >> _S36)
    return res, n0, n1


@inline
def uniform_s(s0, s1):
    """Uniform on (0, 1] with 53 random bits (never 0, so log() is safe): (u, s0, s1)."""
    r, s0, s1 = next_s(s0, s1)
    return (float(np.int64(r >> _S11)) + 1.0) * _TWO_M53, s0, s1


@rare
def normal_slow(u, idx, s0, s1):
    """The rare branches of the ziggurat (draw (u, idx) was not in the rectangle): (x, s0, s1)."""
    while True:
        if idx == 0:  # base layer: exact tail beyond R (Marsaglia 1964)
            while True:
                ua, s0, s1 = uniform_s(s0, s1)
                ub, s0, s1 = uniform_s(s0, s1)
                a = math.log(ua) / ZIG_R
                b = math.log(ub)
                if -2.0 * b >= a * a:
                    break
            return (a - ZIG_R if u < 0.0 else ZIG_R - a), s0, s1
        x = u * ZIG_X[idx]
        f0 = math.exp(-0.5 * (ZIG_X[idx] * ZIG_X[idx] - x * x))
        f1 = math.exp(-0.5 * (ZIG_X[idx + 1] * ZIG_X[idx + 1] - x * x))
        v, s0, s1 = uniform_s(s0, s1)
        if f1 + v * (f0 - f1) < 1.0:
            return x, s0, s1
        r, s0, s1 = next_s(s0, s1)
        u = float(np.int64(r >> _S11)) * _TWO_M52 - 1.0
        idx = int(r & _LOW7)
        if abs(u) < ZIG_RATIO[idx]:
            return u * ZIG_X[idx], s0, s1


@rare
def normal_slow_rounded(n, idx, s0, s1):
    """:func:`normal_slow` of u = n 2^-52, rounded to REAL (float32 arithmetic: no float64 op on the call's side)."""
    v, s0, s1 = normal_slow(float(n) * _TWO_M52, idx, s0, s1)
    return REAL(v), s0, s1


@inline
def normal_s(s0, s1):
    """Standard normal, Doornik's ZIGNOR ziggurat (128 layers): (x, s0, s1).

    The rectangle test (97.2 % of the draws) is inlined; the wedges and the tail are a call.  In float32 arithmetic the
    same test as integers and a float32 product (``ZIG_LIMIT``): the same draws and stream, rounded.
    """
    r, s0, s1 = next_s(s0, s1)
    if FLOAT32_ARITHMETIC:
        n = np.int64(r >> _S11) - _HALF_RANGE
        idx = int(r & _LOW7)
        if abs(n) < ZIG_LIMIT[idx]:
            return REAL(n) * ZIG_X_F32_SCALED[idx], s0, s1
        return normal_slow_rounded(n, idx, s0, s1)
    u = float(np.int64(r >> _S11)) * _TWO_M52 - 1.0  # r >> 11 < 2^53: exact signed conversion
    idx = int(r & _LOW7)
    if abs(u) < ZIG_RATIO[idx]:
        return u * ZIG_X[idx], s0, s1
    return normal_slow(u, idx, s0, s1)
