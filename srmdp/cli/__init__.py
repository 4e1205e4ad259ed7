"""The ``srmdp`` command: its subcommands and entry point (commands), the conventions they share (common), and
``srmdp solve`` / ``srmdp eval`` (solution).  Other packages add subcommands through the entry-point group
``srmdp.commands``.

May import: anything in the library; never srmdp.paper (which registers itself through entry points).
"""

from .commands import main

__all__ = ["main"]
