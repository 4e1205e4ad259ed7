"""``python -m srmdp.paper.campaign ...``: the same as ``srmdp campaign ...``."""

import sys

from .cli import main

sys.exit(main())
