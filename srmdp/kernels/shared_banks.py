"""An exact model of shared-memory bank conflicts (sm_70 ... sm_90): wavefronts per warp access.

Shared memory has 32 banks of 4 bytes; the 4-byte word at byte address a lies in bank (a / 4) mod 32.  A warp's
access of ``width`` bytes per lane (4, 8 or 16) is served in groups of 128 / width lanes (the whole warp for
4 bytes, each half-warp for 8, each quarter-warp for 16); in a group each bank delivers one distinct word per
wavefront, and lanes that read the same word share it (broadcast).  So a group takes as many wavefronts as the
most distinct words any one bank holds for it, and the warp the sum over its groups.  A conflict-free access takes
``32 width / 128`` wavefronts (1 for 4 bytes, 2 for 8 bytes).

Used by :func:`srmdp.kernels.cuda_launch.thread_row` to pick the row stride of step_thread's per-thread rows of doubles;
the
tables of bench/gpu_NOTES.md come from :func:`strided_wavefronts` (``python bench/gpu/gpu_banks.py``).
"""

BANKS = 32
WORD = 4  # bytes per bank word
WARP = 32


def wavefronts(addresses, width):
    """Wavefronts of one warp access: ``addresses`` the byte address of each lane (None: lane inactive), each lane
    reading ``width`` bytes (4, 8 or 16, aligned)."""
    if width not in (4, 8, 16):
        raise ValueError(f"width={width!r}: 4, 8 or 16 bytes per lane")
    group = BANKS * WORD // width
    total = 0
    for g in range(0, len(addresses), group):
        banks = {}
        for a in addresses[g : g + group]:
            if a is None:
                continue
            if a % width:
                raise ValueError(f"address {a} not aligned to {width} bytes")
            for w in range(a // WORD, (a + width) // WORD):
                banks.setdefault(w % BANKS, set()).add(w)
        total += max((len(s) for s in banks.values()), default=0)
    return total


def conflict_free(width, lanes=WARP):
    """The fewest wavefronts an access of ``lanes`` active lanes of ``width`` bytes can take."""
    return -(-lanes * width // (BANKS * WORD))


def strided_wavefronts(stride, width, offset=0, lanes=WARP):
    """Wavefronts when lane t reads element ``t stride + offset`` of an array of ``width``-byte elements (a row of
    ``stride`` elements per lane, every lane at the same column ``offset``)."""
    return wavefronts([(t * stride + offset) * width for t in range(lanes)], width)


def conflict_free_stride(n, width):
    """The smallest row stride >= n elements of ``width`` bytes whose column accesses are conflict-free (for every
    column: the wavefronts do not depend on the column, the rows shift all lanes alike)."""
    s = max(int(n), 1)
    while strided_wavefronts(s, width) > conflict_free(width):
        s += 1
    return s
