"""The cost model of the reproduction: how long a job or a run chunk takes, before it runs.

* :func:`estimate_seconds`: the workflow's CPU jobs (Snakemake's ``runtime`` resource, which triples it, and
  ``srmdp plan``): start-up, JIT compilation, then the path steps at a per-step cost a + b d, the regression's
  nb^2 accumulations per path and time step, and a per-step overhead; fitted (bench/cpu/cost_fit.py) to the
  committed one-thread runs of the paper's rows on the 2-core development machine (:func:`measured_cpu_runs`),
  which it predicts within 30 % (tests/test_cost_model.py);
* :class:`CostModel`: the GPU campaign's planner: this campaign's own measurements, else the repository's
  measurement of the same case on the same GPU model, else the shape model fitted to every measured GPU run
  (:mod:`srmdp.paper.models.shape_cost`: seconds as a function of strata, paths, steps, d and basis, per GPU model and
  arithmetic), else a throughput table per device model (``config/gpu_throughput.csv``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ...case.cost import (  # noqa: F401  (the reproduction's names for them)
    CALIBRATION_HOST,
    COMPILE_SECONDS,
    ERROR_SECONDS_PER_POINT_STEP,
    NS_PER_PATH_STEP,
    NS_PER_REGRESSION_TERM,
    STARTUP_SECONDS,
    STEP_SECONDS,
    run_seconds,
    solve_seconds,
)
from ...exceptions import ConfigError
from .. import REPOSITORY

THROUGHPUT_FILE = REPOSITORY / "config" / "gpu_throughput.csv"
FLOAT64_FACTOR = 1.2  # float64 coefficient storage vs the float32 rates of the table
MIN_RATE_PATH_STEPS = 1e8  # a chunk measures the throughput only from this many path-steps per run on

# The CPU cost model itself (its calibration, solve_seconds, run_seconds) is the library's, srmdp.case.cost (a solve
# says its predicted time before compute); the reproduction's job estimates build on it.

# The jobs beyond the paper's rows (seconds on the 2-core development machine, compilation included, on the safe
# side; measured: the ci preset's lsmdp job 65 s and its beyond_coverage job 153 s on a fresh clone; the default
# preset's coverage, 20 seeds at d = 2 and 4, 457 CPU s, of which about 55 s per problem and dimension compile).
LSMDP_FIXED_SECONDS = 60.0  # start-up, NumPy, the SRMDP kernels it compares with
LSMDP_NS_PER_PATH_STEP = 1600.0  # NumPy paths: 2.36 s per run of LP0d4 row 1 (1.5e6 path-steps) in the ci run
COVERAGE_COMPILE_SECONDS = 50.0  # per problem and dimension of the coverage (its solves compile their kernels)
COVERAGE_SECONDS_PER_SOLVE_SET = 1.5  # per seed, problem and dimension: the three configurations' solves
SOLVE_SECONDS = 30.0  # one srmdp.solve of the suite (start-up, compilation, a few levels)
REFERENCE_SECONDS = (5.0, 1e-3)  # a reference: start-up, then per Monte-Carlo path (exact ones cost nothing)


def lsmdp_seconds(case, runs: int) -> float:
    """The LSMDP job of one paper row: start-up and compilation, then its NumPy runs."""
    return LSMDP_FIXED_SECONDS + runs * case.path_steps * LSMDP_NS_PER_PATH_STEP * 1e-9


def coverage_seconds(problems: int, seeds: int, dims: int) -> float:
    """The coverage job: compilation per problem and dimension, then the solves per seed."""
    return problems * dims * (COVERAGE_COMPILE_SECONDS + seeds * COVERAGE_SECONDS_PER_SOLVE_SET)


def estimate_seconds(case, runs: int, threads: int = 1, device: str = "cpu", test_points: int = 1000) -> float:
    """A job's wall time: start-up, JIT compilation, then ``runs`` x :func:`run_seconds`."""
    per_run = run_seconds(case, threads, test_points)
    if device == "gpu":
        per_run = per_run * threads / 200.0 + 0.02 * case.steps
    return STARTUP_SECONDS + COMPILE_SECONDS + runs * per_run


# Run chunks of the CPU evidence campaign (config/evidence.yaml): they run niced beside other work, so their times
# measure the load beside them, not the machine (a chunk timed under load ran up to 8x its idle time)
NICED_CAMPAIGN_FOLDERS = ("data/evidence/",)


def _from_niced_campaign(path, res) -> bool:
    """A chunk of the evidence campaign, or a summary pooled only from its chunks."""
    chunks = res.get("chunks")
    where = [str(c) for c in chunks] if isinstance(chunks, list) and chunks else [str(path)]
    return all(any(f in w for f in NICED_CAMPAIGN_FOLDERS) for w in where)


