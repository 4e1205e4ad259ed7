"""The CUDA path against the CPU path, on tiny cases (K <= 64, M <= 25, <= 6 time steps).

Runs under numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1, set by README's test command) and, when
a CUDA GPU is present, on the GPU itself; skipped otherwise.  Under the simulator the kernels run
as Python with the same IEEE double arithmetic as the CPU path, so paths and coefficients must agree
bit for bit.  On a real GPU, NVVM contracts a*b+c into FMAs and libdevice's exp/log may differ from
the CPU's by an ulp: there the tolerance is 1e-9 relative (observed differences ~1e-15).
Launch-shape independence (block sizes, thread vs block) is exact on both.
"""

import math
import os

import numpy as np
import pytest
from conftest import cuda_usable
from numba import cuda  # module level: the simulator swaps kernel globals, not closure variables

SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


pytestmark = [
    pytest.mark.skipif(not cuda_usable(), reason="needs NUMBA_ENABLE_CUDASIM=1 or a CUDA GPU"),
    pytest.mark.usefixtures("fast_simulator"),
]
EXACT = SIM
RTOL, ATOL = (0.0, 0.0) if EXACT else (1e-9, 1e-11)


def _agree(a, b, rtol=RTOL, atol=ATOL):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if rtol == 0.0 and atol == 0.0:
        if not np.array_equal(a, b):
            bad = np.argwhere(a != b)
            raise AssertionError(
                f"{len(bad)} values differ, first at {tuple(bad[0])}: {a[tuple(bad[0])]!r} vs "
                f"{b[tuple(bad[0])]!r}; max |diff| {np.abs(a - b).max():.3g}"
            )
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _solve(backend, case, seed=11, run=2, points=16):
    backend.allocate(case)
    rec = case.record(seed, run, points)
    backend.warm_up(rec)
    for i in range(case.steps - 1, -1, -1):
        assert backend.backward_step(i, rec) == -1
    errs = np.array(backend.errors(rec))  # means of the squared errors and of their squares (ey, ez, ey2, ez2)
    return np.array(backend.coefficients()), errs[:2], errs[2:], backend.fallbacks()


def _paper():
    from srmdp.problems import load_problem

    return load_problem("gobet2016")


@pytest.fixture(scope="module")
def cpu():
    from srmdp.kernels.cpu import CpuBackend

    return CpuBackend(_paper())


def _case(**kw):
    from srmdp.case.cases import Case

    return Case(**kw)


