"""How the CUDA kernels are built and launched: their launch geometry and their arguments.

For sizes (d, nb) and an arithmetic, :func:`layout` gives the module constants the kernels of
:mod:`srmdp.kernels.cuda_kernels` are compiled with: threads per block of both launch shapes, the strides of the
shared-memory rows and tiles, the owned entries of the normal equations and the launch bounds (a register
cap).  Two environment knobs override its defaults, read once at import:

* ``SRMDP_CUDA_MIN_BLOCKS``: the blocks per SM the launch bounds ask (0: no bound; unset: the rule of
  :func:`default_min_blocks`);
* ``SRMDP_CUDA_PAD_ROWS=0``: shared-memory rows at their packed length instead of a conflict-free stride.

:func:`case_arg` turns the case record into the kernels' ``case`` argument and :func:`signatures` gives the
kernels' argument types (compiling without a GPU).  Nothing here needs a device.
"""

import os
from collections import namedtuple

import numpy as np

from ..case.cases import RECORD
from ..exceptions import ConfigError
from ..numerics.build import SPECIALISE_MAX_D, Int32Array
from .shared_banks import conflict_free_stride

SHARED_LIMIT = 48 * 1024  # static shared memory per block without opt-in
THREAD_BLOCK = 128  # threads per block of the one-thread-per-stratum launches (step_thread, test_errors, ...)
# Launch bounds (a register cap) of the specialised step kernels (d <= 8): ptxas keeps each thread within
# 65 536 / (n x threads per block) registers so that n blocks fit an SM.  Default (SRMDP_CUDA_MIN_BLOCKS unset): the
# rule of default_min_blocks -- float32 arithmetic with nb <= 5 basis functions gets as many blocks as shared memory
# allows, at most 8 (<= 64 registers at 128 threads, 50 % occupancy); float64 arithmetic and larger bases none.
# SRMDP_CUDA_MIN_BLOCKS=0: no bound anywhere; =n > 0: n blocks for every specialised step kernel, either arithmetic
# (the A/B of bench/gpu/gpu_next.sh).  Part of the build key (the generated module's header).
BOUND_BLOCKS = 8  # blocks per SM asked by the default rule: 64 registers at 128 threads, 50 % occupancy on sm_90
BOUND_MAX_NB = 5  # ... for bases of at most this many functions (LP0: 1; LP1 up to d = 4): beyond, the cap spills 4x+
SM_SHARED = 228 * 1024  # shared memory per SM (sm_90), with 1 KB reserved per block


def _min_blocks_override(text):
    """SRMDP_CUDA_MIN_BLOCKS as an override: None (unset or empty: the default rule) or an int >= 0."""
    if text is None or not text.strip():
        return None
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0 or n > 32:
        raise ConfigError(
            f"invalid SRMDP_CUDA_MIN_BLOCKS={text!r}: an integer 0 (no launch bounds) to 32, or unset"
            " (the default rule)"
        )
    return n


MIN_BLOCKS = _min_blocks_override(os.environ.get("SRMDP_CUDA_MIN_BLOCKS"))
# SRMDP_CUDA_PAD_ROWS=0: the rows of shared memory at their packed length (step_thread's rows
# of 3d + nb^2 + (d+1) nb doubles: even at LP0, a 2-way bank conflict on every access; step_block's tile rows of
# nb + d + 1 values: 2- to 16-way conflicts on its writes where even) instead of padded to a conflict-free stride
# (odd: srmdp.kernels.shared_banks); the A/B of bench/gpu/gpu_next.sh.  Bit-identical either way (same values, same
# order).
PAD_ROWS = os.environ.get("SRMDP_CUDA_PAD_ROWS", "1") != "0"


# --- launch layout --------------------------------------------------------------------------------
def block_size(d, nb):
    """Threads (= paths per shared-memory tile) of the block kernel for sizes (d, nb)."""
    width = nb + d + 1
    for b in (128, 64, 32):
        if b * width * 8 <= 24 * 1024:
            return b
    return 32


def shared_bytes(d, nb, block):
    """Static shared memory of step_block in float64 arithmetic (float32: less), tile rows padded."""
    ne = nb * (nb + 1) // 2 + (d + 1) * nb
    return 8 * (block * tile_stride(d, nb) + nb * nb + (d + 1) * nb + ne + 3 * d)


