"""The package's exceptions (the CLI maps them to exit statuses 2 and 3), and the exit status of a tolerance not
met (4)."""


class ConfigError(ValueError):
    """Invalid input; the message is one line naming the field and what is allowed (exit status 2)."""


class NumericalError(RuntimeError):
    """A non-finite regression coefficient or error, reported with its time step and stratum (exit status 3)."""


class ProblemFunctionError(NumericalError):
    """A run stopped by the problem's own function (it raised, or returned a non-finite value at finite arguments):
    the message names the function; no remedy of the scheme applies (exit status 3)."""


class ChunkError(ConfigError):
    """A chunk file is unreadable, incomplete, or does not belong with the others."""


TOL_NOT_MET = 4  # exit status of `srmdp solve --tol` when the tolerance was not met (the answer is saved)
