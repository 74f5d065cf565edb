"""The rules for every field of the design model: one validation for code, edits and files.

The model's dataclasses (core/model.py) check their fields with these rules when built, the
``SetProperty`` edit checks a new value with them, and the project loader checks every value of
a file with them, adding the JSON path. So a ``Design`` built in code holds only what a project
file may hold, and ``save_project`` never writes a file that ``load_project`` refuses.

A rule takes ``(value, where, error)`` and returns the value as the model stores it (a whole
number for a coordinate becomes a float) or raises ``error`` (a DesignError subclass) with
"<where>: <problem>". Values in messages are shortened (a 100,000-item list is not echoed).

Bounds (beyond them a number is a typo or an attack, and would overflow the analyses):
coordinates within ±1e9 (kept to 0.01, as files store them), link speeds up to 1e6 Gb/s per cable, lengths up to 1e6 m, overrides
up to 1e12 (what the inspector accepts), ids up to 200 characters and other text up to 1,000.
Counts have no field bound of their own: how far a design multiplies out is checked as a whole
against core/limits.py. Metadata is free JSON (finite numbers, at most ``MAX_METADATA_DEPTH``
levels deep).
"""

from __future__ import annotations

import math
import operator
import re
import reprlib
from typing import Any, Callable

from core.errors import DesignError

LINK_KINDS = ("scale-up", "scale-out", "storage", "frontend")
MEDIA = ("fiber", "copper")
MAX_COORDINATE = 1e9
MAX_SPEED_GBIT_S = 1e6
MAX_LENGTH_M = 1e6
MAX_OVERRIDE = 1e12
MAX_ID_CHARS = 200
MAX_TEXT_CHARS = 1000
MAX_METADATA_DEPTH = 32
MAX_METADATA_INTEGER = 2**63  # JSON readers elsewhere hold 64-bit integers
ID_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")

Rule = Callable[[Any, str, type[DesignError]], Any]

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = _short.maxtuple = 4
_short.maxlevel = 2


def show(value: Any) -> str:
    """``repr`` cut to a readable length (for error messages about user values)."""
    return _short.repr(value)


def show_key(key: Any) -> str:
    """A JSON key for a path in a message, cut to a readable length."""
    text = key if isinstance(key, str) else repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_text(value: Any, where: str, error: type[DesignError] = DesignError,
               max_chars: int = MAX_TEXT_CHARS) -> str:
    if not isinstance(value, str):
        raise error(f"{where}: expected a string, got {show(value)}")
    if len(value) > max_chars:
        raise error(f"{where}: {len(value):,} characters; at most {max_chars:,}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise error(f"{where}: character {exc.start} is half of a UTF-16 surrogate pair, "
                        f"not text") from None
    return value


def check_id(identifier: Any, where: str = "", error: type[DesignError] = DesignError) -> str:
    if not isinstance(identifier, str) or not identifier or len(identifier) > MAX_ID_CHARS \
            or not ID_RE.match(identifier):
        prefix = f"{where}: " if where else ""
        raise error(f"{prefix}invalid id {show(identifier)}: use 1 to {MAX_ID_CHARS} letters, "
                    f"digits, '.', '_' or '-'")
    return identifier


def check_count(value: Any, where: str, error: type[DesignError] = DesignError) -> int:
    """A whole number of at least 1 (2.0 is refused: a count is never written as a float)."""
    if type(value) is not int:
        try:
            whole = None if isinstance(value, bool) else operator.index(value)  # numpy ints too
        except TypeError:
            whole = None
        if whole is None:
            raise error(f"{where}: expected integer, got {show(value)}")
        value = whole
    if value < 1:
        raise error(f"{where}: must be at least 1, got {value}")
    return value


def check_number(value: Any, where: str, error: type[DesignError] = DesignError, *,
                 low: float = -math.inf, high: float = math.inf, low_exclusive: bool = False) -> float:
    """A finite number within [low, high] (or (low, high]) returned as a float."""
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (str, bytes)):
        value = value.item()  # a numpy scalar
    if not _is_number(value):
        raise error(f"{where}: expected a number, got {show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{where}: expected a finite number, got {value}")
    if low_exclusive and value <= low:
        raise error(f"{where}: must be above {low:g}, got {show(value)}")
    if value < low or value > high:
        raise error(f"{where}: {show(value)} is outside {low:g} to {high:g}")
    return float(value)


