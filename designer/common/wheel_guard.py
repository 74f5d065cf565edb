"""The mouse wheel scrolls a form, not the number under the pointer.

Qt gives spin boxes and combo boxes the wheel (and the focus with it) as soon as the pointer
passes over them, so scrolling down the Workload or Assumptions tab silently changed whatever
field slid under the pointer (61 layers became 21 in a walk-through). Once installed, a spin
box or combo box takes the wheel only when it already has the keyboard focus (a click or Tab
gave it); otherwise the wheel goes on to the scroll area around it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

_GUARDED = (QAbstractSpinBox, QComboBox)


class WheelGuard(QObject):
    """An application-wide event filter (one per QApplication: ``install_wheel_guard``)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, _GUARDED):
            # not focused by the wheel itself: the check below would never see it unfocused
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel and isinstance(watched, _GUARDED) and not watched.hasFocus():
            # filtered but not accepted: QApplication hands the wheel on to the parent
            event.ignore()
            return True
        return False


def install_wheel_guard(app: QApplication) -> None:
    """Install the guard on ``app`` once (later calls do nothing)."""
    if app.property("wheel_guard_installed"):
        return
    guard = WheelGuard(app)
    app.installEventFilter(guard)
    app.setProperty("wheel_guard_installed", True)
