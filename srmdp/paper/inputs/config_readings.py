"""The ``readings`` of a preset's YAML config, read with PyYAML where it is installed and without it elsewhere.

The GPU campaign (``srmdp campaign run``) runs on GPU hosts that have the library and numba-cuda but not the
workflow's packages (the ``[paper]`` extra: PyYAML among them).  It needs one section of the config, the list
of readings, which the repository writes in a small subset of YAML: a block list of mappings whose values are
plain or quoted scalars (strings, numbers, ``true``/``false``, ``null``) or flow lists of them (which may span
lines), with ``#`` comments.  :func:`readings_section` reads that subset; anything else in the section is
refused in one line (install PyYAML for it).  ``tests/test_preset_readings.py`` checks that it reads every
committed preset as PyYAML does.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...case.readings import BOUND, CHOICE, reading_fields, reading_names
from ...exceptions import ConfigError

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?$")


def _uncomment(line: str) -> str:
    """The line without a ``#`` comment (a ``#`` at the start or after a blank, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _scalar(text: str, where: str):
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    if t in ("", "null", "Null", "NULL", "~"):
        return None
    if t in ("true", "True", "TRUE"):
        return True
    if t in ("false", "False", "FALSE"):
        return False
    if _INT.match(t):
        return int(t)
    if _FLOAT.match(t):
        return float(t)
    if t[0] in "[]{}&*!|>%@`" or ": " in t:
        raise ConfigError(f"{where}: {t!r} is beyond the YAML this reader knows (install PyYAML)")
    return t


def _value(text: str, where: str):
    t = text.strip()
    if t.startswith("["):
        if not t.endswith("]"):
            raise ConfigError(f"{where}: unclosed flow list {t!r}")
        inner = t[1:-1].strip()
        return [_scalar(x, where) for x in inner.split(",")] if inner else []
    return _scalar(t, where)


def readings_section(text: str, where: str = "config") -> list:
    """The ``readings`` list of a config's text (a list of dicts), or [] when it has none."""
    lines = [_uncomment(x) for x in text.splitlines()]
    start = next((i for i, x in enumerate(lines) if re.match(r"^readings:\s*$", x)), None)
    if start is None:
        if any(re.match(r"^readings:", x) for x in lines):
            raise ConfigError(f"{where}: a flow-style readings section is beyond this reader (install PyYAML)")
        return []
    items: list = []
    item_indent = None
    key_indent = None
    pending = None  # (dict, key, text so far) of a flow list that goes on to the next line
    block = None  # (dict, key) of a key without a value: a block list of scalars may follow
    for n, raw in enumerate(lines[start + 1 :], start=start + 2):
        if not raw.strip():
            continue
        if pending is not None:
            d, key, so_far = pending
            so_far += " " + raw.strip()
            if so_far.rstrip().endswith("]"):
                d[key] = _value(so_far, f"{where} line {n}")
                pending = None
            else:
                pending = (d, key, so_far)
            continue
        indent = len(raw) - len(raw.lstrip())
        body = raw.strip()
        if indent == 0 and not body.startswith("-"):
            break  # the next top-level key
        if (body.startswith("- ") or body == "-") and block is not None and indent >= key_indent:
            block[0][block[1]].append(_scalar(body[1:], f"{where} line {n}"))  # a block list of scalars
            continue
        if body.startswith("- ") or body == "-":
            block = None
            if item_indent is None:
                item_indent = indent
            if indent != item_indent:
                raise ConfigError(f"{where} line {n}: a list item at another indentation (install PyYAML)")
            items.append({})
            after_dash = body[1:]
            key_indent = indent + 1 + len(after_dash) - len(after_dash.lstrip())  # the item's keys line up here
            body = after_dash.strip()
            if not body:
                continue
        elif block is not None and indent > key_indent:
            raise ConfigError(f"{where} line {n}: {body!r} is beyond the YAML this reader knows (install PyYAML)")
        elif not items or indent != key_indent:
            raise ConfigError(f"{where} line {n}: {body!r} is beyond the YAML this reader knows (install PyYAML)")
        m = _KEY.match(body)
        if not m:
            raise ConfigError(f"{where} line {n}: {body!r} is not 'key: value'")
        key, val = m.group(1), (m.group(2) or "")
        if key in items[-1]:
            raise ConfigError(f"{where} line {n}: {key!r} given twice")
        block = None
        if val.strip().startswith("[") and not val.rstrip().endswith("]"):
            pending = (items[-1], key, val.strip())
            continue
        if not val.strip():  # a null, or a block list of scalars on the next lines
            items[-1][key] = _Block()
            block = (items[-1], key)
            continue
        items[-1][key] = _value(val, f"{where} line {n}")
    if pending is not None:
        raise ConfigError(f"{where}: unclosed flow list of {pending[1]!r}")
    for item in items:  # a key without a value and without list items is null, as in YAML
        for k, v in item.items():
            if isinstance(v, _Block):
                item[k] = list(v) or None
    return items