def check_choice(value: Any, where: str, error: type[DesignError], choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise error(f"{where}: {show(value)} is not one of {', '.join(choices)}")
    return value


def check_bool(value: Any, where: str, error: type[DesignError] = DesignError) -> bool:
    if not isinstance(value, bool):
        raise error(f"{where}: expected true or false, got {show(value)}")
    return value


def check_path(value: Any, where: str, error: type[DesignError] = DesignError) -> str:
    """A link end: ids joined by '/' ("su/leaf")."""
    check_text(value, where, error)
    for part in value.split("/"):
        check_id(part, where, error)
    return value


def check_overrides(value: Any, where: str, error: type[DesignError] = DesignError) -> dict[str, float]:
    """Per-node catalog overrides: field name -> a number from 0 to ``MAX_OVERRIDE``."""
    if not isinstance(value, dict):
        raise error(f"{where}: expected an object, got {show(value)}")
    out: dict[str, float] = {}
    for key, number in value.items():
        check_id(key, f"{where} key", error)
        out[key] = check_number(number, f"{where}.{key}", error, low=0.0, high=MAX_OVERRIDE)
    return out


def _metadata_scalar(item: Any, path: str, error: type[DesignError]) -> Any:
    if item is None or isinstance(item, bool):
        return item
    if isinstance(item, int):
        if not -MAX_METADATA_INTEGER <= item <= MAX_METADATA_INTEGER:
            raise error(f"{path}: integer {show(item)} is beyond ±2**63")
        return int(item)
    if isinstance(item, float):
        return check_number(item, path, error)
    if isinstance(item, str):
        return check_text(item, path, error, max_chars=10**7)
    raise error(f"{path}: {type(item).__name__} is not JSON (use objects, lists, text, numbers, "
                f"true/false or null)")


def check_metadata(value: Any, where: str, error: type[DesignError] = DesignError) -> dict[str, Any]:
    """Free JSON: objects with string keys, lists, text, finite numbers, booleans and null.

    Returns a copy with tuples made lists (what a file gives back). Walked without recursion,
    so a deep value is refused by its depth, not by Python's stack.
    """
    if not isinstance(value, dict):
        raise error(f"{where}: expected an object, got {show(value)}")
    out: dict[str, Any] = {}
    stack: list[tuple[Any, Any, str, int]] = [(value, out, where, 1)]  # source, copy, path, depth
    while stack:
        source, target, path, depth = stack.pop()
        if depth > MAX_METADATA_DEPTH:
            raise error(f"{path}: nested deeper than {MAX_METADATA_DEPTH} levels")
        is_dict = isinstance(source, dict)
        for key, item in source.items() if is_dict else enumerate(source):
            if is_dict:
                if not isinstance(key, str):
                    raise error(f"{path}: key {show(key)} is not a string")
                item_path = f"{path}.{check_text(key, f'{path} key', error)}"
            else:
                item_path = f"{path}[{key}]"
            if isinstance(item, (dict, list, tuple)):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy, item_path, depth + 1))
            else:
                copy = _metadata_scalar(item, item_path, error)
            if is_dict:
                target[key] = copy
            else:
                target.append(copy)
    return out


def _text(max_chars: int = MAX_TEXT_CHARS) -> Rule:
    return lambda value, where, error: check_text(value, where, error, max_chars)


def _number(**bounds: Any) -> Rule:
    return lambda value, where, error: check_number(value, where, error, **bounds)


def _choice(choices: tuple[str, ...]) -> Rule:
    return lambda value, where, error: check_choice(value, where, error, choices)


def _coordinate(value: Any, where: str, error: type[DesignError]) -> float:
    """A canvas position, kept to 0.01 as project files store it (so a save loads back equal)."""
    return round(check_number(value, where, error, low=-MAX_COORDINATE, high=MAX_COORDINATE), 2)


NODE_RULES: dict[str, Rule] = {
    "id": check_id, "catalog_id": _text(MAX_ID_CHARS), "count": check_count, "name": _text(),
    "x": _coordinate, "y": _coordinate, "tier": _text(MAX_ID_CHARS), "overrides": check_overrides,
}
BLOCK_RULES: dict[str, Rule] = {
    "id": check_id, "name": _text(), "count": check_count, "x": _coordinate, "y": _coordinate,
    "collapsed": check_bool, "role": _text(MAX_ID_CHARS),
}
LINK_RULES: dict[str, Rule] = {
    "id": check_id, "a": check_path, "b": check_path, "kind": _choice(LINK_KINDS),
    "speed_gbit_s": _number(low=0.0, low_exclusive=True, high=MAX_SPEED_GBIT_S),
    "count": check_count, "length_m": _number(low=0.0, high=MAX_LENGTH_M), "medium": _choice(MEDIA),
}


def check_fields(item: Any, rules: dict[str, Rule], where: str,
                 error: type[DesignError] = DesignError, sep: str = ".") -> None:
    """Check (and normalise in place) every ruled field of a model dataclass; a problem reads
    "<where><sep><field>: ..." ("$.design.children[0].count: ..." or "component 'x' field count: ...")."""
    values = item.__dict__
    for name, rule in rules.items():
        values[name] = rule(values[name], f"{where}{sep}{name}", error)
