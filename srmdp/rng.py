"""Random streams: every draw is a pure function of (seed, domain, run, time step, stratum, path).

One Philox4x32-10 call (Salmon et al. 2011) maps the *counter* (path m, stratum k, time step i,
run) under the *key* (seed, domain) to a 128-bit state; the path's draws then come from
xoroshiro128++ started at that state.  Philox is a bijection of the counter for a fixed key, so two
different (run, i, k, m) never start at the same state; the layout below is checked against the
largest paper case in ``tests/test_rng.py``.  Normals use Doornik's 128-layer ziggurat (ZIGNOR),
one 64-bit draw per accepted normal in ~98.8 % of the cases.

The functions are written once and compiled for the CPU (``numba.njit``) and the GPU
(``numba.cuda.jit(device=True)``) by :func:`make_rng`; use only scalars, arrays passed in and
``math``.  uint64 arithmetic uses ``np.uint64`` constants so that Numba never promotes to float.
"""

import math

import numpy as np

U64 = np.uint64

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


def make_rng(jit):
    """Compile the stream functions with ``jit``; returns (seed_stream, next_u64, uniform, normal)."""
    zx = ZIG_X
    zratio = ZIG_RATIO
    zr = ZIG_R

    @jit
    def philox4x32(c0, c1, c2, c3, k0, k1):
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

    @jit
    def seed_stream(st, seed, domain, run, step, stratum, path):
        """Start stream (seed, domain, run, step, stratum, path) in the 2-word state ``st``."""
        s = U64(seed)
        kk = U64(stratum)
        k0 = s & _MASK32
        k1 = ((s >> _S32) & _MASK31) | (U64(domain) << _S31)
        c0 = U64(path) & _MASK32
        c1 = kk & _MASK32
        c2 = ((kk >> _S32) & _MASK16) | ((U64(step) & _MASK16) << _S16)
        c3 = U64(run) & _MASK32
        r0, r1, r2, r3 = philox4x32(c0, c1, c2, c3, k0, k1)
        st[0] = r0 | (r1 << _S32)
        st[1] = r2 | (r3 << _S32)
        if st[0] == _ZERO and st[1] == _ZERO:
            st[0] = _ONE

    @jit
    def rotl(x, r):
        return (x << U64(r)) | (x >> U64(64 - r))

    @jit
    def next_u64(st):
        """xoroshiro128++ (Blackman & Vigna 2019)."""
        s0 = st[0]
        s1 = st[1]
        res = rotl(s0 + s1, 17) + s0
        s1 = s1 ^ s0
        st[0] = rotl(s0, 49) ^ s1 ^ (s1 << _S21)
        st[1] = rotl(s1, 28)
        return res

    @jit
    def uniform(st):
        """Uniform on (0, 1] with 53 random bits (never 0, so log() is safe)."""
        return (float(np.int64(next_u64(st) >> _S11)) + 1.0) * _TWO_M53

    @jit
    def normal(st):
        """Standard normal, Doornik's ZIGNOR ziggurat (128 layers)."""
        while True:
            r = next_u64(st)
            u = float(r >> _S11) * _TWO_M52 - 1.0
            idx = int(r & _LOW7)
            if abs(u) < zratio[idx]:
                return u * zx[idx]
            if idx == 0:  # base layer: exact tail beyond R (Marsaglia 1964)
                while True:
                    a = math.log(uniform(st)) / zr
                    b = math.log(uniform(st))
                    if -2.0 * b >= a * a:
                        break
                return a - zr if u < 0.0 else zr - a
            x = u * zx[idx]
            f0 = math.exp(-0.5 * (zx[idx] * zx[idx] - x * x))
            f1 = math.exp(-0.5 * (zx[idx + 1] * zx[idx + 1] - x * x))
            if f1 + uniform(st) * (f0 - f1) < 1.0:
                return x

    return seed_stream, next_u64, uniform, normal
