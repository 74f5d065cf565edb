"""Side-by-side comparison of evaluations: headline metrics, deltas against the first design,
better/worse marks and one sentence per design.

Works on evaluation JSON dicts (``evaluation_to_json``, format ``cluster-designer.evaluation/1``)
rather than on ``Evaluation`` objects, so a saved evaluation compares like a fresh one and any
section an analysis adds later (``cost``, ``inference``) is compared as soon as its metrics are
defined in core/metrics.py (which also says, per metric, within what two values are equal): a
metric absent from every design is left out, a metric absent or null in one design is "n/a" for
that design, never a number. The inference services of designs with several workloads are
compared by name: each service's serving metrics, "n/a" in a design without a service of that
name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import ProjectFileError
from core.evaluate import EVALUATION_FORMAT
from core.jsonfile import read_json
# HIGHER, LOWER, NEITHER, METRICS, Metric and metric_value are core/metrics.py's, named here for compare's callers.
from core.metrics import HIGHER, LOWER, METRICS, NEITHER, Metric, metric_value, section_of  # noqa: F401 (re-exported)
from core.metrics import service_metrics as metrics_of_service
from core.model import Design
from core.project import load_project

COMPARISON_FORMAT = "cluster-designer.comparison/1"

BETTER, WORSE, EQUAL, DIFFERENT, NOT_AVAILABLE = "better", "worse", "equal", "different", "n/a"

# Two values this close are the same result computed twice (float noise), not a difference: the
# tolerance of ``delta`` when it is given no metric's. Compared metrics use their own
# (core/metrics.py: a metric's ``rel_tol`` and ``abs_tol``).
EQUAL_REL_TOLERANCE = 1e-9
# Differences smaller than this are not called wins or losses in the one-line summaries: an
# analytical model is not that precise, and a sentence full of 0.1% changes hides the real ones.
SUMMARY_MIN_RELATIVE = 0.005
SUMMARY_WINS, SUMMARY_LOSSES = 3, 3

# Headline figures named in the baseline's own sentence, when present.
BASELINE_HEADLINE = ("counts.gpus", "bandwidth.bisection_tbit_s", "power.facility_kw",
                     "performance.mfu", "performance.training_days", "cost.capex_usd")


@dataclass(frozen=True)
class Delta:
    """One metric of one design against the first: ``absolute`` and ``relative`` (a fraction of
    the first design's value) are None when either value is missing, or (relative only) when the
    first design's value is 0 and this one's is not."""

    absolute: float | None
    relative: float | None
    better: str

    def to_json(self) -> dict[str, Any]:
        return {"absolute": self.absolute, "relative": self.relative, "better": self.better}


@dataclass(frozen=True)
class Comparison:
    names: tuple[str, ...]
    evaluations: tuple[dict, ...]
    metrics: tuple[Metric, ...]
    values: tuple[tuple[float | None, ...], ...]  # values[metric index][design index]
    deltas: tuple[tuple[Delta, ...], ...]  # deltas[design index - 1][metric index]
    summary: tuple[str, ...]  # one sentence per design, the first describing the baseline
    # per design: buildable as drawn (no error-severity warning), None where not known
    valid: tuple[bool | None, ...] = ()


def design_validity(evaluation: dict) -> bool | None:
    """Whether a design evaluated valid: its ``valid`` key, else (an evaluation saved before
    the key existed) whether any warning is an error; None when neither is there to read."""
    valid = evaluation.get("valid")
    if isinstance(valid, bool):
        return valid
    warnings = evaluation.get("warnings")
    if not isinstance(warnings, list):
        return None
    return not any(isinstance(w, dict) and w.get("severity") == "error" for w in warnings)


def service_metrics(evaluations: list[dict]) -> tuple[Metric, ...]:
    """The serving metrics of every service name in the evaluations (in order of first
    appearance), each under its service's section."""
    names = dict.fromkeys(
        service["name"] for ev in evaluations
        for service in (ev.get("services") if isinstance(ev.get("services"), list) else ())
        if isinstance(service, dict) and isinstance(service.get("name"), str))
    return tuple(m for name in names for m in metrics_of_service(name))


def _present(evaluations: list[dict], metric: Metric) -> bool:
    return any(isinstance(section, dict) and metric.key in section
               for section in (section_of(ev, metric) for ev in evaluations))


def delta(base: float | None, value: float | None, direction: str,
          rel_tol: float = EQUAL_REL_TOLERANCE, abs_tol: float = 0.0) -> Delta:
    """``value`` against ``base`` for a metric whose better side is ``direction``: "equal" when
    within ``rel_tol`` (relative) or ``abs_tol`` (absolute) of each other."""
    if base is None or value is None:
        return Delta(None, None, NOT_AVAILABLE)
    absolute = value - base
    if not math.isfinite(absolute):  # two huge values of opposite sign
        return Delta(None, None, NOT_AVAILABLE)
    if math.isclose(value, base, rel_tol=rel_tol, abs_tol=abs_tol):
        return Delta(absolute, absolute / abs(base) if base else 0.0, EQUAL)
    relative = absolute / abs(base) if base else None
    if relative is not None and not math.isfinite(relative):
        relative = None
    if direction == NEITHER:
        better = DIFFERENT
    else:
        better = BETTER if (absolute > 0) == (direction == HIGHER) else WORSE
    return Delta(absolute, relative, better)


def compare_evaluations(evaluations: list[dict], names: list[str]) -> Comparison:
    """Every metric of ``METRICS`` present in at least one evaluation, each design after the
    first against the first. Needs two or more evaluations and one name each."""
    if len(evaluations) != len(names):
        raise ValueError(f"{len(evaluations)} evaluations but {len(names)} names")
    if len(evaluations) < 2:
        raise ValueError("a comparison needs at least two evaluations")
    metrics = tuple(m for m in (*METRICS, *service_metrics(evaluations)) if _present(evaluations, m))
    values = tuple(tuple(metric_value(ev, m) for ev in evaluations) for m in metrics)
    deltas = tuple(
        tuple(delta(row[0], row[j], m.direction, m.rel_tol, m.abs_tol) for m, row in zip(metrics, values))
        for j in range(1, len(evaluations))
    )
    summary = (_baseline_sentence(names[0], metrics, [row[0] for row in values]),) + tuple(
        _design_sentence(names[j], names[0], metrics, deltas[j - 1],
                         [row[0] is not None or row[j] is not None for row in values],
                         _workload_name(evaluations[j]), _workload_name(evaluations[0]),
                         fabric_clause(evaluations[j], evaluations[0], names[0]))
        for j in range(1, len(evaluations))
    )
    valid = tuple(design_validity(ev) for ev in evaluations)
    # an invalid design's sentence says so first: its figures are not a buildable design's
    summary = tuple(f"{name} is NOT VALID (cannot be built or run as drawn): {sentence}"
                    if ok is False else sentence for name, ok, sentence in zip(names, valid, summary))
    return Comparison(tuple(names), tuple(evaluations), metrics, values, deltas, summary, valid)


def format_value(value: float | None, unit: str) -> str:
    """A value for people: thousands separators, fractions as percentages, "n/a" for None."""
    if value is None:
        return "n/a"
    if unit == "fraction":
        return f"{value * 100:.1f}%"
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 1:
        text = f"{value:,.0f}"
    elif abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.1f}"
    elif abs(value) >= 1:
        text = f"{value:,.2f}"
    else:
        text = f"{value:.3g}"
    if unit == "USD":
        return f"${text}"
    return text if unit in ("count", "ratio") else f"{text} {unit}"


