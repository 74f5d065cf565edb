"""Sweep spec files: what to vary, checked completely before anything runs.

A spec is a JSON object (examples in resources/sweeps/)::

    {"format": "cluster-designer.sweep/1",          optional
     "name": "IB vs RoCE, 16k H100",                optional (default: the file's stem)
     "template": "fat-tree",                        or "supernode"
     "options": {"gpus": [16384], "switch": ["QM9700", "SN5600"], "island_gpus": [null, 2048]},
     "workloads": ["llama3-405b", "deepseek-r1-serve", "my-job.json", {...inline workload...}],
                                                    optional: training or inference ("kind": "inference")
     "keep_preset_layout": false,                   optional: training presets as published, not fitted
     "stacks": ["nemo-2024", "megatron-lm-2022"],   optional (core/stacks.py ids)
     "assumptions": {"power.pue": [1.2, 1.4]},      optional: dotted names as in project files
     "objectives": {"performance.training_days": "min", "cost.capex_usd": "min"}}   optional

``options`` holds the template generator's options (the fields of ``FatTreeOptions`` or
``SupernodeOptions``, so options a generator gains are sweepable at once), each a list of
values or one value. Every combination of options x workloads x stacks x assumption values is
one design. A training preset is fitted to each design (unless keep_preset_layout); an inference
preset, file or object is served as written, its ``"deployment": "auto"`` searched on each design.
Unknown keys, empty lists, values of the wrong type and cross products above
``MAX_SWEEP_COMBINATIONS`` (core/limits.py) are refused with the file and the JSON path.
Whether a combination can be built (a switch too small, GPUs not a multiple of the server's)
is not checked here: such a combination becomes a row with its reason in the results.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.assumptions import assumptions_from_dict
from core.errors import DesignError
from core.generators import FatTreeOptions, SupernodeOptions
from core.inference_workload import (InferenceWorkload, any_workload_from_dict, any_workload_to_dict,
                                     list_inference_presets, load_any_workload)
from core.jsonfile import read_json
from core.limits import MAX_SWEEP_COMBINATIONS
from core.metrics import HIGHER, LOWER, METRIC_PATHS, METRICS
from core.stacks import PRESETS as STACK_PRESETS
from core.workload import list_presets

SWEEP_FORMAT = "cluster-designer.sweep/1"
TEMPLATES: dict[str, type] = {"fat-tree": FatTreeOptions, "supernode": SupernodeOptions}
SPEC_KEYS = ("format", "name", "description", "template", "options", "workloads",
             "keep_preset_layout", "stacks", "assumptions", "objectives")
MINIMIZE, MAXIMIZE = "min", "max"
TRAINING, INFERENCE = "training", "inference"
# Time to train, capex and facility power: what an architect trades against each other first.
DEFAULT_OBJECTIVES = (("performance.training_days", MINIMIZE), ("cost.capex_usd", MINIMIZE),
                      ("power.facility_kw", MINIMIZE))
# Serving: what a million answered tokens cost (hardware, facility and energy over the served
# output, prefill counted), how fast the answer streams (TPOT at the chosen load; TTFT is held by
# the SLO, and "auto" fills the batch up to it), and the power the design needs.
SERVING_OBJECTIVES = (("inference.usd_per_million_output_tokens", MINIMIZE),
                      ("inference.tpot_ms", MINIMIZE), ("power.facility_kw", MINIMIZE))
# Without a workload, or with both kinds (each kind's figures are empty on the other's rows,
# which would then never be on the front): what every row has.
FABRIC_OBJECTIVES = (("cost.capex_usd", MINIMIZE), ("power.facility_kw", MINIMIZE))


class SweepSpecError(DesignError):
    """A sweep spec (file or ``--objectives``) is invalid."""


@dataclass(frozen=True)
class Objective:
    metric: str  # a metric path of core/metrics.py, e.g. "cost.capex_usd"
    direction: str  # MINIMIZE or MAXIMIZE

    @property
    def label(self) -> str:
        return f"{self.metric}:{self.direction}"


@dataclass(frozen=True)
class WorkloadChoice:
    """One entry of ``workloads``: ``label`` names it in the results; ``ref`` is what a recipe
    stores: a preset name (a training preset fitted to each design unless keep_preset_layout,
    an inference preset served as written) or the workload's own JSON dict (a file or an inline
    object, used as written); ``kind`` is TRAINING or INFERENCE."""

    label: str
    ref: str | dict
    kind: str = TRAINING


@dataclass(frozen=True)
class SweepSpec:
    name: str
    template: str
    options: tuple[tuple[str, tuple], ...]  # option name -> its values, in spec order
    workloads: tuple[WorkloadChoice | None, ...]  # (None,) when the spec names none
    keep_preset_layout: bool
    stacks: tuple[str | None, ...]  # (None,) when the spec names none: the engine's default
    assumptions: tuple[tuple[str, tuple], ...]  # dotted name -> its values
    objectives: tuple[Objective, ...]

    @property
    def combinations(self) -> int:
        return math.prod(len(values) for _, values in self._axes())

    def _axes(self) -> list[tuple[str, tuple]]:
        return [*self.options, ("workload", self.workloads), ("stack", self.stacks),
                *self.assumptions]

    def recipes(self) -> Iterator[dict[str, Any]]:
        """One recipe per combination (core.sweep.recipe rebuilds the design from it), the last
        axis varying fastest; lazily, so a 100,000-row sweep never holds them all twice."""
        names = [name for name, _ in self.options]
        assumption_names = [name for name, _ in self.assumptions]
        n_options = len(names)
        for values in itertools.product(*(values for _, values in self._axes())):
            workload = values[n_options]
            yield {"template": self.template,
                   "options": dict(zip(names, values[:n_options])),
                   "workload": None if workload is None else workload.ref,
                   "workload_label": None if workload is None else workload.label,
                   "keep_preset_layout": self.keep_preset_layout,
                   "stack": values[n_options + 1],
                   "assumptions": dict(zip(assumption_names, values[n_options + 2:]))}


# --- reading --------------------------------------------------------------------------------
def load_sweep_spec(path: str | Path, objectives: list[str] | None = None) -> SweepSpec:
    """The spec in ``path``, checked; ``objectives`` ("metric[:min|max]", from the command
    line) replace the spec's own."""
    path = Path(path)
    raw = read_json(path, SweepSpecError, "sweep spec")
    return sweep_spec_from_dict(raw, str(path), path.parent, path.stem, objectives)


