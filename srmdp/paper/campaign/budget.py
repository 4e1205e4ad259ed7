"""The campaign's budget: at its end (less the reserve) an alarm (SIGALRM) stops the chunk in flight, which is
lost; the finished chunks stay."""

from __future__ import annotations

import signal


class CutOff(BaseException):
    """The budget's end: the chunk in flight is abandoned (a BaseException: no ``except Exception`` eats it)."""


def _alarm(signum, frame):
    raise CutOff()


class Alarm:
    """SIGALRM raising :class:`CutOff`, while the ``with`` block runs; ``enabled`` False (a dry run) or a platform
    without ``setitimer``: it does nothing.  On leaving the block the timer is cleared and the old handler put back."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and hasattr(signal, "setitimer")
        self.old_handler = None

    def __enter__(self):
        if self.enabled:
            self.old_handler = signal.signal(signal.SIGALRM, _alarm)
        return self

    def __exit__(self, *exc):
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old_handler)

    def set(self, seconds: float):
        """Raise CutOff in ``seconds``."""
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def clear(self):
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, 0)
