"""The conventions shared by the ``srmdp`` subcommands (``run``, ``solve``, ...): the parser, the number type, the
exit statuses.  The options themselves are declared once, in :mod:`srmdp.options`.

Every input error is one line on stderr (``srmdp: error: ...``) and exit status 2, before any compute.
"""

import argparse
import sys

from ..exceptions import ConfigError
from ..options import number  # noqa: F401  (the subcommands' number type)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, and which takes no abbreviation of an option
    (``--path 300`` is an error, not ``--paths 300``)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog.split()[0]}: error: {' '.join(str(message).split())}\n")


def one_line(exc) -> str:
    """An exception's message on one line."""
    return " ".join(str(exc).split())


def exit_status(command, interrupted: str = "no result written") -> int:
    """Run ``command()`` and return its exit status; invalid input (:class:`ConfigError`) is one line on stderr
    and status 2, an interrupt status 130 with ``interrupted`` saying what was kept."""
    try:
        return command()
    except ConfigError as exc:
        print(f"srmdp: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"srmdp: interrupted; {interrupted}", file=sys.stderr)
        return 130
