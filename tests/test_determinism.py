"""Determinism: same seed => bit-identical per-run errors and aggregate whatever the thread count and
however the runs are split into chunks; different seeds, runs, time steps, strata and paths =>
different streams; the counter layout's fields hold the largest paper case, and validation refuses
any case that would overflow a field (where the counter would wrap onto another stream).

All runs share one JIT compile (in-process API calls; thread counts via numba.set_num_threads).
"""

import itertools
import math
from pathlib import Path

import numba
import numpy as np
import pytest
import yaml
from numba import njit

from srmdp.case.cases import Case, check_seed_run
from srmdp.case.results import write_json_atomic
from srmdp.exceptions import ConfigError
from srmdp.numerics.rng import DOMAIN_PATHS, DOMAIN_TEST, PATH_BITS, RUN_BITS, SEED_BITS, STEP_BITS, STRATUM_BITS
from srmdp.paper.inputs.rows import paper_rows
from srmdp.runs.aggregate import aggregate
from srmdp.runs.run import run_case, validate_run

ROOT = Path(__file__).resolve().parent.parent
CASE = Case(d=2, dt=0.25, basis="LP1", cells=4, paths=8)  # K = 16 strata, N = 4 steps
SEED, RUNS, POINTS = 7, 4, 64
SCIENCE = (
    "mse_y_max",
    "mse_y_av",
    "mse_z_av",
    "mse_y_max_se",
    "mse_y_av_se",
    "mse_z_av_se",
    "literal_y_max",
    "literal_y_av",
    "literal_z_av",
    "per_step_y",
    "per_step_z",
    "case_hash",
)


@pytest.fixture(scope="module")
def restore_threads():
    yield
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@pytest.fixture(scope="module")
def reference(restore_threads):
    """R runs in one chunk on one thread."""
    return run_case(CASE, runs=RUNS, test_points=POINTS, seed=SEED, threads=1)


def _same(a, b):
    assert a["per_run"] == b["per_run"]  # lists of Python floats: bit-identical or not equal
    for key in SCIENCE:
        assert a[key] == b[key], key


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs NUMBA_NUM_THREADS >= 2")
def test_thread_count_does_not_change_anything(reference):
    two = run_case(CASE, runs=RUNS, test_points=POINTS, seed=SEED, threads=2)
    assert two["provenance"]["hardware"]["threads"] == 2
    assert reference["provenance"]["hardware"]["threads"] == 1
    _same(reference, two)


@pytest.mark.parametrize("split", [(1, 3), (2, 2), (1, 1, 1, 1)])
def test_chunking_does_not_change_the_aggregate(reference, tmp_path, split):
    paths, start = [], 0
    for j, runs in enumerate(split):
        threads = 1 + j % min(2, numba.config.NUMBA_NUM_THREADS)  # mix thread counts across chunks too
        res = run_case(CASE, runs=runs, run_start=start, test_points=POINTS, seed=SEED, threads=threads)
        paths.append(tmp_path / f"chunk-{j}.json")
        write_json_atomic(paths[-1], res)
        start += runs
    whole = tmp_path / "whole.json"
    write_json_atomic(whole, reference)
    # given in any order, the chunks aggregate to the one-chunk result, bit for bit
    _same(aggregate(paths[::-1], expect_runs=RUNS), aggregate([whole], expect_runs=RUNS))
    _same(aggregate(paths, expect_runs=RUNS), reference)


def test_different_seeds_and_runs_give_different_streams(reference):
    other = run_case(CASE, runs=2, test_points=POINTS, seed=SEED + 1, threads=1)
    ey = np.array(reference["per_run"]["ey"])
    ey_other = np.array(other["per_run"]["ey"])
    # runs of one seed differ from each other, and from the runs of another seed, at every time step
    rows = list(ey) + list(ey_other)
    for a, b in itertools.combinations(range(len(rows)), 2):
        assert np.all(rows[a] != rows[b]), (a, b)


# --- the counter layout against the largest paper case --------------------------------------------
def _paper_preset_runs():
    runs = [1000]  # the paper's 10^3 runs
    path = ROOT / "config" / "paper.yaml"
    if path.exists():
        cfg = yaml.safe_load(path.read_text()) or {}
        runs.append(int(cfg.get("runs", 0) or 0))
        runs += [int(c.get("runs", 0) or 0) for c in cfg.get("cases", []) if isinstance(c, dict)]
        if "timing" in cfg and isinstance(cfg["timing"], dict):
            runs.append(int(cfg["timing"].get("runs", 0) or 0))
    return max(runs)


