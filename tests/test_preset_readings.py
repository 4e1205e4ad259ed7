"""A preset's named readings (srmdp.paper.inputs.preset_reading): two with equal parameters are refused when the config
is read (each result would belong to both); "no truncation" has one conversion (None in JSON, inf in Case)."""

import math
from pathlib import Path

import pytest
import yaml

from srmdp.case.cases import Case, truncation_for_case, truncation_for_json
from srmdp.paper.inputs.preset_reading import readings_from_config
from srmdp.paper.plan.preset import Plan, load_configs

ROOT = Path(__file__).resolve().parent.parent
FIT = {"name": "paper-fit", "outside": "zero", "trunc_y": 1.0, "trunc_z": 1.0}


def test_readings_with_equal_parameters_are_refused_in_one_line():
    twin = {"name": "fit-again", "outside": "zero", "trunc_y": 1, "trunc_z": 1.0}  # 1 == 1.0: the same bound
    with pytest.raises(ValueError) as exc:
        readings_from_config([FIT, twin])
    msg = str(exc.value)
    assert "\n" not in msg and "'paper-fit'" in msg and "'fit-again'" in msg and "equal parameters" in msg


@pytest.mark.parametrize(
    "change",
    [{"outside": "clamp"}, {"trunc_y": 2.0}, {"trunc_z": None}, {"z_cv": True}, {"z_cv": True, "martingale_cv": True}],
)
def test_readings_that_differ_in_one_parameter_are_kept(change):
    other = dict(FIT, name="other", **change)
    assert [r.name for r in readings_from_config([FIT, other])] == ["paper-fit", "other"]


def test_the_plan_refuses_a_preset_with_equal_readings():
    config = load_configs([ROOT / "config" / "config.yaml"])
    Plan(config)  # the committed preset is fine
    first = config["readings"][0]
    config["readings"] = [*config["readings"], dict(first, name=first["name"] + "-copy")]
    with pytest.raises(ValueError, match="equal parameters"):
        Plan(config)


def test_the_campaign_refuses_a_config_with_equal_readings(tmp_path):
    from srmdp.exceptions import ConfigError
    from srmdp.paper.campaign import load_readings

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"readings": [FIT, dict(FIT, name="twin")]}))
    with pytest.raises(ConfigError, match="equal parameters"):
        load_readings(path)


def test_no_truncation_is_none_in_json_and_inf_in_a_case():
    assert truncation_for_case(None) == math.inf and truncation_for_case(2.5) == 2.5
    assert truncation_for_json(math.inf) is None and truncation_for_json(2.5) == 2.5
    assert truncation_for_json(None) is None
    case = Case(d=2, dt=0.5, basis="LP0", cells=2, paths=4, trunc_z=3.0)
    data = case.as_dict()
    assert data["trunc_y"] is None and data["trunc_z"] == 3.0
    assert Case.from_dict(data) == case


# --- the campaign reads the readings without PyYAML (GPU hosts have none) ------------------------------------
@pytest.mark.parametrize("preset", sorted(p.name for p in (ROOT / "config").glob("*.yaml")))
def test_the_readings_reader_reads_every_committed_preset_as_pyyaml_does(preset):
    from srmdp.paper.inputs.config_readings import readings_section

    text = (ROOT / "config" / preset).read_text()
    assert readings_section(text) == ((yaml.safe_load(text) or {}).get("readings") or [])


def test_the_readings_reader_reads_pyyaml_s_own_layout_and_refuses_what_it_does_not_know():
    from srmdp.exceptions import ConfigError
    from srmdp.paper.inputs.config_readings import readings_section

    entries = [
        FIT,
        {
            "name": "t",
            "outside": "unbounded",
            "trunc_y": None,
            "trunc_z": None,
            "z_cv": True,
            "rows": ["LP0d4_r1", "LP1d4_r2"],
            "arithmetic": "float32",
        },
        {"name": "q", "outside": "zero", "trunc_y": 2, "trunc_z": 1e-3},
    ]
    text = yaml.safe_dump({"seed": 1, "readings": entries, "cases": {"LP0d4": [1]}}, default_flow_style=False)
    assert readings_section(text) == entries, text  # PyYAML's block layout (the presets': flow lists, above)
    for bad in (
        "readings:\n  - name: a\n    rows: [x,\n",
        "readings:\n  - name: a\n    x: {a: 1}\n",
        "readings:\n  - name: a\n      b: 1\n",
        "readings: [{name: a}]\n",
    ):
        with pytest.raises(ConfigError, match="install PyYAML|unclosed|not 'key"):
            readings_section(bad)


def test_the_campaign_reads_and_checks_the_readings_without_pyyaml(tmp_path, monkeypatch):
    import sys

    from srmdp.exceptions import ConfigError
    from srmdp.paper import campaign

    with_yaml = [r.name for r in campaign.load_readings(ROOT / "config" / "config.yaml")]
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` raises ImportError, as on a GPU host
    assert [r.name for r in campaign.load_readings(ROOT / "config" / "config.yaml")] == with_yaml
    for body, words in (
        ("  - name: gpu\n    outside: zero\n", "name='gpu'"),
        ("  - name: a\n    outside: inside\n", "outside='inside'"),
        ("  - name: a\n    outside: zero\n    trunc_y: -1\n", "trunc_y=-1"),
        ("  - name: a\n    outside: zero\n    arithmetic: float16\n", "arithmetic='float16'"),
        ("  - name: a\n    outside: zero\n    colour: red\n", "unknown key"),
        ("  - name: a\n    outside: zero\n  - name: b\n    outside: zero\n", "equal parameters"),
    ):
        (tmp_path / "c.yaml").write_text("readings:\n" + body)
        with pytest.raises(ConfigError, match=words):
            campaign.load_readings(tmp_path / "c.yaml")