def measured_cpu_runs(paths, host: str = CALIBRATION_HOST) -> list:
    """The runs the CPU cost model is fitted to and checked on: per paper row, the fastest solve of a run
    (``seconds_per_run_min``, :func:`solve_seconds`'s measure) among the result files in ``paths`` that
    ran it on one thread of ``host``, in float64 (storage and arithmetic), without the Z control variate: a list of
    ``(case dict, seconds, path)``, one per row.  The fastest, because the machine is shared: a slower run
    measured the load beside it."""
    from ...case.results import read_json

    best = {}
    for p in paths:
        try:
            res = read_json(p)
        except (OSError, ValueError):
            continue
        case = res.get("case") if isinstance(res, dict) else None
        hw = (res.get("provenance") or {}).get("hardware") or {} if isinstance(case, dict) else {}
        if (
            not isinstance(case, dict)
            or _from_niced_campaign(p, res)
            or not case.get("table")
            or res.get("device") != "cpu"
            or hw.get("threads") != 1
            or str(hw.get("model")) != host
            or case.get("precision", "float64") != "float64"
            or case.get("z_cv")
            or (res.get("reading") or {}).get("arithmetic", "float64") != "float64"
            or not res.get("seconds_per_run")
        ):
            continue
        secs = float(res.get("seconds_per_run_min") or res["seconds_per_run"])
        key = (case["table"], int(case["row"]))
        if key not in best or secs < best[key][1]:
            best[key] = (case, secs, str(p))
    return [best[k] for k in sorted(best)]


@dataclass
class Rate:
    path_steps_per_s: float
    step_overhead_s: float
    compile_s: float
    source: str


