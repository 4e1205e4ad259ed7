# Shared definitions: config validation, the preset's plan (srmdp.paper.plan.preset) and helpers.
import os
import re
import shutil
import sys

from snakemake.utils import validate

# The workflow and its jobs use the installed package (pip install -e .: this checkout's srmdp).
from srmdp.paper.inputs.rows import table_ids

# the options of `srmdp run` as data -> its arguments (the one declaration of the options, srmdp.options)
from srmdp.options import command_line

# paper_code: the srmdp.paper modules a render job runs (its inputs: editing one renders again)
from srmdp.paper.plan.preset import Plan, paper_code, validate_config
from srmdp.exceptions import ConfigError

# A preset that breaks the schema is one line naming the key (srmdp plan's check), not Snakemake's print of the whole
# schema; Snakemake's own validation then fills the schema's defaults.
try:
    validate_config(config)
except ConfigError as exc:
    print(f"srmdp: error: {exc}", file=sys.stderr)
    sys.exit(2)
validate(config, "../schemas/config.schema.yaml")


def own_preset_error(configfiles, preset):
    """Why a preset file given with --configfile may not run, or None.  Snakemake merges it over config/config.yaml,
    so a file without `preset:` inherits the name `default` and would render into the committed tables/ and figures/
    as if it were the default preset: only config/config.yaml itself is the default preset.
    """
    import yaml

    default = os.path.realpath("config/config.yaml")
    own = [f for f in configfiles if os.path.realpath(f) != default]
    if preset != "default" or not own:
        return None
    named = [f for f in own if "preset" in (yaml.safe_load(open(f)) or {})]
    if named:
        return (
            f"config {named[-1]}: preset 'default' is config/config.yaml's (its outputs are the committed tables/ "
            "and figures/); give yours its own name, e.g. preset: mine (its outputs go to out/mine/)"
        )
    return (
        f"config {own[-1]}: no 'preset:' key, so it would inherit config/config.yaml's 'default' and overwrite the "
        "committed tables/ and figures/; name it, e.g. preset: mine (its outputs go to out/mine/)"
    )


if own_preset_error(workflow.overwrite_configfiles, config.get("preset")):
    print(
        f"srmdp: error: {own_preset_error(workflow.overwrite_configfiles, config.get('preset'))}",
        file=sys.stderr,
    )
    sys.exit(2)

PLAN = Plan(config)
PRESET = PLAN.preset
RES = PLAN.results
PUB = PLAN.published
LOGS = f"logs/{PRESET}"

# A chunk group's published summary that no longer holds the group's chunks (one committed after it) is aggregated
# again: made older than its chunks, since a fresh clone's file times cannot tell (srmdp.paper.plan.files).
# 2000-01-01: a time of 0 is no time to Snakemake.
for stale in PLAN.stale_gpu_summaries():
    os.utime(stale, (946684800, 946684800))
# Each preset keeps to its own outputs: the default preset's tables, figures and PDF are committed at the top of the
# repository; any other preset writes its own under out/<preset>/ (ignored by git) and never overwrites them.
OUT = "" if PRESET == "default" else f"out/{PRESET}/"
TABLES = list(table_ids())
FIGURES = ["forest", "speedup", "time_vs_steps", "convergence_y", "convergence_z"]
ENV = "../../environment.yml"


wildcard_constraints:
    reading="|".join(r.name for r in PLAN.readings),
    key=f"(?:{'|'.join(TABLES)})_r[0-9]+",  # a paper row: its table id and row number
    chunk=r"[0-9]+",
    group=r"float(32|64)-s[0-9]+-[0-9a-f]{8}",
    device="cpu|gpu",
    variant="|".join(re.escape(v.name) for v in PLAN.variants) or "NONE",
    table="|".join(TABLES),
    fig="|".join(FIGURES),


def want_pdf():
    choice = config.get("paper_pdf", "auto")
    if str(choice).lower() == "auto":
        return shutil.which("latexmk") is not None
    return str(choice).lower() == "true"


