"""The options of a solve and of a run, each declared once (:data:`OPTIONS`): name, type, choices, default, help
and the surfaces that take it.

Surfaces:

- ``api``: :func:`srmdp.solve`'s keywords, the fields of :class:`SolveOptions` (``problem`` and ``progress`` are
  its arguments beside the record);
- the commands' arguments, generated here (:func:`add_arguments`): ``solve`` (``srmdp solve``), ``run``
  (``srmdp run``), and the paper's commands that run cases: ``campaign`` (``srmdp campaign run``), ``lsmdp``
  (``srmdp lsmdp``), ``beyond_solve`` (``srmdp beyond solve``); the workflow's jobs pass their options as dicts,
  rendered by :func:`command_line`;
- ``case``: the fields of :class:`srmdp.case.cases.Case` the option sets (:func:`make_case`, the one place a case is
  made from options);
- ``run_case``: the keywords of :func:`srmdp.runs.run.run_case`.

A field of :class:`SolveOptions` is an option of ``api`` and ``solve``, and of the surfaces its ``on`` names; the
options that are not solve options (``problem``, ``--table``, ``--run-start``, ...) are :data:`COMMAND_OPTIONS`.
Where a surface takes an option with another default or help, the option says so and why (:class:`Differs`); an
option on one of ``srmdp run`` and ``srmdp solve`` only says why it is not on the other (``absent``).
``tests/test_options_surfaces.py`` checks every surface against this declaration.
"""

from __future__ import annotations

import argparse
import math
import shlex
from dataclasses import dataclass, field, fields

from .case.cases import PRECISIONS
from .case.defaults import DEFAULTS
from .exceptions import ConfigError
from .numerics.bases import BASES
from .numerics.build import ARITHMETICS
from .numerics.strata import OUTSIDE_MODES

STRATA = ("box", "adapted")
KEEP = ("all", "last")
DEVICES = ("cpu", "gpu")
SURFACES = ("api", "solve", "run", "campaign", "lsmdp", "beyond_solve", "case", "run_case")
RUNS_DEFAULT = 2  # an error estimate needs >= 2 runs per level (the s.e. of u(N) - u(N/2)); 4 with tol
RUNS_DEFAULT_TOL = 4

# Why the solve-only options (keep, error, tol, budget_s, guard) are not on `srmdp run`: a run computes one given
# case (a paper row, or d, dt, basis, #C and M all given) for the workflow's tables; refining and estimating the
# error are the solve's.  Its strata (half_width, strata) are as a solve's, so that both give one answer.
SOLVE_ONLY = "srmdp run computes one given case; refinement and the error estimate are srmdp solve's"
# Why `srmdp run` takes the box by default: the workflow's results were computed in the problem's box.
RUN_BOX = "srmdp run computes the given case in the problem's box unless told (the workflow's results are)"
# Why `srmdp run` has no default d, dt, basis, #C, M: with --table they are the paper row's, in free form all given.
RUN_GIVEN = "srmdp run: with --table the paper row's, in free form all of --d --dt --basis --cells --paths given"


@dataclass(frozen=True)
class Differs:
    """How one surface takes an option otherwise: its default and help there, and the reason."""

    default: object
    why: str
    help: str | None = None


def _opt(default, help, cli=None, *, on=(), differs=None, required=()):
    """A field of :class:`SolveOptions`: an option of ``api``, of ``solve`` when ``cli`` is given ({"type",
    "choices", "flag", "name", "help", "required"}; None: not on the command line) and of the surfaces ``on``;
    ``differs``: {surface: :class:`Differs`}; ``required``: the surfaces besides ``solve`` where it must be given.
    A field not ``on`` "run" is not on ``srmdp run`` for the reason :data:`SOLVE_ONLY`."""
    surfaces = ("api",) + (("solve",) if cli is not None else ()) + tuple(on)
    absent = {} if "run" in on else {"run": SOLVE_ONLY}
    required = (("solve",) if cli and cli.get("required") else ()) + tuple(required)
    meta = {"help": help, "cli": cli, "surfaces": surfaces, "differs": differs or {}, "absent": absent}
    meta["required"] = required
    return field(default=default, metadata=meta)


RUN = ("run", "run_case")  # a run's options: on `srmdp run` and keywords of run_case
CASE = ("run", "case")  # a case's: on `srmdp run` and fields of Case
LSMDP = ("lsmdp",)  # on `srmdp lsmdp`, the paper's LSMDP baseline on a paper row
SUITE = ("beyond_solve",)  # on `srmdp beyond solve`, one solve of the suite beyond the paper (its own --mode)


