"""The report grades its own evidence: each paper number judged once by its strongest run set, claims held only on
our measurements, "not run" only without any run, and one test per class of defect the rendered tables had
(unrendered template text, "not run" against the summaries, totals of the text against the tables' count, memory
statements against the GPU memory table, CPU = GPU duplicates in the residuals, "± 0.00", layout words)."""

import glob
import json
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from srmdp.paper.models.equivalence import Equivalence, Judgement
from srmdp.paper.report.latex import fmt_pm
from srmdp.paper.report.verdict import STRONG_RUNS, evidence_totals, grade_of, paper_numbers

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "tables"
PUB = ROOT / "data" / "summaries" / "default"


@lru_cache(maxsize=1)
def _plan():
    from srmdp.paper.plan.preset import Plan, load_configs

    return Plan(load_configs([ROOT / "config" / "config.yaml"]))


@lru_cache(maxsize=1)
def _model():
    from srmdp.paper.report.summary import summary_model

    plan = _plan()
    claim_inputs = {
        "timing_files": plan.timings(),
        "gpu_files": plan.gpu_files(),
        "multicore_files": plan.multicore_files(),
        "likeforlike_files": plan.likeforlike_files(),
        "campaign_files": plan.gpu_summaries(),
    }
    return summary_model(plan, plan.summaries(), plan.gpu_summaries(), plan.residual_files(), claim_inputs)


def _tex(path) -> str:
    """A rendered table without its comment lines and "% source:" tails (what LaTeX typesets)."""
    return "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in Path(path).read_text().splitlines())


# --- the one count ----------------------------------------------------------------------------------------------
class _Cell:
    def __init__(self, row, runs, z, reading="paper-fit", indicator="mse_y_max", dt=0.1):
        self.table, self.row, self.indicator, self.reading, self.runs = "LP0d4", row, indicator, reading, runs
        self.d, self.dt, self.device = 4, dt, "CPU"
        self.in_sample = reading == "paper-fit" and dt == 0.2
        self.se = None if runs < 2 else 0.01
        self.z = None if self.se is None else z
        self.diff = z * 0.01
        h = RULE.half_width(self.se, runs, self.se)
        self.judgement = Judgement(self.diff, self.se or 0.0, h, self.verdict, "" if self.se else "no spread")

    @property
    def verdict(self):
        return RULE.verdict(self.diff, self.se, self.runs, self.se)

    def verdict_at(self, factor):
        return RULE.scaled(factor).verdict(self.diff, self.se, self.runs, self.se)

    def verdict_other(self):
        return self.verdict


RULE = Equivalence(0.1, 0.9973)


def test_each_paper_number_is_judged_once_by_its_strongest_run_set():
    # row 1: 24 runs, Delta -0.013 +- 0.05 (reproduced); its 2-run line only supports; row 2: 4 runs, Delta 0.5
    # +- 0.09 (differs); row 3: one run (undecided); row 4: theory only (judged under it, undecided at 2 runs);
    # row 5: in sample, 16 runs, Delta 0.02 (reproduced)
    cells = [
        _Cell(1, 24, -1.3),
        _Cell(1, 2, +4.7),
        _Cell(2, 4, 50.0),
        _Cell(3, 1, 0.0),
        _Cell(4, 2, 1.0, "theory"),
        _Cell(5, 16, 2.0, dt=0.2),
    ]
    numbers = paper_numbers(cells, "paper-fit")
    assert [(n["row"], n["best"].runs, n["grade"], n["verdict"]) for n in numbers] == [
        (1, 24, "strong", "reproduced"),
        (2, 4, "weak", "differs"),
        (3, 1, "none", "undecided"),
        (4, 2, "weak", "undecided"),
        (5, 16, "strong", "reproduced"),
    ]
    assert len(numbers[0]["supporting"]) == 1  # the 2-run line of row 1 supports, it is not judged again
    assert numbers[3]["other_reading"] and not numbers[0]["other_reading"]
    t = evidence_totals(numbers)
    assert t["numbers"] == 5 and t["other_reading"] == 1
    assert (t["out"]["n"], t["out"]["reproduced"], t["out"]["differs"], t["out"]["undecided"]) == (4, 1, 1, 2)
    assert (t["in"]["n"], t["in"]["reproduced"]) == (1, 1)
    assert t["all"]["one_run"] == 1 and t["all"]["two_runs"] == 1
    assert [grade_of(r, 0.1) for r in (1, 2, STRONG_RUNS - 1, STRONG_RUNS)] == ["none", "weak", "weak", "strong"]


