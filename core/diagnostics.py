"""Warnings raised by the analyses: a stable code, a message, the components involved, and a
severity that comes from the code (``core.diagnostic_codes``, the one table of codes).

``merge_diagnostics`` turns what the analyses raised into what an evaluation shows: each code
once (several occurrences merged into one entry that says how many and lists a few, with all
their components), errors first, then warnings, then facts, each group by code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from core.diagnostic_codes import CODES, SEVERITIES, Severity

# Occurrences of one code quoted in a merged message; the rest are counted.
MERGED_SHOWN = 3


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    components: tuple[str, ...] = ()  # design paths of the nodes involved (for GUI selection)

    @property
    def severity(self) -> Severity:
        """"error" (the result is invalid or cannot be computed), "warning" (the design is
        risky or a result is an estimate with a known hole) or "info" (a fact to know).
        A code missing from the table (tests/test_diagnostics.py keeps the table complete)
        counts as a warning rather than failing an evaluation."""
        known = CODES.get(self.code)
        return known.severity if known is not None else "warning"

    def to_json(self) -> dict:
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "components": list(self.components)}


def merge_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Each code once, sorted by severity (errors first) then code.

    Occurrences of one code with the same message count once; different messages merge into
    one entry: "3 cases: first; second; third" (the first ``MERGED_SHOWN`` quoted, the others
    counted), carrying the components of all of them.
    """
    by_code: dict[str, list[Diagnostic]] = {}
    for diag in diagnostics:
        by_code.setdefault(diag.code, []).append(diag)
    merged = [_merge(code, items) for code, items in by_code.items()]
    rank = {severity: i for i, severity in enumerate(SEVERITIES)}
    return tuple(sorted(merged, key=lambda d: (rank[d.severity], d.code)))


def _merge(code: str, items: list[Diagnostic]) -> Diagnostic:
    components = tuple(dict.fromkeys(c for d in items for c in d.components))
    messages = list(dict.fromkeys(d.message for d in items))
    if len(messages) == 1:
        return Diagnostic(code, messages[0], components)
    text = f"{len(messages)} cases: " + "; ".join(messages[:MERGED_SHOWN])
    if len(messages) > MERGED_SHOWN:
        text += f"; and {len(messages) - MERGED_SHOWN} more"
    return Diagnostic(code, text, components)