@dataclass(frozen=True)
class SolveOptions:
    """Everything a solve takes besides the problem and the callbacks (``progress``, ``report``)."""

    d: int | None = _opt(
        None,
        "dimension d",
        {"type": int, "required": True},
        on=CASE + SUITE,
        differs={"run": Differs(None, RUN_GIVEN, "dimension d = q (free form)")},
        required=SUITE,
    )
    dt: float | None = _opt(
        None,
        "time step (default T/5, dividing the problem's maturity T)",
        {"type": "number"},
        on=CASE,
        differs={
            "run": Differs(
                None, RUN_GIVEN, "time step (dividing the problem's maturity T; with --table: selects the row)"
            )
        },
    )
    basis: str = _opt(
        "LP1",
        "local basis (default LP1)",
        {"choices": tuple(BASES)},
        on=CASE,
        differs={"run": Differs(None, RUN_GIVEN, "local basis (free form)")},
    )
    cells: int | None = _opt(
        None,
        "#C, cells per axis (default: the paper's formula, srmdp.numerics.rules)",
        {"type": int},
        on=CASE,
        differs={"run": Differs(None, RUN_GIVEN, "#C, cells per axis (free form)")},
    )
    paths: int | None = _opt(
        None,
        "M, paths per stratum (default: the paper's formula, srmdp.numerics.rules)",
        {"type": int},
        on=CASE,
        differs={"run": Differs(None, RUN_GIVEN, "M, paths per stratum (free form)")},
    )
    outside: str = _opt(
        DEFAULTS["outside"],
        "reading outside the strata box [-L, L]^d (default unbounded)",
        {"choices": tuple(OUTSIDE_MODES)},
        on=CASE + ("lsmdp",),
        differs={
            "lsmdp": Differs(
                "unbounded",
                "the LSMDP baseline implements the unbounded and zero readings (srmdp lsmdp refuses clamp)",
                "reading outside the strata box [-L, L]^d: unbounded (default) or zero",
            )
        },
    )
    trunc_y: float | None = _opt(
        DEFAULTS["trunc_y"], "truncation bound of y (default none)", {"type": "number"}, on=CASE + LSMDP
    )
    trunc_z: float | None = _opt(
        DEFAULTS["trunc_z"], "truncation bound of z (default none)", {"type": "number"}, on=CASE + LSMDP
    )
    half_width: float | None = _opt(
        DEFAULTS["half_width"],
        "L of the strata box [-L, L]^d (default: the problem's BOX_HALF_WIDTH,"
        " else 6.5; with --strata adapted: standard deviations of X_t, default 3)",
        {"type": "number"},
        on=CASE,
    )
    strata: str | None = _opt(
        None,
        "box: the paper's [-L, L]^d at every step; adapted: at each step a box centred on"
        " the law of X_t (srmdp.problems.adapt). Default: box for the paper's problem, adapted for"
        " the others (bench/own_pde/NOTES.md, the measurement)",
        {"choices": STRATA},
        on=("run",),
        differs={"run": Differs("box", RUN_BOX, "box (default): the problem's [-L, L]^d; adapted: as srmdp solve's")},
    )
    precision: str = _opt(
        DEFAULTS["precision"],
        "storage of the coefficients",
        {"choices": PRECISIONS},
        on=CASE + ("campaign",),
        differs={
            "campaign": Differs(
                "float32",
                "the campaign computes the paper's GPU rows, whose coefficients the paper stores in float32",
                "storage of the coefficients (default float32, the paper's)",
            )
        },
    )
    arithmetic: str = _opt(
        DEFAULTS["arithmetic"],
        "arithmetic of the kernels (float32: the paper's; storage: --precision)",
        {"choices": ARITHMETICS},
        on=CASE + ("campaign",),
        differs={
            "campaign": Differs(
                None,
                "each reading of the config has its arithmetic; the campaign's overrides them all when given",
                "path arithmetic of every reading (default: the reading's,"
                " float64 unless the config says; float32: the paper's"
                " precision, its chunks are their own cases)",
            )
        },
    )
    device: str = _opt(
        DEFAULTS["device"],
        "cpu or gpu",
        {"choices": DEVICES},
        on=RUN + ("campaign",),
        differs={
            "campaign": Differs(
                "gpu", "the campaign is the GPU's share of the paper's runs", "cpu or gpu (default gpu)"
            )
        },
    )
    seed: int = _opt(
        DEFAULTS["seed"],
        "seed",
        {"type": int},
        on=RUN + ("campaign",) + LSMDP + SUITE,
        differs={
            "campaign": Differs(
                0,
                "data/gpu's runs are seed 0: a new chunk continues their streams",
                "seed of the streams (0: that of data/gpu's runs)",
            )
        },
    )
    runs: int | None = _opt(
        None,
        f"independent runs (default {RUNS_DEFAULT}: the error estimate needs >= 2; {RUNS_DEFAULT_TOL} with --tol)",
        {"type": int},
        on=RUN + LSMDP + SUITE,
        differs={
            "run": Differs(
                1,
                "a run is one chunk of a workflow job, whose runs are given; it estimates no error",
                "independent runs (default 1)",
            ),
            "lsmdp": Differs(4, "the baseline's timing and memory: a mean over 4 runs", "independent runs (default 4)"),
            "beyond_solve": Differs(
                4, "the suite's solves: 4 runs per level in every mode, as a refinement's", "runs per level (default 4)"
            ),
        },
    )
    z_cv: bool | None = _opt(
        None,
        "control variate in the Z regression (beyond the paper; default: on for problems other than the paper's)",
        {"flag": "bool"},
        on=CASE,
        differs={
            "run": Differs(
                False,
                "srmdp run computes the paper's rows and readings: the paper's scheme unless asked",
                "control variate y_{i+1}(x_i) in the Z regression (beyond the paper; same limit, less noise)",
            )
        },
    )
    martingale_cv: bool = _opt(
        DEFAULTS["martingale_cv"],
        "with --z-cv (implied): also the martingale control variates z.dW in both"
        " regressions (beyond the paper; bench/zcv.md)",
        {"flag": "bool"},
        on=CASE,
    )
    curvature_correction: bool | None = _opt(
        None,
        "subtract the estimates' noise from the driver: 1/2 sum d2f/dz_l^2 Var z_l + 1/2 d2f/dy^2 Var y along every"
        " path (beyond the paper; default: on for problems other than the paper's whose driver is curved,"
        " srmdp.problems.curvature)",
        {"flag": "bool"},
        on=CASE,
        differs={
            "run": Differs(
                False,
                "srmdp run computes the paper's rows and readings: the paper's scheme unless asked",
                "curvature correction of the driver (beyond the paper; srmdp.problems.curvature)",
            )
        },
    )
    threads: int | None = _opt(DEFAULTS["threads"], "CPU threads (default: all)", {"type": int}, on=RUN + ("campaign",))
    test_points: int = _opt(
        DEFAULTS["test_points"],
        "test points per run and time step for the error indicators (exact solutions only)",
        {"type": int},
        on=RUN + ("campaign",) + LSMDP,
    )
    keep: str = _opt("all", "coefficients kept: of every run (default) or of the last", {"choices": KEEP})
    error: bool = _opt(
        True,
        "estimate u0's total error (a solve one level below, strictly coarser in dt, #C, M)",
        {
            "flag": "negate",
            "name": "--no-error",
            "help": "do not estimate u0's total error (skips the solve one level below; u0_error None)",
        },
    )
    tol: float | None = _opt(
        None,
        "refine until the estimated error of u0 is <= TOL at two consecutive levels"
        " (absolute, units of u); `srmdp solve` exits with status 4 when it is not met",
        {"type": "number"},
        on=SUITE,
    )
    budget_s: float | None = _opt(
        None,
        "seconds of compute a solve may take (default 900): a solve predicted over it by the cost model is refused"
        " before compute (status 2, with what fits instead); --tol refines within it",
        {"type": "number", "name": "--budget"},
        on=SUITE,
    )
    guard: bool = _opt(
        True,
        "stop a run whose estimators blow up (srmdp.kernels.divergence)",
        {
            "flag": "negate",
            "name": "--no-guard",
            "help": "turn the divergence guard off (for a solution that really grows x1000 over [0, T])",
        },
    )

    def __post_init__(self):
        from .case.cases import is_int, plain

        if self.d is None:
            raise ConfigError("invalid d=None: give the dimension d (an integer >= 1)")
        if not is_int(self.d) or self.d < 1:
            raise ConfigError(f"invalid d={plain(self.d)!r}: the dimension must be an integer >= 1")
        for name, allowed in (("keep", KEEP), ("basis", tuple(BASES)), ("arithmetic", ARITHMETICS)):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"invalid {name}={getattr(self, name)!r}: allowed values are {', '.join(allowed)}")
        if self.strata is not None and self.strata not in STRATA:
            raise ConfigError(f"invalid strata={self.strata!r}: allowed values are {', '.join(STRATA)}")
        for name in ("guard", "error", "martingale_cv"):
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
                raise ConfigError(
                    f"invalid runs={self.runs} with tol: a refinement needs >= 2 runs per level (the"
                    " error estimate uses the standard errors of both levels)"
                )
        if self.budget_s is not None:
            _positive(self.budget_s, "budget_s", "seconds")

    @property
    def run_count(self) -> int:
        """The runs per level: as given, else 2 (4 with tol)."""
        if self.runs is not None:
            return int(self.runs)
        return RUNS_DEFAULT_TOL if self.tol is not None else RUNS_DEFAULT

    @classmethod
    def from_args(cls, args) -> SolveOptions:
        """The record from parsed ``srmdp solve`` arguments (:func:`add_arguments`)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _positive(v, name, unit):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ConfigError(f"invalid {name}={v!r}: must be a finite number > 0 ({unit})")
    return float(v)


@dataclass(frozen=True)
class Option:
    """One option: ``kind`` int, "number", str, "bool" (``--x/--no-x``) or "negate" (``--no-x`` only);
    ``surfaces``: where it is taken; ``differs``: {surface: :class:`Differs`}; ``absent``: {command surface: why
    the option is not there}; ``required``: the surfaces where it must be given."""

    name: str
    help: str
    default: object = None
    kind: object = str
    choices: tuple | None = None
    surfaces: tuple = ()
    differs: dict = field(default_factory=dict)
    absent: dict = field(default_factory=dict)
    required: tuple = ()
    flag: str | None = None  # the command-line name when not --name-with-dashes
    flag_help: str | None = None  # the command line's help when it says something else (a negated flag)

    @property
    def cli_name(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    def default_on(self, surface):
        return self.differs[surface].default if surface in self.differs else self.default

    def help_on(self, surface):
        d = self.differs.get(surface)
        return (d.help if d is not None and d.help else None) or self.flag_help or self.help


def _from_field(f) -> Option:
    cli = f.metadata["cli"] or {}
    kind = "bool" if cli.get("flag") == "bool" else "negate" if cli.get("flag") == "negate" else cli.get("type", str)
    return Option(
        f.name,
        f.metadata["help"],
        f.default,
        kind,
        cli.get("choices"),
        f.metadata["surfaces"],
        f.metadata["differs"],
        f.metadata["absent"],
        f.metadata["required"],
        cli.get("name"),
        cli.get("help"),
    )


PAPER = "the paper's rows are the workflow's (srmdp run --table); a solve takes any problem by the paper's rules"
# The options that are not a solve's record: the problem (srmdp.solve's first argument), the paper's rows of
# `srmdp run`, a run's chunk, the progress bar and the output file.
COMMAND_OPTIONS = (
    Option(
        "problem",
        "a registered problem (default gobet2016, the paper's) or path/to/file.py[:NAME]",
        DEFAULTS["problem"],
        surfaces=("api", "solve", "run", "case") + SUITE,
        required=SUITE,
        differs={"beyond_solve": Differs(None, "a suite solve names its problem", "a problem of the suite")},
    ),
    Option(
        "table",
        "a table of the registered rows (see `srmdp cases`)",
        surfaces=("run",) + LSMDP,
        absent={"solve": PAPER},
        required=LSMDP,
    ),
    Option(
        "row",
        "row of the table (1-based) when --dt is ambiguous",
        kind=int,
        surfaces=("run",) + LSMDP,
        absent={"solve": PAPER},
        required=LSMDP,
    ),
    Option(
        "run_start",
        "index of the first run (chunking)",
        DEFAULTS["run_start"],
        int,
        surfaces=RUN,
        absent={"solve": "a solve's runs are 0..runs-1 at every level: the workflow chunks runs, not solves"},
    ),
    Option("progress", "progress bar (default: on a terminal)", None, "bool", surfaces=("api", "solve") + RUN),
    Option(
        "out",
        "result JSON (written atomically)",
        surfaces=("solve", "run") + LSMDP + SUITE,
        required=("solve", "run") + LSMDP + SUITE,
        differs={"solve": Differs(None, "a solve writes a solution file", "solution file (.npz, written atomically)")},
    ),
)
OPTIONS = tuple(_from_field(f) for f in fields(SolveOptions)) + COMMAND_OPTIONS
BY_NAME = {o.name: o for o in OPTIONS}


def on(surface) -> tuple:
    """The options of ``surface`` (one of :data:`SURFACES`)."""
    return tuple(o for o in OPTIONS if surface in o.surfaces)


def choice(name, allowed):
    """An argparse type: one of ``allowed``, else one line naming the option and the allowed values."""

    def parse(text):
        if text not in allowed:
            raise argparse.ArgumentTypeError(f"invalid {name}={text!r}: allowed values are {', '.join(allowed)}")
        return text

    return parse


def number(text):
    """A float argument (its range is checked with the case, in one place)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def add_arguments(parser, surface):
    """One argument of ``parser`` per option of ``surface`` ("solve", "run", "campaign"), ``--name-with-dashes``,
    with that surface's default and help."""
    for o in on(surface):
        kw = {"dest": o.name, "help": o.help_on(surface)}
        if o.kind == "negate":
            parser.add_argument(o.cli_name, action="store_false", **kw)
            continue
        if o.kind == "bool":
            parser.add_argument(o.cli_name, action=argparse.BooleanOptionalAction, default=o.default_on(surface), **kw)
            continue
        if surface in o.required:
            kw["required"] = True
        else:
            kw["default"] = o.default_on(surface)
        if o.choices is not None:
            kw.update(type=choice(o.name, o.choices), metavar="{" + ",".join(o.choices) + "}")
        elif o.kind is not str:
            kw["type"] = number if o.kind == "number" else o.kind
        if o.flag and "metavar" not in kw:
            kw["metavar"] = o.flag[2:].upper().replace("-", "_")
        parser.add_argument(o.cli_name, **kw)


