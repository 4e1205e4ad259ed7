"""The campaign loop: plan the next chunk, run it under the budget's alarm, write it sealed, learn its cost; then
say what was done, cut off, not started or left out (see :mod:`srmdp.paper.campaign`)."""

from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import replace
from pathlib import Path

from ...case.cases import ConfigError
from ...case.results import content_hash, write_json_atomic
from ...runs.run import run_case
from ..inputs import chunks as chunkmod
from ..models.cost import CostModel, compiled_key, load_throughput
from ..models.shape_cost import bench_points
from .budget import Alarm, CutOff
from .chunk_files import chunk_name, pack
from .device import ASSUMED_GPU, check_device, device_model
from .planner import Planner
from .selection import case_list, load_readings, paper_selection, select_readings

NOMINAL_SE = 0.05  # dry run: the s.e. assumed for 2 runs of a row that has none yet


def _fmt_ind(res):
    def one(k):
        v, se = res.get(k), res.get(k + "_se")
        if v is None:
            return "nan"
        return f"{v:.3f}" + (f"±{se:.3f}" if se is not None else "")

    return f"MSE_Y,max {one('mse_y_max')}  MSE_Z,av {one('mse_z_av')}"


def _model(args) -> str:
    """The device model the cost model plans for: --model, else the device's; a dry run without the device
    plans for ASSUMED_GPU."""
    model = args.model
    if model is None:
        try:
            model = device_model(args.device)
        except Exception:
            if not args.dry_run:
                raise
            model = ASSUMED_GPU  # a dry run without a GPU plans for the H100
    return model


def _learn_present(groups, cost, data_dirs, out):
    """Warn of chunks that hold the same runs; feed the chunks present and the A/B files to the cost model."""
    for g in groups.values():
        for a, b in g.overlaps():
            out(
                f"campaign: warning: {a} and {b} hold the same run indices ({g.label}); `srmdp aggregate` will"
                " refuse them together: delete one"
            )
        for c in g.chunks:
            cost.learn(c.data)
    cost.learn_points(bench_points(*data_dirs))  # the A/B files of the GPU sessions: more shapes for the model


def _planner(args, rows, readings, groups, cost) -> Planner:
    return Planner(
        rows,
        readings,
        groups,
        cost,
        precision=args.precision,
        arithmetic=args.arithmetic,
        seed=args.seed,
        test_points=args.test_points,
        first_runs=args.first_runs,
        max_runs=args.max_runs,
        max_chunk_seconds=args.max_chunk_seconds,
        min_chunk_seconds=args.min_chunk_seconds,
        safety=args.safety,
    )


def _header(args, model, rows, readings, paths, planner, out):
    """The campaign's first line: budget, device, storage, arithmetic, rows x readings, runs present."""
    present = sum(planner.have(s) for s in planner.slots)
    arithmetic = args.arithmetic or "each reading's"
    out(
        f"campaign: budget {args.budget:.0f} s on {args.device} ({model}), {args.precision} storage,"
        f" {arithmetic} arithmetic, seed {args.seed},"
        f" {args.test_points} test points, {len(rows)} rows x {len(readings)} readings; {len(paths)} files scanned,"
        f" {present} runs present; {planner.progress()}" + (" [dry run: nothing is computed]" if args.dry_run else "")
    )


def _names(args, plan, number) -> tuple[str, str]:
    """(file name, head of its lines) of the campaign's ``number``-th chunk."""
    s = plan.slot
    name = chunk_name(s.case, s.reading.name, args.device, args.seed, plan.run_start, plan.runs, args.test_points)
    head = (
        f"chunk {number}: {s.row.label:<13} {s.reading.name:<9} {args.precision} runs"
        f" {plan.run_start}-{plan.run_start + plan.runs - 1} ({plan.stage})"
    )
    return name, head


def _plan_dry(planner, cost, plan):
    """A dry run's chunk: its runs count as present, its kernels as compiled, and its s.e. shrinks."""
    s = plan.slot
    s.pending.update(range(plan.run_start, plan.run_start + plan.runs))
    cost.compiled.add(compiled_key(s.case))
    have = planner.have(s)  # s.e. ~ 1/sqrt(runs); a nominal value where no run is there yet
    if s.se is not None:
        s.se *= math.sqrt((have - plan.runs) / have)
    elif have >= 2:
        s.se = NOMINAL_SE * math.sqrt(2 / have)


