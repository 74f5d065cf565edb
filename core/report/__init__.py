"""Human-readable reports of an evaluation: Markdown, HTML, CSV, and the bill of materials.

All formats render one table model (``sections.report_sections``) so the CLI, the GUI exports
and the tests see the same numbers; ``formats.render_report`` picks the format.
"""

from core.report.formats import FORMATS, render_report
from core.report.rows import Row
from core.report.sections import bom_rows, report_sections

__all__ = ["FORMATS", "Row", "bom_rows", "render_report", "report_sections"]
