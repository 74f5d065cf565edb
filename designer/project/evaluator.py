"""Continuous evaluation: debounced, off the GUI thread, newest request wins.

Every model change calls ``request()``. After ``DEBOUNCE_MS`` of quiet the design is
snapshotted (``Design.snapshot``: new blocks and containers sharing the nodes and links, which
edits replace rather than change, so the copy is immutable and costs ~20 ms for 1.5 million
links where a deep copy took ~20 s) and evaluated on a one-thread pool; while one run is
busy, only the newest snapshot waits (older ones are dropped), and a result is published only
if no newer request arrived meanwhile. ``evaluate_now()`` runs synchronously (tests, bench,
screenshot).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from core.catalog import Catalog
from core.errors import DesignError
from core.evaluate import Evaluation, evaluate
from core.model import Design
from core.series import ettr_series, mfu_scaling_series
from designer.common.worker import WorkerJob

DEBOUNCE_MS = 150


@dataclass(frozen=True)
class Result:
    """An evaluation plus the chart series computed next to it in the worker."""

    evaluation: Evaluation
    scaling: tuple[tuple[int, float], ...]          # (job GPUs, MFU) at several DP sizes
    ettr_intervals_min: tuple[float, ...]
    ettr_values: tuple[float, ...]
    elapsed_s: float


def run_evaluation(snapshot: Design, catalog: Catalog) -> Result:
    start = time.perf_counter()
    ev = evaluate(snapshot, catalog)
    scaling = mfu_scaling_series(ev)
    intervals, values = ettr_series(ev)
    return Result(ev, scaling, intervals, values, time.perf_counter() - start)


class Evaluator(QObject):
    started = Signal()
    finished = Signal(object)   # Result
    failed = Signal(str)
    # Internal: emitted from the worker thread, delivered queued on the GUI thread.
    _job_done = Signal(int, object)
    _job_failed = Signal(int, str)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self._design: Design | None = None
        self._generation = 0
        self._running = False
        self._pending: tuple[int, Design] | None = None
        self.last: Result | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._launch)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._job_done.connect(self._on_done)
        self._job_failed.connect(self._on_failed)

    @property
    def busy(self) -> bool:
        return self._running or self._timer.isActive() or self._pending is not None

    def request(self, design: Design, debounce: bool = True) -> None:
        """Schedule an evaluation of ``design`` (snapshotted when the debounce expires).
        ``debounce=False`` (a design opened or replaced whole: no burst of edits to wait for)
        launches it at the next turn of the event loop, after what is pending is painted."""
        self._design = design
        self._generation += 1
        self._timer.start(DEBOUNCE_MS if debounce else 0)
        self.started.emit()

    def _launch(self) -> None:
        if self._design is None:
            return
        job = (self._generation, self._design.snapshot())
        if self._running:
            self._pending = job  # replaces any older waiting snapshot: newest wins
            return
        self._start(*job)

    def _start(self, generation: int, snapshot: Design) -> None:
        self._running = True
        self._pool.start(WorkerJob(lambda: run_evaluation(snapshot, self.catalog), generation,
                                   self._job_done, self._job_failed, "evaluation"))

    def _next(self) -> None:
        self._running = False
        if self._pending is not None:
            job, self._pending = self._pending, None
            self._start(*job)

    def _on_done(self, generation: int, result: Result) -> None:
        self._next()
        if generation == self._generation:
            self.last = result
            self.finished.emit(result)

    def _on_failed(self, generation: int, message: str) -> None:
        self._next()
        if generation == self._generation:
            self.failed.emit(message)

    def evaluate_now(self, design: Design | None = None) -> Result | None:
        """Evaluate synchronously on the calling thread and publish the result."""
        design = design or self._design
        if design is None:
            return None
        self._timer.stop()
        self._generation += 1  # anything in flight is now stale
        self._pending = None
        self._design = design
        try:
            result = run_evaluation(design.snapshot(), self.catalog)
        except DesignError as exc:
            self.failed.emit(str(exc))
            return None
        self.last = result
        self.finished.emit(result)
        return result

    def shutdown(self, timeout_ms: int = 10_000) -> None:
        self._timer.stop()
        self._pending = None
        self._generation += 1
        self._pool.waitForDone(timeout_ms)
