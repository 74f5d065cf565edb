"""What the assumptions editor knows about each assumption field (no Qt here).

Everything is derived from core's dataclasses so new fields show up without GUI changes:

* the label comes from the field name (``nic_latency_us`` -> "NIC latency");
* the unit, the allowed range and string choices come from the field's metadata in core
  (``field(..., metadata={"min": 0.0, "unit": "µs"})``, see core/settings.py);
* the meaning is the source comment written above (or after) the field in core, read with
  ``inspect`` (a field without its own comment shares the one of the field just above it,
  as ``pue_air`` / ``pue_liquid`` share ``pue``'s);
* the editor kind comes from the type annotation (float, int, bool, str, ``X | None``,
  tuples and dicts).

Values are parsed from text here, then checked by core's own validation
(``core.settings.check_setting``: type, sign and the field's bounds), the same a project file
gets. Units and ranges come from the fields' metadata in core; a field without a unit there
gets one from its name suffix, and choices may also come from a ``# "a" | "b"`` comment.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import typing
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.assumptions import Assumptions
from core.errors import DesignError
from core.settings import check_setting, describe_range, setting_bounds

SECTION_TITLES = {"network": "Network", "power": "Power", "reliability": "Reliability",
                  "performance": "Performance", "cost": "Cost"}

# Unit suffixes of field names, longest first: (suffix, unit shown). The suffix leaves the
# label, except for KEEP_IN_LABEL ("chassis_multiplier" stays "Chassis multiplier", ×).
UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_per_1000_node_days", "per 1000 node-days"),
    ("_per_1000_days", "per 1000 device-days"),
    ("_t_co2_per_mwh", "t CO₂ / MWh"),
    ("_usd_per_kwh", "USD / kWh"),
    ("_bytes_per_param", "bytes / parameter"),
    ("_bytes_per_element", "bytes / element"),
    ("_per_rack", "per rack"),
    ("_per_day", "per day"),
    ("_days_mean", "days (mean)"),
    ("_gbit_s", "Gb/s"),
    ("_gbyte_s", "GB/s"),
    ("_bytes", "bytes"),
    ("_tokens", "tokens"),
    ("_gflop", "GFLOP"),
    ("_multiplier", "×"),
    ("_units", "devices"),
    ("_gpus", "GPUs"),
    ("_days", "days"),
    ("_min", "min"),
    ("_kw", "kW"),
    ("_gb", "GB"),
    ("_mb", "MB"),
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_s", "s"),
)
# Dimensionless names read as fractions (0-1) when core's metadata names no unit.
FRACTION_SUFFIXES = ("_fraction", "_overlap", "_efficiency", "_efficiency_scale", "_target")
WORDS = {
    "nic": "NIC", "gpu": "GPU", "gpus": "GPUs", "pue": "PUE", "hbm": "HBM", "gemm": "GEMM",
    "fsdp": "FSDP", "tp": "TP", "pp": "PP", "dp": "DP", "cp": "CP", "ep": "EP", "fp8": "FP8", "fp4": "FP4",
    "usd": "USD", "co2": "CO₂", "busbw": "bus-bandwidth", "p2p": "p2p", "kv": "KV", "moe": "MoE",
    "mfu": "MFU", "it": "IT", "gflop": "GFLOP", "comm": "comm.", "async": "async", "nvlink": "NVLink",
    "qps": "QPs", "nvls": "NVLS", "pfc": "PFC", "hol": "HoL", "sharp": "SHARP", "alltoall": "all-to-all",
}
KEEP_IN_LABEL = ("_multiplier",)
# Where the name alone reads badly (two fields would share a label, or a bare stem).
LABELS = {
    "gemm_efficiency_gflop": "GEMM efficiency: sizes",
    "gemm_efficiency": "GEMM efficiency: values",
    "electricity_usd_per_kwh": "Electricity price",
    "dpu_encrypt_storage": "Encrypt storage on DPUs (IPsec)",
    "grid_t_co2_per_mwh": "Grid carbon intensity",
    "typical_fraction": "Typical / nameplate power",
    # cooling types as core/cooling.py names them ("liquid" fields are cold-plate)
    "pue_liquid": "PUE cold-plate",
    "pue_rear_door": "PUE rear-door",
    "liquid_rack_limit_kw": "Cold-plate rack limit",
    "rear_door_rack_limit_kw": "Rear-door rack limit",
    "spectral_bisection_max_units": "Spectral bisection up to",
    "straggler_full_gpus": "Full straggler cost at",
    "auto_global_batch_tokens": "Global batch for auto",
    "checkpoint_bytes_per_param": "Checkpoint size",
    "optimizer_bytes_per_param": "Optimizer traffic",
    "logits_bytes_per_element": "Logits precision",
    "repair_days_mean": "Repair time",
    "depreciation_years": "Server and GPU life",
    "network_depreciation_years": "Network life",
    "facility_shell_depreciation_years": "Building shell life",
    "facility_plant_depreciation_years": "Power and cooling plant life",
    "facility_shell_fraction": "Shell share of facility",
    "wacc": "Cost of capital (WACC)",
    "utilization": "Utilisation (allocated)",
    "maintenance_fraction_per_year": "Maintenance and support",
    "facility_usd_per_mw": "Facility construction",
    "colocation_usd_per_kw_month": "Colocation rent",
    "discount_by_kind": "Discount by kind",
    "price_overrides_usd": "Price overrides",
    # fabric behaviour (docs/guide/fabrics.md)
    "unknown_buffer_mb": "Switch buffer when unpublished",
    "in_network_reduction": "In-network reduction (SHARP / NVLS)",
    "pfc_hol_efficiency": "Paused incast rate (lossless)",
    "retransmit_efficiency": "Dropped incast rate (selective retransmit)",
}
PHRASES = (("scale_up", "scale-up"), ("scale_out", "scale-out"))


def _is_optional(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


def _base_type(annotation: Any) -> Any:
    if _is_optional(annotation):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return rest[0] if rest else Any
    return annotation


@dataclass(frozen=True)
class FieldInfo:
    section: str          # "network", "power", ...
    name: str             # field name in core
    label: str            # "NIC latency"
    unit: str             # "µs" ("" when dimensionless)
    kind: str             # "float" | "int" | "bool" | "str" | "tuple" | "dict"
    optional: bool        # None allowed ("auto")
    meaning: str          # the source comment, one paragraph
    heading: str          # sub-heading this field sits under ("" for none)
    choices: tuple[str, ...] = ()
    fraction: bool = False
    item_kind: str = "float"  # dict values: "float" or "tuple"
    # min / max / min_exclusive / max_exclusive (core.settings keys), from core's metadata.
    bounds: typing.Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def allowed(self) -> str:
        """The allowed range in words ("1.0 to 3.0", "0.0 µs or more"; "" for yes/no and choices)."""
        text = describe_range({**self.bounds, "unit": self.unit}) if not self.choices else ""
        if self.optional and text:
            text += ", or auto"
        return text


def humanise(name: str) -> tuple[str, str]:
    """``nic_latency_us`` -> ("NIC latency", "µs"); the unit suffix leaves the label."""
    unit = ""
    stem = name
    for suffix, shown in UNIT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            stem, unit = (name if suffix in KEEP_IN_LABEL else name[: -len(suffix)]), shown
            break
    if stem.endswith(FRACTION_SUFFIXES) or stem in ("typical_fraction", "spare_fraction"):
        unit = unit or "fraction"
    for raw, shown in PHRASES:
        stem = stem.replace(raw, shown)
    words = [WORDS.get(w, w) for w in stem.split("_") if w]
    label = " ".join(words)
    return (label[:1].upper() + label[1:]) if label else name, unit


def _split_comment(line: str) -> tuple[str, str]:
    """(code, trailing comment) of one source line; a "#" inside quotes is code."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i], line[i + 1:]
    return line, ""


