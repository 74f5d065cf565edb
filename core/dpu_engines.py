"""The ``engines`` of a DPU catalog entry (article 003's five engines) and what a valid one holds.

A DPU (kind ``dpu``) may list what its engines do, each with the figures the analyses use:

``compute_virtio``  virtio-net / virtio-blk devices it presents to the host (``virtio_functions``)
``storage``         NVMe-oF / file-client offload: ``gbyte_s`` (both directions), ``iops``
``network``         line rate of its packet engine: ``gbit_s`` (per direction)
``security``        inline crypto: ``ipsec_gbit_s``, ``tls_gbit_s``
``control``         its own CPU for bare-metal / VM / container management: ``arm_cores``

Every engine may also carry ``offload_cores_freed`` (host CPU cores its offload saves),
``evidence`` (a confidence tag like the entry's: S, E, S/E) and ``note``. The cores freed may
instead be given once for the whole DPU (the entry's ``offload_cores_freed``), never both.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Mapping


if TYPE_CHECKING:
    from core.catalog_spec import DpuEngine, DpuSpec


from core.design_fields import EVIDENCE_TAGS_RE, show

# engine -> its own figures: field -> whole number (True) or any number (False)
ENGINE_FIELDS: dict[str, dict[str, bool]] = {
    "compute_virtio": {"virtio_functions": True},
    "storage": {"gbyte_s": False, "iops": False},
    "network": {"gbit_s": False},
    "security": {"ipsec_gbit_s": False, "tls_gbit_s": False},
    "control": {"arm_cores": True},
}
ENGINES = tuple(ENGINE_FIELDS)
ENGINE_TITLES = {
    "compute_virtio": "Compute (virtio)",
    "storage": "Storage",
    "network": "Network",
    "security": "Security",
    "control": "Control",
}
# Units of the figures, for the inspector and reports.
FIELD_UNITS = {
    "virtio_functions": "functions", "gbyte_s": "GB/s", "iops": "IOPS", "gbit_s": "Gb/s",
    "ipsec_gbit_s": "Gb/s IPsec", "tls_gbit_s": "Gb/s TLS", "arm_cores": "Arm cores",
    "offload_cores_freed": "host cores freed",
}
_COMMON_FIELDS = ("offload_cores_freed", "evidence", "note")


def engines_problem(engines: Any, cores_freed_per_dpu: Any, max_number: float,
                    max_text_chars: int) -> tuple[str, str] | None:
    """(field, reason) for the first thing wrong with a DPU's ``engines``, or None.

    ``field`` is a path under the entry (``engines.storage.gbyte_s``) for messages that name it;
    ``cores_freed_per_dpu`` is the entry's own ``offload_cores_freed`` (None when absent)."""
    if not isinstance(engines, dict):
        return "engines", f"expected an object with engines among {', '.join(ENGINES)}"
    for name, engine in engines.items():
        where = f"engines.{name}"
        if name not in ENGINE_FIELDS:
            return where, f"unknown engine (expected {', '.join(ENGINES)})"
        if not isinstance(engine, dict):
            return where, f"expected an object, got {show(engine)}"
        allowed = (*ENGINE_FIELDS[name], *_COMMON_FIELDS)
        for key, value in engine.items():
            at = f"{where}.{key}"
            if key not in allowed:
                return at, f"unknown field (expected {', '.join(allowed)})"
            if key == "evidence":
                if not isinstance(value, str) or not EVIDENCE_TAGS_RE.match(value):
                    return at, f"{show(value)} is not a tag like S, E or S/E"
            elif key == "note":
                if not isinstance(value, str) or not value.strip() or len(value) > max_text_chars:
                    return at, f"must be a non-empty text up to {max_text_chars:,} characters"
            else:
                whole = ENGINE_FIELDS[name].get(key, False)
                problem = _number_problem(value, whole, max_number,
                                          positive=key != "offload_cores_freed")
                if problem:
                    return at, problem
        if "offload_cores_freed" in engine and cores_freed_per_dpu is not None:
            return (f"{where}.offload_cores_freed",
                    "give the host cores freed once: per engine or for the whole DPU "
                    "(offload_cores_freed), not both")
    return None


def _number_problem(value: Any, whole: bool, max_number: float, positive: bool) -> str:
    kind = "a whole number" if whole else "a number"
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not math.isfinite(value))
            or (whole and not isinstance(value, int))):
        return f"expected {kind}, got {show(value)}"
    if positive and not value > 0:
        return f"must be positive (leave the field out when unknown), got {show(value)}"
    if value < 0:
        return f"must not be negative, got {show(value)}"
    if value > max_number:
        return f"{show(value)} is above the maximum {max_number:,.0f}"
    return ""


def engine_value(engines: Mapping[str, DpuEngine], engine: str,
                 figure: Callable[[DpuEngine], float | None]) -> float | None:
    """One figure of one engine, read by ``figure`` (None when the entry does not give it)."""
    record = engines.get(engine)
    value = None if record is None else figure(record)
    return None if value is None else float(value)


def cores_freed_per_dpu(dpu: DpuSpec, used: tuple[str, ...]) -> float | None:
    """Host CPU cores one DPU frees with ``used`` engines at work (None when the entry gives
    no figure). A whole-DPU figure counts as soon as the DPU is used at all."""
    if dpu.offload_cores_freed is not None:
        return float(dpu.offload_cores_freed) if used else 0.0
    engines = dpu.engines or {}
    if all(engine.offload_cores_freed is None for engine in engines.values()):
        return None
    return float(sum(engines[name].offload_cores_freed or 0.0
                     for name in used if name in engines))
