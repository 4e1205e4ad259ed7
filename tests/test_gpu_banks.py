"""The shared-memory bank model (srmdp.kernels.shared_banks) and the layout decisions built on it
(srmdp.kernels.cuda_launch.layout):
padded row strides, and the default launch bounds of float32 arithmetic (none in float64).  No GPU needed."""

import pytest

from srmdp.exceptions import ConfigError
from srmdp.kernels.shared_banks import conflict_free, conflict_free_stride, strided_wavefronts, wavefronts


def test_bank_model_on_known_patterns():
    # 4-byte accesses: one wavefront per warp when consecutive or all on one word (broadcast); stride 32 words: all
    # lanes in bank 0, 32 distinct words -> 32 wavefronts; stride 2: 2-way
    assert wavefronts([4 * t for t in range(32)], 4) == 1
    assert wavefronts([0] * 32, 4) == 1
    assert strided_wavefronts(32, 4) == 32 and strided_wavefronts(2, 4) == 2
    # 8-byte accesses per half-warp: consecutive doubles take 2 (the minimum), an odd stride too; stride 18 doubles
    # (LP0 d=4's packed thread row) puts lanes t and t + 8 of a half-warp on the same banks: 2 per half-warp
    assert strided_wavefronts(1, 8) == conflict_free(8) == 2
    assert strided_wavefronts(19, 8) == 2 and strided_wavefronts(18, 8) == 4
    assert strided_wavefronts(24, 8) == 16  # LP1 d=2's packed row: 8-way
    # inactive lanes do not count; a half-warp with no active lane costs nothing
    assert wavefronts([8 * 18 * t if t < 8 else None for t in range(32)], 8) == 1
    assert conflict_free_stride(18, 8) == 19 and conflict_free_stride(19, 8) == 19 and conflict_free_stride(6, 4) == 7
    with pytest.raises(ValueError):
        wavefronts([4], 8)


def test_layout_pads_rows_and_bounds_float32_only():
    from srmdp.kernels.cuda_launch import MIN_BLOCKS, THREAD_BLOCK, THREAD_ROW_BYTES, layout, thread_row, tile_stride
    from srmdp.numerics.bases import BASES

    for d in range(1, 9):
        for basis in ("LP0", "LP1"):
            nb = BASES[basis].size(d)
            packed = 3 * d + nb * nb + (d + 1) * nb
            row = thread_row(d, nb, pad=True)
            assert row == 0 or (
                row in (packed, packed + 1) and row % 2 == 1 and 8 * row * THREAD_BLOCK <= THREAD_ROW_BYTES
            )
            assert tile_stride(d, nb, 8, pad=True) % 2 == 1 and tile_stride(d, nb, pad=False) == nb + d + 1
            assert strided_wavefronts(tile_stride(d, nb, 4, pad=True), 4) == 1
            f64 = dict(layout(d, nb, arithmetic="float64", min_blocks=None))
            f32 = dict(layout(d, nb, arithmetic="float32", min_blocks=None))
            off = dict(layout(d, nb, arithmetic="float32", min_blocks=0))
            if MIN_BLOCKS is None:  # no SRMDP_CUDA_MIN_BLOCKS in the environment
                assert f64["LAUNCH_BOUNDS"] == () and off["LAUNCH_BOUNDS"] == ()
                bounds = dict(f32["LAUNCH_BOUNDS"])
                if nb > 5:  # LP1 from d = 5: the cap would spill 4x more than measured on the device
                    assert bounds == {}
                    continue
                assert bounds["step_block"] == (f32["BLOCK_THREADS"], 8)
                # step_thread: 8 blocks, or fewer where its rows of shared memory admit fewer (d = 7: 7, d = 8: 6)
                assert bounds["step_thread"] == (128, {7: 7, 8: 6}.get(d, 8) if basis == "LP0" and row else 8)
    assert dict(layout(9, 1, arithmetic="float32", min_blocks=8))["LAUNCH_BOUNDS"] == ()  # d >= 9: never bounded


def test_default_bound_is_what_shared_memory_admits_in_the_occupancy_model():
    from srmdp.kernels.cuda_launch import default_min_blocks, shared_blocks
    from tests.support.sm90 import occupancy

    for smem in (0, 3776, 19456, 27648, 31744, 35840, 45000):
        assert min(shared_blocks(smem), 16) == occupancy(0, 128, smem)[1]  # 16: the warp limit at 128 threads
        assert default_min_blocks(4, 5, "float32", smem) == min(8, shared_blocks(smem))
        assert default_min_blocks(4, 1, "float64", smem) == 0 and default_min_blocks(5, 6, "float32", smem) == 0


def test_min_blocks_override_is_validated():
    from srmdp.kernels.cuda_launch import _min_blocks_override

    assert _min_blocks_override(None) is None and _min_blocks_override(" ") is None
    assert _min_blocks_override("0") == 0 and _min_blocks_override("8") == 8
    for bad in ("x", "-1", "33", "8.5"):
        with pytest.raises(ConfigError, match="SRMDP_CUDA_MIN_BLOCKS"):
            _min_blocks_override(bad)
