"""Random streams: Philox known answers through the counter layout, and the law of the draws."""

import numpy as np
import pytest
from numba import njit
from scipy import stats


def _state(k, seed, domain, run, step, stratum, path):
    st = np.zeros(2, np.uint64)
    k.seed_stream(st, seed, domain, run, step, stratum, path)
    return st


def _words(st):
    return [int(st[0]) & 0xFFFFFFFF, int(st[0]) >> 32, int(st[1]) & 0xFFFFFFFF, int(st[1]) >> 32]


# Random123 tests/kat_vectors, the three "philox4x32 10" lines (counter[4], key[2] -> result[4]),
# mapped onto the layout c0 = path, c1|c2 = stratum (48 bits) | step << 16, c3 = run,
# k0|k1 = seed (63 bits) | domain << 31.
def test_philox_known_answers(cpu_kernels):
    assert _words(_state(cpu_kernels, 0, 0, 0, 0, 0, 0)) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert _words(_state(cpu_kernels, 2**63 - 1, 1, 0xFFFFFFFF, 0xFFFF, 2**48 - 1, 0xFFFFFFFF)) == [
        0x408F276D,
        0x41C83B0E,
        0xA20BC7C6,
        0x6D5451FD,
    ]
    st = _state(cpu_kernels, 0x299F31D0A4093822, 0, 0x03707344, 0x1319, 0x8A2E85A308D3, 0x243F6A88)
    assert _words(st) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


@pytest.fixture(scope="module")
def draws(cpu_kernels):
    seed_stream, normal, uniform = cpu_kernels.seed_stream, cpu_kernels.normal, cpu_kernels.uniform

    @njit
    def sample(n_streams, per_stream):
        out_n = np.empty(n_streams * per_stream)
        out_u = np.empty(n_streams * per_stream)
        st = np.empty(2, np.uint64)
        for s in range(n_streams):
            seed_stream(st, 12345, 0, 3, 2, s, 7)
            for j in range(per_stream):
                out_n[s * per_stream + j] = normal(st)
                out_u[s * per_stream + j] = uniform(st)
        return out_n, out_u

    return sample(4000, 50)


def test_normals_are_standard_normal(draws):
    z, _ = draws
    # 2e5 draws from 4000 streams: KS at the 1e-3 level; moments within 5 standard errors
    # (se of the mean 1/sqrt(n), of the variance sqrt(2/n), of the 4th moment sqrt(96/n)).
    n = z.size
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 5 / np.sqrt(n)
    assert abs(z.var() - 1) < 5 * np.sqrt(2 / n)
    assert abs(np.mean(z**4) - 3) < 5 * np.sqrt(96 / n)
    # the ziggurat tail beyond R = 3.44: P(|Z| > 3.5) = 4.65e-4, binomial s.e.
    p = 2 * stats.norm.sf(3.5)
    assert abs(np.mean(np.abs(z) > 3.5) - p) < 5 * np.sqrt(p / n)


def test_uniforms_in_open_closed_unit_interval(draws):
    _, u = draws
    assert u.min() > 0.0 and u.max() <= 1.0
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_streams_differ_in_every_field(cpu_kernels):
    base = dict(seed=1, domain=0, run=0, step=0, stratum=0, path=0)
    ref = _words(_state(cpu_kernels, **base))
    for field in base:
        other = dict(base)
        other[field] = 1 if field != "seed" else 2
        assert _words(_state(cpu_kernels, **other)) != ref, field
