"""A paper row's GPU line uses the paper-fit run set with the most runs, whatever its path arithmetic, and says
which arithmetic (srmdp.paper.inputs.index.campaign_entries); the two arithmetics are never pooled."""

from types import SimpleNamespace

from srmdp.paper.inputs.index import campaign_entries
from srmdp.paper.inputs.preset_reading import PresetReading
from srmdp.paper.inputs.results import precision_short

FIT = PresetReading("paper-fit", "zero", 1.0, 1.0)
THEORY = PresetReading("theory", "unbounded", None, None)
FIT32 = PresetReading("paper-fit-f32a", "zero", 1.0, 1.0, arithmetic="float32")
PLAN = SimpleNamespace(paper_readings=[FIT, THEORY], readings=[FIT, THEORY, FIT32])


def summary(path, runs, arithmetic=None, outside="zero", trunc=1.0):
    reading = {"outside": outside, "trunc_y": trunc, "trunc_z": trunc, "z_cv": False}
    if arithmetic:
        reading["arithmetic"] = arithmetic
    return {
        "_path": path,
        "runs": runs,
        "test_points": 1000,
        "reading": reading,
        "device": "gpu",
        "seed": 0,
        "case": {"precision": "float32"},
        "provenance": {"hardware": {"model": "NVIDIA H200"}},
        "mse_y_max": -1.0,
        "mse_y_max_se": 0.1,
    }


def test_the_run_set_with_the_most_runs_is_the_line_and_its_arithmetic_is_printed():
    f64, f32 = summary("a.json", 2), summary("b.json", 3, "float32")
    (e,) = [x for x in campaign_entries(PLAN, [f64, f32]) if x["name"] == "paper-fit"]
    assert e["sources"] == ["b.json"] and e["runs"] == 3 and e["arithmetic"] == "float32"
    # what the tables print; float32 path arithmetic keeps its sums and solves in float64, and says so
    assert precision_short(f32) == "f32 st./f32 ar./f64 sums" and precision_short(f64) == "f32 st./f64 ar."
    (e,) = campaign_entries(PLAN, [f64, summary("c.json", 2, "float32")])  # a tie: the float64 set
    assert e["sources"] == ["a.json"] and e["arithmetic"] == "float64"
    (e,) = campaign_entries(PLAN, [summary("d.json", 1, "float32")])  # a row with float32 runs only
    assert e["name"] == "paper-fit" and e["sources"] == ["d.json"]


def test_with_every_reading_each_run_set_keeps_its_own_reading():
    got = campaign_entries(PLAN, [summary("a.json", 2), summary("b.json", 3, "float32")], PLAN.readings)
    assert sorted((e["name"], e["sources"][0]) for e in got) == [("paper-fit", "a.json"), ("paper-fit-f32a", "b.json")]
    theory = summary("t.json", 2, outside="unbounded", trunc=None)
    assert [e["name"] for e in campaign_entries(PLAN, [theory])] == ["theory"]


def test_only_the_fit_reading_takes_a_run_set_of_another_arithmetic():
    theory32 = summary("t.json", 1, "float32", outside="unbounded", trunc=None)  # theory-f32a: not a theory line
    assert campaign_entries(PLAN, [theory32]) == []
