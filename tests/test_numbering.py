"""The paper's table numbering and labels: Tables 3-13 are the result tables, in the order
of the paper's source (table:LP0d4 ... table:LP1d15_19), the d = 6 LP1 table is labelled LP1d6_1,
and the short name LP1d6 stays accepted as an alias wherever a table id is given."""

import json
from pathlib import Path

import pytest

from srmdp.case.cases import ConfigError
from srmdp.cli.commands import build_parser, case_from_args
from srmdp.cli.commands import main as cli_main
from srmdp.paper.inputs.rows import canonical_table, find_row, paper_case, paper_rows, paper_table_number, table_ids

ROOT = Path(__file__).resolve().parent.parent

# The paper's \label{table:...} in the order of its \begin{table} environments (Tables 1 and 2 are
# table:cost and table:memory, the comparisons of SRMDP and LSMDP as functions of N).
PAPER_LABELS = [
    "LP0d4",
    "LP0d6_0",
    "LP0d6_1",
    "LP0d11",
    "LP1d4",
    "LP1d6_1",
    "LP1d11",
    "LP1d12",
    "LP1d13",
    "LP1d14",
    "LP1d15_19",
]


def test_table_ids_are_the_paper_labels_in_order():
    assert list(table_ids()) == PAPER_LABELS


def test_result_tables_are_numbered_3_to_13():
    numbers = {t: paper_table_number(t) for t in table_ids()}
    assert numbers["LP0d4"] == 3 and numbers["LP1d6_1"] == 8 and numbers["LP1d15_19"] == 13
    assert sorted(numbers.values()) == list(range(3, 14))
    assert paper_table_number("LP1d6") == 8  # the alias
    with pytest.raises(ConfigError):
        paper_table_number("LP2d4")


def test_lp1d6_is_an_alias_of_lp1d6_1():
    assert canonical_table("LP1d6") == "LP1d6_1" and canonical_table("LP0d4") == "LP0d4"
    assert find_row("LP1d6", dt=0.1) == find_row("LP1d6_1", dt=0.1)
    case = paper_case("LP1d6", row=2)
    assert case == paper_case("LP1d6_1", row=2) and case.table == "LP1d6_1" and case.label == "LP1d6_1_r2"


def test_cli_accepts_the_alias(capsys):
    args = build_parser().parse_args(["run", "--table", "LP1d6", "--row", "1", "--out", "x.json"])
    assert case_from_args(args).table == "LP1d6_1"
    assert cli_main(["cases", "--table", "LP1d6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and all(line.startswith("LP1d6_1 ") for line in out)


def test_workflow_config_accepts_the_alias():
    from srmdp.paper.plan.preset import Plan, load_configs

    config = load_configs([ROOT / "config/config.yaml"])
    config["cases"] = [{"table": "LP1d6", "rows": [1]}, {"table": "LP1d6_1", "rows": [2]}]
    plan = Plan(config)
    assert [s.key for s in plan.selected] == ["LP1d6_1_r1", "LP1d6_1_r2"]
    schema = (ROOT / "workflow/schemas/config.schema.yaml").read_text()
    assert "LP1d6_1, LP1d6," in schema


def test_result_files_written_under_the_old_name_are_read_under_the_paper_label():
    from srmdp.paper.inputs.index import index_results

    old = [p for p in sorted((ROOT / "data/gpu").glob("LP1d6_1_r*.json"))]
    assert old, "data/gpu/LP1d6_1_r*.json missing"
    assert json.loads(old[0].read_text())["case"]["table"] in ("LP1d6", "LP1d6_1")
    assert {k[0] for k in index_results(old)} == {"LP1d6_1"}


def test_rendered_tables_carry_the_paper_number_and_label():
    from srmdp.paper.report.latex import fmt_paper_seconds, fmt_seconds

    for table in table_ids():
        path = ROOT / "tables" / f"{table}.tex"
        text = path.read_text()
        assert f"\\renewcommand{{\\thetable}}{{{paper_table_number(table)}}}" in text, path
        assert f"\\label{{table:{table}}}" in text, path
    assert not (ROOT / "tables" / "LP1d6.tex").exists()
    # the paper's times to its precision (two decimals: 0.20 ... 58066.33), as every table prints them
    assert [fmt_paper_seconds(x) for x in (0.2, 171.92, 58066.33)] == ["0.20", "171.92", "58066.33"]
    assert [fmt_seconds(x) for x in (7.384, 0.0355, 0.00208)] == ["7.38", "0.0355", "0.00208"]
    for r in paper_rows():
        text = (ROOT / "tables" / f"{r['table']}.tex").read_text()
        assert f"& {fmt_paper_seconds(r['cpu_s'])} & {fmt_paper_seconds(r['gpu_s'])} \\\\" in text, r  # CPU s, GPU s
