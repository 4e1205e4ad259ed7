"""Bad input: every invalid config or CLI argument is refused before any compute.

Property-based (hypothesis): start from a valid small case, break exactly one field with a value drawn
from that field's invalid set, and check that ``srmdp run`` exits with status 2, writes exactly one
line ``srmdp: error: ...`` naming the field on stderr (no traceback), writes no result file, and never
reaches the compute (the backend factory is patched to fail the test if it is called, so nothing
is compiled either).  The same for :class:`srmdp.Case` and :func:`srmdp.run_case` through the API.

Process-level checks (subprocesses, each well under the ~10 s a JIT compile would take): a GPU run
on a machine without a GPU (NUMBA_ENABLE_CUDASIM removed from the environment), a case over
SRMDP_MEMORY_LIMIT, an unparsable SRMDP_MEMORY_LIMIT and a few plain invalid arguments.
"""

import contextlib
import io
import math
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from unittest import mock

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import srmdp.runs.run
from srmdp.case.cases import Case
from srmdp.cli.commands import main
from srmdp.exceptions import ConfigError
from srmdp.paper.inputs.rows import TABLE_ALIASES, PaperCase, table_ids

ROOT = Path(__file__).resolve().parent.parent
MAX_THREADS = numba.config.NUMBA_NUM_THREADS
SETTINGS = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

# --- a valid base case (small: passes the memory model) --------------------------------------------
valid_base = st.fixed_dictionaries(
    {
        "d": st.integers(1, 4),
        "dt": st.sampled_from([1.0, 0.5, 0.25, 0.2]),
        "basis": st.sampled_from(["LP0", "LP1"]),
        "cells": st.integers(1, 4),
        "seed": st.integers(0, 2**63 - 1),
        "runs": st.integers(1, 5),
        "test_points": st.integers(1, 100),
    }
).map(lambda b: {**b, "paths": (b["d"] + 1 if b["basis"] == "LP1" else 1) + 3})

not_an_int = st.sampled_from(["x", "1.5", "", "1e3", "0x10", "--", "nan", "three"])
not_a_number = st.sampled_from(["x", "", "1,5", "one", "--", "0.2.1"])


def _bad_dt():
    not_dividing = st.floats(0.003, 3.0).filter(lambda x: abs(1 / x - round(1 / x)) > 1e-6 or round(1 / x) < 1)
    return st.one_of(
        not_dividing.map(repr),
        st.floats(max_value=0.0, allow_nan=False).map(repr),
        st.sampled_from(["nan", "inf", "-inf", "1e-300", "1e-6"]),  # 1e-6: N = 10^6 overflows the step field
        not_a_number,
    )


# field -> (strategy of invalid CLI text, keywords one of which the message must contain)
BAD_CLI = {
    "d": (st.one_of(st.integers(max_value=0).map(str), not_an_int), ("d=", "--d")),
    "dt": (_bad_dt(), ("dt=", "--dt")),
    "basis": (
        st.text(min_size=1, max_size=6).filter(lambda s: s not in ("LP0", "LP1") and not s.startswith("-")),
        ("--basis",),
    ),
    "cells": (st.one_of(st.integers(max_value=0).map(str), not_an_int), ("cells=", "--cells")),
    "paths": (None, ("paths=", "--paths")),  # depends on the basis: drawn in the test
    "runs": (st.one_of(st.integers(max_value=0).map(str), not_an_int), ("runs=", "--runs")),
    "run-start": (st.one_of(st.integers(max_value=-1).map(str), st.just(str(2**32))), ("run_start=", "--run-start")),
    "seed": (st.one_of(st.integers(max_value=-1), st.integers(min_value=2**63)).map(str), ("seed=", "--seed")),
    "test-points": (
        st.one_of(st.integers(max_value=0).map(str), st.just(str(2**32))),
        ("test_points=", "--test-points"),
    ),
    "threads": (
        st.one_of(st.integers(max_value=0), st.integers(min_value=MAX_THREADS + 1)).map(str),
        ("threads=", "--threads"),
    ),
    "outside": (st.sampled_from(["none", "Zero", "", "unbounded "]), ("--outside",)),
    "precision": (st.sampled_from(["float16", "double", "f32", ""]), ("--precision",)),
    "trunc-y": (
        st.one_of(st.floats(max_value=0.0, allow_nan=False).map(repr), st.just("nan"), not_a_number),
        ("trunc_y=", "--trunc-y"),
    ),
    "trunc-z": (
        st.one_of(st.floats(max_value=0.0, allow_nan=False).map(repr), st.just("-inf")),
        ("trunc_z=", "--trunc-z"),
    ),
    "table": (
        st.text(alphabet="LPd0123456789_xyz", min_size=1, max_size=10).filter(
            lambda t: t not in table_ids() and t not in TABLE_ALIASES
        ),
        ("table=",),
    ),
    "memory": (st.integers(1, 10**4).map(str), ("GiB", "memory")),  # SRMDP_MEMORY_LIMIT bytes < any case
}


