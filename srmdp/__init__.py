"""srmdp: the Stratified Regression Multistep-forward Dynamical Programming scheme of
Gobet, López-Salas, Turkedjiev and Vázquez (SISC 2016), on CPU (Numba) and GPU (numba-cuda)."""

__version__ = "0.1.0"

from .case.cases import Case  # noqa: E402
from .exceptions import ConfigError, NumericalError  # noqa: E402
from .options import SolveOptions  # noqa: E402
from .runs.run import run_case  # noqa: E402
from .solutions.solution import Solution, load  # noqa: E402
from .solving import solve  # noqa: E402

__all__ = [
    "Case",
    "ConfigError",
    "NumericalError",
    "Solution",
    "SolveOptions",
    "load",
    "run_case",
    "solve",
    "__version__",
]