def _comments(cls: type) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, ...]]]:
    """(meaning by field, sub-heading by field, choices by field) from the class source."""
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):
        return {}, {}, {}
    names = {f.name for f in dataclasses.fields(cls)}
    field_line = re.compile(r"^    (\w+)\s*:\s*[^=#]+?(?:=\s*(.*?))?\s*$")
    meaning: dict[str, str] = {}
    heading: dict[str, str] = {}
    choices: dict[str, tuple[str, ...]] = {}
    pending: list[str] = []
    current_heading = ""
    previous: str | None = None
    in_doc = False
    for raw in lines[1:]:
        line = raw.rstrip()
        stripped = line.strip()
        if stripped.count('"""') == 1:
            in_doc = not in_doc
            continue
        if in_doc or stripped.startswith('"""'):
            continue
        if not stripped:
            pending, previous = [], None
            continue
        if stripped.startswith("#"):
            text = stripped.lstrip("#").strip()
            match = re.match(r"^-{2,}\s*(.*?)\s*-{2,}$", text)
            if match:
                current_heading = match.group(1)
                pending, previous = [], None
            else:
                pending.append(text)
            continue
        code, trailing = _split_comment(line)
        match = field_line.match(code)
        if not match or match.group(1) not in names:
            if not raw.startswith("     "):  # a continuation line keeps the context
                pending = []
            continue
        name = match.group(1)
        parts = [*pending]
        if trailing.strip():
            parts.append(trailing.strip().lstrip("#").strip())
        text = " ".join(parts).strip()
        if not text and previous is not None:
            text = meaning.get(previous, "")
        meaning[name] = text
        heading[name] = current_heading
        found = re.findall(r'"([\w-]+)"\s*(?=\|)|(?<=\|)\s*"([\w-]+)"', " ".join(parts))
        options = tuple(dict.fromkeys(a or b for a, b in found))
        if len(options) >= 2:
            choices[name] = options
        pending, previous = [], name
    return meaning, heading, choices