def _argv(base, out):
    return [
        "run",
        "--d",
        str(base["d"]),
        "--dt",
        repr(base["dt"]),
        "--basis",
        base["basis"],
        "--cells",
        str(base["cells"]),
        "--paths",
        str(base["paths"]),
        "--runs",
        str(base["runs"]),
        "--seed",
        str(base["seed"]),
        "--test-points",
        str(base["test_points"]),
        "--out",
        str(out),
    ]


def _set(argv, flag, value):
    argv = list(argv)
    if f"--{flag}" in argv:
        argv[argv.index(f"--{flag}") + 1] = value
    else:
        argv[1:1] = [f"--{flag}", value]
    return argv


def _no_compute(*args, **kwargs):
    raise AssertionError("compute started: the backend was requested after validation")


def run_cli(argv, env=None):
    """main(argv) in-process with the backend factory disarmed; returns (status, stderr)."""
    err = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(srmdp.runs.run, "make_backend", _no_compute))
        stack.enter_context(mock.patch.dict(os.environ, env or {}))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse
            status = exc.code
    return status, err.getvalue()


def assert_clean_refusal(status, stderr, keywords, out):
    assert status == 2, (status, stderr)
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and stderr.endswith("\n"), repr(stderr)
    assert lines[0].startswith("srmdp: error: "), lines[0]
    assert any(k in lines[0] for k in keywords), (keywords, lines[0])
    out = Path(out)
    assert not out.exists()
    assert not out.parent.exists() or not list(out.parent.glob(f".{out.name}.*")), "temp file left behind"


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cli-out")


def test_the_valid_base_passes_validation(outdir):
    # the property tests below mean something only if the unbroken base gets to the compute
    argv = _argv(
        {"d": 2, "dt": 0.5, "basis": "LP1", "cells": 2, "paths": 6, "runs": 1, "seed": 0, "test_points": 10},
        outdir / "base.json",
    )
    with pytest.raises(AssertionError, match="compute started"):
        with mock.patch.object(srmdp.runs.run, "make_backend", _no_compute):
            main(argv)
    assert not (outdir / "base.json").exists()


@SETTINGS
@given(base=valid_base, field=st.sampled_from(sorted(BAD_CLI)), data=st.data())
def test_invalid_cli_argument_is_refused_before_compute(outdir, base, field, data):
    out = outdir / "sub" / "result.json"
    argv = _argv(base, out)
    env = None
    strategy, keywords = BAD_CLI[field]
    if field == "paths":
        need = base["d"] + 1 if base["basis"] == "LP1" else 1
        value = data.draw(st.one_of(st.integers(max_value=need - 1).map(str), st.just(str(2**32)), not_an_int))
        argv = _set(argv, "paths", value)
    elif field == "table":
        value = data.draw(strategy)
        argv = ["run", "--table", value, "--dt", "0.2", "--out", str(out)]
    elif field == "memory":
        env = {"SRMDP_MEMORY_LIMIT": data.draw(strategy)}
    else:
        value = data.draw(strategy)
        argv = _set(argv, field, value)
    if field == "run-start":
        assume(int(value) < 0 or int(value) + base["runs"] > 2**32)
    status, stderr = run_cli(argv, env)
    assert_clean_refusal(status, stderr, keywords, out)


