"""The report's summary page: the verdict, the scorecards, the rows not run and every generated sentence.

:func:`summary_model` counts the cells (:mod:`srmdp.paper.report.judged`) once, through
:func:`srmdp.paper.report.verdict.paper_numbers` and :func:`srmdp.paper.report.verdict.evidence_totals`, and hands
the counts
to the sentences (:mod:`srmdp.paper.report.sentences`); :func:`render_summary` writes the page.
"""

from __future__ import annotations

from collections import Counter

from ...case.readings import matches
from ..inputs.index import index_results
from ..inputs.results import threads_of
from ..inputs.rows import paper_rows, table_ids
from ..models.equivalence import model_tex
from .claims.text import TEXT_VS_TABLE, all_claims, claim_outcome
from .consistency import consistency
from .judged import cells, report_readings
from .latex import INDICATOR_TEX, jinja_env, tex_escape, write_text
from .residuals import residuals_model
from .sentences.differences import (
    disagreements_sentence,
    hypotheses_sentence,
    residuals_sentence,
    sign_sentence,
    theory_sentence,
)
from .sentences.runs import (
    arithmetic_measured,
    arithmetic_sentence,
    claims_sentence,
    devices_sentence,
    large_d_sentence,
    limitations,
    regenerate,
    speed_sentence,
    table_sentence,
)
from .sentences.verdict import (
    abstract_sentence,
    agreement_sentence,
    consistency_sentence,
    findings,
    headline_sentence,
    scope_sentence,
    wanted_sentence,
)
from .sentences.words import precisions
from .switch_tables import arithmetic_model
from .tables import FIT_DT, FIT_READING  # the fitted reading and where; float32 vs float64
from .verdict import (
    COST_RUNS,
    GPU_MODEL,
    HIGH_D,
    STRONG_RUNS,
    claim_scorecard,
    evidence_totals,
    paper_noise_by_points,
    paper_numbers,
    pooled_sign,
    rows_not_run,
    runs_wanted,
    scorecard,
    sign_tests,
)


def explanations(model) -> dict:
    """{(path, indicator): ([hypotheses not rejected], tested)} for the run sets the residuals list
    (``model``: :func:`srmdp.paper.report.residuals.residuals_model`)."""
    key_of = {v: k for k, v in INDICATOR_TEX.items()}
    return {(c["sources"][0], key_of[c["indicator"]]): (c["explained"], c["tested"]) for c in model["cells"]}


def reading_counts(plan, allc, expl) -> list:
    """Per paper reading: its paper numbers judged once by their strongest run set under that reading
    (:func:`srmdp.paper.report.verdict.paper_numbers`, counted by
    :func:`srmdp.paper.report.verdict.evidence_totals`), and of the
    numbers that differ, those a hypothesis of the residuals does not reject."""
    out = []
    for reading in plan.paper_readings:
        mine = [c for c in allc if c.reading == reading.name]
        numbers = paper_numbers(mine, reading.name, fallback=False)
        tot = evidence_totals(numbers)
        differ = [n for n in numbers if n["verdict"] == "differs"]
        hyp = Counter()
        kept = rejected = untested = 0
        for n in differ:
            found, tested = expl.get((n["best"].path, n["indicator"]), ([], False))
            if found:
                kept += 1
                hyp[found[0]] += 1
            elif tested:
                rejected += 1
            else:
                untested += 1
        out.append(
            {
                "name": reading.name,
                "rows_any": tot["rows"],
                "rows": len(paper_rows()),
                "rows_se": len({(n["table"], n["row"]) for n in numbers if n["grade"] != "none"}),
                "totals": tot,
                "numbers": tot["numbers"],
                "explained": kept,
                "unexplained": rejected,
                "untested": untested,
                "supporting": sum(len(n["supporting"]) for n in numbers),
                "twins": sum(n["best"].device == "CPU = GPU" for n in numbers),
                "hypotheses": ", ".join(f"{n} by {h}" for h, n in hyp.most_common()) or "--",
                "sources": sorted({c.path for c in mine} | {c.also for c in mine if c.also}),
            }
        )
    return out


