"""What the Performance panel adds for an inference workload besides its figures and chart:
what limits serving and the change that would help most (core.analysis.inference_bottleneck,
``Evaluation.bottleneck``), every what-if served again, and, for a workload whose deployment is
"auto", what the deployment search chose and the runners-up (``Evaluation.inference_search``).

The texts and numbers are core's (what limits serving: core/analysis/serving_explanation.py);
this module only lays them out. The paragraph goes in the
panel's bottleneck label (the training paragraph's place, under the SLO line); the what-ifs and
the search go under the chart (``ServingDetails``).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.analysis.inference_bottleneck import InferenceBottleneck, InferenceWhatIf
from core.analysis.serving_explanation import explain_serving, gain_text
from designer.panels.deployment_search import DeploymentSearchView
from designer.panels.serving_text import MEETS, MISSES

LIMIT_PREFIX = "What limits serving"
HELP_PREFIX = "What would help most"
WHAT_IFS_TITLE = "What-ifs, each served again (output tokens/s of the service)"
SEARCH_TITLE = "Deployment search (the deployment is auto)"
SECTION_STYLE = "font-weight: 600; color: #37474f; margin-top: 6px;"  # as the panels' section titles


def serving_bottleneck_html(bottleneck: InferenceBottleneck, placement: str | None = None) -> str:
    """The paragraph: core's explanation of what limits serving (core/analysis/
    serving_explanation.py) laid out, the binding part and what would help most in bold."""
    said = explain_serving(bottleneck, placement)
    if said is None:
        return ""
    head = f"<b>{LIMIT_PREFIX}:</b> {html.escape(said.binding)}: {html.escape(said.share, quote=False)}"
    if said.others:
        head += f"; then {', '.join(html.escape(x) for x in said.others)}"
    return f"{head}.<br><b>{HELP_PREFIX}:</b> {html.escape(said.help)}."


def _misses(x: InferenceWhatIf, slo: Any) -> str:
    """"misses TTFT 3,158 ms, TPOT 65.4 ms" for a what-if that runs but misses an SLO."""
    misses = []
    if x.ttft_ms > slo.ttft_ms:
        misses.append(f"TTFT {x.ttft_ms:,.0f} ms")
    if x.tpot_ms > slo.tpot_ms:
        misses.append(f"TPOT {x.tpot_ms:,.1f} ms")
    return "misses " + (", ".join(misses) if misses else "TTFT for a request class")


def what_ifs_html(bottleneck: InferenceBottleneck, slo: Any) -> str:
    """A row per what-if (core's order: those meeting the SLOs first, most gain first): the
    change (and, in grey under it, the SLO it misses or why it cannot run), its gain in output
    tokens/s of the service, and ✓ / ✗ for the SLOs."""
    rows = []
    for x in bottleneck.what_ifs:
        meets = x.runs and bool(x.meets_slo)
        why = "" if meets else (x.text.removeprefix(f"{x.description}: ") if not x.runs else _misses(x, slo))
        note = f"<br><span style='color:#78909c'>{html.escape(why)}</span>" if why else ""
        color = "#1b5e20" if meets and (x.gain or 0.0) > 0 else "#37474f"
        rows.append(f"<tr><td>{html.escape(x.description)}{note}</td>"
                    f"<td align='right' style='color:{color}; white-space:nowrap'>&nbsp;{gain_text(x.gain)}</td>"
                    f"<td align='center'>&nbsp;{MEETS if meets else MISSES}</td></tr>")
    if not rows:
        return "<i>No change could be tried.</i>"
    return f"<table width='100%' cellspacing='0' cellpadding='1'>{''.join(rows)}</table>"


def _section(title: str) -> QLabel:
    label = QLabel(title)
    label.setWordWrap(True)
    label.setStyleSheet(SECTION_STYLE)
    return label


class ServingDetails(QWidget):
    """The what-ifs and the "auto" search under the chart; it also fills ``paragraph`` (the
    panel's bottleneck label) with what limits serving."""

    def __init__(self, paragraph: QLabel, parent=None):
        super().__init__(parent)
        self.paragraph = paragraph
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.what_ifs_title = _section(WHAT_IFS_TITLE)
        column.addWidget(self.what_ifs_title)
        self.what_ifs = QLabel()
        self.what_ifs.setWordWrap(True)
        self.what_ifs.setTextFormat(Qt.TextFormat.RichText)
        self.what_ifs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.what_ifs)
        self.search_title = _section(SEARCH_TITLE)
        column.addWidget(self.search_title)
        self.search = DeploymentSearchView(use_buttons=False)
        column.addWidget(self.search)
        self.hide()

    def show_evaluation(self, ev: Any | None) -> None:
        """Fill in from an evaluation of an inference workload; None (a training workload or
        none): hide, leaving the paragraph to the training code."""
        if ev is None or ev.inference is None:
            self.hide()
            return
        bottleneck = ev.bottleneck if isinstance(ev.bottleneck, InferenceBottleneck) else None
        self.show_served(ev.inference, bottleneck, ev.inference_search)

    def show_served(self, inference: Any, bottleneck: InferenceBottleneck | None, search: Any | None) -> None:
        """What limits one served workload (the main one or a service), its what-ifs and, for
        "auto", the search that chose its deployment."""
        placement = inference.workload.kv_cache.placement
        text = serving_bottleneck_html(bottleneck, placement) if bottleneck is not None else ""
        self.paragraph.setText(text)
        self.paragraph.setToolTip("<br>".join(f"<b>{html.escape(x.name)}</b>: {html.escape(x.text)}"
                                              for x in bottleneck.limiters) if text else "")
        self.paragraph.setVisible(bool(text))
        if bottleneck is not None:
            self.what_ifs.setText(what_ifs_html(bottleneck, inference.workload.slo))
            self.what_ifs.setToolTip("<br>".join(html.escape(x.text) for x in bottleneck.what_ifs))
        self.what_ifs_title.setVisible(bottleneck is not None)
        self.what_ifs.setVisible(bottleneck is not None)
        if search is not None:
            self.search.show_search(search)
        self.search_title.setVisible(search is not None)
        self.search.setVisible(search is not None)
        self.setVisible(bottleneck is not None or search is not None)