@pytest.mark.parametrize(
    "argv, keywords",
    [
        (["run", "--table", "LP0d4", "--dt", "0.3"], ("dt=",)),  # no such row: allowed values listed
        (["run", "--table", "LP0d4", "--row", "9"], ("row=",)),
        (["run", "--table", "LP0d4", "--row", "1", "--dt", "0.1"], ("row=",)),  # row and dt disagree
        (["run", "--table", "LP1d13", "--dt", "0.2"], ("--row",)),  # ambiguous: rows listed
        (["run", "--table", "LP0d4", "--dt", "0.2", "--d", "3"], ("--d",)),  # table and free form mixed
        (["run", "--table", "LP0d4", "--dt", "0.2", "--problem", "hjb_lq"], ("gobet2016", "hjb_lq")),  # not its problem
        (["run", "--d", "2", "--dt", "0.5", "--basis", "LP0"], ("--cells", "--paths")),  # missing fields
        (["run", "--d", "2", "--dt", "0.5", "--basis", "LP0", "--cells", "2", "--paths", "2", "--row", "1"], ("row=",)),
        (["run", "--table", "LP0d4", "--dt", "0.2", "--device", "tpu"], ("--device",)),
        (["run", "--table", "LP0d4", "--dt", "0.2", "--bogus", "1"], ("--bogus",)),
        (["run", "--table", "LP0d4", "--dt", "0.2"], ("--out",)),  # --out missing
        (["walk"], ("walk",)),
        (["cases", "--table", "LP9d9"], ("table=",)),
    ],
)
def test_invalid_argument_examples(outdir, argv, keywords):
    out = outdir / "ex" / "r.json"
    if "--out" not in argv and argv[0] == "run" and keywords != ("--out",):
        argv = argv + ["--out", str(out)]
    status, stderr = run_cli(argv)
    assert_clean_refusal(status, stderr, keywords, out)


def test_output_path_is_checked_before_compute(outdir):
    blocker = outdir / "a-file"
    blocker.write_text("x")
    for out in (blocker / "r.json", outdir):  # under a file; a directory
        status, stderr = run_cli(["run", "--table", "LP0d4", "--dt", "0.2", "--out", str(out)])
        assert status == 2 and stderr.startswith("srmdp: error: invalid out=") and len(stderr.splitlines()) == 1
    assert blocker.read_text() == "x"


# --- the API: Case fields and run_case arguments ------------------------------------------------
BAD_CASE = {
    "d": st.one_of(st.integers(max_value=0), st.just(2.0), st.just(True), st.just("2"), st.none()),
    "dt": st.one_of(
        st.floats(max_value=0.0),
        st.just(math.nan),
        st.just(math.inf),
        st.just(0.3),
        st.just(0.15),
        st.just(True),
        st.just("0.2"),
        st.just(1e-6),
        st.just(5e-324),
    ),
    "basis": st.text(max_size=4).filter(lambda s: s not in ("LP0", "LP1")),
    "cells": st.one_of(st.integers(max_value=0), st.just(2.5), st.just(False), st.just(np.int64(2**24))),
    "paths": st.one_of(st.integers(max_value=0), st.just(2**32), st.just(3.0)),
    "outside": st.sampled_from(["inside", "", None]),
    "trunc_y": st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just("1")),
    "trunc_z": st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just(True)),
    "precision": st.sampled_from(["float16", "single", None]),
    "maturity": st.one_of(st.floats(max_value=0.0), st.just(math.inf), st.just(math.nan)),
    "half_width": st.one_of(st.floats(max_value=0.0), st.floats(min_value=700.5), st.just(math.nan)),
    "problem": st.sampled_from(["heat", "", "GOBET2016"]),
}
# the name of a paper row's case (srmdp.paper.inputs.rows.PaperCase; Case itself has none)
BAD_NAME = {
    "row": st.one_of(st.integers(max_value=-1), st.just(1.0), st.just(True)),
    "table": st.one_of(st.integers(), st.none(), st.just("")),
}


