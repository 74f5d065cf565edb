"""Typed (de)serialisation of assumption dataclasses, with errors that name the JSON path.

Each analysis module owns a frozen dataclass of its assumptions (defaults cite their source in
the module). Projects store only the values a user changed; loading validates names, types and
bounds.

**Bounds live on the fields**, as ``dataclasses.field`` metadata (only the keys that apply)::

    pue: float | None = field(default=None, metadata={"min": 1.0, "max": 3.0})

* ``min`` / ``max``: inclusive limits of a number, or of every number inside a list or dict
  value; ``min_exclusive`` / ``max_exclusive`` (True) make them strict (an efficiency of 0 is
  not allowed: ``{"min": 0.0, "min_exclusive": True, "max": 1.0}``);
* ``choices``: the allowed strings;
* ``unit``: how the value is measured (shown by editors and in messages; "fraction" for a
  dimensionless share);
* ``min_items``: the fewest entries a list value may have; ``same_length_as``: another list
  field this one pairs with entry by entry (a table's x and y columns).

A field without bounds is checked for type and sign only (no negative numbers). Every number
must be finite, and a field without its own ``max`` stays at or below ``DEFAULT_MAX`` (1e12;
a whole-number field ``DEFAULT_INT_MAX``, the device units the engine holds): beyond that a
value is a typo and would overflow the analyses. A list or dict value holds at most
``MAX_ITEMS`` entries. ``None`` is allowed where the annotation allows it and skips the bounds.
Project files (``settings_from_dict``) and the GUI (``check_setting``) share this one validation.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from typing import Any, Mapping

from core.design_fields import MAX_ID_CHARS, check_text, show, show_key
from core.errors import ProjectFileError
from core.limits import MAX_UNITS

BOUND_KEYS = ("min", "max", "min_exclusive", "max_exclusive", "choices", "unit")
DEFAULT_MAX = 1e12
DEFAULT_INT_MAX = MAX_UNITS
MAX_ITEMS = 10_000


# --- types -------------------------------------------------------------------------------
def _is_union(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return origin is typing.Union or str(origin) == "<class 'types.UnionType'>"


def _type_ok(value: Any, annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if _is_union(annotation):
        return any(_type_ok(value, arg) for arg in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    if origin in (dict, typing.Mapping) or annotation in (dict,):
        if not isinstance(value, dict):
            return False
        args = typing.get_args(annotation)
        return not args or all(_type_ok(v, args[1]) for v in value.values())
    if origin in (tuple, list):
        if not isinstance(value, (list, tuple)):
            return False
        args = typing.get_args(annotation)
        return not args or all(_type_ok(v, args[0]) for v in value)
    return True


def _type_name(annotation: Any) -> str:
    if _is_union(annotation):
        names = [_type_name(a) for a in typing.get_args(annotation) if a is not type(None)]
        return " or ".join(names) + (" or null" if type(None) in typing.get_args(annotation) else "")
    origin = typing.get_origin(annotation)
    if annotation is float:
        return "a number"
    if annotation is int:
        return "a whole number"
    if annotation is bool:
        return "true or false"
    if annotation is str:
        return "a string"
    if origin in (dict, typing.Mapping) or annotation is dict:
        return "an object"
    if origin in (tuple, list):
        args = typing.get_args(annotation)
        return f"a list of {_plural(_type_name(args[0]))}" if args else "a list"
    return getattr(annotation, "__name__", str(annotation))


def _plural(name: str) -> str:
    return {"a number": "numbers", "a whole number": "whole numbers", "a string": "strings"}.get(name, name)


# --- bounds ------------------------------------------------------------------------------
def setting_bounds(cls: type, name: str) -> Mapping[str, Any]:
    """The bound keys (``BOUND_KEYS``) of field ``name`` of dataclass ``cls``; empty when none."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            return {k: f.metadata[k] for k in BOUND_KEYS if k in f.metadata}
    raise ProjectFileError(f"{name}: unknown assumption")


def has_bounds(cls: type, name: str) -> bool:
    """True when the field declares a range or choices (False: type and sign only)."""
    return any(k in setting_bounds(cls, name) for k in ("min", "max", "choices"))


