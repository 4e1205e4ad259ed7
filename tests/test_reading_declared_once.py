"""The reading is declared once (srmdp.case.readings.Reading): the config schema's reading blocks agree with the
declaration, and a field added to it shows up on every surface derived from it (the reading's key, a preset's
reading and its config check, a run's result, srmdp run's flags, the residual variants' keys).  The defaults
that a case, a run and a solve share come from one table (srmdp.case.defaults)."""

from __future__ import annotations

import inspect
import math
import subprocess
import sys
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from srmdp.case.readings import BOUND, CHOICE, FLAG, Reading

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _declared(f) -> dict:
    """The schema property a field of Reading calls for (its description and default aside)."""
    kind = f.metadata["kind"]
    if kind == CHOICE:
        return {"type": "string", "enum": list(f.metadata["choices"])}
    if kind == BOUND:
        return {"type": ["number", "null"], "exclusiveMinimum": 0}
    assert kind == FLAG
    return {"type": "boolean"}


def _blocks(schema) -> dict:
    """{where: the properties of an object that names reading fields}: the presets' readings, the residual variants,
    the suite's cases."""
    props = schema["properties"]
    return {
        "readings": props["readings"]["items"],
        "residuals.variants": props["residuals"]["properties"]["variants"]["items"],
        "beyond.cases": props["beyond"]["properties"]["cases"]["items"],
    }


def test_the_schemas_reading_blocks_match_the_declaration():
    yaml = pytest.importorskip("yaml")
    from srmdp.paper.inputs.config_readings import reading_keys
    from srmdp.paper.plan.preset import variant_keys

    blocks = _blocks(yaml.safe_load(SCHEMA.read_text()))
    by_name = {f.name: f for f in fields(Reading)}
    for where, block in blocks.items():
        for name, prop in block["properties"].items():
            if name in by_name:
                f = by_name[name]
                got = {k: v for k, v in prop.items() if k not in ("description", "default")}
                assert got == _declared(f), (where, name)
                assert prop.get("default", f.default) == f.default, (where, name)
    readings = blocks["readings"]
    assert set(readings["properties"]) == reading_keys()  # a preset's reading names every field, nothing else
    assert set(readings["required"]) == {"name"} | {f.name for f in fields(Reading) if f.metadata["required"]}
    variant_fields = {f.name for f in fields(Reading) if f.metadata["variant"]}
    assert set(blocks["residuals.variants"]["properties"]) & set(by_name) == variant_fields
    assert variant_fields <= set(variant_keys())


WIDER = r"""
import argparse, importlib, json, sys
from dataclasses import dataclass, fields
from types import SimpleNamespace

import srmdp.case.readings as readings
from srmdp.case.readings import FLAG, Reading, reading_field


@dataclass(frozen=True)
class Wider(Reading):
    throwaway: bool = reading_field(False, FLAG, result="where_on", variant=True)


readings.Reading = Wider  # the declaration with one more field
import srmdp.paper.inputs.preset_reading as preset_reading
importlib.reload(preset_reading)  # the preset's reading is made from the declaration when its module loads
from srmdp.case.readings import key_type, reading_names, reading_of, result_reading, same_reading
from srmdp.paper.inputs.config_readings import check_readings, reading_keys
from srmdp.paper.plan.preset import variant_keys
from srmdp.exceptions import ConfigError

out = {}
out["key"] = key_type(Wider)._fields
base = {"outside": "zero", "trunc_y": None, "trunc_z": None}
on, off = reading_of({"reading": {**base, "throwaway": True}}), reading_of({"reading": base})
out["key_reads_it"] = [on.throwaway, off.throwaway, same_reading(on, off), same_reading(off, tuple(off)[:3])]
r = preset_reading.reading_from_config({"name": "t", **base, "throwaway": True})
out["preset"] = [r.throwaway, "throwaway" in [f.name for f in fields(r)]]
check_readings([{"name": "t", **base, "throwaway": True}], "cfg")
try:
    check_readings([{"name": "t", **base, "throwaway": 3}], "cfg")
    out["config_refuses"] = None
except ConfigError as exc:
    out["config_refuses"] = str(exc)
out["config_keys"] = "throwaway" in reading_keys()
case = SimpleNamespace(outside="zero", trunc_y=float("inf"), trunc_z=1.0, z_cv=False, martingale_cv=False,
                       arithmetic="float64", curvature_correction=False, throwaway=True)
out["result"] = result_reading(case)
out["cli"] = "throwaway" in reading_names()
out["variant"] = "throwaway" in variant_keys()
print(json.dumps(out))
"""


