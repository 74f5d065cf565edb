"""The rules for every field of the design model: one validation for code, edits and files.

The model's dataclasses (core/model.py) check their fields with these rules when built, the
``SetProperty`` edit checks a new value with them, and the project loader checks every value of
a file with them, adding the JSON path. So a ``Design`` built in code holds only what a project
file may hold, and ``save_project`` never writes a file that ``load_project`` refuses.

A rule takes a value and returns it as the model stores it (a whole number for a coordinate
becomes a float), or raises ``FieldProblem`` saying what is wrong; the caller adds where
("$.design.children[2].count: must be at least 1, got 0"). Messages are built only for bad
values, so checking a 100,000-node design costs little. Values in messages are shortened (a
100,000-item list is not echoed).

Bounds (beyond them a number is a typo or an attack, and would overflow the analyses):
coordinates within ±1e9, link speeds up to 1e6 Gb/s per
cable, lengths up to 1e6 m, overrides up to 1e12 (what the inspector accepts), ids up to 200
characters and other text up to 1,000. Counts have no field bound of their own: how far a
design multiplies out is checked as a whole against core/limits.py. Metadata is free JSON
(finite numbers, at most ``MAX_METADATA_DEPTH`` levels deep).
"""

from __future__ import annotations

import math
import operator
import re
import reprlib
import sys
from typing import Any, Callable

from core.cooling import COOLING_TYPES
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
ID_RE = re.compile(r"[A-Za-z0-9_.\-]+")  # used with fullmatch: "$" would let "id\n" through


class FieldProblem(ValueError):
    """A value breaks a field rule; whoever checks it adds where the value is. ``subpath``
    locates it inside the value (".max_power_kw" in a node's overrides)."""

    def __init__(self, problem: str, subpath: str = ""):
        super().__init__(problem)
        self.subpath = subpath


Rule = Callable[[Any], Any]

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = _short.maxtuple = 4
_short.maxlevel = 2


# Evidence tags of ../shared/reference/README.md (P, D, S, R, E), possibly mixed ("P/E"): a
# catalog entry's confidence and each figure of a DPU engine carry them.
EVIDENCE_TAGS_RE = re.compile(r"^[PDSRE](/[PDSRE])*$")

def show(value: Any) -> str:
    """``repr`` cut to a readable length (for error messages about user values)."""
    return _short.repr(value)


def show_key(key: Any) -> str:
    """A JSON key for a path in a message, cut to a readable length."""
    text = key if isinstance(key, str) else repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


