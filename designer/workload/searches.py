"""The Workload tab's two searches, each on a worker thread: "Auto (search)" of a training
workload runs core's parallelism search and lists the best configuration and the runners-up;
that of an inference workload runs core's deployment search (designer/workload/inference_search.py)
and shows it in the inference form's DeploymentSearchView. "Use" applies a row as one undo step;
an edit of the design marks the results stale."""

from __future__ import annotations

import dataclasses
from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from core.analysis.serving_context import with_deployment
from core.errors import DesignError
from core.inference_workload import InferenceWorkload
from core.operations import SetWorkload
from core.workload import with_parallelism, workload_from_dict
from designer.common.format import num, pct, seconds
from designer.common.search_table import SearchTable
from designer.panels.deployment_search import deployment_name
from designer.workload.inference_search import InferenceSearchOutcome
from designer.workload.preset_list import NONE
from designer.workload.search_runner import Candidate, SearchOutcome

# Search table: (header, tooltip) per column; column 0 holds the "Use" button.
SEARCH_COLUMNS = [
    ("", "Use this configuration (one undo step)"), ("TP", "Tensor parallel"), ("PP", "Pipeline parallel"),
    ("DP", "Data parallel"), ("CP", "Context parallel"), ("EP", "Expert parallel"),
    ("µB", "Micro-batch (sequences)"), ("VS", "Virtual pipeline stages per GPU"), ("ZeRO", "ZeRO stage"),
    ("Recomp.", "Activation recomputation"), ("Step", "Step time"), ("MFU", "Model FLOPs utilisation"),
    ("Mem", "Memory per GPU (GB)"),
]