@pytest.mark.slow  # the whole summary model, claims included (~10 s)
def test_the_scorecard_counts_rows_run_times_three_each_once_and_the_text_says_its_totals():
    m = _model()
    t = m["totals"]
    assert t["numbers"] == 3 * t["rows"]  # every row with a run, 3 indicators, each counted once
    assert sum(r["totals"]["numbers"] for r in m["scorecard"]) == t["numbers"]
    for s in ("out", "in"):
        for v in ("reproduced", "differs", "undecided"):
            assert sum(r["totals"][s][v] for r in m["scorecard"]) == t[s][v]
    rows_not_run = {(r["table"], r["row"]) for r in m["not_run"]}
    assert t["rows"] + len(rows_not_run) == 35
    s = m["sentences"]["agreement"]  # p. 1's headline: out of sample first, the numbers of the one count
    assert f"of {t['out']['n']} numbers" in s
    rendered = _tex(TABLES / "summary.tex")  # the scorecard's total line, as rendered
    o, i = t["out"], t["in"]
    assert re.search(
        rf"all & {t['rows']}/35 & {t['numbers']} & {o['reproduced']} & {o['differs']} & {o['undecided']} &"
        rf" {i['reproduced']} & {i['differs']} & {i['undecided']} &",
        rendered,
    )


@pytest.mark.slow
def test_the_largest_disagreement_is_on_page_one_from_the_data():
    m = _model()
    numbers = paper_numbers(_cells(), "paper-fit")
    rule = _plan().equivalence
    judged = [(n, n["best"].judgement) for n in numbers if n["verdict"] == "differs"]
    if not judged:  # none under the headline's reading: the sentence takes the other one
        other = rule.under(rule.sensitivity_model)
        judged = [(n, other.judge(n["best"].res, n["indicator"], n["best"].paper)) for n in numbers]
        judged = [(n, j) for n, j in judged if j.verdict == "differs"]
    out = [(n, j) for n, j in judged if not n["in_sample"]] or judged
    top = max(out, key=lambda p: abs(p[1].diff))
    s = m["sentences"]["disagreements"]
    assert f"$\\Delta={top[1].diff:+.3f}" in s
    assert "What would settle it" in s and "What would settle it" in m["sentences"]["signs"]
    # the reruns that exist are used, not asked for again
    assert "the reruns float32" not in s and "those reruns at $d\\ge11$" not in m["sentences"]["signs"]
    assert "keeps its sign in every variant" in s  # LP1d4_r2's reruns: -0.23 to -0.31 against the paper
    assert "systematic" not in s  # the same-seed reruns share our streams: not independent evidence
    from srmdp.paper.report.residuals import residuals_model

    plan = _plan()
    res = residuals_model(plan, plan.summaries(), plan.residual_files(), plan.gpu_summaries())
    high = [r for r in res["reruns"] if r["table"].startswith("LP1d1")]
    holds = all(
        (v["diff"]["mse_y_max"] > 0) == (r["base"]["mse_y_max"] > 0)
        for r in high
        for name, v in r["variants"].items()
        if name not in res["predicted"]
    )
    said = "the sign holds in every variant" if holds else "the sign does not hold in every variant"
    assert high and said in m["sentences"]["signs"]


def _cells():
    from srmdp.paper.report.judged import cells, report_readings

    plan = _plan()  # as the summary model: the residual experiments' reruns of a reading join its pools
    return cells(plan, plan.summaries(), plan.gpu_summaries(), report_readings(plan), plan.residual_files())