def all_targets():
    targets = [f"{OUT}tables/{t}.tex" for t in TABLES]
    targets += [f"{OUT}tables/agreement.tex", f"{OUT}tables/preset.tex"]
    targets += [
        f"{OUT}tables/paper_tables_1_2.tex",
        f"{OUT}tables/claims.tex",
        f"{OUT}tables/lsmdp.tex",
    ]
    targets.append(f"{OUT}tables/residuals.tex")  # residuals.smk
    targets.append(
        f"{OUT}tables/summary.tex"
    )  # the summary page and the sentences of the text
    # beyond the paper's tables: the Z control variate, float32 arithmetic (workflow/rules/switches.smk)
    targets += [f"{OUT}tables/zcv.tex", f"{OUT}tables/arithmetic.tex"]
    targets.append(f"{OUT}tables/beyond.tex")  # the suite beyond the paper (beyond.smk)
    targets += [f"{OUT}figures/{f}.{ext}" for f in FIGURES for ext in ("pdf", "png")]
    for (
        dev
    ) in (
        PLAN.devices
    ):  # the error runs of every device, even those the tables do not show
        targets += PLAN.summaries(device=dev)
    if want_pdf():
        targets.append(f"{OUT}paper/main.pdf")
    return targets


def preset_options():
    """The preset's options of every paper row's `srmdp run` job."""
    return {
        "test_points": PLAN.test_points,
        "seed": PLAN.seed,
        "precision": PLAN.precision,
    }


def solve_args(wildcards):
    """Arguments of `srmdp run` for one run chunk of one paper row under one reading: its options as data,
    rendered by srmdp.options.command_line."""
    sel = PLAN.by_key[wildcards.key]
    start, runs = sel.chunk_range(int(wildcards.chunk))
    return command_line(
        {"table": sel.table, "row": sel.row}
        | PLAN.reading(wildcards.reading).run_options()
        | {"runs": runs, "run_start": start}
        | preset_options()
    )


def timing_args(wildcards):
    """Arguments of `srmdp run` for the timing job of one paper row (its own runs, all threads)."""
    sel = PLAN.by_key[wildcards.key]
    return command_line(
        {"table": sel.table, "row": sel.row}
        | PLAN.reading(PLAN.timing_reading).run_options()
        | {"runs": PLAN.timing_runs}
        | preset_options()
    )


def chunk_runtime(wildcards, threads):
    _, runs = PLAN.chunk_runs(wildcards.key, wildcards.chunk)
    return PLAN.runtime_min(wildcards.key, runs, threads, wildcards.device)


def device_threads(wildcards, threads):
    """`--threads T` for a CPU job (the threads Snakemake gave it); a GPU job has none."""
    return f"--threads {threads}" if wildcards.device == "cpu" else ""


def available_cores():
    """The cores Snakemake was given (the local machine's when it runs jobs on a cluster)."""
    cores = workflow.cores
    if not isinstance(cores, int) or cores < 1 or cores > 4096:
        cores = os.cpu_count() or 1
    return cores


def timing_threads():
    return min(PLAN.timing_threads or available_cores(), available_cores())


# The rules that compute (the cost model prices them); every other rule publishes or renders.
COMPUTE_RULES = {
    "solve",
    "time",
    "residual_solve",
    "multicore",
    "likeforlike",
    "lsmdp",
    "beyond_run",
    "beyond_reference",
    "beyond_solve",
    "beyond_coverage",
}


def print_cost_report():
    """What this invocation will run, from Snakemake's DAG: its compute jobs priced by the cost model, and how many
    render jobs (publish, tables, figures, PDF) follow.  A run without compute jobs (README's main command in a
    clone: render only) is quiet on the console (:func:`quiet_render_console`): the report's per-row lines go to the
    log file only."""
    pending, render, outputs = set(), 0, set()
    try:
        for job in workflow.dag.needrun_jobs():
            if job.rule.name in COMPUTE_RULES:
                pending.update(str(f) for f in job.output)
            elif job.rule.name != "all":
                render += 1
                outputs.update(str(f) for f in job.output)
    # a DAG this Snakemake does not expose: price every job, as before
    except Exception as exc:
        print(
            f"srmdp: the DAG's jobs are not readable here ({exc}); every job is priced",
            file=sys.stderr,
        )
        pending = None
    from srmdp.paper.plan.cli import published_or_done

    # runs present as srmdp plan counts them: a chunk's result, or the published copy the render jobs read
    text = PLAN.cost_report(
        available_cores(),
        done=published_or_done(PLAN),
        pending=pending,
        render_jobs=render,
    )
    if pending == set() and quiet_render_console():
        from snakemake.logging import logger

        RENDERED.update(outputs)
        logger.info(text, extra={"srmdp_file_only": True})
        heads = [s for s in text.splitlines() if s.startswith("srmdp:")]
        first = heads[0].rstrip(":")
        text = "\n".join([f"{first} (per row: in the log file)", *heads[1:]])
    print(text, file=sys.stderr)


