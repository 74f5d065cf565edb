"""A serving deployment search's result as a table of the chosen deployment and the runners-up
(core.analysis.inference_search); the Workload tab runs the search
(designer/workload/inference_search.py).

``DeploymentSearchView`` shows a ``DeploymentSearch``: a line saying what was chosen (or that no
deployment meets the SLOs, or none runs, and why), then one row per deployment (layout, batch,
served output tokens/s per GPU, TTFT, TPOT, SLOs) with core's reason under each runner-up. The
Workload tab gives it "Use" buttons; the Performance panel shows it read-only for a workload
whose deployment is "auto".
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.analysis.inference_ranking import DeploymentCandidate
from core.analysis.inference_search import DeploymentSearch
from core.inference_workload import Deployment, InferenceWorkload
from designer.common.format import num
from designer.common.search_table import SearchTable
from designer.panels.serving_text import MEETS, MISSES, short_layout

USE_COLUMN = ("", "Set this deployment on the workload (one undo step)")
# two-line headers: the table fits a ~400 px dock without a horizontal scroll bar
COLUMNS = [
    ("Layout", "TP (PP, EP when not 1) of a replica × the replicas; a disaggregated deployment: its prefill "
               "(P) and decode (D) pools"),
    ("Batch", "Decode batch per replica (P: prompts per prefill step)"),
    ("Tok/s\nper GPU", "Served output tokens per second per GPU, each request's prefill counted"),
    ("TTFT\nms", "Time to first token at load (mean over the request classes)"),
    ("TPOT\nms", "Time per output token at load"),
    ("SLO", "✓ meets both SLOs (every request class within the TTFT target)"),
]
SLO_COLUMN = len(COLUMNS) - 1
STATUS_MEETS = "color: #1b5e20;"
STATUS_MISSES = "color: #e65100;"
STATUS_FAILS = "color: #c62828;"


def deployment_cells(deployment: Deployment) -> tuple[str, str]:
    """(layout, batch) cells of a deployment: one line, or a P and a D line when disaggregated."""
    if deployment.disaggregated:
        p, d = deployment.prefill, deployment.decode
        return f"P {short_layout(p)}\nD {short_layout(d)}", f"P {p.batch:,}\nD {d.batch:,}"
    return short_layout(deployment.decode), f"{deployment.decode.batch:,}"


def deployment_name(deployment: Deployment) -> str:
    """"aggregated TP 8 ×1, batch 83" or "disaggregated P TP 2 ×2 + D TP 4 ×1, batch 194"."""
    if deployment.disaggregated:
        return (f"disaggregated P {short_layout(deployment.prefill)} + D {short_layout(deployment.decode)}, "
                f"batch {deployment.decode.batch:,}")
    return f"aggregated {short_layout(deployment.decode)}, batch {deployment.decode.batch:,}"


def _cells(c: DeploymentCandidate) -> list[str]:
    layout, batch = deployment_cells(c.deployment)
    if not c.runs:
        return [layout, batch, "—", "—", "—", MISSES]
    return [layout, batch, num(c.output_tokens_per_s_per_gpu, 0), num(c.ttft_ms, 0), num(c.tpot_ms, 1),
            MEETS if c.meets_slo else MISSES]


def candidate_rows(search: DeploymentSearch) -> list[tuple[list[str], str]]:
    """(cells, note) per candidate, the chosen one first: its full deployment and why it wins;
    each runner-up core's reason it loses."""
    rows = []
    for n, c in enumerate(search.candidates):
        if n == 0:
            why = ("the most output tokens/s of the service within both SLOs" if c.meets_slo else
                   "no deployment meets both SLOs: the one that misses them least")
            note = f"★ chosen: {why}"
        else:
            note = f"loses: {c.reason}" if c.reason else "loses: fewer output tokens/s"
        rows.append((_cells(c), note))
    return rows