def _write_chunk(res, plan, name, out_dir, groups, model, wall) -> Path:
    """Seal and write a finished chunk with its ``campaign`` record; add it to ``groups``; its path."""
    s = plan.slot
    hw = (res.provenance or {}).get("hardware") or {}
    res = replace(
        res,
        campaign={
            "reading_name": s.reading.name,
            "stage": plan.stage,
            "planned_seconds": plan.seconds,
            "wall_seconds": wall,
            "device_model": hw.get("model", model),
            "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    path = out_dir / name
    if path.exists():  # another group with the same name (other random streams): never overwrite
        path = out_dir / f"{name[:-5]}.{content_hash(res['per_run'])[:8]}.json"
    write_json_atomic(path, res)
    data = chunkmod.index([path], verify=True)
    for key, g in data.items():
        if key in groups:
            groups[key].chunks.extend(g.chunks)
        else:
            groups[key] = g
        if key[0] == s.case_hash:
            s.streams = key[1]
    return path


def _report(args, planner, cost, done, total_ps, elapsed, cut, out):
    """The campaign's last lines: what was done; cut off, not started, still short, left out."""
    runs = sum(p.runs for p in done)
    out(
        f"campaign: {len(done)} chunks, {runs} runs, {total_ps:.3g} path-steps in {elapsed:.0f} s"
        f"{' (planned)' if args.dry_run else ''}; {planner.progress()}"
    )
    if cut:
        out(
            f"campaign: cut off at the budget's end: {cut[0]} lost after {cut[1]:.1f} s (planned {cut[2]:.3g} s);"
            " the finished chunks are written"
        )
    done_names = {p.slot.name for p in done}
    skipped = [
        f"{name} (needs ~{need:.0f} s with the margin, {left:.0f} s were left)"
        for name, (need, left) in planner.skipped.items()
        if name not in done_names
    ]
    if skipped:
        out("campaign: not started, as they would not end in the time left: " + "; ".join(skipped))
    short = [s for s in planner.slots if not s.failed and planner.have(s) < args.first_runs]
    if short:
        shown = ", ".join(f"{s.name} ({planner.have(s)} runs, ~{cost.run_seconds(s.case):.3g} s/run)" for s in short)
        out(f"campaign: still below {args.first_runs} runs (next time): {shown}")
    failed = [f"{s.name}: {s.failed}" for s in planner.slots if s.failed]
    if failed:
        out("campaign: left out: " + "; ".join(failed))


def run_campaign(args, out=print, runner=None) -> int:
    """The campaign loop (see :mod:`srmdp.paper.campaign`); ``runner`` replaces run_case in tests."""
    t0 = time.monotonic()
    deadline = t0 + args.budget
    out_dir = Path(args.out)
    readings = select_readings(load_readings(args.config), args.readings)
    rows = case_list(args.case_list) if args.case_list else paper_selection(args.cases)
    table = load_throughput(args.throughput)
    if not args.dry_run and runner is None:
        check_device(args.device, args.threads)
    model = _model(args)
    threads = args.threads or (os.cpu_count() or 1)
    cost = CostModel(table, args.device, model, threads)
    paths = chunkmod.result_paths(*args.data, out_dir)
    groups = chunkmod.index(paths, verify=True)
    if getattr(args, "check_only", False):
        return 0
    _learn_present(groups, cost, args.data, out)
    planner = _planner(args, rows, readings, groups, cost)
    _header(args, model, rows, readings, paths, planner, out)
    if not args.dry_run:
        out_dir.mkdir(parents=True, exist_ok=True)
    run = run_case if runner is None and not args.dry_run else runner

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":  # the simulator's uint64 arithmetic wraps in numpy scalars
        warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning)
    done, failures, total_ps, clock = [], 0, 0, 0.0
    cut = None
    with Alarm(not args.dry_run) as alarm:
        while True:
            now = t0 + clock if args.dry_run else time.monotonic()
            left = deadline - now - args.reserve
            plan = planner.next(left)
            if plan is None:
                break
            s = plan.slot
            name, head = _names(args, plan, len(done) + 1)
            if args.dry_run:
                _plan_dry(planner, cost, plan)
                clock += plan.seconds
                done.append(plan)
                total_ps += plan.runs * s.case.path_steps
                out(f"{head}: planned {plan.seconds:.3g} s -> {name}")
                continue
            started = time.monotonic()
            try:
                alarm.set(max(deadline - args.reserve - started, 1e-3))
                res = run(
                    s.case,
                    runs=plan.runs,
                    run_start=plan.run_start,
                    test_points=args.test_points,
                    seed=args.seed,
                    device=args.device,
                    threads=args.threads,
                )
                alarm.clear()
            except CutOff:
                cut = (head, time.monotonic() - started, plan.seconds)
                break
            except ConfigError as exc:  # e.g. the case does not fit the device's memory
                alarm.clear()
                s.failed = " ".join(str(exc).split())
                out(f"{head}: skipped: {s.failed}")
                continue
            except Exception as exc:  # NumericalError and the like: this row is left for later sessions
                alarm.clear()
                s.failed = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
                failures += 1
                out(f"{head}: FAILED ({s.failed}); no file written")
                continue
            wall = time.monotonic() - started
            path = _write_chunk(res, plan, name, out_dir, groups, model, wall)
            cost.learn(res, session=True)
            cost.learn_chunk(res, wall)
            planner.refresh(s)
            if args.pack:
                pack(out_dir, Path(args.pack))
            done.append(plan)
            total_ps += plan.runs * s.case.path_steps
            left = deadline - time.monotonic()
            out(
                f"{head}: {wall:.3g} s (planned {plan.seconds:.3g}), {res.get('path_steps_per_second', 0):.3g}"
                f" path-steps/s, {_fmt_ind(res)}; {planner.have(s)} runs now -> {path}; {left:.0f} s left"
            )
    elapsed = clock if args.dry_run else time.monotonic() - t0
    _report(args, planner, cost, done, total_ps, elapsed, cut, out)
    return 3 if failures else 0
