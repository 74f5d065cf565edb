"""The one QApplication of the process, created on demand (GUI, headless export, tests)."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

ORGANIZATION = "ClusterDesigner"
APPLICATION = "Cluster Designer"


def _needs_offscreen() -> bool:
    """No display server to talk to: headless commands must still render (DESIGN.md CLI)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return False
    if sys.platform.startswith("linux"):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def ensure_app(headless: bool = False) -> QApplication:
    """Return the running QApplication, creating it (offscreen when there is no display)."""
    app = QApplication.instance()
    if app is not None:
        return app  # type: ignore[return-value]
    if headless or _needs_offscreen():
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication(sys.argv[:1])
    app.setApplicationDisplayName(APPLICATION)
    return app
