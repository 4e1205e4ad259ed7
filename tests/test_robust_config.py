"""Workflow presets: a config that violates the schema, or names a table/row/reading that does not
exist, is refused when the workflow starts (before any job), with an error naming the field.

Property-based: the ci preset with one field broken must fail the config schema
(workflow/schemas/config.schema.yaml, what ``snakemake.utils.validate`` applies) or the preset's plan
(``srmdp.paper.plan.preset.Plan``) with a ValidationError / ValueError that names the field, never
with an unrelated exception.  One process-level check runs ``snakemake -n`` on a broken preset.
"""

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
CI = ROOT / "config" / "ci.yaml"

import jsonschema  # noqa: E402  (the [paper] extra, which [test] includes)


def _check(config):
    """What the workflow does on start: schema validation (with defaults), then the plan."""
    from srmdp.paper.plan.preset import Plan

    schema = yaml.safe_load(SCHEMA.read_text())
    jsonschema.validate(config, schema)
    plan = Plan(config)
    # the names the rules look up must resolve too
    for reading in [r["name"] for r in config["readings"]] + [plan.timing_reading]:
        plan.reading(reading)
    return plan


def _base():
    return yaml.safe_load(CI.read_text())


def test_the_ci_preset_is_valid():
    _check(_base())


def _set(path, value):
    def mutate(cfg):
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


# (mutation, the words one of which the error must contain)
BROKEN = {
    "seed": (st.one_of(st.integers(max_value=-1), st.integers(min_value=2**32), st.just("x"), st.just(1.5)), ["seed"]),
    "test_points": (st.one_of(st.integers(max_value=0), st.just("many")), ["test_points"]),
    "runs": (st.one_of(st.integers(max_value=0), st.just(None)), ["runs"]),
    "chunk_runs": (st.integers(max_value=0), ["chunk_runs"]),
    "threads": (st.integers(max_value=0), ["threads"]),
    "precision": (st.sampled_from(["float16", "double", 32]), ["precision"]),
    "devices": (st.sampled_from([[], ["tpu"], ["cpu", "cpu"], "cpu"]), ["devices"]),
    "readings": (
        st.sampled_from(
            [
                [],
                [{"name": "x"}],
                [{"name": "x", "outside": "inside"}],
                [{"name": "x", "outside": "zero", "trunc_y": 0}],
                [{"name": "bad name", "outside": "zero"}],
            ]
        ),
        ["readings"],
    ),
    "preset": (st.sampled_from(["", "bad name", "a/b"]), ["preset"]),
    "cases": (
        st.sampled_from(
            [
                [{"table": "LP9d9"}],
                [{"table": "LP0d4", "rows": [0]}],
                [{"table": "LP0d4", "rows": [5]}],
                [{"rows": [1]}],
                [{"table": "LP0d4", "runs": 0}],
                [{"table": "LP0d4", "colour": "red"}],
            ]
        ),
        ["cases", "table", "row"],
    ),
    "unknown": (st.just(1), ["unknown", "Additional properties"]),
}


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(sorted(BROKEN)), data=st.data())
def test_a_broken_preset_is_refused_naming_the_field(field, data):
    strategy, words = BROKEN[field]
    cfg = copy.deepcopy(_base())
    cfg[field] = data.draw(strategy)
    with pytest.raises((jsonschema.ValidationError, ValueError)) as info:
        _check(cfg)
    exc = info.value
    text = str(exc)
    if isinstance(exc, jsonschema.ValidationError):
        text += " " + " ".join(map(str, exc.absolute_path))
    assert any(w in text for w in words), (field, text[:500])


@pytest.mark.parametrize(
    "mutate, words",
    [
        pytest.param(
            _set(["timing", "reading"], "no-such-reading"), ["timing", "reading"], id="timing-reading-unknown"
        ),
        pytest.param(
            lambda c: c["readings"].append(dict(c["readings"][0])),
            ["reading", "duplicate"],
            id="duplicate-reading-names",
        ),
    ],
)
def test_names_that_do_not_resolve(mutate, words):
    cfg = copy.deepcopy(_base())
    mutate(cfg)
    with pytest.raises((jsonschema.ValidationError, ValueError)) as info:
        _check(cfg)
    assert any(w in str(info.value) for w in words), str(info.value)


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not on PATH")
def test_snakemake_refuses_a_broken_preset_before_any_job(tmp_path):
    cfg = _base()
    cfg["cases"] = [{"table": "LP9d9", "rows": [1]}]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    tree = tmp_path / "tree"  # a copy of the tracked files: no .snakemake/ state shared with the checkout
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for name in filter(None, names.split("\0")):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    env["PYTHONPATH"] = str(tree) + os.pathsep + env["PYTHONPATH"]
    proc = subprocess.run(
        ["snakemake", "-n", "--cores", "1", "--configfile", str(bad)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "LP9d9" in out and "table" in out
    assert "Job stats" not in out  # no job was planned, let alone run
