"""The GPU cost model as a function of a case's shape (srmdp.paper.models.shape_cost) and what `srmdp plan` prints of
it."""

from __future__ import annotations

from pathlib import Path

import pytest

from srmdp.paper.inputs.rows import paper_case
from srmdp.paper.models import shape_cost as sc
from srmdp.paper.models.cost import CostModel, load_throughput

ROOT = Path(__file__).resolve().parent.parent
H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
# a made-up truth: 0.3 ms per step, 1e-8 s per stratum nb^3 per step, path-step costs per basis and d
TRUE = [3e-4, 1e-8, 2e-10, 7e-11, 9e-11, 2e-11, 8e-12]
SHAPES = [
    ("LP0", 4, 4096, 25, 5), ("LP0", 4, 20736, 100, 10), ("LP0", 4, 83521, 400, 20), ("LP0", 6, 64, 25, 5),
    ("LP0", 6, 729, 100, 10), ("LP0", 6, 262144, 400, 20), ("LP0", 11, 2048, 25, 5), ("LP1", 4, 81, 125, 5),
    ("LP1", 4, 2401, 2000, 20), ("LP1", 4, 10000, 12500, 50), ("LP1", 6, 729, 700, 10),
    ("LP1", 11, 2048, 2000, 5), ("LP1", 14, 16384, 4000, 5), ("LP1", 18, 262144, 4000, 5),
]  # fmt: skip


def truth(shape):
    return float(sc._features(*shape) @ TRUE)


def test_the_fit_recovers_a_model_of_its_own_form_and_scales_another_gpu_by_its_measured_ratio():
    pts = [sc.Point(H100, "float64", *s, seconds=truth(s)) for s in SHAPES]
    # the other GPU: 0.5 x at d = 4, 0.8 x at d = 18 (LP1), measured on two shapes only
    pts += [
        sc.Point(H200, "float32", *s, seconds=f * truth(s))
        for s, f in ((("LP1", 4, 2401, 2000, 20), 0.5), (("LP1", 18, 262144, 4000, 5), 0.8))
    ]
    m = sc.ShapeModel(pts)
    assert m.reference == (H100, "float64")
    heavy = ("LP0", 4, 614656, 2500, 50)  # never measured: 1.96e12 path-steps
    assert m.predict((H100, "float64"), heavy) == pytest.approx(truth(heavy), rel=1e-6)
    lp1 = ("LP1", 11, 177147, 4000, 5)
    assert m.predict((H200, "float32"), ("LP1", 4, 10000, 12500, 50)) == pytest.approx(
        0.5 * truth(("LP1", 4, 10000, 12500, 50)), rel=1e-6
    )
    # between two measured d: the ratio interpolated in log, 0.5 -> 0.8 over d = 4..18
    want = 0.5 ** (1 - 7 / 14) * 0.8 ** (7 / 14)
    assert m.predict((H200, "float32"), lp1) == pytest.approx(want * truth(lp1), rel=1e-6)
    assert m.predict(("Other GPU", "float64"), heavy) is None  # nothing measured there: no prediction
    # leave one shape out: exact on data of its own form (every shape is still determined by the rest)
    assert all(pred == pytest.approx(p.seconds, rel=1e-3) for p, pred in sc.holdout(pts) if p.group[0] == H100)


def test_too_few_shapes_give_no_fit_and_the_table_is_used():
    pts = [sc.Point(H100, "float64", *s, seconds=truth(s)) for s in SHAPES[:3]]
    assert not sc.ShapeModel(pts).ok
    cost = CostModel(load_throughput(), "gpu", H100)
    cost.learn_points(pts)
    case = paper_case("LP0d4", row=4, precision="float32")
    assert cost.shape_seconds(case) is None and cost.run_seconds(case) > 0  # the table's rate


def test_the_repository_s_measured_heavy_runs_are_predicted_within_30_percent_when_held_out():
    # every GPU run measured in the repository (data/gpu: chunks and the A/B files); deterministic (no randomness):
    # the bound is the requirement on runs of >= 1e10 path-steps, each predicted from a fit without its shape
    pts = sc.measured_points(ROOT / "data" / "gpu")
    text, worst = sc.holdout_report(pts)
    assert worst is not None and worst <= 0.30, text
    assert "leave-one-shape-out" in text and "heavy" in text


def test_the_campaign_cost_model_uses_the_shape_model_not_the_slowest_rate_of_a_basis_and_d():
    pts = [sc.Point(H100, "float64", *s, seconds=truth(s)) for s in SHAPES]
    cost = CostModel(load_throughput(), "gpu", H100)
    cost.learn_points(pts)
    case = paper_case("LP0d4", row=4, precision="float32", outside="zero", trunc_y=1.0, trunc_z=1.0)
    shape = sc.shape_of(case)
    assert cost.run_seconds(case) == pytest.approx(truth(shape), rel=1e-6)


def test_srmdp_plan_prints_the_gpu_needs_in_minutes_and_windows(capsys):
    from srmdp.paper.inputs.preset_reading import PresetReading
    from srmdp.paper.plan.gpu import report

    text = report([ROOT / "data" / "gpu"], PresetReading("paper-fit", "zero", 1.0, 1.0))
    assert "leave-one-shape-out" in text
    assert "device minutes" in text and "GPU windows of 9 minutes" in text
    assert "float32 arithmetic" in text and "float64 arithmetic" in text
