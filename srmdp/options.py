"""The options of a solve, in one record: :class:`SolveOptions`, validated once, shared by :func:`srmdp.solve`,
the solve's level planner (:class:`srmdp.solving.SolveRequest`) and ``srmdp solve`` (whose arguments are
generated from the record's fields, :func:`add_cli_arguments`): a new option is added here, in one place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from .bases import BASES
from .cases import ARITHMETICS, PRECISIONS
from .exceptions import ConfigError

STRATA = ("box", "adapted")
KEEP = ("all", "last")
RUNS_DEFAULT = 2  # an error estimate needs >= 2 runs per level (the s.e. of u(N) - u(N/2)); 4 with tol
RUNS_DEFAULT_TOL = 4


def _opt(default, help, cli=None, **kw):
    """A field with its ``srmdp solve`` argument: ``cli`` = {"type"/"choices"/"flag"...}; None: not on the CLI."""
    return field(default=default, metadata={"help": help, "cli": cli, **kw})


@dataclass(frozen=True)
class SolveOptions:
    """Everything a solve takes besides the problem and the callbacks (``progress``, ``report``)."""

    d: int | None = _opt(None, "dimension d", {"type": int, "required": True})
    dt: float | None = _opt(None, "time step (default T/5, dividing the problem's maturity T)", {"type": "number"})
    basis: str = _opt("LP1", "local basis (default LP1)", {"choices": list(BASES)})
    cells: int | None = _opt(None, "#C, cells per axis (default: the paper's formula, srmdp.rules)", {"type": int})
    paths: int | None = _opt(None, "M, paths per stratum (default: the paper's formula, srmdp.rules)", {"type": int})
    outside: str = _opt("unbounded", "reading outside the strata box [-L, L]^d (default unbounded)",
                        {"choices": ["unbounded", "zero", "clamp"]})
    trunc_y: float | None = _opt(None, "truncation bound of y (default none)", {"type": "number"})
    trunc_z: float | None = _opt(None, "truncation bound of z (default none)", {"type": "number"})
    half_width: float | None = _opt(None, "L of the strata box [-L, L]^d (default: the problem's BOX_HALF_WIDTH,"
                                    " else 6.5; with --strata adapted: standard deviations of X_t, default 3)",
                                    {"type": "number"})
    strata: str | None = _opt(None, "box: the paper's [-L, L]^d at every step; adapted: at each step a box centred on"
                              " the law of X_t (srmdp.adapt). Default: box for the paper's problem, adapted for"
                              " the others (srmdp/problems/README.md, the measurement)", {"choices": list(STRATA)})
    precision: str = _opt("float64", "storage of the coefficients", {"choices": list(PRECISIONS)})
    arithmetic: str = _opt("float64", "arithmetic of the kernels (float32: the paper's; storage: --precision)",
                           {"choices": list(ARITHMETICS)})
    device: str = _opt("cpu", "cpu or gpu", {"choices": ["cpu", "gpu"]})
    seed: int = _opt(0, "seed", {"type": int})
    runs: int | None = _opt(None, f"independent runs (default {RUNS_DEFAULT}: the error estimate needs >= 2;"
                            f" {RUNS_DEFAULT_TOL} with --tol)", {"type": int})
    z_cv: bool | None = _opt(None, "control variate in the Z regression (beyond the paper; default: on for problems"
                             " other than the paper's)", {"flag": "bool"})
    threads: int | None = _opt(None, "CPU threads (default: all)", {"type": int})
    test_points: int = _opt(1000, "test points per run and time step for the error indicators (exact solutions"
                            " only)", {"type": int})
    keep: str = _opt("all", "coefficients kept: of every run (default) or of the last", {"choices": list(KEEP)})
    error: bool = _opt(True, "estimate u0's total error (a solve one level below, strictly coarser in dt, #C, M)",
                       {"flag": "negate", "name": "--no-error",
                        "help": "do not estimate u0's total error (skips the solve one level below; u0_error None)"})
    tol: float | None = _opt(None, "refine until the estimated error of u0 is <= TOL at two consecutive levels"
                             " (absolute, units of u); `srmdp solve` exits with status 4 when it is not met",
                             {"type": "number"})
    budget_s: float | None = _opt(None, "seconds for --tol (default 900)", {"type": "number", "name": "--budget"})
    guard: bool = _opt(True, "stop a run whose estimators blow up (srmdp.divergence)",
                       {"flag": "negate", "name": "--no-guard",
                        "help": "turn the divergence guard off (for a solution that really grows x1000 over [0, T])"})

    def __post_init__(self):
        from .cases import is_int, plain

        if self.d is None:
            raise ConfigError("invalid d=None: give the dimension d (an integer >= 1)")
        if not is_int(self.d) or self.d < 1:
            raise ConfigError(f"invalid d={plain(self.d)!r}: the dimension must be an integer >= 1")
        for name, allowed in (("keep", KEEP), ("basis", tuple(BASES)), ("arithmetic", ARITHMETICS)):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"invalid {name}={getattr(self, name)!r}: allowed values are {', '.join(allowed)}")
        if self.strata is not None and self.strata not in STRATA:
            raise ConfigError(f"invalid strata={self.strata!r}: allowed values are {', '.join(STRATA)}")
        for name in ("guard", "error"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"invalid {name}={getattr(self, name)!r}: True or False")
        for name in ("trunc_y", "trunc_z"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v)):
                raise ConfigError(f"invalid {name}={v!r}: a truncation bound must be a number > 0 (None for none)")
        if self.runs is not None and (not is_int(self.runs) or self.runs < 1):
            raise ConfigError(f"invalid runs={plain(self.runs)!r}: must be an integer >= 1")
        if self.tol is not None:
            _positive(self.tol, "tol", "absolute, in the units of u")
            if self.runs is not None and self.runs < 2:
                raise ConfigError(f"invalid runs={self.runs} with tol: a refinement needs >= 2 runs per level (the"
                                  " error estimate uses the standard errors of both levels)")
        if self.budget_s is not None:
            if self.tol is None:
                raise ConfigError("invalid budget_s: a budget goes with a tolerance (tol=...)")
            _positive(self.budget_s, "budget_s", "seconds")

    @property
    def run_count(self) -> int:
        """The runs per level: as given, else 2 (4 with tol)."""
        if self.runs is not None:
            return int(self.runs)
        return RUNS_DEFAULT_TOL if self.tol is not None else RUNS_DEFAULT

    @classmethod
    def from_args(cls, args) -> SolveOptions:
        """The record from parsed ``srmdp solve`` arguments (:func:`add_cli_arguments`)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _positive(v, name, unit):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ConfigError(f"invalid {name}={v!r}: must be a finite number > 0 ({unit})")
    return float(v)


def add_cli_arguments(parser, number):
    """One ``srmdp solve`` argument per field of :class:`SolveOptions` (``--name-with-dashes``)."""
    import argparse

    for f in fields(SolveOptions):
        cli = f.metadata["cli"]
        if cli is None:
            continue
        name = cli.get("name", "--" + f.name.replace("_", "-"))
        kw = {"dest": f.name, "help": cli.get("help", f.metadata["help"])}  # a negated flag says what it turns off
        if cli.get("flag") == "negate":
            parser.add_argument(name, action="store_false", **kw)
            continue
        if cli.get("flag") == "bool":
            parser.add_argument(name, action=argparse.BooleanOptionalAction, default=None, **kw)
            continue
        kw["default"] = f.default
        if "choices" in cli:
            kw["choices"] = cli["choices"]
        if "type" in cli:
            kw["type"] = number if cli["type"] == "number" else cli["type"]
        if cli.get("required"):
            kw["required"] = True
            del kw["default"]
        parser.add_argument(name, **kw)
