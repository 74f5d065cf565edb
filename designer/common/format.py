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


# Units a power is shown in, largest first, with how many kW one unit is.
POWER_UNITS = (("MW", 1000.0), ("kW", 1.0), ("W", 0.001))
POWER_DIGITS = 3  # significant digits: "12.3 kW", "512 kW", "1.93 MW"


def _round_significant(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def power_unit(kw: float) -> tuple[str, float]:
    """The unit that suits a power of ``kw`` (W below 1 kW, kW below 1 MW, else MW) and how
    many kW one unit is. Chosen on the rounded value, so 999.96 kW reads "1.00 MW"."""
    magnitude = abs(_round_significant(kw, POWER_DIGITS))
    if magnitude == 0:
        return "kW", 1.0  # an empty design: "0 kW", not "0 W"
    return next(((unit, scale) for unit, scale in POWER_UNITS if magnitude >= scale), POWER_UNITS[-1])


def power(kw: float | None) -> str:
    """A power given in kW, shown in the unit that suits it with three significant digits:
    a small design reads "12.3 kW", never "0.0 MW"; a site reads "1.93 MW"."""
    if kw is None or not math.isfinite(kw):
        return "—"
    unit, scale = power_unit(kw)
    value = _round_significant(kw / scale, POWER_DIGITS)
    decimals = 0 if value == 0 else max(0, POWER_DIGITS - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f} {unit}"


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


# (unit, USD per unit), largest first: money reads "$1.23 B", "$45.6 M", "$780 k", "$3.91".
MONEY_UNITS = (("B", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0))


def money_unit(usd: float) -> tuple[str, float]:
    """The unit that suits an amount of ``usd`` and how many USD one unit is."""
    magnitude = abs(usd)
    return next(((unit, scale) for unit, scale in MONEY_UNITS if magnitude >= scale), MONEY_UNITS[-1])


def money(usd: float | None) -> str:
    """USD with three significant digits in the unit that suits it ("—" when unknown); below
    1,000 USD with cents to two decimals (a GPU-hour costs "$3.91", not "$4")."""
    if usd is None or not math.isfinite(usd):
        return "—"
    if usd == 0:
        return "$0"
    unit, scale = money_unit(usd)
    if not unit:
        return f"${usd:,.2f}"
    value = _round_significant(usd / scale, 3)
    if abs(value) >= 1000 and unit != "B":  # 999.96 k rounds to 1,000 k: say 1.00 M
        unit, scale = money_unit(value * scale)
        value = _round_significant(usd / scale, 3)
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"${value:,.{decimals}f} {unit}"


def out_of_service_text(failed: int, drained: int) -> str:
    """"4 failed", "2 drained", "4 failed · 2 drained" (failure what-ifs; no cross sign, which
    reads as the "×" of counts)."""
    parts = ([f"{failed:,} failed"] if failed else []) + ([f"{drained:,} drained"] if drained else [])
    return " · ".join(parts)