def entries(d, nb, curvature=False):
    """Owned entries of the normal equations: (tile column a, tile column b, destination).

    e < NG: G[a*nb + b] += phi_a phi_b (a <= b); else acc[c*nb + a] += phi_a S_c, S_c in tile column
    nb + c, and with ``curvature`` then acc[(d+1) nb + c] += S_c^2 (the curvature correction's sums of squares,
    :func:`srmdp.numerics.regression.residual_variances`).  Destinations index G for e < NG and acc otherwise.
    """
    pa, pb, dst = [], [], []
    for a in range(nb):
        for b in range(a, nb):
            pa.append(a)
            pb.append(b)
            dst.append(a * nb + b)
    for c in range(d + 1):
        for a in range(nb):
            pa.append(a)
            pb.append(nb + c)
            dst.append(c * nb + a)
    for c in range(d + 1 if curvature else 0):
        pa.append(nb + c)
        pb.append(nb + c)
        dst.append((d + 1) * nb + c)
    return (np.array(pa, np.int32), np.array(pb, np.int32), np.array(dst, np.int32), nb * (nb + 1) // 2)


THREAD_ROW_BYTES = 40 * 1024  # at most this much shared memory per block of step_thread for its rows


def tile_stride(d, nb, width=8, pad=None):
    """Row stride of step_block's tile (B paths x nb + d + 1 values of ``width`` bytes): the smallest conflict-free
    one (:func:`srmdp.kernels.shared_banks.conflict_free_stride`) unless ``pad`` (default :data:`PAD_ROWS`) is False."""
    w = nb + d + 1
    return conflict_free_stride(w, width) if (PAD_ROWS if pad is None else pad) else w


def thread_row(d, nb, pad=None, curvature=False):
    """Row stride in doubles of step_thread's shared memory per thread (its cell data, G and acc: out of registers,
    -14 on LP0 d=4, bench/gpu_NOTES.md); 0 (local arrays) above SPECIALISE_MAX_D or beyond THREAD_ROW_BYTES per
    block (LP0 d=8: 35 doubles, 35.8 KB; LP1 thread mode from d=3 on).  The row holds 3d + nb^2 + (d+1) nb doubles;
    the stride is the smallest one at least that long whose accesses are free of bank conflicts
    (:func:`srmdp.kernels.shared_banks.conflict_free_stride`: the next odd number) unless ``pad`` (default
    :data:`PAD_ROWS`) is False: then the packed length (LP0: even, a 2-way conflict on every access)."""
    row = 3 * d + nb * nb + (d + 1) * (nb + 1 if curvature else nb)  # curvature: the sums of squares too
    if PAD_ROWS if pad is None else pad:
        row = conflict_free_stride(row, 8)
    if d > SPECIALISE_MAX_D["cuda"] or 8 * row * THREAD_BLOCK > THREAD_ROW_BYTES:
        return 0
    return row


def shared_blocks(smem):
    """Blocks per SM that ``smem`` bytes of static shared memory per block allow (sm_90, 1 KB reserved each)."""
    return SM_SHARED // (-(-(smem + 1024) // 128) * 128)


def default_min_blocks(d, nb, arithmetic, smem):
    """Blocks per SM the launch bounds of a specialised step kernel ask by default (0: no bound).

    float32 arithmetic with at most BOUND_MAX_NB basis functions: min(BOUND_BLOCKS, what the kernel's shared memory
    ``smem`` allows) -- a cap below what shared memory admits anyway would spill for no occupancy.  Why these
    limits: under the cap the small bases spill a little and run faster, larger bases and float64 arithmetic spill
    several times more (the measurements: bench/README.md, "Measurements behind the defaults").  float64
    arithmetic: 0."""
    if arithmetic != "float32" or nb > BOUND_MAX_NB:
        return 0
    return min(BOUND_BLOCKS, shared_blocks(smem))


def launch_bounds(d, threads, min_blocks=None, arithmetic="float64", smem=0, nb=1):
    """(max threads per block, min blocks per SM) of a step kernel launched with ``threads`` threads, or None.

    Only for the sizes compiled as constants (d <= SPECIALISE_MAX_D); ``min_blocks`` (default :data:`MIN_BLOCKS`,
    the environment's override; None: :func:`default_min_blocks` of the basis size ``nb``, the arithmetic and the
    kernel's static shared memory ``smem`` bytes); 0: no bound.  The kernels of d >= 9 are left as they were measured.
    """
    n = MIN_BLOCKS if min_blocks is None else min_blocks
    if n is None:
        n = default_min_blocks(d, nb, arithmetic, smem)
    if d > SPECIALISE_MAX_D["cuda"] or n <= 0:
        return None
    return (int(threads), int(n))


def layout(d, nb, block=0, arithmetic="float64", min_blocks=None, pad_rows=None, curvature=False):
    """Module constants of the kernels for sizes (d, nb), B threads per block (0: :func:`block_size`) and the
    arithmetic (it sets the default launch bounds, :func:`launch_bounds`; ``min_blocks``, ``pad_rows``: overrides
    of SRMDP_CUDA_MIN_BLOCKS and SRMDP_CUDA_PAD_ROWS); ``curvature``: the curvature correction (CURVATURE, and
    room for its sums of squares)."""
    b = int(block) if block else block_size(d, nb)
    pa, pb, dst, ng = entries(d, nb, curvature)
    row = thread_row(d, nb, pad_rows, curvature)
    rhs = (d + 1) * (nb + 1 if curvature else nb)
    real = 4 if arithmetic == "float32" else 8
    tw = tile_stride(d, nb, real, pad_rows)
    smem_thread = 8 * row * THREAD_BLOCK
    smem_block = real * b * tw + 8 * (nb * nb + rhs + len(pa) + 3 * d)
    pa, pb, dst = (Int32Array(int(v) for v in a) for a in (pa, pb, dst))
    bounds = (
        ("step_thread", launch_bounds(d, THREAD_BLOCK, min_blocks, arithmetic, smem_thread, nb)),
        ("step_block", launch_bounds(d, b, min_blocks, arithmetic, smem_block, nb)),
    )
    return (
        ("THREAD_MODE_BLOCK", THREAD_BLOCK),
        ("THREAD_ROW_DOUBLES", row),
        ("DIM", d),
        ("D_PLUS_1", d + 1),
        ("CELL_DATA_SIZE", 3 * d),
        ("BASIS_SIZE", nb),
        ("GRAM_SIZE", nb * nb),
        ("RHS_SIZE", rhs),
        ("BLOCK_THREADS", b),
        ("TILE_WIDTH", tw),
        ("TILE_SIZE", b * tw),
        ("ENTRY_COLUMN_A", pa),
        ("ENTRY_COLUMN_B", pb),
        ("ENTRY_DESTINATION", dst),
        ("GRAM_ENTRIES", ng),
        ("ENTRIES", len(pa)),
        ("LAUNCH_BOUNDS", tuple((k, v) for k, v in bounds if v)),
    ) + ((("CURVATURE", True),) if curvature else ())


# --- the case argument ----------------------------------------------------------------------------
CaseArg = namedtuple("CaseArg", RECORD.names)


def case_arg(rec):
    """The case record as the kernels' ``case`` argument: a one-tuple of a named tuple of its fields.

    Passed by value, its fields are kernel parameters (constant bank): the compiler reads them as
    operands or reloads them for free instead of holding them in registers for the whole kernel, as it
    must for fields loaded from a record in global memory (-26 registers on LP0 d=4).  The kernel code
    is unchanged: ``c = case[0]`` then ``c.dt``, as on the CPU's record array.
    """
    return (CaseArg(*rec[0].item()),)


# --- argument types (compile_ptx without a GPU: bench/gpu/gpu_ptxas.py) ------------------------------
def signatures(precision="float64"):
    """Argument types of the kernels (step_*, test_errors, reduce_means) for coefficients in ``precision``."""
    from numba import from_dtype, types

    cdt = types.float32 if precision == "float32" else types.float64
    coef = types.Array(cdt, 4, "C")
    fields = [from_dtype(RECORD.fields[name][0]) for name in RECORD.names]
    rec = types.Tuple([types.NamedTuple(fields, CaseArg)])
    f1 = types.Array(types.float64, 1, "C")
    i1 = types.Array(types.int64, 1, "C")
    cvar = types.Array(types.float64, 3, "C")
    return {"step": (coef, cvar, types.int64, rec, i1), "test": (coef, rec, f1, f1), "reduce": (f1, f1, rec, f1)}
