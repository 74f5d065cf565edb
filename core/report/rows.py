"""The row of every report table, and the two number formats rows share."""

from __future__ import annotations

from dataclasses import dataclass

from core.metrics import metric, value_text


@dataclass(frozen=True)
class Row:
    label: str
    value: str
    key: str  # stable machine key (section.key), used by CSV


def num(value: float | None, digits: int = 1, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and value != value:  # NaN
        return "n/a"
    if value == float("inf"):
        return "∞"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def metric_row(path: str, value: float | None, text: str | None = None, unit: bool = True) -> Row:
    """The row of metric ``path`` (core/metrics.py): its report label, ``text`` (default: the
    value in the metric's digits, with its unit unless ``unit`` is False: a label that names it)
    and its path as the key."""
    m = metric(path)
    return Row(m.in_report, value_text(m, value, unit=unit) if text is None else text, path)
