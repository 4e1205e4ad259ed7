"""Shared-memory bank conflicts of the step kernels, by the exact model of :mod:`srmdp.kernels.shared_banks`.

    python bench/gpu/gpu_banks.py [--d 1,2,3,4,5,6,7,8]

step_thread: lane t of a warp reads or writes column j of its row, rows[t][j] (doubles): wavefronts per access at
the packed stride (3d + nb^2 + (d+1) nb) and at :func:`srmdp.kernels.cuda_launch.thread_row`'s stride. step_block: the
tile of B
paths x W = nb + d + 1 columns (packed, and padded to :func:`srmdp.kernels.cuda_launch.tile_stride`) (REAL: 4 bytes in
float32
arithmetic, 8 in float64): the writes (lane t = path t, column a: stride W), the owners' reads (lane t owns entry e
= t + kB: row r, columns ENTRY_COLUMN_A/B[e]), the owners' running sums own[e] (consecutive doubles); the cell data
(every lane the same double: a broadcast).
The minimum is 1 wavefront per warp access of 4 bytes and 2 of 8 bytes.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from srmdp.kernels.shared_banks import WARP, conflict_free, strided_wavefronts, wavefronts  # noqa: E402


def thread_rows(d, nb):
    """(packed length, its wavefronts, thread_row's stride, its wavefronts) of step_thread's rows (8-byte)."""
    from srmdp.kernels.cuda_launch import thread_row

    packed = 3 * d + nb * nb + (d + 1) * nb
    stride = thread_row(d, nb, pad=True)  # 0: local arrays (rows beyond 40 KB per block)
    return packed, strided_wavefronts(packed, 8), stride, strided_wavefronts(stride, 8) if stride else None


def block_arrays(d, nb, real):
    """Wavefronts per warp access of step_block's shared arrays (worst warp of the block for the owners)."""
    from srmdp.kernels.cuda_launch import block_size, entries, tile_stride

    b = block_size(d, nb)
    w = nb + d + 1
    stride = tile_stride(d, nb, real, pad=True)
    pa, pb, _, ng = entries(d, nb)
    n = len(pa)

    def owners(cols, first=0, last=None):
        last = n if last is None else last
        worst = 0
        for base in range(first, last, WARP):  # the warps' lanes own consecutive entries (e = tid + k B, B % 32 = 0)
            lanes = range(base, min(base + WARP, last))
            worst = max(worst, wavefronts([(3 * w + int(cols[e])) * real for e in lanes], real))
        return worst

    return {
        "B": b,
        "W": w,
        "tile write": strided_wavefronts(w, real),
        "stride": stride,
        "tile write padded": strided_wavefronts(stride, real),
        "tile read a": owners(pa),
        "tile read b": owners(pb),
        "pass-2 read": owners(pa, ng, ng + nb),
        "own": wavefronts([8 * e for e in range(min(WARP, n))], 8),
        "cell": wavefronts([0] * WARP, 8),
        "min 4/8 B": (conflict_free(4), conflict_free(8)),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", default="1,2,3,4,5,6,7,8")
    args = ap.parse_args(argv)
    ds = [int(v) for v in args.d.split(",")]
    print("step_thread rows (8-byte accesses, minimum 2 wavefronts per warp access):")
    print("| basis | d | packed length | wavefronts | stride now | wavefronts |")
    print("|---|---|---|---|---|---|")
    for basis in ("LP0", "LP1"):
        for d in ds:
            nb = 1 if basis == "LP0" else d + 1
            packed, wp, stride, ws = thread_rows(d, nb)
            now = f"{stride} | {ws}" if stride else "local arrays (> 40 KB) | -"
            print(f"| {basis} | {d} | {packed} | {wp} | {now} |")
    print("\nstep_block shared arrays (wavefronts per warp access; REAL 4 B = float32 arithmetic, 8 B = float64):")
    keys = ("tile write", "stride", "tile write padded", "tile read a", "tile read b", "pass-2 read", "own", "cell")
    print("| basis | d | REAL | B | W | " + " | ".join(keys) + " |")
    print("|" + "---|" * (5 + len(keys)))
    for basis in ("LP0", "LP1"):
        for d in ds:
            nb = 1 if basis == "LP0" else d + 1
            for real in (4, 8):
                r = block_arrays(d, nb, real)
                print(f"| {basis} | {d} | {real} | {r['B']} | {r['W']} | " + " | ".join(str(r[k]) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