class _Block(list):
    """The items of a block list being read (a key without a value: null when none follows)."""


def load_readings_data(path) -> list:
    """The raw ``readings`` list of a config file: PyYAML's reading where it is installed, else
    :func:`readings_section`.  ConfigError (one line) when the file cannot be read or parsed."""
    where = f"invalid config={str(path)!r}"
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read it ({type(exc).__name__})") from None
    try:
        import yaml
    except ImportError:
        return readings_section(text, where)
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: cannot read it ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: not a mapping")
    return data.get("readings") or []


_OWN_KEYS = {"name", "rows"}  # a preset's reading: its name and rows, and the fields of Reading (reading_keys())


def reading_keys() -> set:
    """The keys a config's reading may name: its name, its rows and the fields of
    :class:`srmdp.case.readings.Reading`."""
    return _OWN_KEYS | set(reading_names())


_RESERVED = {"timing", "lsmdp", "gpu", "beyond", "residuals", "multicore", "likeforlike"}


def check_readings(entries, where: str) -> None:
    """The checks the workflow's schema (workflow/schemas/config.schema.yaml) makes of the readings, without
    jsonschema: one-line ConfigError for the first entry that fails."""
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: readings must be a non-empty list")
    for i, r in enumerate(entries):
        at = f"{where}: reading {i + 1}"
        if not isinstance(r, dict):
            raise ConfigError(f"{at} is not a mapping")
        keys = reading_keys()
        extra = sorted(set(r) - keys)
        if extra:
            allowed = ", ".join(sorted(keys))
            raise ConfigError(f"{at} has unknown key(s) {', '.join(extra)}; allowed: {allowed}")
        name = r.get("name")
        if not (isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_-]+", name) and name not in _RESERVED):
            raise ConfigError(
                f"{at}: name={name!r} must be letters, digits, '_' or '-', and not one of"
                f" {', '.join(sorted(_RESERVED))}"
            )
        for f in reading_fields():
            _check_field(f, r, f"{at} ({name})")
        rows = r.get("rows")
        if rows is not None and not (isinstance(rows, list) and rows and all(isinstance(x, str) for x in rows)):
            raise ConfigError(f"{at} ({name}): rows must be a non-empty list of row keys (LP0d4_r1, ...)")


def _check_field(f, r: dict, at: str) -> None:
    """The check of one field of :class:`srmdp.case.readings.Reading` in a config's reading ``r``, by its kind."""
    k, kind, v = f.name, f.metadata["kind"], r.get(f.name)
    if kind == CHOICE:
        choices = f.metadata["choices"]
        if r.get(k, None if f.metadata["required"] else f.default) not in choices:
            raise ConfigError(f"{at}: {k}={v!r} must be {', '.join(choices[:-1])} or {choices[-1]}")
    elif kind == BOUND:
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0):
            raise ConfigError(f"{at}: {k}={v!r} must be a number > 0 or null")
    elif k in r and not isinstance(v, bool):
        raise ConfigError(f"{at}: {k}={v!r} must be true or false")