def _num(value: Any) -> str:
    return repr(value) if isinstance(value, float) else show(value)


def describe_range(bounds: Mapping[str, Any]) -> str:
    """The allowed values in words: "1.0 to 3.0", "above 0.0 up to 1.0", "0.0 µs or more"."""
    if bounds.get("choices"):
        return "one of " + ", ".join(json.dumps(c) for c in bounds["choices"])
    lo, hi = bounds.get("min"), bounds.get("max")
    unit = bounds.get("unit", "")
    unit = "" if unit == "fraction" else unit
    # "1 or more per rack", but "0.0 µs or more".
    before, after = ("", f" {unit}") if unit.startswith("per ") else (f" {unit}" if unit else "", "")
    lo_x, hi_x = bounds.get("min_exclusive", False), bounds.get("max_exclusive", False)
    if lo is not None and hi is not None:
        low = f"above {_num(lo)}" if lo_x else _num(lo)
        high = f"below {_num(hi)}" if hi_x else _num(hi)
        joint = " up to " if lo_x and not hi_x else " to "
        return f"{low}{joint}{high}{before}{after}"
    if lo is not None:
        return f"above {_num(lo)}{before}{after}" if lo_x else f"{_num(lo)}{before} or more{after}"
    if hi is not None:
        return f"below {_num(hi)}{before}{after}" if hi_x else f"up to {_num(hi)}{before}{after}"
    return ""


