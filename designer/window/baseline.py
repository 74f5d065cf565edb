"""The baseline a design is compared with: pinned from the current evaluation or read from a
file (a project, evaluated off the GUI thread, or a saved evaluation JSON).

It lives in the window, not in the project: it survives edits, undo and opening another file
(open B, compare with pinned A), and is gone when the window closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from core.catalog import Catalog
from core.compare import Comparison, compare_evaluations, read_comparable
from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from designer.common.busy import Cancelled, run_busy
from designer.common.qaction import make_action
from designer.project.evaluator import Result

NOT_SAVED = "The baseline is kept while the window is open; it is not saved in the project."
FILE_FILTER = "Project or saved evaluation (*.json);;All files (*)"


@dataclass(frozen=True)
class Baseline:
    name: str
    evaluation_json: dict


def read_baseline(path: Path, catalog: Catalog) -> Baseline:
    """The baseline in ``path``: a project evaluated now, or an evaluation saved earlier
    (``evaluate --format json -o``) used as it is. Raises a one-line DesignError naming the file."""
    design = read_comparable(path, catalog)
    if isinstance(design, dict):  # a saved evaluation
        return Baseline(str(design.get("design") or path.stem), design)
    try:
        evaluation = evaluate(design, catalog)
    except DesignError as exc:
        raise DesignError(f"{path}: {exc}") from None
    return Baseline(design.name or path.stem, evaluation_to_json(evaluation))


def comparison_names(baseline_name: str, current_name: str) -> list[str]:
    """The two names; a design compared with its own pinned past needs two different ones."""
    current = current_name or "current design"
    return [f"{baseline_name} (baseline)" if current == baseline_name else baseline_name, current]


class BaselineController(QObject):
    """The Pin / Compare with File / Clear actions and the baseline they keep. After each
    evaluation (``show``) it compares the result with the baseline and emits ``compared``
    (None without a baseline)."""

    compared = Signal(object)   # Comparison | None
    error = Signal(str)

    def __init__(self, window, catalog: Catalog):
        super().__init__(window)
        self._window = window
        self._catalog = catalog
        self.baseline: Baseline | None = None
        self._current: Result | None = None
        # Why the newest evaluation failed ("" when it did not): ``_current`` is then of an
        # older design, not one to pin.
        self._failure = ""
        window.evaluator.failed.connect(self._on_failed)
        self.comparison: Comparison | None = None
        self.pin_action = make_action(window, "&Pin as Baseline", self.pin,
                                      tip="Compare every later evaluation with this one. " + NOT_SAVED)
        self.compare_file_action = make_action(
            window, "Compare with &File…", self.compare_with_file_dialog,
            tip="Evaluate a project (or read a saved evaluation) and compare with it. " + NOT_SAVED)
        self.clear_action = make_action(window, "&Clear Baseline", self.clear, tip="Stop comparing")
        self.clear_action.setEnabled(False)

    def actions(self):
        return [self.pin_action, self.compare_file_action, self.clear_action]

    def set_baseline(self, baseline: Baseline | None) -> None:
        self.baseline = baseline
        self.clear_action.setEnabled(baseline is not None)
        self._refresh()

    def pin(self) -> bool:
        """The current design's latest evaluation becomes the baseline (evaluated now if an
        edit is still waiting for its evaluation)."""
        fresh = not self._window.evaluator.busy and not self._failure
        result = (self._current if fresh else None) or self._window.evaluate_now()
        if result is None:
            self.error.emit(f"cannot pin a baseline: {self._failure or 'the design could not be evaluated'}")
            return False
        name = result.evaluation.design_name or self._window.document.title
        self.set_baseline(Baseline(name, evaluation_to_json(result.evaluation)))
        self._window.statusBar().showMessage(f"Pinned {name} as the baseline", 6000)
        return True

    def compare_with_file_dialog(self) -> None:
        path = self._window.document.path
        name, _ = QFileDialog.getOpenFileName(self._window, "Compare with file",
                                              str(path.parent) if path else "", FILE_FILTER)
        if name:
            self.compare_with_file(Path(name))

    def compare_with_file(self, path: Path) -> bool:
        """Make the design or evaluation in ``path`` the baseline; on failure say why in one
        line and keep the baseline there was."""
        path = Path(path)
        try:
            baseline = run_busy(self._window, f"Evaluating {path.name}…",
                                lambda: read_baseline(path, self._catalog), cancellable=True,
                                what="reading the baseline")
        except Cancelled:
            self._window.statusBar().showMessage(f"Comparing with {path.name} cancelled", 6000)
            return False
        except DesignError as exc:
            self.error.emit(str(exc))
            QMessageBox.critical(self._window, "Cannot compare", str(exc))
            return False
        self.set_baseline(baseline)
        self._window.statusBar().showMessage(f"Comparing with {baseline.name} ({path.name})", 6000)
        return True

    def clear(self) -> None:
        self.set_baseline(None)

    def show(self, result: Result) -> None:
        """Compare a new evaluation of the current design with the baseline."""
        self._current = result
        self._failure = ""
        self._refresh()

    def _on_failed(self, message: str) -> None:
        # The table keeps comparing the last design that evaluated (the window says the new
        # one failed); only Pin must not take that older result for the current design.
        self._failure = message

    def _refresh(self) -> None:
        if self.baseline is None or self._current is None:
            self.comparison = None
        else:
            current = evaluation_to_json(self._current.evaluation)  # < 1 ms for 100,000 GPUs
            self.comparison = compare_evaluations(
                [self.baseline.evaluation_json, current],
                comparison_names(self.baseline.name, self._current.evaluation.design_name))
        self.compared.emit(self.comparison)