def _slo_miss(c: DeploymentCandidate, workload: InferenceWorkload) -> str:
    """Which target a candidate misses ("" when it meets both)."""
    if c.meets_slo or not c.runs:
        return "" if c.meets_slo else "cannot run"
    slo, misses = workload.slo, []
    if c.ttft_ms > slo.ttft_ms:
        misses.append(f"TTFT {c.ttft_ms:,.0f} ms > {slo.ttft_ms:,.0f} ms")
    if c.tpot_ms > slo.tpot_ms:
        misses.append(f"TPOT {c.tpot_ms:,.1f} ms > {slo.tpot_ms:,.1f} ms")
    return ", ".join(misses) or "a request class misses the TTFT target"


def status_html(search: DeploymentSearch) -> tuple[str, str]:
    """(the line above the table, its style): what was chosen and whether it meets the SLOs, or
    that no deployment runs and why."""
    workload, gpus = search.workload, search.available_gpus
    where = f"{search.considered:,} deployments of {gpus:,} GPUs considered, {search.evaluated:,} serving evaluations"
    if not search.candidates:
        # NO_DEPLOYMENT_FITS already quotes the reasons of the largest replica after it
        reasons = search.result.cannot_run
        if reasons and reasons[0].code == "NO_DEPLOYMENT_FITS":
            reasons = reasons[:1]
        lines = "".join(f"<br>• {html.escape(d.message)}" for d in reasons)
        return f"<b>{MISSES} No deployment runs</b> ({where}):{lines}", STATUS_FAILS
    best = search.candidates[0]
    figures = (f"{num(best.output_tokens_per_s_per_gpu, 0)} output tokens/s per GPU "
               f"({num(best.output_tokens_per_s, 0)} on {best.deployment.gpus:,} GPUs), TTFT "
               f"{num(best.ttft_ms, 0, 'ms')}, TPOT {num(best.tpot_ms, 1, 'ms')}")
    name = html.escape(deployment_name(best.deployment))
    if search.meets_slo:
        return f"<b>{MEETS} Chosen</b> ({where}): <b>{name}</b> — {figures}.", STATUS_MEETS
    slo = workload.slo
    return (f"<b>{MISSES} No deployment meets the SLOs</b> (TTFT ≤ {num(slo.ttft_ms, 0, 'ms')}, TPOT ≤ "
            f"{num(slo.tpot_ms, 1, 'ms')}; {where}). The one that misses them least: <b>{name}</b> — "
            f"{figures} ({html.escape(_slo_miss(best, workload))}).", STATUS_MISSES)


class DeploymentSearchView(QWidget):
    """A DeploymentSearch as a status line, a table and notes; ``use_buttons``: each row has a
    "Use" button calling ``use(index)`` (``show_search``)."""

    def __init__(self, use_buttons: bool, parent=None):
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.status)
        self.table = SearchTable([USE_COLUMN, *COLUMNS] if use_buttons else COLUMNS, use_column=use_buttons)
        column.addWidget(self.table)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #607d8b;")
        column.addWidget(self.notes)

    def set_status(self, text: str, style: str = "") -> None:
        self.status.setText(text)
        self.status.setStyleSheet(style)

    def set_notes(self, notes: list[str]) -> None:
        self.notes.setText(" ".join(notes))
        self.notes.setVisible(bool(notes))

    def show_search(self, search: DeploymentSearch, use=None, hint: str = "") -> None:
        """Show ``search``; ``use(index)`` is what a row's "Use" button does; ``hint`` a last note."""
        self.set_status(*status_html(search))
        first = 1 if self.table.use_column else 0

        def warn(n: int, col: int) -> str:
            return _slo_miss(search.candidates[n], search.workload) if col == first + SLO_COLUMN else ""

        self.table.show_candidates(candidate_rows(search), use, warn)
        self.table.setVisible(bool(search.candidates))
        self.set_notes([hint] if hint and search.candidates else [])
