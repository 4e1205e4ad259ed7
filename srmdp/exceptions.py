"""The package's exceptions (the CLI maps them to exit statuses 2, 3 and 128 + the signal's number), and the exit
status of a tolerance not met (4)."""

import signal


class ConfigError(ValueError):
    """Invalid input; the message is one line naming the field and what is allowed (exit status 2)."""


class NumericalError(RuntimeError):
    """A non-finite regression coefficient or error, reported with its time step and stratum (exit status 3)."""


class ProblemFunctionError(NumericalError):
    """A run stopped by the problem's own function (it raised, or returned a non-finite value at finite arguments):
    the message names the function; no remedy of the scheme applies (exit status 3)."""


class Interrupted(KeyboardInterrupt):
    """A solve or a run stopped by SIGINT or SIGTERM (:mod:`srmdp.kernels.stop`) between two slices of strata, time
    steps or runs.  ``partial``: the result of the runs completed in the case that was running (None if none);
    ``levels``: the results of the levels completed before it (a solve's fine level, a refinement's levels);
    ``stage``: what was running; ``answer``: a solve's answer so far (None before a level completed).
    Exit status 128 + ``signum`` (130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int):
        self.signum = int(signum)
        self.partial = None
        self.levels = []
        self.stage = None
        self.answer = None  # a solve's answer so far (a result), where a level completed
        super().__init__(f"stopped by {self.signal_name}")

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class ChunkError(ConfigError):
    """A chunk file is unreadable, incomplete, or does not belong with the others."""


TOL_NOT_MET = 4  # exit status of `srmdp solve --tol` when the tolerance was not met (the answer is saved)
