"""What every output says first about an invalid design: that it cannot be built (or run) as
drawn, and why, so no figure is read as that of a buildable design. The reports (Markdown,
HTML, CSV), the comparison and the window all take their words from here."""

from __future__ import annotations

from core.evaluate import Evaluation

# Reasons quoted in full in a banner; the rest are counted (the Warnings section lists them all).
BANNER_REASONS = 5


def validity_headline(ev: Evaluation) -> str | None:
    """One line saying the design is invalid and how many errors make it so; None if valid."""
    errors = ev.errors
    if not errors:
        return None
    return (f"Invalid design: it cannot be built or run as drawn ({len(errors)} error"
            f"{'s' * (len(errors) > 1)}). No figure in this report is that of a buildable design.")


def validity_reasons(ev: Evaluation) -> list[str]:
    """The errors as "CODE: message" lines, the first ``BANNER_REASONS`` and a count of the rest."""
    errors = ev.errors
    lines = [f"{w.code}: {w.message}" for w in errors[:BANNER_REASONS]]
    if len(errors) > BANNER_REASONS:
        lines.append(f"and {len(errors) - BANNER_REASONS} more (see Warnings)")
    return lines


def validity_word(valid: bool | None) -> str:
    """How a table cell says whether a design is valid (None: not known, an old evaluation)."""
    return "n/a" if valid is None else "yes" if valid else "NO (cannot be built as drawn)"