def format_percent(relative: float) -> str:
    percent = abs(relative) * 100
    if percent >= 10:
        return f"{percent:.0f}%"
    return f"{percent:.1f}%" if percent >= 1 else f"{percent:.2g}%"


def _phrase(metric: Metric, d: Delta) -> str:
    word = metric.up if d.absolute > 0 else metric.down
    return f"{format_percent(d.relative)} {word} {metric.noun}"


def _strongest_by_theme(pairs: list[tuple[Metric, Delta]], limit: int) -> list[tuple[Metric, Delta]]:
    """The largest relative change of each theme, the ``limit`` largest themes first."""
    best: dict[str, tuple[Metric, Delta]] = {}
    for metric, d in pairs:
        kept = best.get(metric.theme)
        if kept is None or abs(d.relative) > abs(kept[1].relative):
            best[metric.theme] = (metric, d)
    return sorted(best.values(), key=lambda p: -abs(p[1].relative))[:limit]


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _fabric(evaluation: dict) -> tuple[str | None, str, tuple[str, float] | None]:
    """(load balancing, in-network reduction, (tier, all-to-all fraction) of its worst tier)."""
    b = evaluation.get("bandwidth") or {}
    fractions = b.get("effective_fraction_by_tier") or {}
    worst = min(((tier, f.get("alltoall", 1.0)) for tier, f in fractions.items()),
                key=lambda p: p[1], default=None)
    return b.get("load_balancing"), b.get("in_network_reduction") or "none", worst


def fabric_clause(evaluation: dict, base: dict, base_name: str) -> str:
    """"flowlet load balancing instead of adaptive (all-to-all at 70% of line rate on the spine
    tier)": how the fabric's behaviour differs from the baseline's, or "" when it does not."""
    mode, reduction, worst = _fabric(evaluation)
    base_mode, base_reduction, _ = _fabric(base)
    parts = []
    if mode and base_mode and mode != base_mode:
        text = f"{mode} load balancing instead of {base_name}'s {base_mode}"
        if worst is not None and worst[1] < 0.995:
            text += f" (all-to-all at {worst[1]:.0%} of line rate on the {worst[0]} tier)"
        parts.append(text)
    if reduction != base_reduction:
        parts.append(f"in-network reduction {reduction} instead of {base_reduction}")
    return "; ".join(parts)


