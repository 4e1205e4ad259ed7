"""``srmdp plan [CONFIG.yaml...]``: a preset validated as the workflow does
(:func:`srmdp.paper.plan.preset.validate_config`,
:class:`srmdp.paper.plan.preset.Plan`) and the estimated cost of every job, without Snakemake."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import yaml

from .. import REPOSITORY
from .preset import Plan, load_configs, validate_config


def main(argv=None):
    """``srmdp plan [config/config.yaml [config/PRESET.yaml]]``: the estimated cost of every job of a preset."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("-") for a in argv):
        usage = "usage: srmdp plan [config/config.yaml [config/PRESET.yaml]]"
        if set(argv) <= {"-h", "--help"}:
            print(
                usage + "\n\nThe estimated cost of a preset: per paper row, its runs present (the chunks that"
                " exist) and wanted, the CPU cost model's seconds per run beside the fastest run measured, and the"
                " time still to run; every other job with its threads, memory and time; then, for the default"
                " preset only (no CONFIG given), what the paper's rows still need on the GPU (8 runs each) at the"
                " measured rates, and the error of the GPU cost model on held-out shapes; a preset's deferred: rows"
                " with their GPU cost."
            )
            return 0
        bad = next(a for a in argv if a.startswith("-") and a not in ("-h", "--help"))
        print(f"srmdp plan: error: unrecognized argument {bad}; {usage.removeprefix('usage: ')}", file=sys.stderr)
        return 2
    if not Path("config/config.yaml").is_file():  # the preset's paths (results/, data/summaries/) are the root's
        print(
            f"srmdp plan: error: no config/config.yaml here: run it in the repository's root ({REPOSITORY})",
            file=sys.stderr,
        )
        return 2
    paths = argv or ["config/config.yaml"]
    if paths[0] != "config/config.yaml":
        paths = ["config/config.yaml", *paths]
    try:
        config = load_configs(paths)
        validate_config(config)
        plan = Plan(config)
    except OSError as exc:  # a preset file that is not there or not readable
        print(f"srmdp plan: error: cannot read {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, yaml.YAMLError) as exc:  # ConfigError, Plan's cross-references, bad YAML: one line, status 2
        print(f"srmdp plan: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(plan.cost_report(done=published_or_done(plan)))
    print(
        f"srmdp: `snakemake` runs only the jobs whose result and published copy ({plan.published}/) are both missing;"
        " `snakemake --forceall` runs them all"
    )
    if os.path.isdir(plan.gpu_results):
        from .gpu import deferred_report, report

        default = paths == ["config/config.yaml"]
        if default:  # the GPU campaign's rows (every paper row the default preset renders) at the measured rates
            print(report([plan.gpu_results], plan.readings[0]))
        if config.get("deferred"):
            print(deferred_report([plan.gpu_results], plan.readings[0], config["deferred"]))
        if not default:  # a preset given prints what it would run, not the paper's GPU campaign
            print(
                f"srmdp: the paper's GPU campaign ({plan.gpu_results}/, docs/gpu-campaign.md) is not this preset's"
                " jobs; `srmdp plan` (the default preset) prints what it still needs"
            )
    return 0


def published_or_done(plan):
    """Whether the workflow leaves a compute job of ``plan`` unrun: its result is under results/, or the published
    copy that the render jobs read is (the default preset's are committed, so its main job only re-renders)."""
    results = plan.results + "/"

    def done(target) -> bool:
        if os.path.exists(target):
            return True
        if not target.startswith(results):
            return False
        rel = target[len(results) :]
        parts = rel.split("/")
        if parts[0] == "runs":  # runs/<reading>/<key>/<device>/chunk-<j>.json, published per (reading, key, device)
            published = plan.summary_path(parts[1], parts[2], parts[3])
        elif parts[0] == "residuals":  # residuals/<variant>/<key>/cpu.json
            published = plan.residual_path(parts[1], parts[2])
        else:  # timing, lsmdp, multicore, likeforlike, beyond: the same relative path
            published = f"{plan.published}/{rel}"
        return os.path.exists(published)

    return done


if __name__ == "__main__":
    sys.exit(main())
