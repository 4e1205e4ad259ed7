"""CPU probe (not a test): would SIMD across paths pay in Numba?  Normals of B paths in lockstep vs one path at a time.

The lever "vectorise the path loop across paths" (bench/gpu_NOTES.md, CPU) needs the normals of B paths drawn
side by side: xoroshiro128++ on B lane arrays (uint64 shifts/xor, which LLVM vectorises with AVX2), the ziggurat's
rectangle test on B lanes (a table load per lane), and the rare slow branch (srmdp.rng.normal_slow) per lane
afterwards.  This probe times exactly that against the solver's scalar ``normal_s`` (the same compiled module),
draws d normals x N steps per path from the solver's streams, and checks that both give the same bits.

    python bench/cpu/cpu_lanes_probe.py            # B = 4, 8, 16; 1 thread; process CPU time, fastest of 5

The lane form writes the stream's update (srmdp.rng.next_s) and the rectangle test (srmdp.rng.normal_s) in lane
form: a probe of the lever, not a second implementation for the solver.
"""

import time

import numpy as np
from numba import njit

from srmdp import rng
from srmdp.build import kernels
from srmdp.problems import load_problem

_K = kernels(load_problem("gobet2016"), "LP0", 0, "cpu")  # the solver's compiled RNG
seed_state, normal_s, normal_slow = _K.seed_state, _K.normal_s, _K.normal_slow
X = rng.ZIG_X
RATIO = rng.ZIG_RATIO
ONE_BITS = np.uint64(0x3FF0000000000000)
LOW52 = np.uint64((1 << 52) - 1)
U = tuple(np.uint64(v) for v in (11, 17, 47, 49, 15, 21, 28, 36, 63, 127))


@njit(error_model="numpy")
def scalar(n_paths, n_steps, d, out):
    for m in range(n_paths):
        s0, s1 = seed_state(1, 0, 0, 0, 0, m)
        for j in range(n_steps * d):
            out[m, j], s0, s1 = normal_s(s0, s1)


@njit(error_model="numpy")
def lanes(n_paths, n_steps, d, out, B):
    s11, s17, s47, s49, s15, s21, s28, s36, s63, low7 = U
    s0 = np.empty(B, np.uint64)
    s1 = np.empty(B, np.uint64)
    r = np.empty(B, np.uint64)
    bits = np.empty(B, np.uint64)
    fv = bits.view(np.float64)  # 1 + (r >> 11 mod 2^52) 2^-52, from the bits: no int64 -> float64 conversion
    v = np.empty(B)
    uu = np.empty(B)
    ok = np.empty(B, np.bool_)
    for m0 in range(0, n_paths, B):
        for b in range(B):
            s0[b], s1[b] = seed_state(1, 0, 0, 0, 0, m0 + b)
        for j in range(n_steps * d):
            for b in range(B):  # xoroshiro128++ on B lanes (vectorised: vpsllq/vpsrlq/vpxor on ymm)
                a0 = s0[b]
                a1 = s1[b]
                t = a0 + a1
                r[b] = ((t << s17) | (t >> s47)) + a0
                a1 = a1 ^ a0
                s0[b] = ((a0 << s49) | (a0 >> s15)) ^ a1 ^ (a1 << s21)
                s1[b] = (a1 << s28) | (a1 >> s36)
                bits[b] = ONE_BITS | ((r[b] >> s11) & LOW52)
            slow = 0
            for b in range(B):  # u = (r >> 11) 2^-52 - 1 exactly = fv - 2 + (top bit); the rectangle test
                u = fv[b] - (1.0 if (r[b] >> s63) != 0 else 2.0)
                idx = r[b] & low7
                uu[b] = u
                ok[b] = abs(u) < RATIO[idx]
                v[b] = u * X[idx]
                slow += not ok[b]
            if slow:
                for b in range(B):
                    if not ok[b]:
                        idx = r[b] & low7
                        v[b], s0[b], s1[b] = normal_slow(uu[b], int(idx), s0[b], s1[b])
            for b in range(B):
                out[m0 + b, j] = v[b]


def main():
    n, steps, d = 40000, 10, 4
    ref = np.empty((n, steps * d))
    got = np.empty_like(ref)
    scalar(8, 1, d, ref)
    lanes(8, 1, d, got, 8)
    print("ns per normal, 1 thread, process CPU time, fastest of 5 (scalar: the solver's normal_s)")
    for B in (4, 8, 16):
        t_s = t_l = float("inf")
        for _ in range(5):
            c0 = time.process_time()
            scalar(n, steps, d, ref)
            t_s = min(t_s, time.process_time() - c0)
            c0 = time.process_time()
            lanes(n, steps, d, got, B)
            t_l = min(t_l, time.process_time() - c0)
        same = np.array_equal(ref.view(np.uint64), got.view(np.uint64))
        print(f"B={B:2d}  scalar {t_s / ref.size * 1e9:5.2f}  lanes {t_l / got.size * 1e9:5.2f}  same bits: {same}")


if __name__ == "__main__":
    main()
