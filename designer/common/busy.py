"""Long file work (opening or saving a design drawn device by device: 300 MB of JSON, 10 s and
more) on a worker thread, while the window keeps painting and a dialog says what is going on.

The caller waits as for a plain call (``run_busy`` returns the result or raises), so open and
save keep their meaning; meanwhile no user input reaches the window: at first none is
processed at all, and once the work outlasts ``SHOW_AFTER_MS`` a modal dialog names it (with
Cancel where the work can be dropped, as an open can: its result is then ignored).
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

from PySide6.QtCore import QEventLoop, QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QProgressBar, QProgressDialog, QWidget

from core.errors import DesignError
from designer.common.worker import WorkerJob

SHOW_AFTER_MS = 400  # quicker work shows no dialog (it would only flash)
T = TypeVar("T")


class Cancelled(Exception):
    """The user pressed Cancel in the busy dialog."""


class _Outcome(QObject):
    done = Signal(int, object)
    failed = Signal(int, str)


# Outcomes of work still running: a cancelled open returns before its worker ends, and the
# signals the worker emits at the end need their QObject alive.
_running: set[_Outcome] = set()


def run_busy(parent: QWidget | None, text: str, work: Callable[[], T], cancellable: bool = False,
             what: str = "the operation") -> T:
    """``work()`` on a worker thread; its result, or its DesignError raised here (any other
    exception becomes a one-line DesignError naming ``what``). Raises Cancelled when the user
    cancels (only if ``cancellable``)."""
    outcome = _Outcome()
    _running.add(outcome)
    results: list[tuple[bool, object]] = []
    loop = QEventLoop()

    def finish(ok: bool, value: object) -> None:
        _running.discard(outcome)
        results.append((ok, value))
        loop.quit()

    outcome.done.connect(lambda _g, value: finish(True, value))
    outcome.failed.connect(lambda _g, message: finish(False, message))
    start = time.perf_counter()
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        QThreadPool.globalInstance().start(WorkerJob(work, 0, outcome.done, outcome.failed, what))
        # First the window only paints (clicks and keys wait), so quick work leaves no trace.
        QTimer.singleShot(SHOW_AFTER_MS, loop.quit)
        loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        if not results:
            dialog = QProgressDialog(text, "Cancel" if cancellable else "", 0, 1, parent)
            # No bar: the work says nothing about its progress, and an animated busy bar repaints
            # all the time, taking the interpreter from the worker (15 % slower reads). The
            # seconds counting up say it is alive.
            bar = QProgressBar(dialog)
            dialog.setBar(bar)
            bar.hide()
            dialog.setWindowTitle("Cluster Designer")
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setMinimumDuration(0)
            dialog.setAutoClose(False)
            if not cancellable:
                dialog.setCancelButton(None)
            dialog.canceled.connect(loop.quit)
            elapsed = QTimer(dialog)
            elapsed.timeout.connect(lambda: dialog.setLabelText(f"{text}\n{time.perf_counter() - start:.0f} s so far"))
            elapsed.start(1000)
            dialog.show()
            loop.exec()
            cancelled = dialog.wasCanceled() and not results
            dialog.close()
            dialog.deleteLater()
            if cancelled:
                raise Cancelled(text)
    finally:
        QApplication.restoreOverrideCursor()
    ok, value = results[0]
    if not ok:
        raise DesignError(str(value))
    return value  # type: ignore[return-value]
