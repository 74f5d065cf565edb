"""Run one core computation on a thread pool and report back through queued signals."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QRunnable, SignalInstance

from core.errors import DesignError


class WorkerJob(QRunnable):
    """Calls ``work()``; emits ``done(generation, result)`` or ``failed(generation, message)``.

    User errors (DesignError) pass their one-line message; any other exception becomes a
    one-line "<what> failed: ..." so an analysis bug never takes the GUI down.
    """

    def __init__(self, work: Callable[[], object], generation: int, done: SignalInstance,
                 failed: SignalInstance, what: str):
        super().__init__()
        self.work, self.generation = work, generation
        self.done, self.failed, self.what = done, failed, what
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.work()
        except DesignError as exc:
            self.failed.emit(self.generation, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - see the class docstring
            self.failed.emit(self.generation, f"{self.what} failed: {type(exc).__name__}: {exc}")
            return
        self.done.emit(self.generation, result)
