"""A preset's named readings (srmdp.paper.preset_reading): two with equal parameters are refused when the config
is read (each result would belong to both); "no truncation" has one conversion (None in JSON, inf in Case)."""

import math
from pathlib import Path

import pytest
import yaml

from srmdp.cases import Case, truncation_for_case, truncation_for_json
from srmdp.paper.plan import Plan, load_configs
from srmdp.paper.preset_reading import readings_from_config

ROOT = Path(__file__).resolve().parent.parent
FIT = {"name": "paper-fit", "outside": "zero", "trunc_y": 1.0, "trunc_z": 1.0}


def test_readings_with_equal_parameters_are_refused_in_one_line():
    twin = {"name": "fit-again", "outside": "zero", "trunc_y": 1, "trunc_z": 1.0}  # 1 == 1.0: the same bound
    with pytest.raises(ValueError) as exc:
        readings_from_config([FIT, twin])
    msg = str(exc.value)
    assert "\n" not in msg and "'paper-fit'" in msg and "'fit-again'" in msg and "equal parameters" in msg


@pytest.mark.parametrize("change", [{"outside": "clamp"}, {"trunc_y": 2.0}, {"trunc_z": None}, {"z_cv": True},
                                    {"z_cv": True, "martingale_cv": True}])
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
