"""Can Qt's platform plugin start here? Checked before the QApplication exists.

When no platform plugin loads, Qt aborts the process (qFatal) with a generic "could not load the
Qt platform plugin" message that Python cannot catch. On a minimal Linux desktop the cause is
nearly always a system library of the xcb plugin that pip cannot install, so we look for those
first and name the one-line install instead.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

from core.errors import DesignError

# What Qt 6's xcb plugin links against: "Qt for X11 Requirements" (doc.qt.io/qt-6/linux-requirements.html)
# and `ldd` of PySide6 6.10's plugins/platforms/libqxcb.so and lib/libQt6XcbQpa.so.6.
# (library, Debian/Ubuntu package, Fedora package)
XCB_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("libxcb.so.1", "libxcb1", "libxcb"),
    ("libX11.so.6", "libx11-6", "libX11"),
    ("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    ("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    ("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    ("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    ("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    ("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    ("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    ("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    ("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    ("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    ("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    ("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    ("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    ("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
)


class PlatformError(DesignError):
    """The window cannot open on this system (no display, or Qt's platform plugin cannot load)."""


def first_platform(environ: Mapping[str, str], platform: str = sys.platform) -> str | None:
    """The platform plugin Qt tries first, chosen as QGuiApplication does; None off Linux/BSD,
    where Qt brings its own (cocoa, windows)."""
    if platform.startswith(("darwin", "win", "cygwin")):
        return None
    requested = environ.get("QT_QPA_PLATFORM", "")
    if requested:  # "xcb", "wayland;xcb", "xcb:option=value"
        return requested.split(";")[0].split(":")[0].strip()
    if environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def missing_libraries(load: Callable[[str], object] = ctypes.CDLL) -> list[tuple[str, str, str]]:
    """The entries of XCB_LIBRARIES the dynamic loader cannot find (loaded the way Qt will)."""
    missing = []
    for entry in XCB_LIBRARIES:
        try:
            load(entry[0])
        except OSError:
            missing.append(entry)
    return missing


def install_hint(missing: list[tuple[str, str, str]]) -> str:
    debian = " ".join(dict.fromkeys(deb for _, deb, _ in missing))
    fedora = " ".join(dict.fromkeys(rpm for _, _, rpm in missing))
    return f"sudo apt-get install {debian} (Debian/Ubuntu) or sudo dnf install {fedora} (Fedora)"


def platform_problem(environ: Mapping[str, str] = os.environ, platform: str = sys.platform,
                     load: Callable[[str], object] = ctypes.CDLL) -> str | None:
    """One line saying why Qt's xcb plugin would abort here, or None when it should start."""
    if first_platform(environ, platform) != "xcb":
        return None
    if not environ.get("DISPLAY"):
        return ("no display: DISPLAY is not set, so the window cannot open; run it in a desktop session "
                "(or ssh -X). evaluate, generate, export and --screenshot need no display")
    missing = missing_libraries(load)
    if not missing:
        return None
    names = ", ".join(name for name, _, _ in missing)
    return (f"Qt's xcb platform plugin needs system libraries that are not installed ({names}); "
            f"install them with: {install_hint(missing)}")
