"""The one QApplication of the process, created on demand (GUI, headless export, tests)."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QCoreApplication, QtMsgType, qFormatLogMessage, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from designer.common.qt_platform import PlatformError, platform_problem

ORGANIZATION = "ClusterDesigner"
APPLICATION = "Cluster Designer"
# Printed by the offscreen platform plugin each time a window is shown (screenshots, headless
# exports); it is noise, not a problem of the project. Only this exact message is dropped.
DROPPED_MESSAGES = frozenset({"This plugin does not support propagateSizeHints()"})
_handler_installed = False


def message_handler(mode: QtMsgType, context, message: str) -> None:
    """Qt's log output, minus DROPPED_MESSAGES, formatted as Qt's default handler does."""
    if message in DROPPED_MESSAGES:
        return
    try:
        text = qFormatLogMessage(mode, context, message)
    except Exception:  # noqa: BLE001 - a context Qt cannot format must not lose the message
        text = message
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def install_message_handler() -> None:
    global _handler_installed
    if not _handler_installed:
        qInstallMessageHandler(message_handler)
        _handler_installed = True


def ensure_app(headless: bool = False) -> QApplication:
    """Return the running QApplication, creating it (offscreen when ``headless``). Raises
    PlatformError, before Qt could abort the process, when the window cannot open here."""
    app = QApplication.instance()
    if app is not None:
        return app  # type: ignore[return-value]
    if headless:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = platform_problem(os.environ)
    if problem:
        raise PlatformError(problem)
    install_message_handler()
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication(sys.argv[:1])
    app.setApplicationDisplayName(APPLICATION)
    return app