# Fields another tab sets: the software stack's id is chosen in the Workload tab, where choosing
# it sets every performance value with it (designer/workload/stack_selector.py); editing the id alone
# here would only relabel the values.
CHOSEN_ELSEWHERE = {"stack"}


@lru_cache(maxsize=None)
def section_fields(section: str) -> tuple[FieldInfo, ...]:
    cls = type(getattr(Assumptions(), section))
    hints = typing.get_type_hints(cls)
    meaning, heading, comment_choices = _comments(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in CHOSEN_ELSEWHERE:
            continue
        annotation = hints[f.name]
        base = _base_type(annotation)
        origin = typing.get_origin(base)
        if base is bool:
            kind = "bool"
        elif base is int:
            kind = "int"
        elif base is float:
            kind = "float"
        elif base is str:
            kind = "str"
        elif origin in (tuple, list):
            kind = "tuple"
        elif origin in (dict, typing.Mapping) or base is dict:
            kind = "dict"
        else:
            continue  # a type the editor cannot show (nested dataclass...): leave it to the file
        item_kind = "float"
        if kind == "dict":
            args = typing.get_args(base)
            value_type = args[1] if len(args) == 2 else float
            if typing.get_origin(value_type) in (tuple, list):
                item_kind = "tuple"
            elif value_type not in (float, int):
                continue
        label, unit = humanise(f.name)
        label = LABELS.get(f.name, label)
        core = setting_bounds(cls, f.name)
        unit = core.get("unit") or unit
        fraction = unit == "fraction" and kind in ("float", "tuple", "dict")
        choices = tuple(core.get("choices", ())) or comment_choices.get(f.name, ())
        shown_unit = "" if unit == "fraction" else unit
        bounds = {k: v for k, v in core.items() if k not in ("unit", "choices")}
        out.append(FieldInfo(section, f.name, label, shown_unit, kind,
                             _is_optional(annotation), meaning.get(f.name, ""), heading.get(f.name, ""),
                             choices, fraction, item_kind, bounds))
    return tuple(out)


def sections() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(Assumptions))


# --- text <-> value ----------------------------------------------------------------------
def format_number(value: float | int) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if math.isfinite(value) and value == int(value) and abs(value) >= 1000 and abs(value) < 1e15:
        return f"{int(value):,}"
    short = format(value, "g")
    return short if float(short) == value else repr(value)


def format_value(info: FieldInfo, value: Any) -> str:
    if value is None:
        return "auto"
    if info.kind == "bool":
        return "yes" if value else "no"
    if info.kind == "str":
        return str(value)
    if info.kind == "tuple":
        return ", ".join(_short(v) for v in value)
    if info.kind == "dict":
        if info.item_kind == "tuple":
            return "; ".join(f"{k}={' '.join(_short(x) for x in v)}" for k, v in value.items()) or "none"
        return "; ".join(f"{k}={_short(v)}" for k, v in value.items()) or "none"
    return format_number(value)