# --- claims: held only on our measurements -------------------------------------------------------------------
@pytest.mark.slow
def test_no_claim_is_held_without_a_measurement_of_ours():
    from srmdp.paper.report.claims.text import TEXT_VS_TABLE, all_claims, claim_outcome

    plan = _plan()
    claims = all_claims(
        plan.timings(), plan.gpu_files(), plan.multicore_files(), plan.likeforlike_files(), plan.gpu_summaries()
    )
    for c in claims:
        out = claim_outcome(c)
        if out == "held":
            assert "not measured" not in c["verdict"] and "its own table" not in c["verdict"], c
        if out == "not checked":
            assert "would check it" in c["verdict"], c  # says what would check it
        if "its own table" in c["verdict"]:
            assert out == TEXT_VS_TABLE, c
    m = _model()
    assert m["claims"]["table_only"] == sum(claim_outcome(c) == TEXT_VS_TABLE for c in claims) > 0
    assert f"{m['claims']['held']} are \\emph{{held}}" in m["sentences"]["claims"]


# --- "not run" against the summaries ------------------------------------------------------------------------
def _paper_rows():
    from srmdp.paper.inputs.rows import paper_rows

    return paper_rows()


def _has_any_run(table, row) -> bool:
    """Any summary or GPU chunk of the row, under any reading, on any device (read without the report's code)."""
    if glob.glob(str(PUB / "**" / f"{table}_r{row}" / "*.json"), recursive=True):
        return True
    for p in glob.glob(str(ROOT / "data" / "gpu" / "**" / "*.json"), recursive=True):
        try:
            case = json.loads(Path(p).read_text()).get("case") or {}
        except (ValueError, AttributeError):
            continue
        if isinstance(case, dict) and case.get("table") == table and case.get("row") == row:
            return True
    return False


def test_every_not_run_line_of_the_tables_is_a_row_without_any_run():
    """A rendered 'not run' (the paper's Tables 3-13) is cross-checked against the summaries and GPU chunks."""
    checked = 0
    for tex in sorted(TABLES.glob("LP*.tex")):
        table = tex.stem
        rows = [r for r in _paper_rows() if r["table"] == table]
        blocks = tex.read_text().split("\\midrule")[1:]
        assert len(blocks) == len(rows), table
        for r, block in zip(rows, blocks, strict=True):
            if "\\emph{not run}" in block:
                assert not _has_any_run(table, r["row"]), f"{table} row {r['row']} has a run but reads 'not run'"
                checked += 1
            elif "none under this reading" in block:
                assert _has_any_run(table, r["row"])
    assert checked >= 1


@pytest.mark.slow
def test_the_rows_not_run_of_the_text_have_no_run_under_any_reading():
    m = _model()
    for r in m["not_run"]:
        assert not _has_any_run(r["table"], r["row"]), r
    for r in _paper_rows():
        if (r["table"], r["row"]) not in {(x["table"], x["row"]) for x in m["not_run"]}:
            assert _has_any_run(r["table"], r["row"]), r


# --- memory statements against the GPU memory table ---------------------------------------------------------
@pytest.mark.slow
def test_the_d19_memory_statement_is_the_gpu_tables_not_the_host_model():
    from srmdp.case.memory import GIB
    from srmdp.paper.report.claims.measured import measured_gpu_memory
    from srmdp.paper.report.claims.text import all_claims

    plan = _plan()
    claims = all_claims(
        plan.timings(), plan.gpu_files(), plan.multicore_files(), plan.likeforlike_files(), plan.gpu_summaries()
    )
    text = next(c["ours"] for c in claims if "less than 6 GB" in c["claim"])
    r8 = [r for r in measured_gpu_memory(plan.gpu_files()) if (r["table"], r["row"]) == ("LP1d15_19", 5)]
    if not r8:
        pytest.skip("no GPU memory reading of T.13 d = 19")
    assert f"GPU memory model {r8[0]['model'] / GIB:.2f} GiB" in text
    if r8[0]["used"] is not None:
        assert f"measured {r8[0]['used'] / GIB:.2f} GiB on the GPU" in text
    assert "by our memory model" not in text  # the host model is not the GPU's


# --- CPU = GPU twins once in the residuals ------------------------------------------------------------------
@pytest.mark.slow
def test_the_residuals_list_a_cpu_and_gpu_line_of_the_same_runs_once():
    from srmdp.paper.report.residuals import residuals_model

    plan = _plan()
    m = residuals_model(plan, plan.summaries(), plan.residual_files(), plan.gpu_summaries())
    keys = [(c["table"].split(" ")[0], c["d"], c["dt"], c["indicator"], c["diff"]) for c in m["cells"]]
    dup = {k for k in keys if keys.count(k) > 1}
    assert not dup, dup


