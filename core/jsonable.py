"""Turn analysis results (frozen dataclasses, mappings, tuples, numpy scalars) into plain JSON."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping


def to_jsonable(value: Any) -> Any:
    """Recursively convert ``value``; non-finite floats become None (JSON has no inf/nan)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
