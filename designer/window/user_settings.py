"""The per-user QSettings file, read defensively: a file we cannot read or write, or a value of
the wrong type (a hand-edited or damaged file), costs the user their recent files or layout,
never the app."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings


def settings_problem(settings: QSettings) -> str | None:
    """One line saying why ``settings`` cannot be used, or None when it can."""
    where = settings.fileName()
    status = settings.status()
    if status == QSettings.Status.AccessError:
        return f"cannot read the settings file {where}; using default settings"
    if status == QSettings.Status.FormatError:
        return f"the settings file {where} is damaged; using default settings"
    if not settings.isWritable():
        return f"cannot write the settings file {where}; recent files and the window layout will not be kept"
    return None


def recent_paths(value: Any) -> list[str]:
    """The recent-files list stored in the settings; anything but text entries is dropped."""
    if isinstance(value, str):  # QSettings gives a one-item list back as a plain string
        value = [value]
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str) and item]
