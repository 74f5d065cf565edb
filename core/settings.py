"""Typed (de)serialisation of assumption dataclasses, with errors that name the JSON path.

Each analysis module owns a frozen dataclass of its assumptions (defaults cite their source in
the module). Projects store only the values a user changed; loading validates names and types.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from core.errors import ProjectFileError


def _type_ok(value: Any, annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
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


def settings_from_dict(cls, raw: Any, path: str):
    """Build dataclass ``cls`` from a partial dict; absent keys keep their defaults."""
    if raw is None:
        return cls()
    if not isinstance(raw, dict):
        raise ProjectFileError(f"{path}: expected a JSON object")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in raw.items():
        if key not in names:
            raise ProjectFileError(f"{path}.{key}: unknown assumption")
        annotation = hints[key]
        if dataclasses.is_dataclass(annotation):
            kwargs[key] = settings_from_dict(annotation, value, f"{path}.{key}")
            continue
        if not _type_ok(value, annotation):
            raise ProjectFileError(f"{path}.{key}: invalid value {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ProjectFileError(f"{path}.{key}: must not be negative")
        if typing.get_origin(annotation) is tuple:
            value = tuple(value)
        kwargs[key] = value
    return cls(**kwargs)


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
