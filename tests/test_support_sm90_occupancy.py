"""The sm_90 occupancy arithmetic of :func:`tests.support.sm90.occupancy` against values of CUDA's occupancy calculator.

128-thread blocks (4 warps) on an H100: registers are allocated per warp in units of 256 (8 per thread),
65 536 per SM, at most 64 warps and 32 blocks per SM.  E.g. 166 registers -> 168 x 32 = 5 376 per warp,
65 536 // 5 376 = 12 warps = 3 blocks -> 12/64 = 18.75 % (what Nsight Compute reported for the 15455c8 step
kernel).  Exact integer arithmetic: no tolerance.
"""

import pytest

from tests.support.sm90 import occupancy


@pytest.mark.parametrize(
    "registers, expected",
    [
        (32, 1.0),
        (64, 0.5),
        (65, 0.4375),
        (72, 0.4375),
        (73, 0.375),
        (80, 0.375),
        (96, 0.3125),
        (104, 0.25),
        (128, 0.25),
        (143, 0.1875),
        (166, 0.1875),
        (168, 0.1875),
        (255, 0.125),
    ],
)
def test_register_limited_occupancy_at_128_threads(registers, expected):
    occ, blocks, limiter = occupancy(registers, 128)
    assert occ == expected
    assert blocks == expected * 64 / 4
    assert limiter == ("registers" if expected < 1.0 else "warps")


def test_other_limits():
    assert occupancy(32, 1024) == (1.0, 2, "warps")  # 2 blocks of 32 warps, registers just allow it
    assert occupancy(16, 32) == (0.5, 32, "blocks")  # 32 one-warp blocks: the block limit
    # shared memory: (31 760 + 1 024 reserved) rounded to 128 -> 32 768 B per block: 233 472 // 32 768 = 7 blocks
    assert occupancy(32, 128, smem=31760) == (7 * 4 / 64, 7, "shared")
    assert occupancy(64, 64) == (0.5, 16, "registers")  # the same 32 warps in 16 blocks of 2 warps
