"""Words and colours for one metric's change against the baseline, shared by the Comparison
panel's table and the small marks beside the metric panels' values (display only: the numbers
come from core.compare)."""

from __future__ import annotations

from dataclasses import dataclass

from core.compare import BETTER, DIFFERENT, EQUAL, NOT_AVAILABLE, WORSE, Delta, Metric, format_percent, format_value

# Colour is never the only mark: every change also carries a sign and a word (colour-blind users,
# grey-scale prints).
MARK_COLOR = {BETTER: "#2e7d32", WORSE: "#c62828", EQUAL: "#607d8b", DIFFERENT: "#455a64",
              NOT_AVAILABLE: "#90a4ae"}
MARK_SYMBOL = {BETTER: "▲", WORSE: "▼", EQUAL: "=", DIFFERENT: "≠", NOT_AVAILABLE: ""}
MARK_WORD = {BETTER: "better", WORSE: "worse", EQUAL: "equal", DIFFERENT: "changed", NOT_AVAILABLE: "n/a"}


@dataclass(frozen=True)
class DeltaText:
    absolute: str   # "+12.3 Tb/s", "+1.2 pts" for fractions, "n/a"
    relative: str   # "+23%", "—" when the baseline is 0, "n/a"
    verdict: str    # "▲ better", "▼ worse", "= equal", "≠ changed", "n/a"
    short: str      # "+23% better": the mark beside a panel's value
    color: str


def _signed(value: float, text: str) -> str:
    return ("+" if value > 0 else "−" if value < 0 else "±") + text


def bare_value(value: float | None, unit: str) -> str:
    """``format_value`` without the unit where a column heading already says it: fractions
    stay percentages and money keeps its "$"."""
    return format_value(value, unit if unit in ("fraction", "USD") else "count")


def delta_text(metric: Metric, d: Delta, with_unit: bool = True) -> DeltaText:
    color = MARK_COLOR[d.better]
    if d.better == NOT_AVAILABLE or d.absolute is None:
        return DeltaText("n/a", "n/a", "n/a", "n/a", MARK_COLOR[NOT_AVAILABLE])
    if metric.unit == "fraction":  # MFU 41% -> 43% is +2 points, not "+2%" (that is the relative change)
        absolute = _signed(d.absolute, f"{abs(d.absolute) * 100:.1f} pts")
    else:
        shown = format_value if with_unit else bare_value
        absolute = _signed(d.absolute, shown(abs(d.absolute), metric.unit))
    relative = _signed(d.relative, format_percent(d.relative)) if d.relative is not None else "—"
    word = MARK_WORD[d.better]
    verdict = f"{MARK_SYMBOL[d.better]} {word}"
    if d.better == EQUAL:
        short = "= equal"
    elif d.relative is not None:
        short = f"{relative} {word}"
    else:  # from zero: no percentage to give
        short = f"{absolute} {word}"
    return DeltaText(absolute, relative, verdict, short, color)
