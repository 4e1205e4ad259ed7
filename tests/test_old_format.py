"""Result files written before the reading flags existed pool with newer chunks of the same reading.

The H100 campaign counted ``data/gpu/LP0d11_r1_float32.json`` (a single run written before ``z_cv`` was
recorded) as run 0 of the theory group and added run 1; aggregation used to compare the reading dicts
exactly and refused the pair.  One matcher (:func:`srmdp.case.readings.same_reading`) decides for the campaign,
the aggregation and the report; these tests use the committed files and a synthetic old-format file.
"""

import json
from pathlib import Path

import pytest

from srmdp.case.results import seal
from srmdp.paper.inputs import chunks
from srmdp.paper.inputs.index import machine_of
from srmdp.runs.aggregate import aggregate

ROOT = Path(__file__).resolve().parent.parent
OLD = ROOT / "data" / "gpu" / "LP0d11_r1_float32.json"
NEW = ROOT / "data" / "gpu" / "campaign" / "LP0d11_r1.theory.float32.gpu.seed0.runs0001-0001.json"


def test_the_committed_old_single_run_file_pools_with_the_campaign_chunk():
    assert OLD.is_file() and NEW.is_file(), "the committed GPU files are missing from this checkout"
    old, new = json.loads(OLD.read_text()), json.loads(NEW.read_text())
    assert "z_cv" not in old["reading"] and new["reading"]["z_cv"] is False  # the old format, truly
    groups = chunks.index([OLD, NEW], verify=True)
    assert len(groups) == 1
    (g,) = groups.values()
    assert sorted(g.used()) == [0, 1]
    out = aggregate([OLD, NEW])
    assert out["runs"] == 2 and out["device"] == "gpu"
    assert out["mse_y_max_se"] is not None  # two runs: a standard error exists


def _old_format(res: dict) -> dict:
    """``res`` as a file written before z_cv/martingale_cv were recorded: the reading without its flags."""
    old = {k: v for k, v in res.items() if k != "checksum"}
    old["reading"] = {k: v for k, v in res["reading"].items() if k not in ("z_cv", "martingale_cv")}
    return seal(old)


def test_a_flag_missing_from_an_old_file_counts_as_off_and_a_set_flag_still_separates(tmp_path):
    assert NEW.is_file(), "the committed campaign chunk is missing from this checkout"
    new = json.loads(NEW.read_text())
    old = _old_format(new)
    old["run_start"] = 0
    old = seal(old)
    a, b = tmp_path / "old.json", tmp_path / "new.json"
    a.write_text(json.dumps(old))
    b.write_text(json.dumps(new))
    assert aggregate([a, b])["runs"] == 2
    # the same file with z_cv on is another reading: refused, naming the reading
    zcv = dict(new, reading=dict(new["reading"], z_cv=True))
    c = tmp_path / "zcv.json"
    c.write_text(json.dumps(seal({k: v for k, v in zcv.items() if k != "checksum"})))
    with pytest.raises(Exception, match="reading"):
        aggregate([a, c])


def test_machines_with_the_same_host_name_get_different_keys():
    xeon = {"provenance": {"host": "vm", "cpus": 16, "hardware": {"model": "Intel(R) Xeon(R) Processor"}}}
    epyc = {"provenance": {"host": "vm", "cpus": 2, "hardware": {"model": "AMD EPYC"}}}
    assert machine_of(xeon) != machine_of(epyc)
    assert machine_of(xeon) == machine_of(json.loads(json.dumps(xeon)))
