"""The options and conventions shared by the ``srmdp`` subcommands (``run``, ``solve``, ...).

Every input error is one line on stderr (``srmdp: error: ...``) and exit status 2, before any compute.
"""

import argparse
import math
import sys

from .exceptions import ConfigError
from .strata import OUTSIDE_MODES


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog.split()[0]}: error: {' '.join(str(message).split())}\n")


def number(text):
    """A float argument (its range is checked with the case, in one place)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


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


def add_reading_options(p, number):
    """--outside, --trunc-y, --trunc-z, --precision, --arithmetic (the reading, storage and arithmetic of a case:
    run and solve)."""
    p.add_argument("--outside", choices=list(OUTSIDE_MODES), default="unbounded",
                   help="reading outside the strata box [-L, L]^d (default unbounded)")
    p.add_argument("--trunc-y", type=number, default=math.inf, help="truncation bound of y (default none)")
    p.add_argument("--trunc-z", type=number, default=math.inf, help="truncation bound of z (default none)")
    p.add_argument("--precision", choices=["float64", "float32"], default="float64")
    p.add_argument("--arithmetic", choices=["float64", "float32"], default="float64",
                   help="the type the kernels compute a path in (float32: the paper's, §5; default float64)")


def add_device_options(p):
    """--threads, --device, --progress (where and how a case runs: run and solve)."""
    p.add_argument("--threads", type=int, help="CPU threads (default: all)")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal)")
