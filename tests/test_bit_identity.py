"""Numbers unchanged by refactors: coefficients and per-run errors of 16 CPU cases, bit for bit.

The fingerprints in ``tests/data/bit_identity.json`` were made by the code of commit 5bf9d10 (before
the kernel-layer redesign) with ``python tests/test_bit_identity.py --regenerate``; a change of the
numbers must regenerate them and say so in its commit.  The cases cover the three ``outside``
readings, both precisions, truncation, LP0/LP1 and d = 1..13 (d > 12: the generic, non-specialised
compilation), on 2 threads.
"""

import hashlib
import json
import math
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

REFERENCE = Path(__file__).resolve().parent / "data" / "bit_identity.json"
INF = math.inf
# (d, dt, basis, #C, M, outside, trunc_y, trunc_z, precision)
CASES = [
    (1, 0.25, "LP0", 5, 20, "unbounded", INF, INF, "float64"),
    (1, 0.25, "LP1", 4, 16, "zero", INF, INF, "float64"),
    (2, 0.2, "LP0", 6, 30, "clamp", INF, INF, "float64"),
    (2, 0.25, "LP1", 4, 12, "unbounded", INF, INF, "float32"),
    (3, 0.2, "LP0", 4, 20, "zero", 1.0, 1.0, "float32"),
    (3, 0.2, "LP1", 3, 16, "clamp", 1.0, 0.5, "float64"),
    (4, 0.1, "LP0", 4, 16, "unbounded", INF, INF, "float64"),
    (4, 0.2, "LP1", 3, 20, "zero", 1.0, 1.0, "float64"),
    (5, 0.25, "LP0", 3, 10, "clamp", INF, INF, "float32"),
    (6, 0.25, "LP1", 2, 20, "unbounded", INF, INF, "float64"),
    (7, 0.5, "LP0", 2, 8, "zero", INF, INF, "float64"),
    (8, 0.5, "LP1", 2, 12, "clamp", 1.0, 1.0, "float32"),
    (11, 0.5, "LP0", 2, 4, "unbounded", INF, INF, "float64"),
    (12, 0.5, "LP1", 2, 14, "zero", 1.0, 1.0, "float64"),
    (13, 0.5, "LP1", 2, 16, "unbounded", INF, INF, "float64"),
    (13, 0.5, "LP0", 2, 4, "clamp", 1.0, 1.0, "float32"),
]
SEED, RUNS, POINTS = 11, 2, 50


def _digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def fingerprint(spec, threads=2):
    from srmdp.case.cases import Case
    from srmdp.kernels.cpu import CpuBackend
    from srmdp.runs.run import run_case

    d, dt, basis, cells, paths, outside, ly, lz, precision = spec
    case = Case(
        d=d, dt=dt, basis=basis, cells=cells, paths=paths, outside=outside, trunc_y=ly, trunc_z=lz, precision=precision
    )
    backend = CpuBackend(_problem(), threads=threads)
    res = run_case(case, runs=RUNS, test_points=POINTS, seed=SEED, threads=threads, backend=backend)
    ey = np.array(res["per_run"]["ey"])
    ez = np.array(res["per_run"]["ez"])
    return {"coef": _digest(backend.coef), "errors": _digest(ey, ez)}


def _problem():
    from srmdp.problems import load_problem

    return load_problem("gobet2016")


def _key(spec):
    return "d{}_dt{}_{}_C{}_M{}_{}_y{}_z{}_{}".format(*spec)


@pytest.mark.slow
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs NUMBA_NUM_THREADS >= 2")
@pytest.mark.parametrize("spec", CASES, ids=_key)
def test_bit_identical_to_reference(spec):
    ref = json.loads(REFERENCE.read_text())["cases"][_key(spec)]
    try:
        assert fingerprint(spec) == ref
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


if __name__ == "__main__" and "--regenerate" in sys.argv:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    out = {
        "made_by": sys.argv[sys.argv.index("--regenerate") + 1] if len(sys.argv) > 2 else "?",
        "seed": SEED,
        "runs": RUNS,
        "test_points": POINTS,
        "cases": {_key(s): fingerprint(s) for s in CASES},
    }
    REFERENCE.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {REFERENCE}")