def _text(v) -> str:
    if isinstance(v, float):
        short = f"{v:g}"
        return short if float(short) == v else repr(v)
    return shlex.quote(str(v))


def command_line(values: dict, surface: str = "run") -> str:
    """The arguments of ``srmdp run`` (or another command ``surface``) that give ``values`` ({option: value}, in
    that order): None is left out (the default), a flag is ``--x`` when True and ``--no-x`` when False (left out
    where False is the default), a float in its shortest exact form.  An option the surface does not take is an
    error."""
    out = []
    for name, v in values.items():
        o = BY_NAME.get(name)
        if o is None or surface not in o.surfaces:
            raise ValueError(f"option {name!r} is not an option of {surface} (srmdp.options)")
        if v is None:
            continue
        if o.kind == "negate":
            out += [] if v else [o.cli_name]
        elif o.kind == "bool":
            if v:
                out.append(o.cli_name)
            elif o.default_on(surface) is not False:
                out.append("--no-" + o.cli_name[2:])
        else:
            out += [o.cli_name, _text(v)]
    return " ".join(out)


def taken_by(values: dict, surface: str) -> dict:
    """The ``values`` ({option: value}) that ``surface`` takes, in order; an option it does not take must be unset
    (None or False), else ValueError: a job never drops a setting silently (a reading with the Z control variate
    has no LSMDP job)."""
    out, dropped = {}, []
    for name, v in values.items():
        if surface in BY_NAME[name].surfaces:
            out[name] = v
        elif v is not None and v is not False:
            dropped.append(f"{name}={v!r}")
    if dropped:
        raise ValueError(f"{surface} takes no {', '.join(dropped)} (srmdp.options)")
    return out