# --- rules: value -> stored value, or FieldProblem -------------------------------------------
def text_rule(max_chars: int = MAX_TEXT_CHARS) -> Rule:
    def rule(value: Any) -> str:
        if type(value) is str and len(value) <= max_chars and value.isascii():
            return value  # the common case, without the checks below
        if not isinstance(value, str):
            raise FieldProblem(f"expected a string, got {show(value)}")
        if len(value) > max_chars:
            raise FieldProblem(f"{len(value):,} characters; at most {max_chars:,}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FieldProblem(f"character {exc.start} is half of a UTF-16 surrogate pair, not text") from None
        return value
    return rule


def id_rule(value: Any) -> str:
    if type(value) is str and 0 < len(value) <= MAX_ID_CHARS and ID_RE.fullmatch(value):
        return value
    raise FieldProblem(f"invalid id {show(value)}: use 1 to {MAX_ID_CHARS} letters, digits, '.', '_' or '-'")


def _whole_at_least(value: Any, low: int) -> int:
    """``value`` as a whole number of at least ``low``; 2.0 and True are refused (a count is
    never written as a float or a boolean), numpy integers taken."""
    if type(value) is not int:
        try:
            whole = None if isinstance(value, bool) else operator.index(value)
        except TypeError:
            whole = None
        if whole is None:
            raise FieldProblem(f"expected integer, got {show(value)}")
        value = whole
    if value < low:
        raise FieldProblem(f"must be at least {low}, got {value}")
    return value


def count_rule(value: Any) -> int:
    """A whole number of at least 1."""
    return _whole_at_least(value, 1)


def units_rule(value: Any) -> int:
    """A whole number of at least 0: how many units of an item are failed or drained (whether
    that many exist is a question about the whole design: core/limits.py)."""
    return _whole_at_least(value, 0)


def number_rule(low: float = -sys.float_info.max, high: float = sys.float_info.max,
                low_exclusive: bool = False) -> Rule:
    """A finite number within [low, high] (or (low, high]) stored as a float. The default bounds
    are the largest finite floats, so the fast comparison below refuses infinities too."""
    def rule(value: Any) -> float:
        if type(value) is float and (low < value if low_exclusive else low <= value) and value <= high:
            return value  # the common case (NaN fails the comparisons and goes on)
        if hasattr(value, "item") and callable(value.item) and not isinstance(value, (str, bytes)):
            value = value.item()  # a numpy scalar
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise FieldProblem(f"expected a number, got {show(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise FieldProblem(f"expected a finite number, got {value}")
        if low_exclusive and value <= low:
            raise FieldProblem(f"must be above {low:g}, got {show(value)}")
        if value < low or value > high:
            raise FieldProblem(f"{show(value)} is outside {low:g} to {high:g}")
        return float(value)
    return rule


def choice_rule(choices: tuple[str, ...]) -> Rule:
    def rule(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise FieldProblem(f"{show(value)} is not one of {', '.join(choices)}")
        return value
    return rule


def cooling_rule(value: Any) -> str:
    """A component's or block's cooling: "" keeps the catalog entry's (or the enclosing
    block's), a type overrides it for the racks of the components concerned."""
    if isinstance(value, str) and (value == "" or value in COOLING_TYPES):
        return value
    raise FieldProblem(f"{show(value)} is not a cooling type: use {', '.join(COOLING_TYPES)}, "
                       f"or \"\" for the catalog's")


def bool_rule(value: Any) -> bool:
    if not isinstance(value, bool):
        raise FieldProblem(f"expected true or false, got {show(value)}")
    return value


def path_rule(value: Any) -> str:
    """A link end: ids joined by '/' ("su/leaf")."""
    _long_text(value)
    for part in value.split("/"):
        id_rule(part)
    return value


def overrides_rule(value: Any) -> dict[str, float]:
    """Per-node catalog overrides: field name -> a number from 0 to ``MAX_OVERRIDE``."""
    if not isinstance(value, dict):
        raise FieldProblem(f"expected an object, got {show(value)}")
    out: dict[str, float] = {}
    for key, number in value.items():
        try:
            out[id_rule(key)] = _override(number)
        except FieldProblem as problem:
            raise FieldProblem(str(problem), f".{show_key(key)}") from None
    return out


_long_text = text_rule()
_override = number_rule(low=0.0, high=MAX_OVERRIDE)
coordinate_rule = number_rule(low=-MAX_COORDINATE, high=MAX_COORDINATE)  # a canvas position

NODE_RULES: dict[str, Rule] = {
    "id": id_rule, "catalog_id": text_rule(MAX_ID_CHARS), "count": count_rule, "name": _long_text,
    "x": coordinate_rule, "y": coordinate_rule, "tier": text_rule(MAX_ID_CHARS), "overrides": overrides_rule,
    "failed": units_rule, "drained": units_rule, "cooling": cooling_rule,
}
BLOCK_RULES: dict[str, Rule] = {
    "id": id_rule, "name": _long_text, "count": count_rule, "x": coordinate_rule, "y": coordinate_rule,
    "collapsed": bool_rule, "role": text_rule(MAX_ID_CHARS), "failed": units_rule, "drained": units_rule,
    "cooling": cooling_rule,
}
LINK_RULES: dict[str, Rule] = {
    "id": id_rule, "a": path_rule, "b": path_rule, "kind": choice_rule(LINK_KINDS),
    "speed_gbit_s": number_rule(low=0.0, low_exclusive=True, high=MAX_SPEED_GBIT_S),
    "count": count_rule, "length_m": number_rule(low=0.0, high=MAX_LENGTH_M), "medium": choice_rule(MEDIA),
    "failed": units_rule, "drained": units_rule,
}
# The failure what-if fields (core/degrade.py): units failed (broken) or drained (taken out on
# purpose), counted over every instance of the enclosing blocks. Optional in files (0 = none).
FAILURE_FIELDS = ("failed", "drained")


# Fast paths: one call that accepts the common case of a whole item (a float coordinate, a
# plain ASCII name...) for which every rule above returns the value unchanged; anything else
# goes through the rules one by one. tests/test_model.py checks the two agree.
_ID_FULL = re.compile(r"[A-Za-z0-9_.\-]{1,%d}" % MAX_ID_CHARS).fullmatch
_PATH_FULL = re.compile(r"[A-Za-z0-9_.\-]{1,%d}(?:/[A-Za-z0-9_.\-]{1,%d})*" % (MAX_ID_CHARS, MAX_ID_CHARS)).fullmatch


def _short_ascii(value: Any, max_chars: int) -> bool:
    return type(value) is str and len(value) <= max_chars and value.isascii()


def _no_failure(d: dict[str, Any]) -> bool:
    """Nothing failed or drained (the usual case; anything else goes through the rules)."""
    failed, drained = d["failed"], d["drained"]
    return type(failed) is int and type(drained) is int and failed == 0 and drained == 0


def node_fields_ok(d: dict[str, Any]) -> bool:
    count, x, y, node_id = d["count"], d["x"], d["y"], d["id"]
    return (type(count) is int and count >= 1
            and type(x) is float and -MAX_COORDINATE <= x <= MAX_COORDINATE
            and type(y) is float and -MAX_COORDINATE <= y <= MAX_COORDINATE
            and type(node_id) is str and _ID_FULL(node_id) is not None
            and _short_ascii(d["catalog_id"], MAX_ID_CHARS) and _short_ascii(d["name"], MAX_TEXT_CHARS)
            and _short_ascii(d["tier"], MAX_ID_CHARS) and type(d["overrides"]) is dict and not d["overrides"]
            and _no_failure(d) and d["cooling"] == "")


def link_fields_ok(d: dict[str, Any]) -> bool:
    count, speed, length, a, b, link_id = d["count"], d["speed_gbit_s"], d["length_m"], d["a"], d["b"], d["id"]
    return (type(count) is int and count >= 1
            and type(speed) is float and 0.0 < speed <= MAX_SPEED_GBIT_S
            and type(length) is float and 0.0 <= length <= MAX_LENGTH_M
            and type(d["kind"]) is str and d["kind"] in LINK_KINDS
            and type(d["medium"]) is str and d["medium"] in MEDIA
            and type(link_id) is str and _ID_FULL(link_id) is not None
            and type(a) is str and len(a) <= MAX_TEXT_CHARS and _PATH_FULL(a) is not None
            and type(b) is str and len(b) <= MAX_TEXT_CHARS and _PATH_FULL(b) is not None
            and _no_failure(d))


def block_fields_ok(d: dict[str, Any]) -> bool:
    count, x, y, block_id = d["count"], d["x"], d["y"], d["id"]
    return (type(count) is int and count >= 1
            and type(x) is float and -MAX_COORDINATE <= x <= MAX_COORDINATE
            and type(y) is float and -MAX_COORDINATE <= y <= MAX_COORDINATE
            and type(block_id) is str and _ID_FULL(block_id) is not None
            and type(d["collapsed"]) is bool and _short_ascii(d["name"], MAX_TEXT_CHARS)
            and _short_ascii(d["role"], MAX_ID_CHARS) and _no_failure(d) and d["cooling"] == "")


def check(rule: Rule, value: Any, where: str, error: type[DesignError] = DesignError) -> Any:
    """``rule(value)``, a problem raised as ``error`` "<where>: <problem>"."""
    try:
        return rule(value)
    except FieldProblem as problem:
        raise error(f"{where}{problem.subpath}: {problem}") from None


def check_fields(item: Any, rules: dict[str, Rule], where: str | Callable[[], str],
                 error: type[DesignError] = DesignError, sep: str = ".") -> None:
    """Check (and normalise in place) every ruled field of a model dataclass; a problem reads
    "<where><sep><field>: ..." ("$.design.children[0].count: ..." or "component 'x' field count: ...").
    ``where`` may be a function, called only when there is a problem to report."""
    values = item.__dict__
    name = ""
    try:
        for name, rule in rules.items():
            values[name] = rule(values[name])
    except FieldProblem as problem:
        label = where() if callable(where) else where
        raise error(f"{label}{sep}{name}{problem.subpath}: {problem}") from None


def check_text(value: Any, where: str, error: type[DesignError] = DesignError,
               max_chars: int = MAX_TEXT_CHARS) -> str:
    return check(text_rule(max_chars), value, where, error)


def check_id(identifier: Any, where: str = "", error: type[DesignError] = DesignError) -> str:
    try:
        return id_rule(identifier)
    except FieldProblem as problem:
        raise error(f"{where}: {problem}" if where else str(problem)) from None  # ids have no subpath


# --- metadata: free JSON ----------------------------------------------------------------
def _metadata_scalar(item: Any) -> Any:
    if item is None or isinstance(item, bool):
        return item
    if isinstance(item, int):
        if not -MAX_METADATA_INTEGER <= item <= MAX_METADATA_INTEGER:
            raise FieldProblem(f"integer {show(item)} is beyond ±2**63")
        return int(item)
    if isinstance(item, float):
        return _any_number(item)
    if isinstance(item, str):
        return _metadata_text(item)
    raise FieldProblem(f"{type(item).__name__} is not JSON (use objects, lists, text, numbers, "
                       f"true/false or null)")


_any_number = number_rule()
_metadata_text = text_rule(10**7)


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
                item_path = f"{path}.{show_key(check(_long_text, key, f'{path} key', error))}"
            else:
                item_path = f"{path}[{key}]"
            if isinstance(item, (dict, list, tuple)):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy, item_path, depth + 1))
            else:
                copy = check(_metadata_scalar, item, item_path, error)
            if is_dict:
                target[key] = copy
            else:
                target.append(copy)
    return out