def test_counter_fields_hold_the_largest_paper_case():
    rows = paper_rows()
    max_m = max(r["M"] for r in rows)
    max_k = max(r["K"] for r in rows)
    max_n = max(round(1 / r["dt"]) for r in rows)
    runs = _paper_preset_runs()
    test_points = 1000
    assert (max_m, max_k, max_n) == (17500, 4194304, 50)  # LP1d6_1 dt=0.02; LP0d11 dt=0.05; dt=0.02
    # every index a stream is keyed by fits its field: paths m < M and test points p < P share the path
    # field, strata k < K, time steps i < N, runs r < R (with room for chunk offsets), seeds < 2^63
    assert max(max_m, test_points) <= 2**PATH_BITS
    assert max_k <= 2**STRATUM_BITS
    assert max_n <= 2**STEP_BITS
    assert runs <= 2**RUN_BITS
    assert PATH_BITS + STRATUM_BITS + STEP_BITS + RUN_BITS == 128  # the four 32-bit Philox counter words
    assert SEED_BITS + 1 == 64  # two 32-bit key words: seed and the domain bit (paths / test points)
    # and every paper case passes the validation that guards those fields
    for r in rows:
        case = Case(d=r["d"], dt=r["dt"], basis=r["basis"], cells=r["cells"], paths=r["M"])
        validate_run(case, runs=runs, run_start=0, test_points=test_points, seed=2**63 - 1, device="cpu")
    # headroom: the largest case is far from every limit
    assert math.log2(max_k) < STRATUM_BITS - 20 and math.log2(max_m) < PATH_BITS - 16
    assert max_n < 2 ** (STEP_BITS - 8) and runs < 2 ** (RUN_BITS - 16)


@pytest.fixture(scope="module")
def states(cpu_kernels):
    seed_stream = cpu_kernels.seed_stream

    @njit
    def states(keys):
        out = np.empty((keys.shape[0], 2), np.uint64)
        st = np.empty(2, np.uint64)
        for j in range(keys.shape[0]):
            seed_stream(st, keys[j, 0], keys[j, 1], keys[j, 2], keys[j, 3], keys[j, 4], keys[j, 5])
            out[j, 0] = st[0]
            out[j, 1] = st[1]
        return out

    return lambda keys: states(np.asarray(keys, dtype=np.int64))


def test_streams_are_distinct_over_the_largest_case(states):
    """Distinct (seed, domain, run, step, stratum, path) inside the field ranges never share a stream:
    boundary values of every field (0, 1, the largest paper value, the field maximum) in all
    combinations, plus random keys of the largest case."""
    edges = {
        "seed": [0, 1, 2016, 2**32, 2**63 - 1],
        "domain": [DOMAIN_PATHS, DOMAIN_TEST],
        "run": [0, 1, 999, 2**32 - 1],
        "step": [0, 1, 49, 2**16 - 1],
        "stratum": [0, 1, 2**32 - 1, 2**32, 4194303, 2**48 - 1],
        "path": [0, 1, 17499, 2**32 - 1],
    }
    keys = list(itertools.product(*edges.values()))
    rng = np.random.default_rng(5)
    n = 20000
    keys += list(
        zip(
            rng.integers(0, 2**63 - 1, n),
            rng.integers(0, 2, n),
            rng.integers(0, 1000, n),
            rng.integers(0, 50, n),
            rng.integers(0, 4194304, n),
            rng.integers(0, 17500, n),
            strict=True,
        )
    )
    keys = np.array(sorted(set(map(tuple, np.array(keys, dtype=np.int64).tolist()))), dtype=np.int64)
    out = states(keys)
    assert len({(int(a), int(b)) for a, b in out}) == len(keys)


@pytest.mark.parametrize(
    "field, limit, index",
    [("path", 2**PATH_BITS, 5), ("stratum", 2**STRATUM_BITS, 4), ("step", 2**STEP_BITS, 3), ("run", 2**RUN_BITS, 2)],
)
def test_an_overflowing_index_would_reuse_a_stream(states, field, limit, index):
    """Why the limits matter: one past a field's range wraps onto stream 0 of that field."""
    base = [2016, 0, 3, 2, 5, 7]
    over = list(base)
    base[index] = 0
    over[index] = limit
    a, b = states([base, over])
    assert tuple(a) == tuple(b), field


def test_validation_refuses_every_overflowing_case():
    with pytest.raises(ConfigError, match=r"invalid cells=.*2\^48"):
        Case(d=3, dt=0.2, basis="LP0", cells=2**16, paths=5)  # K = 2^48
    Case(d=3, dt=0.2, basis="LP0", cells=2**16 - 1, paths=5)  # K < 2^48 is fine (the memory model decides)
    with pytest.raises(ConfigError, match=r"invalid paths=.*2\^32"):
        Case(d=1, dt=0.2, basis="LP0", cells=2, paths=2**32)
    with pytest.raises(ConfigError, match=r"invalid dt=.*2\^16"):
        Case(d=1, dt=1 / 2**16, basis="LP0", cells=2, paths=5)
    Case(d=1, dt=1 / (2**16 - 1), basis="LP0", cells=2, paths=5)
    with pytest.raises(ConfigError, match="invalid run_start="):
        check_seed_run(0, 2**32 - 10, 11)  # runs 2^32-10 .. 2^32 (one too many)
    check_seed_run(0, 2**32 - 10, 10)
    with pytest.raises(ConfigError, match="invalid seed="):
        check_seed_run(2**63, 0)
    with pytest.raises(ConfigError, match="invalid test_points="):
        validate_run(CASE, runs=1, run_start=0, test_points=2**32, seed=0, device="cpu")