@SETTINGS
@given(
    d=st.integers(1, 3), basis=st.sampled_from(["LP0", "LP1"]), field=st.sampled_from(sorted(BAD_CASE)), data=st.data()
)
def test_invalid_case_field_raises_config_error_naming_it(d, basis, field, data):
    kwargs = dict(d=d, dt=0.25, basis=basis, cells=2, paths=d + 2)
    value = data.draw(BAD_CASE[field])
    if field == "cells" and isinstance(value, np.integer):
        kwargs["d"] = 3  # (2^24)^3 >= 2^48 strata
    kwargs[field] = value
    with pytest.raises(ConfigError) as info:
        Case(**kwargs)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"invalid {field}="), msg


@SETTINGS
@given(field=st.sampled_from(sorted(BAD_NAME)), data=st.data())
def test_invalid_paper_case_name_raises_config_error_naming_it(field, data):
    kwargs = dict(d=1, dt=0.25, basis="LP0", cells=2, paths=3, table="LP0d4", row=1)
    kwargs[field] = data.draw(BAD_NAME[field])
    with pytest.raises(ConfigError) as info:
        PaperCase(**kwargs)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"invalid {field}="), msg


def test_paths_below_the_lp1_dimension():
    with pytest.raises(ConfigError, match=r"invalid paths=4: M must be an integer >= 5 \(the LP1 dimension"):
        Case(d=4, dt=0.2, basis="LP1", cells=3, paths=4)
    Case(d=4, dt=0.2, basis="LP1", cells=3, paths=5)


BAD_RUN = {
    "runs": st.one_of(st.integers(max_value=0), st.just(1.0), st.just(True)),
    "run_start": st.one_of(st.integers(max_value=-1), st.just(2**32)),
    "seed": st.one_of(st.integers(max_value=-1), st.integers(min_value=2**63), st.just(1.5), st.just(None)),
    "test_points": st.one_of(st.integers(max_value=0), st.just(2**32), st.just(10.0)),
    "device": st.sampled_from(["tpu", "GPU", "", None]),
    "threads": st.one_of(st.integers(max_value=0), st.integers(min_value=MAX_THREADS + 1), st.just(1.0)),
}


@SETTINGS
@given(field=st.sampled_from(sorted(BAD_RUN)), data=st.data())
def test_invalid_run_argument_raises_before_compute(field, data):
    case = Case(d=2, dt=0.5, basis="LP1", cells=2, paths=6)
    kwargs = dict(runs=2, run_start=0, test_points=10, seed=1, device="cpu", threads=None)
    kwargs[field] = data.draw(BAD_RUN[field])
    with mock.patch.object(srmdp.runs.run, "make_backend", _no_compute):
        with pytest.raises(ConfigError) as info:
            srmdp.runs.run.run_case(case, **kwargs)
    assert str(info.value).startswith(f"invalid {field}="), str(info.value)


def test_memory_model_over_the_limit_is_refused_in_process():
    case = Case(d=4, dt=0.2, basis="LP0", cells=8, paths=25)
    with mock.patch.dict(os.environ, {"SRMDP_MEMORY_LIMIT": "1K"}):
        with mock.patch.object(srmdp.runs.run, "make_backend", _no_compute):
            with pytest.raises(ConfigError, match=r"needs .* GiB .* but only 0\.00 GiB of host memory"):
                srmdp.runs.run.run_case(case, runs=1)


@pytest.mark.parametrize(
    "text, expected",
    [("123", 123), ("1e9", 10**9), ("512M", 512 * 2**20), ("4G", 4 * 2**30), ("4GiB", 4 * 2**30), (" 2 kb", 2048)],
)
def test_memory_limit_units(text, expected):
    from srmdp.case.memory import parse_bytes

    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["lots", "-1", "0", "4X", "nan", "inf", "G"])
def test_memory_limit_garbage(text):
    from srmdp.case.memory import parse_bytes

    with pytest.raises(ConfigError, match="invalid SRMDP_MEMORY_LIMIT="):
        parse_bytes(text)