def summary_model(plan, summaries, campaign=(), variant_files=(), claim_inputs=None) -> dict:
    """The verdict page (sentences, scorecard, rows not run), the limitations, how to regenerate, and every
    sentence the text reads: all from :func:`cells`; every total from one count,
    :func:`srmdp.paper.report.verdict.evidence_totals` of :func:`srmdp.paper.report.verdict.paper_numbers`."""
    every = cells(plan, summaries, campaign, report_readings(plan), variant_files)  # every reading of the scheme
    names = {r.name for r in plan.paper_readings}
    allc = [c for c in every if c.reading in names]
    measured = arithmetic_measured(arithmetic_model(plan, summaries))
    res_model = residuals_model(plan, summaries, variant_files, campaign)
    expl = explanations(res_model)
    readings = reading_counts(plan, allc, expl)
    claims = all_claims(**claim_inputs) if claim_inputs is not None else []
    outcomes = Counter(claim_outcome(c) for c in claims)
    camp_results = [r for rs in index_results(list(campaign)).values() for r in rs]
    sum_results = [r for rs in index_results(list(summaries)).values() for r in rs]
    not_run = rows_not_run(every, FIT_READING, camp_results, sum_results)
    numbers = paper_numbers(every, FIT_READING)
    totals = evidence_totals(numbers)
    fit = next(r for r in readings if r["name"] == FIT_READING)
    theory = next((r for r in readings if r["name"] != FIT_READING), None)
    signs = sign_tests(allc, FIT_READING)
    high = pooled_sign(allc, FIT_READING, HIGH_D, "mse_y_max")
    timing_files = (claim_inputs or {}).get("timing_files", ())
    beats = epyc_beats_paper(timing_files)
    wanted = runs_wanted(numbers, plan.equivalence)
    check = consistency(numbers)
    sentences = {
        "headline": headline_sentence(
            totals, plan.equivalence, wanted, paper_noise_by_points(numbers, plan.equivalence)
        ),
        "consistency": consistency_sentence(check, plan.equivalence.level),
        "abstract": abstract_sentence(totals, plan.equivalence),
        "wanted": wanted_sentence(wanted),
        "scope": scope_sentence(
            totals, not_run, [r for r in camp_results if matches(r, plan.reading(FIT_READING))], numbers
        ),
        "agreement": agreement_sentence(totals, plan.equivalence),
        "disagreements": disagreements_sentence(numbers, res_model, plan, plan.equivalence),
        "hypotheses": hypotheses_sentence(res_model),
        "theory": theory_sentence(theory, allc) if theory else "",
        "signs": sign_sentence(high, res_model),
        "devices": devices_sentence(allc),
        "speed": speed_sentence(
            beats, claims, len(index_results(list(timing_files))), precisions(c for c in allc if c.device != "CPU")
        ),
        "claims": claims_sentence(claims, outcomes),
        "largeD": large_d_sentence(allc),
        "residuals": residuals_sentence(res_model, fit),
        "limitations": limitations(plan, fit, not_run, totals, every, measured),
        "regenerate": regenerate(plan),
        "arithmetic": arithmetic_sentence(every, measured),
        "cpuprecision": precisions(c for c in every if c.device == "CPU"),
        "gpuprecision": precisions(c for c in every if c.device != "CPU"),
        # the GPU lines of the paper's readings (float64 path arithmetic), those the like-for-like timings pair with
        "likeprecision": precisions(c for c in allc if c.device != "CPU"),
    }
    for t in table_ids():
        sentences[f"table-{t}"] = table_sentence(t, allc)
    return {
        "preset": tex_escape(plan.preset),
        "readings": readings,
        "describe": [{"name": tex_escape(x.name), "describe": x.describe()} for x in plan.paper_readings],
        "timing_reading": tex_escape(plan.timing_reading),
        "claims": {
            "n": len(claims),
            "held": outcomes["held"],
            "not_held": outcomes["not held"],
            "table_only": outcomes[TEXT_VS_TABLE],
            "not_checked": outcomes["not checked"],
        },
        "scorecard": scorecard(every, FIT_READING, expl),
        "totals": totals,
        "strong_runs": STRONG_RUNS,
        "rule": plan.equivalence.words(),
        "delta": f"{plan.equivalence.delta:g}",
        "model": model_tex(plan.equivalence.model),
        "reason": tex_escape(plan.equivalence.reason),
        "claim_scorecard": claim_scorecard(claims, claim_outcome),
        "not_run": not_run,
        "cost_runs": COST_RUNS,
        "signs": signs,
        "gpu_model": tex_escape(GPU_MODEL),
        "sentences": dict(sentences),
        "findings": findings(numbers, plan.equivalence, high, claims, outcomes),
        "fit": FIT_READING,
        "fit_dt": f"{FIT_DT:g}",
    }


def epyc_beats_paper(timing_files) -> list:
    """Rows where our 1-thread CPU time per run is below the paper's 24-thread CPU time: (row, ours, paper, res)."""
    out = []
    for (table, row), results in sorted(index_results(list(timing_files)).items()):
        res = next(
            (r for r in results if r.get("device") == "cpu" and threads_of(r) == 1 and r.get("seconds_per_run")), None
        )
        paper = next((r for r in paper_rows() if (r["table"], r["row"]) == (table, row)), None)
        if res is not None and paper is not None and res["seconds_per_run"] < paper["cpu_s"]:
            out.append((paper, res["seconds_per_run"], paper["cpu_s"], res))
    return out


def render_summary(plan, summaries, template_dir, out, campaign=(), variant_files=(), claim_inputs=None):
    env = jinja_env(template_dir)
    model = summary_model(plan, summaries, campaign, variant_files, claim_inputs)
    write_text(out, env.get_template("summary.tex.j2").render(**model))
