"""README section 3's convergence table for examples/allen_cahn.py, d = 4, regenerated: one ``srmdp solve`` per row.

    python bench/own_pde/allen_cahn_table.py            # prints the markdown table (CPU minutes, 1 thread)
    python bench/own_pde/allen_cahn_table.py --dry-run  # prints the commands only

Each row runs exactly the command README section 3 shows (8 runs, the file's fixed box with ``--strata box``,
no error estimate, one thread) and reads the solution file back for u0, its s.e. and the seconds per run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = 0.453315  # u(0, 0) at d = 4 by finite differences: python examples/allen_cahn_reference.py 4
# (box L, #C, M, dt); #C, M given on every row (the first is the rules' at N = 5)
ROWS = [
    (3, 3, 125, 0.06),
    (3, 5, 500, 0.06),
    (3, 7, 500, 0.06),
    (3, 9, 500, 0.06),
    (3, 9, 2000, 0.06),
    (3, 9, 500, 0.03),
    (6.5, 3, 125, 0.06),
    (6.5, 9, 500, 0.06),
]


def command(L, cells, paths, dt, out):
    return [
        sys.executable,
        "-m",
        "srmdp",
        "solve",
        "--problem",
        str(ROOT / "examples" / "allen_cahn.py"),
        "--d",
        "4",
        "--runs",
        "8",
        "--strata",
        "box",
        "--no-error",
        "--threads",
        "1",
        "--no-progress",
        "--cells",
        str(cells),
        "--paths",
        str(paths),
        "--half-width",
        f"{L:g}",
        "--dt",
        f"{dt:g}",
        "--out",
        str(out),
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    import srmdp

    print("| box L | #C | M | Δt | u0 ± s.e. | u0 − reference | s/run (1 core) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for L, cells, paths, dt in ROWS:
            out = Path(tmp) / "ac.npz"
            cmd = command(L, cells, paths, dt, out)
            if args.dry_run:
                print(" ".join(cmd[1:]))
                continue
            subprocess.run(cmd, check=True, capture_output=True)
            r = srmdp.load(out).result
            print(
                f"| {L:g} | {cells} | {paths} | {dt:g} | {r['u0']:.4f} ± {r['u0_se']:.4f} |"
                f" {r['u0'] - REFERENCE:+.3f} | {r['seconds_per_run']:.2g} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