def sweep_spec_from_dict(raw: Any, where: str = "spec", folder: Path = Path("."),
                         default_name: str = "sweep", objectives: list[str] | None = None) -> SweepSpec:
    """Check ``raw``; errors read "<where>: $.options.gpus[2]: ...". Workload files are found
    relative to ``folder`` (the spec's own)."""
    def fail(place: str, message: str) -> typing.NoReturn:
        raise SweepSpecError(f"{where}: {place}: {message}")

    if not isinstance(raw, dict):
        fail("$", f"expected a JSON object, got {_kind(raw)}")
    for key in raw:
        if key not in SPEC_KEYS:
            fail(f"$.{key}", f"unknown key (allowed: {', '.join(SPEC_KEYS)})")
    if "format" in raw and raw["format"] != SWEEP_FORMAT:
        fail("$.format", f"expected {SWEEP_FORMAT!r}, got {raw['format']!r}")
    name = raw.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        fail("$.name", "expected a non-empty string")
    if "description" in raw and not isinstance(raw["description"], str):
        fail("$.description", "expected a string")
    template = raw.get("template")
    if not isinstance(template, str) or template not in TEMPLATES:
        fail("$.template", f"expected one of {', '.join(TEMPLATES)}, got {template!r}")
    options = _options(raw.get("options"), TEMPLATES[template], fail)
    workloads = _workloads(raw.get("workloads"), folder, fail)
    keep = raw.get("keep_preset_layout", False)
    if not isinstance(keep, bool):
        fail("$.keep_preset_layout", f"expected true or false, got {_kind(keep)}")
    stacks = _stacks(raw.get("stacks"), fail)
    assumptions = _assumptions(raw.get("assumptions"), fail)
    if objectives is not None:
        chosen = tuple(parse_objective(text, f"{where}: --objectives") for text in objectives)
        if not chosen:
            raise SweepSpecError(f"{where}: --objectives: name at least one metric")
    elif "objectives" in raw:
        chosen = _spec_objectives(raw["objectives"], fail)
    else:
        chosen = tuple(Objective(m, d) for m, d in default_objectives(workloads))
    _unique_objectives(chosen, where)
    spec = SweepSpec(name.strip(), template, options, workloads, keep, stacks, assumptions, chosen)
    if spec.combinations > MAX_SWEEP_COMBINATIONS:
        sizes = " x ".join(f"{len(values)} {name}" for name, values in spec._axes() if len(values) > 1)
        fail("$", f"{spec.combinations:,} combinations ({sizes}); a sweep holds at most "
                  f"{MAX_SWEEP_COMBINATIONS:,} (limit in core/limits.py)")
    return spec