def test_a_field_added_to_the_declaration_shows_up_on_every_derived_surface(tmp_path):
    """A throw-away flag declared on a subclass of Reading, put in its place (a process of its own: nothing else
    sees it): the key has it and reads it off a result, a preset's reading takes it from a config, the config check
    allows it and checks its type, a run's result writes it, srmdp run takes it as a reading flag and a residual
    variant may change it.  (Its command-line option, help and per-command defaults are srmdp.options' declaration:
    test_the_declared_surfaces_hold_every_field_now checks that every field of Reading has one.)"""
    import json

    script = tmp_path / "wider.py"
    script.write_text(WIDER)
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["key"][-1] == "throwaway" and out["key"][:-1] == [f.name for f in fields(Reading)]
    assert out["key_reads_it"] == [True, False, False, True]
    assert out["preset"] == [True, True]
    assert "throwaway=3 must be true or false" in out["config_refuses"] and out["config_keys"]
    assert out["result"] == {
        "outside": "zero",
        "trunc_y": None,
        "trunc_z": 1.0,
        "z_cv": False,
        "arithmetic": "float64",
        "throwaway": True,
    }
    assert out["cli"] and out["variant"]


def test_the_declared_surfaces_hold_every_field_now():
    """Without the throw-away field: each surface has exactly the declared fields (curvature_correction included)."""
    from srmdp.case.readings import ReadingKey
    from srmdp.options import BY_NAME
    from srmdp.paper.inputs.config_readings import reading_keys
    from srmdp.paper.inputs.preset_reading import PresetReading, reading_from_config

    names = [f.name for f in fields(Reading)]
    assert list(ReadingKey._fields) == names
    assert [f.name for f in fields(PresetReading)] == ["name"] + names + ["rows"]
    assert reading_keys() == {"name", "rows"} | set(names)
    for n in names:  # each is an option of srmdp run and a field of Case, with the declared choices
        o = BY_NAME[n]
        assert {"run", "case"} <= set(o.surfaces), n
        f = next(f for f in fields(Reading) if f.name == n)
        if f.metadata["kind"] == CHOICE:
            assert tuple(o.choices) == f.metadata["choices"], n
    r = reading_from_config({"name": "c", "outside": "unbounded", "curvature_correction": True})
    assert r.curvature_correction and "--curvature-correction" in r.cli() and r.options()["curvature_correction"]


# ------------------------------------------------------------------------------------------ one defaults table
# where a surface's default means something else, and why
DIFFERS = {
    ("case", "trunc_y"): (math.inf, "a Case holds no truncation as inf (None in JSON and the API)"),
    ("case", "trunc_z"): (math.inf, "as trunc_y"),
    ("solve", "z_cv"): (None, "automatic: on for problems other than the paper's"),
    ("solve", "curvature_correction"): (None, "automatic: on for problems other than the paper's, curved driver"),
}
OWN = {  # the defaults a surface has alone, or with another meaning: not the table's
    "case": {"maturity"},  # the problem's MATURITY
    "run_case": {"runs", "progress", "backend", "on_run", "before_compute"},  # runs: a chunk's, 1
    "solve": {"runs", "progress", "report", "options"},  # runs: an estimate's, 2 (4 with tol)
}


def _surfaces() -> dict:
    import srmdp
    from srmdp.case.cases import Case
    from srmdp.runs.run import run_case

    def params(fn):
        return {k: p.default for k, p in inspect.signature(fn).parameters.items() if p.default is not p.empty}

    return {
        "case": {f.name: f.default for f in fields(Case) if f.default is not MISSING},
        "run_case": params(run_case),
        "solve": {f.name: f.default for f in fields(srmdp.SolveOptions)} | params(srmdp.solve),
    }


def test_run_case_solve_and_case_take_their_shared_defaults_from_one_table():
    from srmdp.case.defaults import DEFAULTS

    surfaces = _surfaces()
    for surface, have in surfaces.items():
        for name, v in have.items():
            if name in OWN[surface]:
                continue
            if name in DEFAULTS:
                want = DIFFERS.get((surface, name), (DEFAULTS[name],))[0]
                assert v == want, (surface, name, v, want)
    # every default that two of them share is in the table (or one's own, named above)
    names = [set(h) - OWN[s] for s, h in surfaces.items()]
    shared = (names[0] & names[1]) | (names[0] & names[2]) | (names[1] & names[2])
    assert shared <= set(DEFAULTS), sorted(shared - set(DEFAULTS))
    assert {"seed", "test_points", "device", "threads", "problem", "outside", "precision"} <= shared
    from srmdp.options import BY_NAME  # the command options beside the solve's record: the same table

    assert BY_NAME["run_start"].default == DEFAULTS["run_start"] == surfaces["run_case"]["run_start"]
    assert BY_NAME["problem"].default == DEFAULTS["problem"]