# A Case field set by no option: its value comes from the problem.
CASE_FROM_PROBLEM = {"maturity": "the problem's MATURITY (dt divides it)"}


def case_options(values: dict) -> dict:
    """The :class:`~srmdp.case.cases.Case` fields of option ``values`` (any of the ``case`` options): "no truncation"
    (None) is inf and a bound a float, as the kernels hold it; ``martingale_cv`` implies ``z_cv``.  Every case made
    from options (``srmdp run``, :func:`srmdp.solve`, the paper's readings, the suite, the campaign) is made from
    this dict."""
    out = {}
    for name, v in values.items():
        if "case" not in BY_NAME[name].surfaces:
            raise ValueError(f"option {name!r} is not a field of Case (srmdp.options)")
        if name in ("trunc_y", "trunc_z"):  # None: no truncation
            v = math.inf if v is None else float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
        out[name] = v
    if out.get("martingale_cv"):
        out["z_cv"] = True
    return out


def make_case(values: dict, cls=None, **own):
    """The case of option ``values`` (the ``case`` options: d, dt, basis, cells, paths, the reading, the problem;
    :func:`case_options`); ``cls``: a subclass of :class:`~srmdp.case.cases.Case` (the paper's rows) with its ``own``
    fields (table, row)."""
    from .case.cases import Case

    return (cls or Case)(**case_options(values), **own)
