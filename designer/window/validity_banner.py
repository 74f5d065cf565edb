"""The banner above the canvas of an invalid design: it cannot be built (or run) as drawn, and
why, so no panel's figure is read as that of a buildable design. Hidden while the design is
valid; its words are the reports' (core/report/validity.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from core.report.validity import validity_headline, validity_reasons
from designer.project.evaluator import Result

STYLE = ("background: #fdecea; color: #b71c1c; border: 1px solid #e57373; padding: 6px 10px; "
         "font-weight: 600;")


class ValidityBanner(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("validity-banner")
        self.setWordWrap(True)
        self.setStyleSheet(STYLE)
        self.hide()

    def update_result(self, result: Result | None) -> None:
        """Show what makes ``result``'s design invalid, or hide when it is valid (or gone)."""
        headline = validity_headline(result.evaluation) if result is not None else None
        if not headline:
            self.clear()
            self.hide()
            return
        reasons = validity_reasons(result.evaluation)
        self.setText(f"⚠ {headline.replace(' in this report', '')}\n" + "\n".join(
            f"• {reason}" for reason in reasons[:2]) + ("\n(all of them under Warnings)"
                                                         if len(reasons) > 2 else ""))
        self.setToolTip("\n".join(reasons))
        self.show()
