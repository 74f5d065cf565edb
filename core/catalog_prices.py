"""The ``price`` object of a catalog entry: what a valid one holds, and why one is not valid.

A price is ``{"usd": number > 0, "year": int, "evidence": "list" | "street" | "estimate",
"source": text, "note": text (optional)}`` for ONE unit of the entry as the catalog defines it
(a whole DGX system, one switch, one transceiver module, one cable). The cost analysis reads it
as ``spec.price`` (a ``core.catalog_spec.Price``); an entry without one is unpriced, never free. The evidence behind the
built-in prices is in docs/reference/prices.md.
"""

from __future__ import annotations

import math
from typing import Any

from core.design_fields import show

PRICE_EVIDENCE = ("list", "street", "estimate")
PRICE_YEARS = (2015, 2030)
# Far above the dearest real unit (a 16-rack CloudMatrix384 is ~8e6 USD) and low enough that
# count x price stays a finite float for a million-device design.
MAX_PRICE_USD = 1e9
PRICE_KEYS = ("usd", "year", "evidence", "source", "note")
# The field an early catalog format had: accepted and never read, so an entry that set it
# counted as unpriced without a word. Now refused, saying what to write instead.
RETIRED_PRICE_FIELD = "price_usd"
RETIRED_PRICE_MESSAGE = ("field 'price_usd' is retired: write the price as "
                         '"price": {"usd": N, "year": YEAR, "source": "..."}')


def price_problem(price: Any, max_text_chars: int) -> tuple[str, str] | None:
    """(field, reason) for the first thing wrong with ``price``, or None when it is valid.

    ``field`` is a path under the entry such as ``price.usd``, for messages that name it."""
    if not isinstance(price, dict):
        return "price", f"expected an object with {', '.join(PRICE_KEYS)}"
    unknown = sorted(str(key) for key in price if key not in PRICE_KEYS)
    if unknown:
        return f"price.{unknown[0]}", f"unknown field (expected {', '.join(PRICE_KEYS)})"
    usd = price.get("usd")
    # the range first: an int of 400 digits compares exactly but overflows math.isfinite
    if (isinstance(usd, bool) or not isinstance(usd, (int, float))
            or not 0 < usd <= MAX_PRICE_USD or not math.isfinite(usd)):
        return "price.usd", f"must be a number above 0 and up to {MAX_PRICE_USD:,.0f}, got {show(usd)}"
    year = price.get("year")
    if isinstance(year, bool) or not isinstance(year, int) or not PRICE_YEARS[0] <= year <= PRICE_YEARS[1]:
        return "price.year", f"must be a whole year from {PRICE_YEARS[0]} to {PRICE_YEARS[1]}, got {show(year)}"
    if price.get("evidence") not in PRICE_EVIDENCE:
        return "price.evidence", (f"must be one of {', '.join(PRICE_EVIDENCE)}, "
                                  f"got {show(price.get('evidence'))}")
    for key, required in (("source", True), ("note", False)):
        text = price.get(key)
        if text is None and not required:
            continue
        if not isinstance(text, str) or not text.strip():
            return f"price.{key}", "must be a non-empty text" + (" naming who says so and where"
                                                                 if key == "source" else "")
        if len(text) > max_text_chars:
            return f"price.{key}", f"longer than {max_text_chars:,} characters"
    return None
