"""A stop asked for by a signal: SIGINT (Ctrl-C) or SIGTERM sets a flag (:func:`on_signals`, installed by the command
line around a solve or a run); the run loop (:func:`srmdp.runs.run.run_case`, between time steps and runs) and the
CPU backend (between slices of strata of one time step, :mod:`srmdp.kernels.cpu`) read it with :func:`check`, which
raises :class:`srmdp.exceptions.Interrupted`.  A jitted kernel never returns to Python mid-call, so the slices are
what bounds the time to stop (a fraction of a second of compute each).  A second signal while the first is pending
stops at once (KeyboardInterrupt, nothing kept).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

from ..exceptions import Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_requested: list = []  # the signal numbers received since on_signals began


def requested() -> int | None:
    """The first signal received (its number), or None."""
    return _requested[0] if _requested else None


def check():
    """Raise :class:`Interrupted` if a stop was asked for."""
    if _requested:
        raise Interrupted(_requested[0])


def request(signum: int):
    """Ask for a stop as a signal would (tests, an embedding program)."""
    _requested.append(int(signum))


def _handler(signum, frame):
    if _requested:  # a second signal: stop now, without waiting for the current slice's end
        raise KeyboardInterrupt
    _requested.append(int(signum))


@contextmanager
def on_signals():
    """SIGINT and SIGTERM ask for a stop (the flag) instead of ending the process, inside the block; the previous
    handlers and a clear flag after it.  Outside the main thread (where Python cannot install handlers) it does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, _handler) for s in SIGNALS}
    _requested.clear()
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        _requested.clear()