# --- process level: what a user or the workflow sees ----------------------------------------------
def _srmdp(args, env_update=None, drop=(), timeout=60):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if "--out" in args:  # a kernel cache of its own, next to the output: what the process compiled is seen there
        env["SRMDP_KERNEL_CACHE"] = str(Path(args[args.index("--out") + 1]).parent / "kernel-cache")
    env.update(env_update or {})
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "srmdp", *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT
    )
    return proc, time.perf_counter() - t0


def _gpu_present():
    code = "from numba import cuda; import sys; sys.exit(0 if cuda.is_available() else 1)"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60).returncode == 0


def _assert_process_refusal(proc, seconds, keywords, out):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    assert_clean_refusal(proc.returncode, proc.stderr, keywords, out)
    # refused before any kernel was built or compiled: the process's own kernel cache holds no kernel module
    cache = Path(out).parent / "kernel-cache"
    built = sorted(str(p.relative_to(cache)) for p in cache.rglob("kernels.py")) if cache.is_dir() else []
    assert not built, f"kernels were built before the refusal: {built}"


def test_gpu_without_a_gpu_is_refused(tmp_path):
    if _gpu_present():
        pytest.skip("a CUDA GPU is present here: the no-GPU refusal cannot be observed")
    out = tmp_path / "gpu.json"
    proc, seconds = _srmdp(
        ["run", "--table", "LP1d4", "--dt", "0.2", "--device", "gpu", "--out", str(out)], drop=("NUMBA_ENABLE_CUDASIM",)
    )
    _assert_process_refusal(proc, seconds, ("device=",), out)
    assert "GPU" in proc.stderr


def test_memory_limit_is_refused_in_a_process(tmp_path):
    out = tmp_path / "mem.json"
    proc, seconds = _srmdp(
        ["run", "--table", "LP0d11", "--dt", "0.05", "--out", str(out)], {"SRMDP_MEMORY_LIMIT": "1G"}
    )
    _assert_process_refusal(proc, seconds, ("GiB",), out)
    assert "LP0d11" in proc.stderr and "host memory" in proc.stderr
    proc, seconds = _srmdp(
        ["run", "--table", "LP0d4", "--dt", "0.2", "--out", str(out)], {"SRMDP_MEMORY_LIMIT": "plenty"}
    )
    _assert_process_refusal(proc, seconds, ("SRMDP_MEMORY_LIMIT=",), out)


@pytest.mark.parametrize(
    "args, keywords",
    [
        (["--d", "0", "--dt", "0.2", "--basis", "LP0", "--cells", "2", "--paths", "5"], ("d=",)),
        (["--table", "LP7d4", "--dt", "0.2"], ("table=",)),
        (["--table", "LP0d4", "--dt", "0.2", "--threads", "0"], ("threads=",)),
    ],
)
def test_invalid_arguments_in_a_process(tmp_path, args, keywords):
    out = tmp_path / "r.json"
    proc, seconds = _srmdp(["run", *args, "--out", str(out)])
    _assert_process_refusal(proc, seconds, keywords, out)


def test_huge_dimension_is_refused_without_computing_k():
    # K = 2^(10^9) computed exactly is a 125 MB integer; the check takes the logarithm first, so the refusal
    # allocates a few kB (measured by allocation, not by the clock)
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError, match=r"invalid cells=2: K = #C\^d = 2\^1000000000 must be < 2\^48"):
            Case(d=10**9, dt=0.5, basis="LP0", cells=2, paths=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20, f"{peak} B allocated: K was computed"


def test_the_runs_enter_the_memory_model():
    """10^9 runs of a tiny case: the per-run errors alone (R x N, twice, as arrays, lists and JSON) exceed 1 GiB."""
    case = Case(d=1, dt=0.5, basis="LP0", cells=2, paths=2)
    with mock.patch.dict(os.environ, {"SRMDP_MEMORY_LIMIT": "1G"}):
        with mock.patch.object(srmdp.runs.run, "make_backend", _no_compute):
            with pytest.raises(ConfigError, match="needs .* GiB"):
                srmdp.runs.run.run_case(case, runs=10**9)
            with pytest.raises(AssertionError, match="compute started"):  # while 1000 runs fit
                srmdp.runs.run.run_case(case, runs=1000)
