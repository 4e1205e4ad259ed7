"""The conventions shared by the ``srmdp`` subcommands (``run``, ``solve``, ...): the parser, the number type, the
exit statuses.  The options themselves are declared once, in :mod:`srmdp.options`.

Every input error is one line on stderr (``srmdp: error: ...``) and exit status 2, before any compute.
"""

import argparse
import sys

from ..exceptions import ConfigError, Interrupted
from ..options import number  # noqa: F401  (the subcommands' number type)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2, and which takes no abbreviation of an option
    (``--path 300`` is an error, not ``--paths 300``)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog.split()[0]}: error: {' '.join(str(message).split())}\n")


def check_out(path):
    """Refuse an output path that could not be written (one line, before any compute); returns the directory that
    writing it will create (None when it exists), for :func:`say_created` once the file is written."""
    from ..case.results import check_writable, new_directory

    check_writable(path)
    return new_directory(path)


def say_created(directory):
    """After the output is written: one line on stderr naming the directory that writing it created."""
    if directory is not None and directory.is_dir():
        print(f"srmdp: created the directory {directory} (--out)", file=sys.stderr)


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
    except Interrupted as exc:  # a stop the command did not keep anything of (it keeps what it can itself)
        print(f"srmdp: {exc}; {interrupted}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print(f"srmdp: interrupted; {interrupted}", file=sys.stderr)
        return 130


def partial_path(out) -> str:
    """Where a command's partial answer goes beside its output ``out`` (``x.json`` or ``x.npz`` -> ``x.partial.json``;
    the output itself stays absent, so that a job that needs it does not take a partial one)."""
    out = str(out)
    for ext in (".json", ".npz"):
        if out.endswith(ext):
            return out[: -len(ext)] + ".partial.json"
    return out + ".partial.json"


def keep_partial(out, partial: dict, message: str, **extra) -> str:
    """The one writer of partial answers (a numerical error's, a signal's): ``partial`` (a result of the runs done,
    or a solve's record of its levels) with ``stopped`` = {message, ...} written atomically to
    :func:`partial_path` (``out``); returns what to say of it (where it went, or that it could not be written)."""
    from ..case.results import write_json_atomic

    where = partial_path(out)
    data = dict(partial, stopped={"message": message, **extra})
    try:
        write_json_atomic(where, data)
    except OSError as exc:
        return f"the partial answer could not be written to {where}: {exc.strerror or exc}"
    runs = partial.get("runs")
    done = f"the {runs} run(s) done" if isinstance(runs, int) else "what was done"
    return f"{done} written to {where}"