CASES = {
    "LP0_d2": dict(d=2, dt=1 / 3, basis="LP0", cells=3, paths=7),
    "LP0_d1_clamp_6steps": dict(d=1, dt=1 / 6, basis="LP0", cells=5, paths=6, outside="clamp"),
    "LP1_d2": dict(d=2, dt=1 / 3, basis="LP1", cells=2, paths=10),
    "LP1_d3_zero_f32_trunc": dict(
        d=3, dt=0.5, basis="LP1", cells=2, paths=9, outside="zero", precision="float32", trunc_y=0.8, trunc_z=0.3
    ),
    "LP1_d1_M25": dict(d=1, dt=0.25, basis="LP1", cells=8, paths=25, precision="float32"),
    # the martingale control variates: the coefficient add-back in both kernels
    "LP1_d2_mart": dict(d=2, dt=1 / 3, basis="LP1", cells=2, paths=10, z_cv=True, martingale_cv=True),
    "LP0_d2_mart_f32": dict(
        d=2, dt=0.25, basis="LP0", cells=3, paths=7, precision="float32", z_cv=True, martingale_cv=True
    ),
    # the third basis (beyond the paper): nb = 2d + 1, quadratic local coordinates
    "LP2d_d2_zero_trunc": dict(
        d=2, dt=1 / 3, basis="LP2d", cells=2, paths=12, outside="zero", trunc_y=1.0, trunc_z=1.0
    ),
}
RUNS = [
    ("LP0_d2", "thread", 0),
    ("LP0_d2", "block", 4),
    ("LP0_d1_clamp_6steps", "thread", 0),
    ("LP1_d2", "block", 4),
    ("LP1_d3_zero_f32_trunc", "block", 8),
    ("LP1_d1_M25", "block", 8),
    ("LP1_d2_mart", "block", 4),
    ("LP1_d2_mart", "thread", 0),
    ("LP0_d2_mart_f32", "block", 4),
    ("LP2d_d2_zero_trunc", "block", 4),
    ("LP2d_d2_zero_trunc", "thread", 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,mode,block", RUNS, ids=[f"{n}-{m}{b or ''}" for n, m, b in RUNS])
def test_backward_loop_matches_cpu(cpu, name, mode, block):
    from srmdp.kernels.cuda import CudaBackend

    PAPER = _paper()

    case = _case(**CASES[name])
    c_cpu, err_cpu, mom_cpu, fb_cpu = _solve(cpu, case)
    c_gpu, err_gpu, mom_gpu, fb_gpu = _solve(CudaBackend(PAPER, mode=mode, block=block), case)
    assert c_gpu.dtype == c_cpu.dtype and c_gpu.shape == c_cpu.shape
    assert np.isfinite(c_gpu).all() and np.abs(c_gpu).max() > 0
    _agree(c_gpu, c_cpu)
    assert fb_gpu == fb_cpu
    # per-step error means and second moments: sums in another order than numpy's pairwise mean
    np.testing.assert_allclose(err_gpu, err_cpu, rtol=1e-12 if EXACT else 1e-8, atol=1e-15)
    np.testing.assert_allclose(mom_gpu, mom_cpu, rtol=1e-12 if EXACT else 1e-8, atol=1e-20)


def test_launch_shape_does_not_change_results():
    """Streams are keyed per path and every sum runs in path order: B = 3, 8, 32 and one thread per
    stratum give identical coefficients (M = 10 is not a multiple of 3 or 8)."""
    from srmdp.kernels.cuda import CudaBackend

    PAPER = _paper()

    lp1 = _case(d=2, dt=0.5, basis="LP1", cells=2, paths=10)
    ref = _solve(CudaBackend(PAPER, mode="block", block=3), lp1)[0]
    for b in (8, 32):
        got = _solve(CudaBackend(PAPER, mode="block", block=b), lp1)[0]
        assert np.array_equal(got, ref), f"block {b} differs from block 3"
    lp0 = _case(d=2, dt=0.5, basis="LP0", cells=3, paths=10)
    ref = _solve(CudaBackend(PAPER, mode="thread"), lp0)[0]
    for b in (3, 16):
        got = _solve(CudaBackend(PAPER, mode="block", block=b), lp0)[0]
        _agree(got, ref, *((0.0, 0.0) if EXACT else (1e-12, 1e-14)))


@pytest.mark.parametrize("arithmetic", ["float64", "float32"])
def test_padded_shared_rows_do_not_change_results(monkeypatch, arithmetic):
    """The conflict-free strides of the shared-memory rows (srmdp.kernels.cuda_launch.PAD_ROWS: step_thread's per-thread
    rows,
    step_block's tile) only move where values live: the same coefficients bit for bit as the packed rows, in
    either arithmetic and mode (LP1 d=2: thread rows 24 -> 25 doubles, the model's 8-way conflict; tile 6 -> 7)."""
    import srmdp.kernels.cuda as cu
    import srmdp.kernels.cuda_launch as launch

    case = _case(d=2, dt=0.5, basis="LP1", cells=2, paths=10, arithmetic=arithmetic)
    assert launch.thread_row(2, 3, pad=False) == 24 and launch.thread_row(2, 3, pad=True) == 25
    for mode, block in (("thread", 0), ("block", 4)):
        got = {}
        for pad in (False, True):
            monkeypatch.setattr(launch, "PAD_ROWS", pad)
            backend = cu.CudaBackend(_paper(), mode=mode, block=block)
            got[pad] = _solve(backend, case)[0]
            stride = launch.thread_row(2, 3) if mode == "thread" else launch.tile_stride(2, 3)
            assert backend.lay["THREAD_ROW_DOUBLES" if mode == "thread" else "TILE_WIDTH"] == stride
        assert np.abs(got[True]).max() > 0
        _agree(got[True], got[False], 0.0, 0.0)


@pytest.mark.slow
def test_paths_bitwise_per_path(cpu_kernels):
    """The response S_Y,i+1 and Delta W_i of every path (seed, run, i, k, m) as computed by the kernel code
    built for the device equal the CPU's, from the same (random) coefficients, with and without the Z
    control variate."""
    from srmdp.kernels.cuda_launch import case_arg, layout
    from srmdp.numerics.build import current_target, kernels

    case = _case(d=3, dt=0.25, basis="LP1", cells=2, paths=6)
    d, nb = case.d, case.n_basis
    rng = np.random.default_rng(0)
    coef = rng.normal(scale=0.3, size=(case.steps, case.strata, d + 1, nb))
    i = 1
    gpu = kernels(_paper(), "LP1", d, current_target("gpu"), layout(d, nb))
    cpu = kernels(_paper(), "LP1", d, "cpu")
    n = case.strata * case.paths

    def responses(k, z_cv, on_gpu):
        mart = z_cv == "martingale"
        rec = _case(d=3, dt=0.25, basis="LP1", cells=2, paths=6, z_cv=bool(z_cv), martingale_cv=mart).record(5, 1, 0)
        out = np.zeros((n, 2 + d))
        if on_gpu:
            dev = cuda.to_device(out)
            k.path_responses[(n + 31) // 32, 32](coef, np.zeros((1, 1, 1)), i, case_arg(rec), dev)
            return dev.copy_to_host()
        k.path_responses(coef, np.zeros((1, 1, 1)), i, rec, out)
        return out

    for z_cv in (False, True, "martingale"):
        ref = responses(cpu, z_cv, False)
        got = responses(gpu, z_cv, True)
        assert np.isfinite(ref).all() and np.abs(ref).max() > 0
        _agree(got, ref, *((0.0, 0.0) if EXACT else (1e-12, 1e-14)))
    assert not np.array_equal(responses(cpu, True, False)[:, 1], responses(cpu, False, False)[:, 1])
    assert not np.array_equal(responses(cpu, "martingale", False)[:, :2], responses(cpu, True, False)[:, :2])


def test_run_case_gpu_matches_cpu(tmp_path):
    """The whole solver (two runs, errors on the device, result JSON) with device='gpu'."""
    from srmdp.runs.run import run_case

    case = _case(d=2, dt=0.5, basis="LP1", cells=2, paths=6)
    res_cpu = run_case(case, runs=2, test_points=20, seed=4, device="cpu", progress=False)
    res_gpu = run_case(case, runs=2, test_points=20, seed=4, device="gpu", progress=False)
    assert res_gpu["device"] == "gpu"
    hw = res_gpu["provenance"]["hardware"]
    assert hw["device"] == "gpu" and hw["model"] and hw["kernel_mode"] in ("thread", "block")
    for key in ("mse_y_max", "mse_y_av", "mse_z_av"):
        assert math.isclose(res_gpu[key], res_cpu[key], rel_tol=1e-10, abs_tol=1e-12), key
    np.testing.assert_allclose(res_gpu["per_run"]["ey"], res_cpu["per_run"]["ey"], rtol=1e-10)
    # the device memory: the model, and the measured arrays (+ the step kernel's local memory on a GPU), which
    # hold at least what the model counts exactly: coefficients, the test-point errors and their per-step means
    from srmdp.case.memory import coefficient_bytes, variance_bytes
    from srmdp.kernels.cuda import SIMULATOR, device_bytes

    assert res_gpu["gpu_model_bytes"] == device_bytes(case, 20, hw["kernel_mode"], hw["multiprocessors"])
    arrays = coefficient_bytes(case) + variance_bytes(case) + 8 * (2 * case.steps * 20 + 4 * case.steps) + 8 * 2
    # (+ the 2 counters; the curvature correction's variances are a 1-element placeholder when it is off)
    assert res_gpu["gpu_used_bytes"] == arrays if SIMULATOR else res_gpu["gpu_used_bytes"] >= arrays
    assert res_gpu["gpu_used_bytes"] <= res_gpu["gpu_model_bytes"] and "gpu_used_bytes" not in res_cpu


def test_nonfinite_coefficient_is_reported():
    """A float32 coefficient that overflows is reported as the first bad stratum."""
    from srmdp.kernels.cuda import CudaBackend

    PAPER = _paper()

    case = _case(d=1, dt=0.5, basis="LP0", cells=2, paths=3, precision="float32")
    b = CudaBackend(PAPER, mode="block", block=2)
    b.allocate(case)
    rec = case.record(0, 0, 4)
    rec[0].dt = 1e-300  # dt so small that S_Z = S_Y dW / dt overflows float32 (not float64)
    rec[0].sqdt = math.sqrt(1e-300)
    b.warm_up(rec)
    assert b.backward_step(case.steps - 1, rec) == 0


# the curvature correction (srmdp.problems.curvature): problems curved in z (driver_zz given) and in y (driver_yy
# given), and
# the paper's driver through central differences in float32 arithmetic
CURVED = [
    ("quadratic_z", dict(d=2, dt=1 / 3, basis="LP1", cells=2, paths=10, z_cv=True), "block", 4),
    ("quadratic_z", dict(d=2, dt=1 / 3, basis="LP1", cells=2, paths=10, z_cv=True), "thread", 0),
    ("reaction_diffusion", dict(d=2, dt=1 / 3, basis="LP0", cells=3, paths=7), "block", 4),
    ("gobet2016", dict(d=1, dt=0.25, basis="LP1", cells=4, paths=9, arithmetic="float32"), "block", 8),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,kw,mode,block", CURVED, ids=[f"{n}-{m}{b or ''}" for n, _, m, b in CURVED])
def test_curvature_correction_matches_cpu(name, kw, mode, block):
    """With the correction the GPU's kernels (variances from the owned sums of squares in block mode, pass 2's
    variance of y_{i+1} replayed) give the CPU's coefficients and variances; and the correction moves them (a
    curved driver)."""
    import dataclasses

    from srmdp.kernels.cpu import CpuBackend
    from srmdp.kernels.cuda import CudaBackend
    from srmdp.problems import load_problem

    problem = load_problem(name)
    case = _case(problem=name, curvature_correction=True, **kw)
    cpu = CpuBackend(problem)
    c_cpu = _solve(cpu, case)[0]
    gpu = CudaBackend(problem, mode=mode, block=block)
    c_gpu = _solve(gpu, case)[0]
    _agree(c_gpu, c_cpu, *((0.0, 0.0) if EXACT else (1e-8, 1e-10)))
    _agree(gpu.cvar.copy_to_host(), cpu.cvar, *((0.0, 0.0) if EXACT else (1e-8, 1e-12)))
    if name != "gobet2016":  # (its driver is bilinear: second differences of rounding size only)
        off = _solve(CpuBackend(problem), dataclasses.replace(case, curvature_correction=False))[0]
        assert not np.array_equal(off, c_cpu)
