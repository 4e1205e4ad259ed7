"""Helpers shared by several test files (and, for :mod:`tests.support.sm90`, by the sm_90 tools of bench/gpu/),
imported as ``tests.support.NAME`` with the repository root on ``sys.path`` (the tests' conftest puts it there, the
tools do it themselves).  A test file never imports another test file: what two of them share lives here.

- :mod:`tests.support.sm90`: the offline sm_90 helpers (occupancy, PTX/ptxas/SASS scans), no GPU;
- :mod:`tests.support.workflow`: Snakemake in a copy of the repository (``copy_repo``, ``snakemake``, ``ran_jobs``).
"""
