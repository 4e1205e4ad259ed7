"""Cases: the numerical parameters of one SRMDP run.

A case holds numbers only, no name.  A caller that names its cases subclasses :class:`Case`: the fields the
subclass adds join the case's record (:meth:`Case.as_dict`), which a result carries and which its identity
(``case_hash``, :func:`srmdp.case.results.identity_hash`) covers.  The paper's 35 rows are the paper's layer's
(:mod:`srmdp.paper.inputs.rows`: its ``PaperCase`` adds the table and row).
"""

import math
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from ..exceptions import ConfigError
from ..numerics.bases import BASES
from ..numerics.build import ARITHMETICS  # the type the kernels compute a path in, apart from the storage (PRECISIONS)
from ..numerics.rng import PATH_BITS, RUN_BITS, SEED_BITS, STEP_BITS, STRATUM_BITS
from ..numerics.strata import MAX_HALF_WIDTH, OUTSIDE_MODES
from ..problems import load_problem
from .defaults import DEFAULTS

# The case as the kernels see it: one record, fields by name (srmdp.numerics.scheme reads c.dt, c.paths, ...).
RECORD = np.dtype(
    [
        ("steps", np.int64),
        ("d", np.int64),
        ("nb", np.int64),
        ("cells", np.int64),
        ("outside", np.int64),
        ("paths", np.int64),
        ("seed", np.int64),
        ("run", np.int64),
        ("strata", np.int64),
        ("points", np.int64),
        ("z_cv", np.int64),
        ("dt", np.float64),
        ("sqdt", np.float64),
        ("maturity", np.float64),
        ("half_width", np.float64),
        ("h", np.float64),
        ("inv_h", np.float64),
        ("trunc_y", np.float64),
        ("trunc_z", np.float64),
    ]
)

# The Z control variate (srmdp.numerics.scheme) is on by default for users' problems in srmdp.solve: it divides the Z
# error
# at a few per cent more time and never worsened Y where measured (bench/zcv.md).  The martingale control variate
# stays off: it can harm where z^M is poorer than |z| (bench/zcv.md).  The paper's rows and the workflow's paper
# readings keep the paper's scheme (Case's own defaults, both off).
Z_CV_DEFAULT_FOR_USER_PROBLEMS = True

PRECISIONS = ("float64", "float32")


def truncation_for_case(v):
    """A truncation bound as :class:`Case` and the kernels hold it: "no truncation", None in JSON and in the API,
    is inf here; a bound is unchanged.  :func:`truncation_for_json` is the inverse."""
    return math.inf if v is None else v


def truncation_for_json(v):
    """A truncation bound as JSON and the API write it: inf ("no truncation") is None; a bound is unchanged."""
    return None if v is not None and math.isinf(v) else v


def is_int(v) -> bool:
    """An integer (a Python or NumPy int, not a bool)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def is_real(v) -> bool:
    """An int or float (not a bool, not a string); NaN passes here and fails the range checks."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