def _design_sentence(name: str, base_name: str, metrics: tuple[Metric, ...],
                     deltas: tuple[Delta, ...], either_has_value: list[bool],
                     workload: str, base_workload: str, fabric: str = "") -> str:
    """"B: 23% more bisection bandwidth and 9% faster training, at 14% more power" - the largest
    relative wins and losses against the first design, one per theme; then what changed from
    zero, and what has a value in only one of the two (a job that cannot run on one)."""
    def significant(mark):
        return [(m, d) for m, d in zip(metrics, deltas) if d.better == mark
                and d.relative is not None and abs(d.relative) >= SUMMARY_MIN_RELATIVE]

    wins = [_phrase(m, d) for m, d in _strongest_by_theme(significant(BETTER), SUMMARY_WINS)]
    losses = [_phrase(m, d) for m, d in _strongest_by_theme(significant(WORSE), SUMMARY_LOSSES)]
    # A change from zero (no storage at all in the first design) has no percentage: say it plainly.
    unmeasured = [m for m, d in zip(metrics, deltas) if d.better in (BETTER, WORSE) and d.relative is None]
    missing = [m for m, d, known in zip(metrics, deltas, either_has_value)
               if d.better == NOT_AVAILABLE and known and m.direction != NEITHER]
    if wins and losses:
        text = f"{name}: {_join(wins)}, at {_join(losses)} than {base_name}"
    elif wins:
        text = (f"{name}: {_join(wins)} than {base_name}, and nothing worse by "
                f"{format_percent(SUMMARY_MIN_RELATIVE)} or more")
    elif losses:
        text = (f"{name}: nothing better than {base_name} by {format_percent(SUMMARY_MIN_RELATIVE)} "
                f"or more; {_join(losses)}")
    elif all(d.better in (EQUAL, NOT_AVAILABLE) for d in deltas):
        text = f"{name}: the same as {base_name} on every headline metric"
    else:
        text = (f"{name}: no headline metric better or worse than {base_name} by "
                f"{format_percent(SUMMARY_MIN_RELATIVE)} or more")
    if unmeasured:
        text += f"; {_join([m.noun for m in unmeasured[:3]])} changed from zero"
    if missing:
        text += f"; no value to compare for {_join([m.noun for m in missing[:3]])}"
    # Without a workload there is no checkpoint to write, so reliability and energy differ for
    # that reason alone: the sentence must not let it pass as a property of the fabric.
    if workload != base_workload:
        text += f"; it runs {workload}, {base_name} runs {base_workload}"
    if fabric:
        text += f"; {fabric}"
    return text + "."


def _workload_name(evaluation: dict) -> str:
    workload = evaluation.get("workload")
    return str(workload.get("name") or "an unnamed workload") if isinstance(workload, dict) else "no workload"


def _baseline_sentence(name: str, metrics: tuple[Metric, ...], values: list[float | None]) -> str:
    """"A (baseline): 8,192 GPUs, bisection bandwidth 409.6 Tb/s, ..." - its headline figures."""
    by_path = {m.path: (m, v) for m, v in zip(metrics, values)}
    parts = [f"{m.noun} {format_value(v, m.unit)}" if m.unit != "GPUs" else format_value(v, m.unit)
             for path in BASELINE_HEADLINE if path in by_path
             for m, v in [by_path[path]] if v is not None]
    return f"{name} (baseline)" + (": " + ", ".join(parts) if parts else "") + "."


def comparison_to_json(comparison: Comparison, paths: list[str] | None = None) -> dict[str, Any]:
    """The comparison JSON: format id, names (and paths), the metric table, the deltas of each
    design after the first, one sentence per design, and every design's full evaluation JSON."""
    out: dict[str, Any] = {"format": COMPARISON_FORMAT, "names": list(comparison.names)}
    if paths is not None:
        out["paths"] = list(paths)
    out["baseline"] = comparison.names[0]
    out["valid"] = list(comparison.valid)
    out["metrics"] = [
        {"path": m.path, "section": m.section, "key": m.key, "label": m.label, "unit": m.unit,
         "direction": m.direction, "values": list(row)}
        for m, row in zip(comparison.metrics, comparison.values)
    ]
    out["deltas"] = [
        {"design": comparison.names[j + 1], "against": comparison.names[0],
         "metrics": {m.path: d.to_json() for m, d in zip(comparison.metrics, row)}}
        for j, row in enumerate(comparison.deltas)
    ]
    out["summary"] = list(comparison.summary)
    out["designs"] = list(comparison.evaluations)
    return out


def read_comparable(path: str | Path, catalog: Any = None) -> Design | dict:
    """What ``path`` holds to compare: a project (a Design, to evaluate) or an evaluation saved
    earlier (``evaluate --format json -o``; its JSON dict, compared as it is). The file is read
    a second time only when it is not a project; a file that is neither raises the project
    loader's one-line error naming it."""
    try:
        return load_project(path, catalog)
    except ProjectFileError:
        raw = read_json(path, ProjectFileError, "project")
        if isinstance(raw, dict) and raw.get("format") == EVALUATION_FORMAT:
            return raw
        raise
