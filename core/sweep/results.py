"""The results table of a sweep: one row per combination, written and read as CSV.

Columns, in order: ``index`` (the combination's position in the cross product), ``template``,
one column per option the spec lists (``gpus``, ``switch``...), ``workload``, ``stack``,
``assumptions.<section.field>`` per swept assumption, every headline metric of
core/metrics.py under its flat name (its id) (``bandwidth.bisection_tbit_s``, ``cost.capex_usd``,
``inference.usd_per_million_output_tokens``), ``inference.meets_slo`` (true/false for a serving
workload, empty otherwise), then ``error`` (why the combination was skipped, its job cannot
run or the design is not valid as drawn; empty when it ran), ``pareto`` (true/false on the spec's objectives) and ``recipe`` (JSON
that core.sweep.recipe.design_from_recipe rebuilds the design from).

A serving design that misses its SLOs keeps its row and figures but is never on the Pareto
front: the SLOs are part of what the workload asks, so it does not serve that workload (a
cheaper design that answers too slowly is not a trade-off, it is a miss).

A value that cannot be computed is an empty cell, never a number; floats are written with
``repr`` so that a value read back is the value computed.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.atomic_write import atomic_write_text
from core.errors import DesignError
from core.limits import MAX_FILE_BYTES
from core.sweep.pareto import pareto_mask
from core.metrics import METRIC_PATHS
from core.sweep.spec import MAXIMIZE, Objective, SweepSpec

TAIL_COLUMNS = ("error", "pareto", "recipe")
# Before the tail; absent from files written before sweeps served (they read as all empty).
SLO_COLUMN = "inference.meets_slo"


class SweepResultsError(DesignError):
    """A sweep results file cannot be read."""


@dataclass(frozen=True)
class SweepTable:
    """A results table in memory: ``columns`` in file order; ``cells[c]`` the column's text
    cells; ``numbers[c]`` float arrays (NaN where empty) for the metric columns; ``pareto``,
    ``failed`` (an error) and ``misses_slo`` (a serving workload's SLOs missed) as boolean
    arrays."""

    columns: tuple[str, ...]
    parameter_columns: tuple[str, ...]
    cells: dict[str, list[str]]
    numbers: dict[str, np.ndarray]
    pareto: np.ndarray
    failed: np.ndarray
    misses_slo: np.ndarray

    @property
    def rows(self) -> int:
        return len(self.cells["index"])

    def recipe(self, row: int) -> dict[str, Any]:
        try:
            recipe = json.loads(self.cells["recipe"][row])
        except json.JSONDecodeError as exc:
            raise SweepResultsError(f"line {row + 2}: recipe is not valid JSON ({exc.msg})") from None
        if not isinstance(recipe, dict):
            raise SweepResultsError(f"line {row + 2}: recipe is not a JSON object")
        return recipe

    def parameters(self, row: int) -> dict[str, str]:
        return {c: self.cells[c][row] for c in self.parameter_columns}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def parameter_columns(spec: SweepSpec) -> tuple[str, ...]:
    return ("index", "template", *(name for name, _ in spec.options), "workload", "stack",
            *(f"assumptions.{name}" for name, _ in spec.assumptions))


def front(outcomes: list[dict[str, Any]], objectives: tuple[Objective, ...]) -> np.ndarray:
    """Pareto mask of ``outcomes`` (evaluate_recipe results) on ``objectives``: rows with an
    error, an empty objective or missed serving SLOs are off the front."""
    table = np.full((len(outcomes), len(objectives)), np.nan)
    for i, outcome in enumerate(outcomes):
        if outcome["error"] is None and outcome.get("meets_slo") is not False:
            table[i] = [np.nan if (v := outcome["metrics"].get(o.metric)) is None else v
                        for o in objectives]
    return pareto_mask(table, [o.direction == MAXIMIZE for o in objectives])


def results_csv(spec: SweepSpec, recipes: list[dict[str, Any]], outcomes: list[dict[str, Any]],
                on_front: np.ndarray | None = None) -> str:
    """The CSV text of a finished sweep (``outcomes[i]`` belongs to ``recipes[i]``);
    ``on_front``: the Pareto mask if the caller has it already."""
    if on_front is None:
        on_front = front(outcomes, spec.objectives)
    params = parameter_columns(spec)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*params, *METRIC_PATHS, SLO_COLUMN, *TAIL_COLUMNS])
    option_names = [name for name, _ in spec.options]
    for i, (recipe, outcome) in enumerate(zip(recipes, outcomes)):
        row = [i, recipe["template"], *(recipe["options"][n] for n in option_names),
               recipe["workload_label"], recipe["stack"],
               *(recipe["assumptions"][name] for name, _ in spec.assumptions),
               *(outcome["metrics"].get(path) for path in METRIC_PATHS),
               outcome.get("meets_slo"), outcome["error"], bool(on_front[i]),
               json.dumps(recipe, separators=(",", ":"), allow_nan=False)]
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def write_results(path: str | Path, spec: SweepSpec, recipes: list[dict[str, Any]],
                  outcomes: list[dict[str, Any]]) -> np.ndarray:
    """Write the results file whole or not at all; returns the Pareto mask it holds."""
    on_front = front(outcomes, spec.objectives)
    atomic_write_text(path, results_csv(spec, recipes, outcomes, on_front))
    return on_front


def _numbers(cells: list[str], column: str) -> np.ndarray:
    """A metric column as floats, NaN where empty; a cell that is no number is a located error."""
    try:
        return np.fromiter((float(t) if t else math.nan for t in cells), float, len(cells))
    except ValueError:
        row = next(i for i, t in enumerate(cells) if t and not _is_number(t))
        raise SweepResultsError(f"line {row + 2}, column {column}: {cells[row]!r} is not a number") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_results(path: str | Path) -> SweepTable:
    """A results file as written by ``write_results``; anything else is one located error."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SweepResultsError(f"{path}: {size / 2**20:,.0f} MiB is too large for sweep results "
                                    f"(at most {MAX_FILE_BYTES // 2**20} MiB, limit in core/limits.py)")
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except FileNotFoundError:
        raise SweepResultsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SweepResultsError(f"{path}: cannot read sweep results ({exc})") from None
    if not rows:
        raise SweepResultsError(f"{path}: empty file, not sweep results")
    header = tuple(rows[0])
    missing = [c for c in ("index", *TAIL_COLUMNS) if c not in header]
    if missing:
        raise SweepResultsError(f"{path}: not sweep results (no column {', '.join(missing)})")
    metrics = tuple(c for c in header if c in METRIC_PATHS)
    params = tuple(c for c in header if c not in metrics and c not in (SLO_COLUMN, *TAIL_COLUMNS))
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise SweepResultsError(f"{path}: line {number}: {len(row)} cells, the header has {len(header)}")
    columns = list(zip(*rows[1:])) if len(rows) > 1 else [()] * len(header)
    cells = {column: list(values) for column, values in zip(header, columns)}
    try:
        numbers = {c: _numbers(cells[c], c) for c in metrics}
    except SweepResultsError as exc:
        raise SweepResultsError(f"{path}: {exc}") from None
    pareto = np.fromiter((c == "true" for c in cells["pareto"]), bool, len(cells["pareto"]))
    failed = np.fromiter((c != "" for c in cells["error"]), bool, len(cells["error"]))
    slo_cells = cells.get(SLO_COLUMN) or [""] * len(pareto)
    misses_slo = np.fromiter((c == "false" for c in slo_cells), bool, len(slo_cells))
    return SweepTable(header, params, cells, numbers, pareto, failed, misses_slo)