def default_objectives(workloads: tuple[WorkloadChoice | None, ...]) -> tuple[tuple[str, str], ...]:
    """The Pareto objectives of a spec that names none: by the kinds of its workloads."""
    kinds = {w.kind for w in workloads if w is not None}
    if kinds == {TRAINING}:
        return DEFAULT_OBJECTIVES
    if kinds == {INFERENCE}:
        return SERVING_OBJECTIVES
    return FABRIC_OBJECTIVES


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "an object", list: "a list", str: "a string", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def _values(raw: Any, place: str, fail) -> list:
    """A list of values, or one value standing for a list of one; never empty."""
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        fail(place, "empty list: give at least one value")
    return values


def _value_ok(value: Any, hint: Any) -> bool:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_value_ok(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value))
    if hint is str:
        return isinstance(value, str)
    return False


def _hint_name(hint: Any) -> str:
    args = typing.get_args(hint)
    if args:
        return " or ".join(_hint_name(a) for a in args)
    return {int: "a whole number", float: "a number", str: "a string", bool: "true/false",
            type(None): "null"}.get(hint, str(hint))


@functools.cache
def _option_hints(options_class: type) -> dict[str, Any]:
    """Field name -> type of a generator options class, in field order: worked out once, as
    every design of a sweep checks its recipe's options against them."""
    hints = typing.get_type_hints(options_class)
    return {f.name: hints[f.name] for f in dataclasses.fields(options_class)}


def option_problem(options_class: type, name: str, value: Any) -> str | None:
    """Why ``value`` cannot be option ``name`` of the generator options ``options_class``
    (unknown option, wrong type), or None when it can."""
    hints = _option_hints(options_class)
    if name not in hints:
        return f"unknown option (allowed: {', '.join(hints)})"
    hint = hints[name]
    return None if _value_ok(value, hint) else f"expected {_hint_name(hint)}, got {value!r}"


def required_options(options_class: type) -> list[str]:
    return [f.name for f in dataclasses.fields(options_class)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]


def _options(raw: Any, options_class: type, fail) -> tuple[tuple[str, tuple], ...]:
    if not isinstance(raw, dict):
        fail("$.options", f"expected an object of generator options, got {_kind(raw)}")
    out = []
    for name, raw_values in raw.items():
        if (problem := option_problem(options_class, name, None)) and problem.startswith("unknown"):
            fail(f"$.options.{name}", problem)
        values = _values(raw_values, f"$.options.{name}", fail)
        for i, value in enumerate(values):
            if problem := option_problem(options_class, name, value):
                place = f"$.options.{name}" + (f"[{i}]" if isinstance(raw_values, list) else "")
                fail(place, problem)
        out.append((name, tuple(values)))
    missing = [n for n in required_options(options_class) if n not in raw]
    if missing:
        fail("$.options", f"missing required option{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing)}")
    return tuple(out)


def _workloads(raw: Any, folder: Path, fail) -> tuple[WorkloadChoice | None, ...]:
    if raw is None:
        return (None,)
    if not isinstance(raw, list):
        fail("$.workloads", f"expected a list of preset names, files or workload objects, got {_kind(raw)}")
    if not raw:
        fail("$.workloads", "empty list: leave the key out to sweep without a workload")
    presets = {**dict.fromkeys(list_presets(), TRAINING),
               **dict.fromkeys(list_inference_presets(), INFERENCE)}
    out = []
    for i, item in enumerate(raw):
        place = f"$.workloads[{i}]"
        if isinstance(item, str) and item in presets:
            out.append(WorkloadChoice(item, item, presets[item]))
            continue
        if isinstance(item, dict):
            label, read = None, functools.partial(any_workload_from_dict, item, place)
        elif isinstance(item, str) and item.endswith(".json"):
            label, read = Path(item).stem, functools.partial(load_any_workload, folder / item)
        else:
            fail(place, f"{item!r} is neither a preset ({', '.join(presets)}), a .json workload "
                        f"file nor a workload object")
        try:
            workload = read()
        except DesignError as exc:
            # An inline object's error names its own JSON path below the entry; a file's, the file.
            located, _, reason = str(exc).partition(": ")
            if located.startswith(place) and reason:
                fail(located, reason)
            fail(place, str(exc))
        out.append(WorkloadChoice(label or workload.name, any_workload_to_dict(workload),
                                  INFERENCE if isinstance(workload, InferenceWorkload) else TRAINING))
    return tuple(out)