# --- rendered text: template leftovers, "± 0.00", layout words, precision words -------------------------------
LEFTOVERS = (r"\blen\(", r"\\VAR\{", r"\\BLOCK\{", r"\{[a-z_]+\[['\"]", r"\{[a-z_]+\([a-z_]*\)\}")


@pytest.mark.parametrize("tex", sorted(p.name for p in TABLES.glob("*.tex")))
def test_no_unrendered_template_text(tex):
    text = (TABLES / tex).read_text()
    for pat in LEFTOVERS:
        assert not re.search(pat, text), (tex, pat, re.search(pat, text).group(0))


@pytest.mark.parametrize("tex", sorted(p.name for p in TABLES.glob("*.tex")))
def test_no_standard_error_prints_as_zero_and_no_glued_or_internal_words(tex):
    text = _tex(TABLES / tex)
    assert not re.search(r"\\pm\s*0\.0*(?![0-9])", text), tex  # "± 0.00"
    assert not re.search(r"\bissue \d+", text), tex  # the tracker's numbers are not the report's
    prose = re.sub(r"\\texttt\{[^}]*\}", "", text)  # code names (srmdp.paper.models.cost.CostModel) are not prose
    assert not re.search(r"[a-z]{3}\.[A-Z][a-z]", prose), (tex, re.search(r"[a-z]{3}\.[A-Z][a-z]", prose))


def test_a_small_standard_error_keeps_one_significant_digit():
    assert fmt_pm(1.69, 0.003, 2) == "$1.690\\pm0.003$"
    assert fmt_pm(1.69, 0.03, 2) == "$1.69\\pm0.03$"
    assert fmt_pm(1.69, 0.0, 2) == "$1.69\\pm0.00$"  # an exact zero stays what it is


def test_float32_path_arithmetic_is_not_called_the_papers_precision_unqualified():
    from srmdp.paper.inputs.results import precision_short, precision_words

    res = {"case": {"precision": "float32"}, "reading": {"arithmetic": "float32"}}
    assert "sums and solves in float64" in precision_words(res)
    assert precision_short(res) == "f32 st./f32 ar./f64 sums"
    for tex in TABLES.glob("*.tex"):
        assert "(the paper's precision" not in _tex(tex), tex.name


# --- presets keep to their own outputs ------------------------------------------------------------------------
@pytest.mark.slow  # one dry run of the ci preset (~15 s)
def test_the_ci_preset_writes_only_under_its_own_ignored_folders():
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "-F",
            "--nolock",
            "--cores",
            "2",
            "--configfile",
            "config/ci.yaml",
            "--detailed-summary",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    outputs = [r[0] for r in rows if r[0] != "output_file"]
    assert outputs
    tracked = set(subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    for out in outputs:
        assert out.startswith(("out/ci/", "results/", "logs/", "data/summaries/ci/")), out
        assert out not in tracked, out
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *outputs], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert set(ignored) == set(outputs), set(outputs) - set(ignored)


@pytest.mark.slow
def test_no_cell_of_the_claims_table_runs_past_ten_lines():
    """The 'ours' column is 0.36 of the text width in \\scriptsize, about 60 characters a line: 650 characters is
    about 11 lines, the longest cell the table had before it was shortened was 17."""
    from srmdp.paper.report.claims.text import all_claims

    plan = _plan()
    claims = all_claims(
        plan.timings(), plan.gpu_files(), plan.multicore_files(), plan.likeforlike_files(), plan.gpu_summaries()
    )
    longest = max(claims, key=lambda c: len(c["ours"]))
    assert len(longest["ours"]) <= 650, (longest["claim"], len(longest["ours"]))


# --- claims and timing: the class of a check, one unit, one set of words, qualified speed ---------------------------
@lru_cache(maxsize=1)
def _claims():
    from srmdp.paper.report.claims.text import all_claims

    plan = _plan()
    return all_claims(
        plan.timings(), plan.gpu_files(), plan.multicore_files(), plan.likeforlike_files(), plan.gpu_summaries()
    )