class WorkloadSearches:
    """WorkloadPanel's searches (a part of WorkloadPanel: its document, forms, runners and
    ``error`` signal)."""

    def _build_search(self) -> QGroupBox:
        box = QGroupBox("Parallelism search")
        column = QVBoxLayout(box)
        column.setSpacing(4)
        self.search_status = QLabel()
        self.search_status.setWordWrap(True)
        self.search_status.setTextFormat(Qt.TextFormat.RichText)
        column.addWidget(self.search_status)
        table = SearchTable(SEARCH_COLUMNS)
        table.cellDoubleClicked.connect(lambda row, _col: self.apply_candidate(row // 2))
        self.search_table = table
        column.addWidget(table)
        self.search_notes = QLabel()
        self.search_notes.setWordWrap(True)
        self.search_notes.setStyleSheet("color: #607d8b;")
        column.addWidget(self.search_notes)
        self.search_box = box
        box.hide()
        return box

    # --- parallelism search ----------------------------------------------------------------
    def start_search(self) -> bool:
        """Search the form's workload on the design (worker thread); False if nothing to search."""
        if self.document.design.workload is None and self.preset.currentText() == NONE:
            self._set_search_status("<i>Choose a workload first.</i>")
            return False
        if isinstance(self.document.design.workload, InferenceWorkload):
            return False  # a serving deployment is searched with its deployment mode "Auto (search)"
        try:
            workload = workload_from_dict(self.form_dict(), "workload")
        except DesignError as exc:
            self._set_search_status(f"<span style='color:#c62828'>{exc}</span>")
            self.error.emit(str(exc))
            return False
        self.search_runner.start(self.document.design, workload)
        self.search_button.setEnabled(False)
        self.search_button.setText("Searching…")
        self._set_search_status(f"Searching parallel configurations of <b>{workload.name}</b> on this design…")
        return True

    def _set_search_status(self, html: str) -> None:
        self.search_box.show()
        self.search_status.setText(html)

    def _search_finished_ui(self) -> None:
        self.search_button.setEnabled(True)
        self.search_button.setText("Auto (search)")

    def _search_failed(self, message: str) -> None:
        self._search_finished_ui()
        self._set_search_status(f"<span style='color:#c62828'>Search failed: {message}</span>")
        self.error.emit(message)

    def _search_done(self, outcome: SearchOutcome) -> None:
        self._search_finished_ui()
        self.outcome = outcome
        best = outcome.candidates[0]
        p = best.parallelism
        fits = "fits in memory" if best.fits_memory else "<span style='color:#c62828'>does not fit in memory</span>"
        evaluated = f" of {outcome.evaluated:,} evaluated" if outcome.evaluated else ""
        self._set_search_status(
            f"Best{evaluated}: <b>TP {p.tp} · PP {p.pp} · DP {p.dp} · CP {p.cp} · EP {p.ep}</b>, micro-batch "
            f"{p.micro_batch}, {p.virtual_stages} virtual stage{'s' if p.virtual_stages > 1 else ''}, ZeRO "
            f"{p.zero_stage}, recompute {p.recompute} — step {seconds(best.step_time_s)}, MFU <b>{pct(best.mfu)}</b>, "
            f"{num(best.memory_gb, 1, 'GB')} per GPU ({fits}). Click <b>Use</b> to apply a row.")
        self._fill_table(outcome.candidates)
        notes = [n for n in outcome.notes if not n.startswith("auto parallelism chose")]
        if any(not c.reason_from_core for c in outcome.candidates[1:]):
            notes.append("Why each loses: the step-time part that grows most against the best.")
        self.search_notes.setText(" ".join(notes))
        self.search_notes.setVisible(bool(notes))
        # Bring the results into view (the dock is often short): status line at the top.
        QTimer.singleShot(0, self, self._scroll_to_results)
        self.search_finished.emit(outcome)

    def _scroll_to_results(self) -> None:
        self.verticalScrollBar().setValue(self.search_box.y())

    def _fill_table(self, candidates: tuple[Candidate, ...]) -> None:
        rows = []
        for n, cand in enumerate(candidates):
            p = cand.parallelism
            values = [p.tp, p.pp, p.dp, p.cp, p.ep, p.micro_batch, p.virtual_stages, p.zero_stage, p.recompute,
                      seconds(cand.step_time_s), pct(cand.mfu), num(cand.memory_gb, 1)]
            if n == 0:
                reason = "★ best — " + (cand.reason or "the shortest time per token of all configurations tried")
            else:
                reason = f"loses: {cand.reason}" if cand.reason else "loses: slower per token"
            rows.append(([f"{v:,}" if isinstance(v, int) else str(v) for v in values], reason))
        memory = len(SEARCH_COLUMNS) - 1

        def warn(n: int, col: int) -> str:
            return "does not fit in the GPU's memory" if col == memory and not candidates[n].fits_memory else ""

        self.search_table.show_candidates(rows, self.apply_candidate, warn)

    def apply_candidate(self, index: int) -> bool:
        """Apply the ``index``-th searched configuration (0 = best) as one undo step."""
        if self.outcome is None or not 0 <= index < len(self.outcome.candidates):
            return False
        cand = self.outcome.candidates[index]
        workload = with_parallelism(self.outcome.workload, **dataclasses.asdict(cand.parallelism))
        if workload == self.document.design.workload:
            return False
        p = cand.parallelism
        self._applying = True
        try:
            self.document.push(SetWorkload(workload), f"Use parallelism TP {p.tp} PP {p.pp} DP {p.dp}")
        finally:
            self._applying = False
        self.load_from_design()
        self.search_table.mark_used(index)
        return True

    # --- serving deployment search -------------------------------------------------------
    def start_inference_search(self) -> bool:
        """Search the inference form's workload's deployment on the design (worker thread);
        False when the form does not describe a valid workload (it says why)."""
        view = self.inference_form.search_view
        workload = self._inference_from_form(lambda text: self._show_inference_search(text, "color: #c62828;"))
        if workload is None:
            return False
        self.inference_runner.start(self.document.design, workload)
        button = self.inference_form.search_button
        button.setEnabled(False)
        button.setText("Searching…")
        view.table.hide()
        view.set_notes([])
        self._show_inference_search(f"Searching deployments of <b>{escape(workload.name)}</b> on this design…")
        return True

    def _show_inference_search(self, html: str, style: str = "") -> None:
        self.inference_form.search_box.show()
        self.inference_form.search_view.set_status(html, style)

    def _inference_search_ui_done(self) -> None:
        self.inference_form.search_button.setEnabled(True)
        self.inference_form.search_button.setText("Auto (search)")

    def _inference_search_failed(self, message: str) -> None:
        self._inference_search_ui_done()
        self._show_inference_search(f"Search failed: {escape(message)}", "color: #c62828;")
        self.error.emit(message)

    def _inference_search_done(self, outcome: InferenceSearchOutcome) -> None:
        self._inference_search_ui_done()
        self.inference_outcome = outcome
        self.inference_form.search_box.show()
        self.inference_form.search_view.show_search(outcome.search, self.use_deployment,
                                                    "Use sets a row's deployment (one undo step).")
        QTimer.singleShot(0, self, lambda: self.verticalScrollBar().setValue(
            self.inference_form.search_box.mapTo(self.widget(), self.inference_form.search_box.rect().topLeft()).y()))
        self.inference_search_finished.emit(outcome)

    def use_deployment(self, index: int) -> bool:
        """Set the ``index``-th searched deployment (0 = the chosen one) on the searched
        workload as one undo step."""
        outcome = self.inference_outcome
        if outcome is None or not 0 <= index < len(outcome.search.candidates):
            return False
        deployment = outcome.search.candidates[index].deployment
        workload = with_deployment(outcome.workload, deployment)
        if workload == self.document.design.workload:
            return False
        self._applying = True
        try:
            self.document.push(SetWorkload(workload), f"Use deployment {deployment_name(deployment)}")
        finally:
            self._applying = False
        self.load_from_design()
        self.inference_form.search_view.table.mark_used(index)
        return True

    # --- both ---------------------------------------------------------------------------
    def design_changed(self, change) -> None:
        """The design changed (None: another design was opened): older search results go stale."""
        if not self.body_built:
            return  # no search shown yet
        view = self.inference_form.search_view
        if change is None:
            self._last_of_kind.clear()  # another design: its own workloads
            self.outcome = self.inference_outcome = None
            self.search_table.setRowCount(0)
            self.search_box.hide()
            self.inference_form.search_box.hide()
            return
        if self._applying:
            return
        stale = "The design changed since this search: run it again for current results."
        if self.outcome is not None:
            self.search_notes.setText(stale)
            self.search_notes.show()
        if self.inference_outcome is not None:
            view.set_notes([stale])

    def shutdown(self) -> None:
        self.search_runner.shutdown()
        self.inference_runner.shutdown()
