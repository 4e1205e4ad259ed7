"""Run ``srmdp`` with every CUDA kernel compiled with line information, for Nsight Compute's source view.

    python bench/gpu/gpu_lineinfo.py run --table LP0d4 --dt 0.05 --device gpu ...     # = srmdp run ..., lineinfo

numba-cuda's ``lineinfo=True`` maps the SASS to the Python source lines without changing the generated code
(unlike ``debug``), so ``ncu --section SourceCounters --section WarpStateStats --import-source yes`` can say
which line's loads stall.  The kernels are built by ``srmdp.numerics.build`` through ``numba.cuda.jit``: this script
makes ``lineinfo=True`` the default of ``numba.cuda.jit`` before ``srmdp`` is imported, and points the kernel
cache at a fresh folder (``SRMDP_KERNEL_CACHE``, unless set) so that no kernel compiled without line
information is loaded from the disk cache.  Under the simulator (``NUMBA_ENABLE_CUDASIM=1``) the option is
accepted and ignored: the dry runs check the command line.
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main(argv=None) -> int:
    os.environ.setdefault("SRMDP_KERNEL_CACHE", tempfile.mkdtemp(prefix="srmdp-lineinfo-"))
    from numba import cuda

    jit = cuda.jit

    def jit_with_lineinfo(*args, **kwargs):
        if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" and not kwargs.get("debug"):
            kwargs.setdefault("lineinfo", True)
        return jit(*args, **kwargs)

    cuda.jit = jit_with_lineinfo
    from srmdp.cli.commands import main as srmdp_main

    return srmdp_main(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
