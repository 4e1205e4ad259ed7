"""Tables 1-2 and the text's memory figures (srmdp.claims) follow from the same formulas as the memory
model (srmdp.memory) and the LSMDP baseline (srmdp.lsmdp); arithmetic checks, no statistics."""

import math

from srmdp import claims
from srmdp.cases import Case, paper_case, paper_rows
from srmdp.memory import coefficient_bytes


def test_footnote_case_is_the_papers_product():
    # the paper's footnote: N x K x (D+1) x 4 bytes = 50 x 14^6 x 7 x 4 for LP0d6_1 at dt = 0.02
    c = Case(d=6, dt=0.02, basis="LP0", cells=14, paths=2500, precision="float32")
    assert coefficient_bytes(c) == 50 * 14**6 * 7 * 4
    text = next(x for x in claims.text_claims() if "footnote" in x["where"])
    assert f"{coefficient_bytes(c) / 2**30:.3f}" in text["ours"]


def test_lsmdp_slice_at_d19_is_K_M_d_floats():
    c = paper_case("LP1d15_19", row=5, precision="float32")
    assert (c.d, c.strata, c.paths) == (19, 524288, 3200)
    assert claims.lsmdp_slice_bytes(c) == 524288 * 3200 * 19 * 4


def test_memory_exponents_follow_the_formulas():
    for e in claims.memory_exponents():
        if e["basis"] == "LP0":
            # ratio LSMDP(one slice)/SRMDP = M d / (N (d+1)) with M = N^2: exactly N^1 up to a constant
            assert math.isclose(e["fit_ratio"], 1.0, abs_tol=1e-9), e
            assert math.isclose(e["fit_coef"], e["fit_srmdp"]), e
    rows = claims.memory_model()
    assert len(rows) == len(paper_rows())
    for r in rows:
        assert r["lsmdp_full"] == r["lsmdp_slice"] * (r["n"] + 1) + r["coef"]  # paths + its coefficients


def test_cost_exponents_are_slopes_of_the_path_steps():
    for r in claims.cost_model():
        assert math.isclose(r["fit_m"], 2.0, abs_tol=0.05), r  # M = N^2 or (d+1) N^2
        assert math.isclose(r["fit_cost"], r["fit_lsmdp_sims"] + 2.0, abs_tol=0.2), r  # K M N(N+1)/2
    assert math.isclose(claims.slope([5, 10, 20], [25, 100, 400]), 2.0)


def test_dimension_gain_is_ln_n_over_ln_cells_at_fixed_n():
    g = claims.dimension_gain(n_steps=5, cells=2)
    for v in g.values():
        assert v["srmdp"] > v["lsmdp"]
        assert abs(v["gain"] - v["asymptotic"]) <= 1.0
