"""Number formatting with units for panels and labels (display only; values come from core)."""

from __future__ import annotations

import math


def num(value: float | int | None, digits: int = 1, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    if isinstance(value, int) or (digits == 0):
        text = f"{value:,.0f}"
    else:
        text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def pct(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value * 100:.{digits}f} %"


def speed(gbit_s: float) -> str:
    """400 -> "400G", 1600 -> "1.6T": the way cables are named on data sheets."""
    if gbit_s >= 1000:
        return f"{gbit_s / 1000:g}T"
    return f"{gbit_s:g}G"


def count(n: int) -> str:
    return f"×{n:,}"


def seconds(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if value >= 1:
        return f"{value:,.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:,.1f} ms"
    return f"{value * 1e6:,.1f} µs"
