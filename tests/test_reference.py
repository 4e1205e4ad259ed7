"""The reference file of the paper's 35 rows: #C^d = K and the #C / M formulas hold."""

from srmdp.paper.inputs.rows import check_reference, paper_case, paper_rows


def test_all_35_rows_of_the_11_tables():
    rows = paper_rows()
    assert len(rows) == 35
    assert len({r["table"] for r in rows}) == 11


def test_formulas_and_k_are_consistent():
    assert check_reference() == []


def test_check_detects_a_wrong_row():
    bad = dict(paper_rows()[0], cells=9)
    assert any("K" in p for p in check_reference([bad]))


def test_paper_case_takes_the_row_parameters():
    c = paper_case("LP1d6", dt=0.05)
    assert (c.d, c.cells, c.paths, c.steps, c.strata, c.n_basis) == (6, 4, 2800, 20, 4096, 7)
