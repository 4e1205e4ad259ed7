"""The ziggurat's warp divergence, computed exactly from the random streams (no GPU).

    python bench/gpu/divergence_model.py [--cases LP0d4:0.05,LP1d4:0.05] [--strata 64] [--block 128]

A lane of a warp takes the ziggurat's slow path (wedges or tail, :func:`srmdp.numerics.rng.normal_slow`) when one of its
d
normals of a path step misses the rectangle.  In a *warp-step* -- one iteration of the path loop over j > i
(:func:`srmdp.numerics.scheme.continue_path`), which the 32 lanes of a warp run in lockstep -- the warp waits for its
slow
lanes.  This replays the streams of the first ``--strata`` strata at every time step i (the same draws as the
solver: :func:`srmdp.numerics.scheme.first_step`'s d uniforms and d normals, then d normals per step j) and counts, per
warp-step, the lanes that take the slow path:

* block mode: a warp is 32 consecutive paths m of one stratum (threads of step_block, m = base + tid);
* thread mode: a warp is 32 consecutive strata k at the same path m (threads of step_thread).

Printed: the fraction of warp-steps with at least one slow lane, the mean slow lanes in those, and the mean
active lanes of a warp-step (the valid lanes: M mod 32 and K mod 32 leave lanes idle).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def flags_function(k):
    """An njit function (case fields, strata) -> slow[i, kk, m, j] flags (uint8), from the kernel module k."""
    from numba import njit

    seed_state, next_s, normal_slow, uniform_s = k.seed_state, k.next_s, k.normal_slow, k.uniform_s
    ratio = k.ZIG_RATIO

    @njit
    def slow_flags(seed, run, n_steps, d, paths, strata):
        out = np.zeros((n_steps, strata, paths, n_steps), np.uint8)
        slow_normals = 0
        for i in range(n_steps - 1):
            for kk in range(strata):
                for m in range(paths):
                    s0, s1 = seed_state(seed, 0, run, i, kk, m)
                    for _ in range(d):  # first step: d uniforms (sample_cell) ...
                        v, s0, s1 = uniform_s(s0, s1)
                    for j in range(i, n_steps):  # ... d normals (dW_i), then d per step j = i+1..N-1
                        slow = 0
                        for _ in range(d):
                            r, s0, s1 = next_s(s0, s1)
                            u = float(np.int64(r >> np.uint64(11))) * 2.0**-52 - 1.0
                            idx = int(r & np.uint64(127))
                            if not abs(u) < ratio[idx]:
                                slow = 1
                                slow_normals += 1
                                v, s0, s1 = normal_slow(u, idx, s0, s1)
                        if j > i:
                            out[i, kk, m, j] = slow
        return out, slow_normals

    return slow_flags


def model(flags, steps, block_mode):
    """(fraction of warp-steps with a slow lane, mean slow lanes given one, mean valid lanes per warp-step)."""
    n, strata, paths, _ = flags.shape
    any_slow = slow_lanes = warp_steps = lanes = 0
    for i in range(n - 1):
        for j in range(i + 1, n):
            f = flags[i, :, :, j]  # (strata, paths)
            groups = (
                [f[kk, w : w + 32] for kk in range(strata) for w in range(0, paths, 32)]
                if block_mode
                else [f[w : w + 32, m] for m in range(paths) for w in range(0, strata, 32)]
            )
            for g in groups:
                warp_steps += 1
                lanes += g.size
                s = int(g.sum())
                if s:
                    any_slow += 1
                    slow_lanes += s
    return any_slow / warp_steps, slow_lanes / max(any_slow, 1), lanes / warp_steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="LP0d4:0.2,LP0d4:0.05,LP1d4:0.05")
    ap.add_argument("--strata", type=int, default=64, help="the first strata replayed (exact on those)")
    ap.add_argument("--paths", type=int, default=256, help="at most this many paths per stratum replayed")
    args = ap.parse_args(argv)
    from srmdp.numerics.build import kernels
    from srmdp.paper.inputs.rows import paper_case
    from srmdp.problems import load_problem

    slow_flags = flags_function(kernels(load_problem("gobet2016"), "LP0", 0, "cpu"))
    for spec in args.cases.split(","):
        table, dt, *row = spec.split(":")
        case = paper_case(table, dt=float(dt), row=int(row[0]) if row else None)
        strata, paths = min(case.strata, args.strata), min(case.paths, args.paths)
        flags, slow_normals = slow_flags(0, 0, case.steps, case.d, paths, strata)
        lane_steps = sum(case.steps - 1 - i for i in range(case.steps)) * strata * paths  # the loop's steps j > i
        normals = case.d * (lane_steps + (case.steps - 1) * strata * paths)  # and dW_i of the first steps
        print(
            f"{case.label} (d={case.d}, N={case.steps}, M={case.paths}, K={case.strata}; replayed {strata} strata"
            f" x {paths} paths): P(normal slow) = {slow_normals / normals:.4f} ({normals} normals),"
            f" P(lane-step slow) = {flags.sum() / lane_steps:.4f}"
        )
        for mode in ("block", "thread"):
            frac, given, lanes = model(flags, case.steps, mode == "block")
            print(
                f"  {mode:6s}: warp-steps with a slow lane {100 * frac:5.1f} %, slow lanes in those {given:.2f},"
                f" valid lanes per warp-step {lanes:.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