def format_compact(info: FieldInfo, value: Any) -> str:
    """Like format_value, shorter for big numbers (the "default" column): 8e9, 4.19e6."""
    if info.kind in ("float", "int") and isinstance(value, (int, float)) and abs(value) >= 1e6:
        exponent = int(math.floor(math.log10(abs(value))))
        mantissa = value / 10 ** exponent
        return f"{mantissa:.3g}e{exponent}"
    return format_value(info, value)


def _short(value: float) -> str:
    text = format(value, "g")
    return text if float(text) == value else repr(value)


def _number(text: str, info: FieldInfo, what: str = "") -> float | int:
    clean = text.strip().replace("_", "").replace(" ", "").replace("\u202f", "")
    if info.kind == "int" or what == "int":
        clean = clean.replace(",", "")
        try:
            return int(clean)
        except ValueError:
            try:
                number = float(clean)
            except ValueError:
                raise DesignError(f"{info.label}: {text.strip()!r} is not a number") from None
            if number.is_integer():
                return int(number)
            raise DesignError(f"{info.label}: {text.strip()!r} is not a whole number") from None
    if clean.count(",") == 1 and "." not in clean and len(clean.split(",")[1]) != 3:
        clean = clean.replace(",", ".")  # a decimal comma: "1,2"
    clean = clean.replace(",", "")
    try:
        number = float(clean)
    except ValueError:
        raise DesignError(f"{info.label}: {text.strip()!r} is not a number") from None
    if not math.isfinite(number):
        raise DesignError(f"{info.label}: {text.strip()!r} is not a finite number")
    return number


def parse_value(info: FieldInfo, text: str, current: Any) -> Any:
    """The value ``text`` stands for; DesignError with a one-line message when it is invalid."""
    stripped = text.strip()
    if info.optional and stripped.lower() in ("", "auto", "none", "default"):
        return None
    if info.kind == "bool":
        lowered = stripped.lower()
        if lowered in ("yes", "true", "on", "1"):
            return True
        if lowered in ("no", "false", "off", "0"):
            return False
        raise DesignError(f"{info.label}: {stripped!r} is not yes/no")
    if info.kind == "str":
        if not stripped:
            raise DesignError(f"{info.label}: must not be empty")
        if info.choices and stripped not in info.choices:
            raise DesignError(f"{info.label}: {stripped!r} is not one of {', '.join(info.choices)}")
        return stripped
    if info.kind == "tuple":
        parts = [p for p in re.split(r"[;,\s]+", stripped) if p]
        values = tuple(float(_number(p, info)) for p in parts)
        if current is not None and len(current) and len(values) != len(current):
            raise DesignError(f"{info.label}: needs {len(current)} values (it pairs with another list)")
        return values
    if info.kind == "dict":
        if stripped.lower() in ("", "none", "-"):
            return {}
        entries = re.split(r";\s*" if info.item_kind == "tuple" or ";" in stripped else r"[;,]\s*", stripped)
        result: dict[str, Any] = {}
        for part in entries:
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            if not sep:
                key, sep, value = part.partition(":")
            if not sep or not key.strip():
                raise DesignError(f"{info.label}: write id=value pairs separated by semicolons")
            if info.item_kind == "tuple":
                numbers = [p for p in re.split(r"[,\s]+", value.strip()) if p]
                if not numbers:
                    raise DesignError(f"{info.label}: {key.strip()} needs values")
                result[key.strip()] = tuple(float(_number(p, info)) for p in numbers)
            else:
                result[key.strip()] = float(_number(value, info))
        return result
    if not stripped:
        raise DesignError(f"{info.label}: a value is needed")
    number = _number(stripped, info)
    return float(number) if info.kind == "float" else number


def with_value(assumptions: Assumptions, info: FieldInfo, value: Any) -> Assumptions:
    """``assumptions`` with one field replaced, validated as a project file would be
    (core.settings.check_setting); DesignError "<label>: <problem>" when it is invalid."""
    section = getattr(assumptions, info.section)
    value = check_setting(type(section), info.name, value, where=info.label)
    try:
        changed = dataclasses.replace(section, **{info.name: value})
    except (TypeError, ValueError) as exc:
        raise DesignError(f"{info.label}: {exc}") from None
    return dataclasses.replace(assumptions, **{info.section: changed})


def section_reset(assumptions: Assumptions, section: str) -> Assumptions:
    return dataclasses.replace(assumptions, **{section: type(getattr(assumptions, section))()})


def defaults(section: str) -> Any:
    return type(getattr(Assumptions(), section))()