@dataclass(frozen=True)
class Case:
    d: int
    dt: float
    basis: str
    cells: int
    paths: int
    outside: str = DEFAULTS["outside"]
    trunc_y: float = truncation_for_case(DEFAULTS["trunc_y"])  # inf: no truncation
    trunc_z: float = truncation_for_case(DEFAULTS["trunc_z"])
    precision: str = DEFAULTS["precision"]
    maturity: float | None = None  # None: the problem's MATURITY
    half_width: float | None = DEFAULTS["half_width"]  # None: the problem's BOX_HALF_WIDTH
    problem: str = field(default=DEFAULTS["problem"])
    z_cv: bool = DEFAULTS["z_cv"]  # the control variate of the Z regression (srmdp.numerics.scheme), beyond the paper
    # with z_cv: the martingale control variates too (srmdp.numerics.scheme, bench/zcv.md)
    martingale_cv: bool = DEFAULTS["martingale_cv"]
    arithmetic: str = DEFAULTS["arithmetic"]  # the kernels' arithmetic (float32: the paper's, §5), apart from precision
    # the driver's curvature correction (srmdp.problems.curvature), beyond the paper
    curvature_correction: bool = DEFAULTS["curvature_correction"]

    def __post_init__(self):
        if self.maturity is None or self.half_width is None:
            if not isinstance(self.problem, str):
                raise ConfigError(f"invalid problem={self.problem!r}: a registered name or path/to/file.py")
            prob = load_problem(self.problem)
            if self.maturity is None:
                object.__setattr__(self, "maturity", prob.maturity)
            if self.half_width is None:
                object.__setattr__(self, "half_width", prob.half_width)
        self.validate()

    # --- derived quantities -------------------------------------------------------------------
    @property
    def steps(self) -> int:
        """N = T / dt, the number of time steps."""
        return int(round(self.maturity / self.dt))

    @property
    def time_step(self) -> float:
        """The grid's step T / N (t_i = i T / N): ``dt`` as given, rounded to the grid; what the kernels use."""
        return self.maturity / self.steps

    @property
    def strata(self) -> int:
        return self.cells**self.d

    @property
    def n_basis(self) -> int:
        return BASES[self.basis].size(self.d)

    @property
    def path_steps(self) -> int:
        """Path steps of one run: sum_i K M (N - i) forward steps (pass 1 only)."""
        n = self.steps
        return self.strata * self.paths * n * (n + 1) // 2

    @property
    def label(self) -> str:
        """The case's name in messages, progress bars and results (a subclass that names its cases overrides it)."""
        return f"{self.basis}_d{self.d}_dt{self.dt:g}_C{self.cells}_M{self.paths}"

    def as_dict(self) -> dict:
        """The case's record: every field (a subclass's too), "no truncation" as None, and N, K, nb."""
        out = asdict(self)
        for key in ("trunc_y", "trunc_z"):
            out[key] = truncation_for_json(out[key])
        out.update(steps=self.steps, strata=self.strata, n_basis=self.n_basis)
        if not self.z_cv:  # absent when off: the identity of the paper's cases is unchanged
            del out["z_cv"]
        if not self.martingale_cv:  # likewise
            del out["martingale_cv"]
        if self.arithmetic == "float64":  # likewise
            del out["arithmetic"]
        if not self.curvature_correction:  # likewise
            del out["curvature_correction"]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Case":
        """The case of a case dictionary (:meth:`as_dict`, e.g. a result's ``case``; trunc None = none)."""
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in names}
        for key in ("trunc_y", "trunc_z"):
            kw[key] = truncation_for_case(kw.get(key))
        return cls(**kw)

    # --- validation ---------------------------------------------------------------------------
    def validate(self):
        """Raise ConfigError (one line naming the field and the allowed values) on any invalid field.

        Besides the schema, this refuses every case whose indices would overflow a field of the
        random-stream counter (see srmdp.numerics.rng): N < 2^STEP_BITS, K < 2^STRATUM_BITS, M < 2^PATH_BITS.
        """

        def bad(name, value, allowed):
            if isinstance(value, np.generic):
                value = value.item()
            raise ConfigError(f"invalid {name}={value!r}: {allowed}")

        if not is_int(self.d) or self.d < 1:
            bad("d", self.d, "the dimension must be an integer >= 1")
        if self.basis not in BASES:
            bad("basis", self.basis, f"allowed values are {', '.join(BASES)}")
        prob = load_problem(self.problem)  # a ConfigError naming the file and function if it breaks the contract
        if prob.adapted_d and prob.adapted_d != self.d:
            bad("problem", self.problem, f"its adapted strata are for d={prob.adapted_d}, not d={self.d}")
        if not is_real(self.maturity) or not 0 < self.maturity < math.inf:
            bad("maturity", self.maturity, "the maturity T must be a finite number > 0")
        if not is_real(self.half_width) or not 0 < self.half_width <= MAX_HALF_WIDTH:
            bad(
                "half_width",
                self.half_width,
                f"the box half-width must be a number in (0, {MAX_HALF_WIDTH:g}] (logistic tails stay representable)",
            )
        if not is_real(self.dt) or not 0 < self.dt < math.inf:
            bad("dt", self.dt, "the time step must be a finite number > 0")
        n = self.maturity / self.dt
        if not math.isfinite(n) or round(n) >= 2**STEP_BITS:
            bad(
                "dt", self.dt, f"N = T/dt must be < 2^{STEP_BITS} = {2**STEP_BITS} (time-step field of the RNG counter)"
            )
        if abs(n - round(n)) > 1e-9 * max(1.0, n) or round(n) < 1:
            bad("dt", self.dt, f"the time step must divide T={self.maturity:g} (T/dt a positive integer)")
        if not is_int(self.cells) or self.cells < 1:
            bad("cells", self.cells, "#C must be an integer >= 1")
        # (the logarithm first: #C^d of a huge d would take long to compute exactly)
        too_many = int(self.d) * math.log2(int(self.cells)) >= STRATUM_BITS + 1
        if too_many or int(self.cells) ** int(self.d) >= 2**STRATUM_BITS:
            bad(
                "cells",
                self.cells,
                f"K = #C^d = {int(self.cells)}^{int(self.d)} must be < 2^{STRATUM_BITS}"
                " (stratum field of the RNG counter)",
            )
        need = BASES[self.basis].size(self.d)
        if not is_int(self.paths) or self.paths < need:
            bad("paths", self.paths, f"M must be an integer >= {need} (the {self.basis} dimension in d={self.d})")
        if self.paths >= 2**PATH_BITS:
            bad("paths", self.paths, f"M must be < 2^{PATH_BITS} (path field of the RNG counter)")
        if self.outside not in OUTSIDE_MODES:
            bad("outside", self.outside, f"allowed values are {', '.join(OUTSIDE_MODES)}")
        for name in ("trunc_y", "trunc_z"):
            v = getattr(self, name)
            if not is_real(v) or not v > 0:
                bad(name, v, "a truncation bound must be a number > 0 (inf for none)")
        if self.precision not in PRECISIONS:
            bad("precision", self.precision, f"allowed values are {', '.join(PRECISIONS)}")
        if self.arithmetic not in ARITHMETICS:
            bad("arithmetic", self.arithmetic, f"allowed values are {', '.join(ARITHMETICS)}")
        if not isinstance(self.z_cv, (bool, np.bool_)):
            bad("z_cv", self.z_cv, "must be true or false")
        if not isinstance(self.martingale_cv, (bool, np.bool_)):
            bad("martingale_cv", self.martingale_cv, "must be true or false")
        if not isinstance(self.curvature_correction, (bool, np.bool_)):
            bad("curvature_correction", self.curvature_correction, "must be true or false")
        if self.martingale_cv and not self.z_cv:
            bad("martingale_cv", self.martingale_cv, "needs z_cv=True (it adds to the Z control variate)")

    # --- the kernels' view ---------------------------------------------------------------------
    @property
    def kernel_bindings(self) -> tuple:
        """The case's compile-time bindings of the kernels beyond (problem, basis, d, arithmetic): the curvature
        correction's CURVATURE (none when off: the kernels of the paper's scheme, unchanged)."""
        return (("CURVATURE", True),) if self.curvature_correction else ()

    def variance_shape(self) -> tuple:
        """The shape of the regressions' variances the kernels keep for the curvature correction (``cvar``,
        :func:`srmdp.numerics.regression.residual_variances`): (N, K, (d + 1) + nb (nb + 1) / 2), or (1, 1, 1)
        unused."""
        if not self.curvature_correction:
            return (1, 1, 1)
        nb = self.n_basis
        return (self.steps, self.strata, self.d + 1 + nb * (nb + 1) // 2)

    @property
    def z_cv_flags(self) -> int:
        """The record's z_cv field: bit 1 z_cv, bit 2 martingale_cv (srmdp.numerics.scheme.ZCV_Y, ZCV_MART)."""
        return int(bool(self.z_cv)) | (2 if self.martingale_cv else 0)

    def record(self, seed: int, run: int, test_points: int = 0) -> np.recarray:
        """The case as one record (an array of length 1: :data:`RECORD`) for the kernels."""
        check_seed_run(seed, run)
        dt = self.time_step
        h = 2.0 * self.half_width / self.cells
        fields = dict(
            steps=self.steps,
            d=self.d,
            nb=self.n_basis,
            cells=self.cells,
            outside=OUTSIDE_MODES[self.outside],
            paths=self.paths,
            seed=seed,
            run=run,
            strata=self.strata,
            points=test_points,
            z_cv=self.z_cv_flags,
            dt=dt,
            sqdt=math.sqrt(dt),
            maturity=self.maturity,
            half_width=self.half_width,
            h=h,
            inv_h=1.0 / h,
            trunc_y=self.trunc_y,
            trunc_z=self.trunc_z,
        )
        rec = np.rec.array(np.zeros(1, RECORD))
        for name in RECORD.names:  # every field by name (a KeyError if one is forgotten)
            rec[0][name] = fields[name]
        return rec


def check_seed_run(seed, run, runs=1):
    """Seed and run indices fit their fields of the RNG key/counter (see srmdp.numerics.rng)."""
    if not is_int(seed) or not 0 <= seed < 2**SEED_BITS:
        raise ConfigError(f"invalid seed={plain(seed)!r}: must be an integer in [0, 2^{SEED_BITS})")
    if not is_int(run) or run < 0:
        raise ConfigError(f"invalid run_start={plain(run)!r}: must be an integer >= 0")
    if run + runs > 2**RUN_BITS:
        raise ConfigError(
            f"invalid run_start={plain(run)!r} with runs={plain(runs)!r}: run indices must lie"
            f" in [0, 2^{RUN_BITS}) (run field of the RNG counter)"
        )


def plain(v):
    """A NumPy scalar as the Python number it holds (for messages); anything else unchanged."""
    return v.item() if isinstance(v, np.generic) else v