def load_throughput(path=THROUGHPUT_FILE) -> list:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError(f"invalid throughput={str(path)!r}: cannot read it ({exc.strerror or exc})") from None
    rows = []
    for i, raw in enumerate(csv.DictReader(io.StringIO(text))):
        try:
            rows.append(
                (
                    raw["model"].strip(),
                    raw["basis"].strip(),
                    int(raw["d"]),
                    Rate(
                        float(raw["path_steps_per_s"]),
                        float(raw["step_overhead_s"]),
                        float(raw["compile_s"]),
                        raw.get("source", "").strip(),
                    ),
                )
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ConfigError(
                f"invalid throughput={str(path)!r}: line {i + 2} is not"
                " model,basis,d,path_steps_per_s,step_overhead_s,compile_s,source"
            ) from None
        if not (rows[-1][3].path_steps_per_s > 0 and rows[-1][3].step_overhead_s >= 0 and rows[-1][3].compile_s >= 0):
            raise ConfigError(f"invalid throughput={str(path)!r}: line {i + 2} needs a rate > 0 and times >= 0")
    return rows


def _case_signature(case) -> tuple:
    c = case if isinstance(case, dict) else case.as_dict()
    return (c["basis"], c["d"], c["cells"], c["paths"], c["steps"], c["precision"], c.get("arithmetic", "float64"))


def compiled_key(case) -> tuple:
    """What one compilation serves: (d, number of basis functions, precision, arithmetic)."""
    c = case if isinstance(case, dict) else case.as_dict()
    return (int(c["d"]), int(c["n_basis"]), c["precision"], c.get("arithmetic", "float64"))


class CostModel:
    """Seconds of one run of a case, and of a chunk, on one device model (see the module docstring)."""

    def __init__(self, table_rows, device: str, model: str, threads: int = 1):
        self.device = device
        self.model = model
        self.scale = max(1, threads) if device == "cpu" else 1
        key = f"{device}:{model}".lower()
        mine = [r for r in table_rows if r[0].lower() in key]
        if not mine and device == "gpu":  # another GPU: the table's first real GPU model
            first = next((r[0] for r in table_rows if r[0].lower() not in ("cpu", "simulator")), None)
            mine = [r for r in table_rows if r[0] == first]
        if not mine:
            raise ConfigError(f"invalid throughput table: no row for device {device!r} ({model}); add one")
        self.table = {(b, d): rate for _, b, d, rate in mine}
        self.exact: dict = {}  # case signature -> (seconds per run, source)
        self.rates: dict = {}  # (basis, d) -> Rate measured by this campaign
        # measured GPU runs, every model (srmdp.paper.models.shape_cost.Point), for the shape fit
        self.points: list = []
        self._shape = None
        self.compiled: set = set()
        self.chunk_overhead = 1.0  # allocation, warm-up launches, writing the file (learnt from this campaign)

    def _table_rate(self, basis, d) -> Rate:
        same = sorted(dd for b, dd in self.table if b == basis)
        if not same:
            same = sorted(dd for b, dd in self.table)
            basis = next(b for b, dd in self.table if dd == same[0])
        below = [dd for dd in same if dd <= d]
        near = below[-1] if below else same[0]
        rate = self.table[(basis, near)]
        if near == d:
            return rate
        # a larger d costs at least d / d_table times more (safe side: never scale a rate up)
        factor = max(1.0, d / near)
        return Rate(
            rate.path_steps_per_s / factor, rate.step_overhead_s, rate.compile_s, f"{rate.source}, scaled to d={d}"
        )

    def rate(self, basis, d) -> Rate:
        return self.rates.get((basis, d)) or self._table_rate(basis, d)

    def shape_model(self):
        """The shape model fitted to the measured points (refitted when points were added)."""
        from .shape_cost import ShapeModel

        if self._shape is None:
            self._shape = ShapeModel(self.points)
        return self._shape

    def learn_points(self, points):
        """Add measured GPU points (e.g. the A/B files' lines, :func:`srmdp.paper.models.shape_cost.bench_points`)."""
        self.points.extend(points)
        self._shape = None

    def shape_seconds(self, case) -> float | None:
        """The shape model's seconds per run of the case on this GPU model, in its arithmetic (None: no fit,
        or no run measured on this GPU model in that arithmetic)."""
        if self.device != "gpu":
            return None
        from .shape_cost import shape_of

        c = case.as_dict()
        secs = self.shape_model().predict((self.model, c.get("arithmetic") or "float64"), shape_of(c))
        if secs is not None and case.precision == "float64":
            secs *= FLOAT64_FACTOR
        return secs

    def run_seconds(self, case) -> float:
        """This campaign's measurement of the case, else its rate for (basis, d), else the repository's
        measurement of the case on this GPU model (the slowest), else the shape model, else the table's rate."""
        sig = _case_signature(case)
        exact = self.exact.get(sig)
        r = self.rate(case.basis, case.d)
        if exact is not None and (exact[1] == "session" or r.source != "session"):
            return exact[0]
        if r.source != "session":
            shaped = self.shape_seconds(case)
            if shaped is not None:
                return shaped
        secs = case.steps * r.step_overhead_s + case.path_steps / (r.path_steps_per_s * self.scale)
        if case.precision == "float64":
            secs *= FLOAT64_FACTOR
        return secs

    def compile_seconds(self, case) -> float:
        if compiled_key(case) in self.compiled:
            return 0.0
        return self.rate(case.basis, case.d).compile_s

    def chunk_seconds(self, case, runs) -> float:
        return self.chunk_overhead + self.compile_seconds(case) + runs * self.run_seconds(case)

    def learn(self, res: dict, session: bool = False):
        """Take the times a result measured: a point of the shape model (any GPU model); on this device model
        the exact case, and from this campaign (``session``) the rate per (basis, d)."""
        from .shape_cost import point_of_result

        if self.device == "gpu" and (pt := point_of_result(res)) is not None:
            self.points.append(pt)
            self._shape = None
        hw = (res.get("provenance") or {}).get("hardware") or {}
        if res.get("device") != self.device or str(hw.get("model")) != self.model:
            return
        case = res["case"]
        per_run = float(res["seconds_per_run"]) + float(res.get("error_seconds_per_run") or 0.0)
        sig = _case_signature(case)
        old = self.exact.get(sig)
        # from the repository: keep the slowest measurement (safe side); from this campaign: the latest
        if session or old is None or old[1] != "repo" or per_run > old[0]:
            self.exact[sig] = (per_run, "session" if session else "repo")
        ps = res.get("path_steps_per_run") or 0
        secs = float(res.get("seconds_per_run_min") or res["seconds_per_run"])
        if ps >= MIN_RATE_PATH_STEPS and secs > 0:
            base = self._table_rate(case["basis"], case["d"])
            n = int(case["steps"])
            measured = ps / max(secs - n * base.step_overhead_s, 1e-9) / self.scale
            if case.get("precision") == "float64":
                measured *= FLOAT64_FACTOR
            # the repository's runs enter the shape model (above), not a rate per (basis, d): the slowest rate of a
            # (basis, d) came from its smallest row, where per-step overheads dominate
            if session:
                self.rates[(case["basis"], case["d"])] = Rate(measured, base.step_overhead_s, base.compile_s, "session")
        if session:
            self.compiled.add(compiled_key(case))

    def learn_chunk(self, res: dict, wall: float):
        """What a chunk of this campaign cost beyond its runs and compilation (kept as the overhead)."""
        runs = int(res.get("runs", 1))
        per_run = float(res["seconds_per_run"]) + float(res.get("error_seconds_per_run") or 0.0)
        self.chunk_overhead = max(0.1, wall - float(res.get("compile_seconds") or 0.0) - runs * per_run)