# the outputs of this invocation's render jobs (print_cost_report), summed up on success
RENDERED = set()


class _RenderConsole:
    """The console's filter in a render-only run: no per-job blocks (rule, its input list, up to 20,000 characters a
    line, reason, resources), no scheduler chatter, no lines meant for the log file only; progress, warnings and
    errors stay.  The log file (.snakemake/log/) keeps everything."""

    def filter(self, record):
        from snakemake_interface_logger_plugins.common import LogEvent

        if getattr(record, "srmdp_file_only", False):
            return False
        event = getattr(record, "event", None)
        if event in (
            LogEvent.JOB_INFO,
            LogEvent.GROUP_INFO,
            LogEvent.SHELLCMD,
            LogEvent.JOB_STARTED,
            LogEvent.JOB_FINISHED,
        ):
            return False
        if event is None and record.levelno <= 20:
            msg = str(record.msg or "")
            return not (msg.startswith("Select jobs to execute") or not msg.strip())
        return True


def quiet_render_console():
    """Put :class:`_RenderConsole` on Snakemake's console handler, when there is one and a log file keeps all
    (`--verbose` or a logger plugin: left as it is).  True when it did."""
    import logging

    from snakemake.logging import logger

    if workflow.output_settings.verbose or not workflow.logger_manager.get_logfile():
        return False
    consoles = [h for h in logger.handlers if h.name == "DefaultStreamHandler"]
    for handler in consoles:
        handler.addFilter(_RenderConsole())
    return bool(consoles)


def render_summary():
    """The last lines of a quiet render-only run: what it rendered, where the full log is."""
    if not RENDERED:
        return None
    tables = sorted(f for f in RENDERED if f.endswith(".tex"))
    figures = sorted({os.path.splitext(f)[0] for f in RENDERED if "figures/" in f})
    other = sorted(RENDERED - set(tables) - {f for f in RENDERED if "figures/" in f})
    words = [f"{len(tables)} tables ({os.path.dirname(tables[0])}/)" if tables else ""]
    if figures:
        words.append(
            f"{len(figures)} figures, pdf and png ({os.path.dirname(figures[0])}/)"
        )
    if other:
        words.append(f"{len(other)} other files")
    logs = ", ".join(workflow.logger_manager.get_logfile())
    where = f"; the full log: {logs}" if logs else ""
    return f"srmdp: rendered {', '.join(w for w in words if w)} from the committed results{where}"


def figure_inputs(wildcards):
    # the verdict's cells: their pools take the residual experiments' reruns
    if wildcards.fig == "forest":
        return {
            "summaries": PLAN.summaries(),
            "campaign": PLAN.gpu_summaries(),
            "variants": PLAN.residual_files(),
        }
    if wildcards.fig.startswith("convergence"):
        return {"summaries": PLAN.summaries(), "campaign": PLAN.gpu_summaries()}
    return {
        "timings": PLAN.timings(),
        "campaign": PLAN.gpu_summaries(),
        "likeforlike": PLAN.likeforlike_files(),
        "multicore": PLAN.multicore_files(),
    }


# The last line of a job without TeX: the PDF skipped and the packages that build it (paper.smk, onsuccess).
def pdf_skipped_note():
    from srmdp.paper.report.latex import TEX_HINT

    if want_pdf():
        return None
    if str(config.get("paper_pdf", "auto")).lower() == "false":
        return "srmdp: paper/main.pdf skipped (paper_pdf: false)"
    return f"srmdp: paper/main.pdf skipped: {TEX_HINT}"