def test_a_check_that_only_redoes_the_papers_arithmetic_is_never_held():
    from srmdp.paper.report.claims.text import TEXT_VS_TABLE, claim_outcome

    redone = [c for c in _claims() if "the paper's arithmetic redone" in c["verdict"]]
    assert len(redone) >= 3  # 9.81 GB, 118 GB, the finer basis's 2^6
    assert all(claim_outcome(c) == TEXT_VS_TABLE for c in redone), [c["claim"] for c in redone]
    assert any("2^6" in c["claim"] for c in _claims())  # the table holds every numeric statement, this one too


def test_our_bytes_are_in_one_unit_and_the_6_gb_threshold_in_it():
    """The paper's GB are GiB (its 9.81 GB is 9.817 GiB): every byte count of ours is in binary units, the 6 GB of the
    paper's GPU included (a 10^9 B threshold gave 7,053 matrices, the GiB one gives 8,781)."""
    from srmdp.case.memory import GIB
    from srmdp.paper.report.claims.scaling import GPU_BYTES_PAPER, d19_memory

    assert GPU_BYTES_PAPER == 6 * GIB
    m = d19_memory()
    assert m["fits"] == (6 * GIB - m["coef"]) // m["qr"]
    for c in _claims():
        if c["group"] == "memory":
            assert not re.search(r"[\d$]\s*GB\b", c["ours"]), c["ours"]  # GiB, never decimal GB, in our column
    assert f"{m['fits']:,}" in (TABLES / "paper_tables_1_2.tex").read_text()


def test_n_times_less_is_read_for_the_sequential_versions():
    from srmdp.paper.report.claims.scaling import memory_exponents
    from srmdp.paper.report.claims.text import claim_outcome

    lp1 = [e for e in memory_exponents() if e["basis"] == "LP1"]
    assert all(abs(e["fit_ratio_sequential"] - 1) < 0.05 for e in lp1)  # one matrix: 1.02, 1.03
    claim = next(c for c in _claims() if c["claim"].startswith("LP1: "))
    assert claim_outcome(claim) == "held" and "sequential" in claim["ours"]


def test_the_claims_outcomes_have_one_name_in_every_place():
    """Table R10 (the claims table), the scorecard and page 1 name each outcome alike."""
    from srmdp.paper.report.claims.text import CLAIM_OUTCOMES

    m = _model()
    for r in m["claim_scorecard"]:
        words = [w.split(" ", 1)[1] for w in r["verdict"].split(", ")]
        assert set(words) <= set(CLAIM_OUTCOMES), words
    sentence = m["sentences"]["claims"]
    for word in CLAIM_OUTCOMES:
        assert f"\\emph{{{word}}}" in sentence, word
    assert "qualified" not in " ".join(r["verdict"] for r in m["claim_scorecard"])


def test_a_speed_comparison_with_the_paper_names_its_rows_precisions_and_hardware():
    speed = _model()["sentences"]["speed"]
    if "faster" in speed:
        assert "the cheapest" in speed and "float64" in speed and "float32" in speed and "2013" in speed
        assert "already beats" not in speed
    assert "each with its range from run to run" in speed or "like for like" not in speed


def test_each_like_for_like_ratio_names_its_runs_and_their_spread():
    like = [c for c in _claims() if "like for like" in c["ours"]]
    assert like
    for c in like:
        part = c["ours"][c["ours"].index("like for like") :]
        assert re.search(r"like for like [\d.]+ \(run to run [\d.?]+--[\d.?]+\)", part), part
        assert len(re.findall(r"\d+ runs?\)", part)) == 2, part  # the runs of each side


def test_the_abstract_does_not_say_the_workflow_redoes_the_gpu_runs():
    tex = (ROOT / "paper" / "main.tex").read_text()
    abstract = tex[tex.index("\\begin{abstract}") : tex.index("\\end{abstract}")]
    assert "redoes every run" not in abstract and "reads the runs of the CPU evidence campaign" in abstract
    assert "GPU campaign" in abstract


@pytest.mark.parametrize("tex", sorted(p.name for p in TABLES.glob("*.tex")))
def test_no_count_of_one_in_the_plural(tex):
    assert not re.search(r"(?<![\d.,])1 (rows|runs|claims|readings|numbers)\b", _tex(TABLES / tex)), tex
