"""First start on a minimal Linux desktop: a missing xcb library or display is named in one line
with the install command, before Qt could abort with its generic platform-plugin message."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from designer.common.qt_platform import XCB_LIBRARIES, first_platform, platform_problem

ROOT = Path(__file__).resolve().parent.parent
MISSING = ("libxcb-icccm.so.4", "libxcb-keysyms.so.1")


def loader(missing=MISSING):
    def load(name):
        if name in missing:
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
    return load


@pytest.mark.parametrize("environ, platform, expected", [
    ({"DISPLAY": ":0"}, "linux", "xcb"),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "linux", "wayland"),
    ({"XDG_SESSION_TYPE": "wayland"}, "linux", "wayland"),
    ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", "wayland"),
    ({"QT_QPA_PLATFORM": "xcb:nograb"}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", "offscreen"),
    ({}, "freebsd14", "xcb"),
    ({}, "darwin", None),
    ({}, "win32", None),
])
def test_the_platform_qt_will_try_first(environ, platform, expected):
    assert first_platform(environ, platform) == expected


def test_missing_xcb_libraries_are_named_with_the_install_line():
    problem = platform_problem({"DISPLAY": ":0"}, "linux", loader())
    assert problem == (
        "Qt's xcb platform plugin needs system libraries that are not installed (libxcb-icccm.so.4, "
        "libxcb-keysyms.so.1); install them with: sudo apt-get install libxcb-icccm4 libxcb-keysyms1 "
        "(Debian/Ubuntu) or sudo dnf install xcb-util-wm xcb-util-keysyms (Fedora)")


def test_packages_shared_by_several_libraries_are_named_once():
    problem = platform_problem({"DISPLAY": ":0"}, "linux", loader(("libxcb-shm.so.0", "libxcb-sync.so.1")))
    assert "sudo dnf install libxcb (Fedora)" in problem
    assert "sudo apt-get install libxcb-shm0 libxcb-sync1 (Debian/Ubuntu)" in problem


def test_nothing_to_say_when_the_plugin_can_load_or_is_not_xcb():
    assert platform_problem({"DISPLAY": ":0"}, "linux", loader(())) is None
    everything_missing = loader(tuple(name for name, _, _ in XCB_LIBRARIES))
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", everything_missing) is None
    assert platform_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", everything_missing) is None
    assert platform_problem({}, "darwin", everything_missing) is None


def test_no_display_is_said_plainly():
    problem = platform_problem({}, "linux", loader(()))
    assert problem.startswith("no display: DISPLAY is not set") and "\n" not in problem


def _run_window(env_changes, prelude=""):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                                                             "XDG_SESSION_TYPE")}
    env.update(env_changes)
    code = f"{prelude}\nimport sys\nfrom designer.cli import main\nsys.exit(main([]))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_the_window_command_says_so_instead_of_aborting():
    result = _run_window({})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "cluster-designer: no display: DISPLAY is not set, so the window cannot open; run it in a desktop "
        "session (or ssh -X). evaluate, generate, export and --screenshot need no display"]
    # The libraries as the dynamic loader sees them, with two of them made unfindable.
    hide = ("import ctypes\nreal = ctypes.CDLL\n"
            f"def cdll(name, *args, **kwargs):\n    if name in {MISSING!r}: raise OSError(name)\n"
            "    return real(name, *args, **kwargs)\nctypes.CDLL = cdll")
    result = _run_window({"DISPLAY": ":97"}, hide)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in lines[0]