def _numbers(value: Any, where: str = "") -> list[tuple[str, int | float]]:
    """Every number in ``value`` (itself, or inside lists and dict values), with its path."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [(where, value)]
    if isinstance(value, Mapping):
        return [n for k, v in value.items() for n in _numbers(v, f"{where}.{k}")]
    if isinstance(value, (list, tuple)):
        return [n for i, v in enumerate(value) for n in _numbers(v, f"{where}[{i}]")]
    return []


def check_bounds(value: Any, bounds: Mapping[str, Any], where: str) -> None:
    """Raise ProjectFileError "<where>: <problem> (allowed ...)" when ``value`` breaks ``bounds``.

    Numbers inside lists and dict values are checked one by one; ``None`` passes.
    """
    if value is None:
        return
    allowed = describe_range(bounds)
    choices = bounds.get("choices")
    if choices and isinstance(value, str) and value not in choices:
        raise ProjectFileError(f"{where}: {json.dumps(show_key(value))} is not {allowed}")
    lo, hi = bounds.get("min"), bounds.get("max")
    for where, number in _numbers(value, where):
        if lo is not None:
            if bounds.get("min_exclusive") and number <= lo:
                raise ProjectFileError(f"{where}: {_num(number)} must be above {_num(lo)} (allowed {allowed})")
            if number < lo:
                raise ProjectFileError(f"{where}: {_num(number)} is below the minimum {_num(lo)} "
                                       f"(allowed {allowed})")
        if hi is not None:
            if bounds.get("max_exclusive") and number >= hi:
                raise ProjectFileError(f"{where}: {_num(number)} must be below {_num(hi)} (allowed {allowed})")
            if number > hi:
                raise ProjectFileError(f"{where}: {_num(number)} is above the maximum {_num(hi)} "
                                       f"(allowed {allowed})")


def _check_sizes(value: Any, where: str) -> None:
    """Lists and dicts (and the lists inside a dict) hold at most MAX_ITEMS entries; dict keys
    are short text."""
    if isinstance(value, (list, tuple, dict)) and len(value) > MAX_ITEMS:
        raise ProjectFileError(f"{where}: {len(value):,} entries; at most {MAX_ITEMS:,}")
    if isinstance(value, dict):
        for key, item in value.items():
            check_text(key, f"{where} key", ProjectFileError, MAX_ID_CHARS)
            _check_sizes(item, f"{where}.{show_key(key)}")


def _check_field(f: dataclasses.Field, annotation: Any, value: Any, where: str) -> Any:
    if not _type_ok(value, annotation):
        raise ProjectFileError(f"{where}: invalid value {show(value)} (expected {_type_name(annotation)})")
    _check_sizes(value, where)
    bounds = {k: f.metadata[k] for k in BOUND_KEYS if k in f.metadata}
    for path, number in _numbers(value, where):
        if isinstance(number, float) and not math.isfinite(number):
            raise ProjectFileError(f"{path}: expected a finite number, got {number}")
        if "min" not in bounds and number < 0:
            raise ProjectFileError(f"{path}: must not be negative")
    check_bounds(value, bounds, where)
    if "max" not in bounds:
        for path, number in _numbers(value, where):
            high = DEFAULT_INT_MAX if isinstance(number, int) else DEFAULT_MAX
            if number > high:
                limit = f"{high:,}" if isinstance(high, int) else f"{high:g}"
                raise ProjectFileError(f"{path}: {_num(number)} is above {limit}, the most any "
                                       f"assumption without its own maximum takes (core/settings.py)")
    if isinstance(value, list) and typing.get_origin(annotation) is tuple:
        value = tuple(value)
    elif _is_union(annotation) and isinstance(value, list) and any(
            typing.get_origin(a) is tuple for a in typing.get_args(annotation)):
        value = tuple(value)
    return value


def check_setting(cls: type, name: str, value: Any, where: str | None = None) -> Any:
    """Validate one value for field ``name`` of assumptions dataclass ``cls`` and return it as
    the dataclass stores it (a list becomes a tuple for a tuple field).

    The same checks as a project file gets (type, sign, bounds from the field's metadata).
    Raises ProjectFileError (a DesignError) with one line starting ``<where>:`` (the field name
    by default; the loader passes the JSON path, the GUI the field's label).
    """
    where = where or name
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name == name:
            annotation = hints[name]
            if dataclasses.is_dataclass(annotation):
                if isinstance(value, annotation):
                    return value
                return settings_from_dict(annotation, value, where)
            return _check_field(f, annotation, value, where)
    raise ProjectFileError(f"{where}: unknown assumption")


# --- dict <-> dataclass ------------------------------------------------------------------
def settings_from_dict(cls, raw: Any, path: str):
    """Build dataclass ``cls`` from a partial dict; absent keys keep their defaults."""
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise ProjectFileError(f"{path}: expected a JSON object")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in raw.items():
        if key not in fields:
            raise ProjectFileError(f"{path}.{show_key(key)}: unknown assumption")
        annotation = hints[key]
        if dataclasses.is_dataclass(annotation):
            kwargs[key] = settings_from_dict(annotation, value, f"{path}.{key}")
            continue
        kwargs[key] = _check_field(fields[key], annotation, value, f"{path}.{key}")
    built = cls(**kwargs)
    _check_shapes(built, path)
    return built


def _check_shapes(obj: Any, path: str) -> None:
    """``min_items`` and ``same_length_as`` (see the module docstring) on a built dataclass: a
    table's columns are checked together, whichever of them a file or an edit changed."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if not isinstance(value, (list, tuple)):
            continue
        if len(value) < f.metadata.get("min_items", 0):
            raise ProjectFileError(f"{path}.{f.name}: {len(value)} entries; at least "
                                   f"{f.metadata['min_items']} needed")
        other = f.metadata.get("same_length_as")
        if other and len(value) != len(getattr(obj, other)):
            raise ProjectFileError(f"{path}.{f.name}: {len(value)} entries, but {other} has "
                                   f"{len(getattr(obj, other))}; they pair up one to one")


def settings_to_dict(obj, only_changed: bool = False) -> dict[str, Any]:
    """Plain-JSON form; with ``only_changed`` just the fields that differ from the defaults."""
    default = type(obj)() if only_changed else None
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            nested = settings_to_dict(value, only_changed)
            if nested or not only_changed:
                out[f.name] = nested
            continue
        if only_changed and value == getattr(default, f.name):
            continue
        out[f.name] = list(value) if isinstance(value, tuple) else (
            dict(value) if isinstance(value, typing.Mapping) else value
        )
    return out
