"""``srmdp plan [CONFIG.yaml...]``: a preset validated as the workflow does (:func:`srmdp.paper.plan.validate_config`,
:class:`srmdp.paper.plan.Plan`) and the estimated cost of every job, without Snakemake."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .plan import Plan, load_configs, validate_config


def main(argv=None):
    """``srmdp plan [config/config.yaml [config/PRESET.yaml]]``: the estimated cost of every job of a preset."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("-") for a in argv):
        usage = "usage: srmdp plan [config/config.yaml [config/PRESET.yaml]]"
        if set(argv) <= {"-h", "--help"}:
            print(
                usage + "\n\nThe estimated cost of a preset: per paper row, its runs present (the chunks that"
                " exist) and wanted, the CPU cost model's seconds per run beside the fastest run measured, and the"
                " time still to run; every other job with its threads, memory and time; then what the paper's rows"
                " still need on the GPU (8 runs each) at the measured rates, and the error of the GPU cost model on"
                " held-out shapes."
            )
            return 0
        print(usage, file=sys.stderr)
        return 2
    paths = argv or ["config/config.yaml"]
    if paths[0] != "config/config.yaml" and Path("config/config.yaml").exists():
        paths = ["config/config.yaml", *paths]
    try:
        config = load_configs(paths)
        validate_config(config)
        plan = Plan(config)
    except ValueError as exc:  # ConfigError, and the cross-references Plan checks: one line, exit status 2
        print(f"srmdp plan: {exc}", file=sys.stderr)
        return 2
    print(plan.cost_report())
    if os.path.isdir(plan.gpu_results):  # the paper's rows on the GPU: what they still need at measured rates
        from .gpu_plan import report

        print(report([plan.gpu_results], plan.readings[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