def _stacks(raw: Any, fail) -> tuple[str | None, ...]:
    if raw is None:
        return (None,)
    values = _values(raw, "$.stacks", fail)
    for i, value in enumerate(values):
        if not isinstance(value, str) or value not in STACK_PRESETS:
            fail(f"$.stacks[{i}]", f"unknown software stack {value!r} (stacks: {', '.join(STACK_PRESETS)})")
    return tuple(values)


def _nested(dotted: str, value: Any) -> dict:
    """{"power": {"pue": 1.2}} from "power.pue" = 1.2."""
    out: Any = value
    for part in reversed(dotted.split(".")):
        out = {part: out}
    return out


def _assumptions(raw: Any, fail) -> tuple[tuple[str, tuple], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        fail("$.assumptions", f"expected an object of dotted assumption names, got {_kind(raw)}")
    out = []
    for name, raw_values in raw.items():
        place = f"$.assumptions.{name}"
        if name.count(".") != 1:
            fail(place, "expected a dotted name section.field, e.g. power.pue")
        if name == "performance.stack":
            fail(place, "choose software stacks with the spec's \"stacks\" list")
        values = _values(raw_values, place, fail)
        for i, value in enumerate(values):
            try:
                assumptions_from_dict(_nested(name, value))
            except DesignError as exc:
                # "assumptions.power.pue: 0.5 is below..." -> the reason after the name
                reason = str(exc).split(": ", 1)[-1]
                fail(place + (f"[{i}]" if isinstance(raw_values, list) else ""), reason)
        out.append((name, tuple(values)))
    return tuple(out)


def parse_objective(text: str, where: str) -> Objective:
    """"cost.capex_usd:min", "capex_usd" (a key unique among the metrics), "mfu:max"; without
    a direction the metric's better side (lower capex, higher MFU)."""
    metric, _, direction = text.partition(":")
    try:
        return _objective(metric.strip(), direction.strip() or None)
    except SweepSpecError as exc:
        raise SweepSpecError(f"{where}: {exc}") from None


def _objective(metric: str, direction: str | None) -> Objective:
    """The objective; a bare SweepSpecError message (the caller adds where) when invalid."""
    matches = [m for m in METRICS if m.path == metric] or [m for m in METRICS if m.key == metric]
    if len(matches) != 1:
        reason = "ambiguous" if matches else "unknown metric"
        raise SweepSpecError(f"{metric!r}: {reason} (metrics: {', '.join(METRIC_PATHS)})")
    found = matches[0]
    if direction is None:
        if found.direction not in (HIGHER, LOWER):
            raise SweepSpecError(f"{found.path} has no better side; say {found.path}:min or :max")
        direction = MINIMIZE if found.direction == LOWER else MAXIMIZE
    if direction not in (MINIMIZE, MAXIMIZE):
        raise SweepSpecError(f"{found.path}: direction {direction!r} is not min or max")
    return Objective(found.path, direction)


def _spec_objectives(raw: Any, fail) -> tuple[Objective, ...]:
    if not isinstance(raw, dict):
        fail("$.objectives", f"expected an object {{metric: \"min\" or \"max\"}}, got {_kind(raw)}")
    if not raw:
        fail("$.objectives", "empty: name at least one metric (or leave the key out for the defaults)")
    out = []
    for metric, direction in raw.items():
        if not isinstance(direction, str):
            fail(f"$.objectives.{metric}", f"expected \"min\" or \"max\", got {_kind(direction)}")
        try:
            out.append(_objective(metric, direction))
        except SweepSpecError as exc:
            fail(f"$.objectives.{metric}", str(exc))
    return tuple(out)


def _unique_objectives(objectives: tuple[Objective, ...], where: str) -> None:
    seen = set()
    for objective in objectives:
        if objective.metric in seen:
            raise SweepSpecError(f"{where}: objective {objective.metric} named twice")
        seen.add(objective.metric)
