"""``srmdp plan config/evidence.yaml``: what the evidence campaign still needs, one line per paper row (runs present
and wanted, the cost model's seconds per run beside the fastest run measured, the time still to run), read from the
chunks that exist."""

import json
import re

import pytest
import yaml
from conftest import ROOT

from srmdp.paper.models.cost import run_seconds
from srmdp.paper.plan.cli import main
from srmdp.paper.plan.preset import Plan, load_configs


def _config_rows():
    """The rows config/evidence.yaml names, counted from the file itself (not from the Plan under test)."""
    cases = yaml.safe_load((ROOT / "config/evidence.yaml").read_text())["cases"]
    return sum(len(c["rows"]) for c in cases)


def _evidence(tmp_path):
    config = load_configs([str(ROOT / "config/config.yaml"), str(ROOT / "config/evidence.yaml")])
    config["results_dir"] = str(tmp_path)
    return Plan(config)


def test_row_needs_counts_the_chunks_present_and_prices_the_rest(tmp_path):
    plan = _evidence(tmp_path)
    for j, secs in ((0, 80.0), (3, 70.0)):  # two of LP0d11 r2's eight one-run chunks, the fastest 70 s
        p = tmp_path / plan.chunk_path("paper-fit", "LP0d11_r2", "cpu", j).removeprefix(f"{tmp_path}/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"runs": 1, "seconds_per_run": secs, "seconds_per_run_min": secs}))
    needs = {n["key"]: n for n in plan.row_needs(2)}
    assert len(needs) == len(plan.selected) == _config_rows()  # one entry per row, whatever its chunks
    row = needs["LP0d11_r2"]
    assert (row["runs"], row["wanted"], row["chunks"], row["measured"]) == (2, 8, 8, 70.0)
    assert row["model"] == run_seconds(plan.case("LP0d11_r2", "paper-fit"), 1, plan.test_points)
    assert row["todo"] == pytest.approx(6 * plan.job_seconds("LP0d11_r2", 1, 1))  # the six missing chunks, a job each
    assert needs["LP1d4_r2"]["wanted"] == 1000 and needs["LP1d4_r2"]["chunks"] == 10


def test_srmdp_plan_prints_one_line_per_row(tmp_path, capsys, monkeypatch):
    (tmp_path / "dir.yaml").write_text(f"results_dir: {tmp_path}\n")
    monkeypatch.chdir(ROOT)
    assert main(["config/evidence.yaml", str(tmp_path / "dir.yaml")]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("  rows  ")]
    assert len(rows) == _config_rows() and "chunk-" not in out
    assert re.search(r"rows  paper-fit LP1d4_r2 cpu\s+runs\s+0/1000 \(10 chunks\)  s/run model\s+0\.6", out)
    deferred = yaml.safe_load((ROOT / "config/evidence.yaml").read_text())["deferred"]
    head, *lines = out[out.index("srmdp: rows deferred to a GPU") :].splitlines()[: len(deferred) + 1]
    assert re.search(r"~\d+ device minutes$", head)
    for d, line in zip(deferred, lines, strict=True):  # each with its runs, its minutes and why
        label = f"{d['table']}_r{d['row']}"
        assert re.fullmatch(rf"  {label} +{d['runs']} runs  ~ *[\d.]+ min  {re.escape(d['why'])}", line)


def test_a_deferred_row_without_its_reason_is_refused(tmp_path):
    from srmdp.exceptions import ConfigError
    from srmdp.paper.plan.preset import validate_config

    config = load_configs([str(ROOT / "config/config.yaml"), str(ROOT / "config/evidence.yaml")])
    config["deferred"] = [{"table": "LP1d4", "row": 4, "runs": 3}]
    with pytest.raises(ConfigError, match="why"):
        validate_config(config)


def test_a_presets_plan_prints_only_its_own_jobs(capsys, monkeypatch):
    """`srmdp plan config/ci.yaml` prints the CI preset's jobs and one line naming the GPU campaign, not the paper's
    GPU plan (its 35 rows, device minutes and windows), which the default preset's plan prints."""
    monkeypatch.chdir(ROOT)
    assert main(["config/ci.yaml"]) == 0
    out = capsys.readouterr().out
    assert "on the GPU in" not in out and "GPU windows" not in out and "leave-one-shape-out" not in out, out
    assert out.strip().splitlines()[-1].startswith("srmdp: the paper's GPU campaign (data/gpu/")
    rows = [line for line in out.splitlines() if line.startswith("  rows  ")]
    ci = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    assert len(rows) == len(ci["readings"]) * sum(len(c["rows"]) for c in ci["cases"])
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "paper-fit on the GPU in float32 arithmetic" in out and "GPU windows of 9 minutes" in out
    assert "is not this preset's jobs" not in out
