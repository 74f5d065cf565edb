"""Opening or saving a big design takes seconds: the window keeps painting, says what it is
doing, and an open can be cancelled without touching the design already shown."""

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton

import designer.window.files as window_files
from core.project import load_project, save_project
from designer.common import busy

SLOW_S = 1.2  # longer than busy.SHOW_AFTER_MS


def _dialog_texts(window, then_cancel: bool) -> list[str]:
    """Collect the busy dialog's text once it shows (and press its Cancel button)."""
    seen: list[str] = []

    def look() -> None:
        dialogs = [d for d in window.findChildren(QProgressDialog) if d.isVisible()]
        if not dialogs:
            QTimer.singleShot(50, look)
            return
        seen.append(dialogs[0].labelText())
        if then_cancel:
            dialogs[0].findChild(QPushButton).click()

    QTimer.singleShot(busy.SHOW_AFTER_MS + 50, look)
    return seen


def test_a_slow_open_says_so_and_opens(window, small_design, tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    save_project(small_design, path)

    def slow_load(*args, **kwargs):
        time.sleep(SLOW_S)
        return load_project(*args, **kwargs)

    monkeypatch.setattr(window_files, "load_project", slow_load)
    seen = _dialog_texts(window, then_cancel=False)
    assert window.open_file(path)
    assert seen and seen[0].startswith("Opening big.json (")
    assert window.document.path == path and window.document.design.name == small_design.name
    assert not [d for d in window.findChildren(QProgressDialog) if d.isVisible()]


def test_cancelling_a_slow_open_keeps_the_design_shown(window, small_design, tmp_path, monkeypatch):
    window.load_design(small_design, tmp_path / "current.json")
    path = tmp_path / "other.json"
    save_project(small_design, path)
    monkeypatch.setattr(window_files, "load_project", lambda *a, **k: time.sleep(SLOW_S) or load_project(*a, **k))
    seen = _dialog_texts(window, then_cancel=True)
    assert not window.open_file(path)
    assert seen and window.document.design is small_design and window.document.path == tmp_path / "current.json"
    assert "cancelled" in window.statusBar().currentMessage()


def test_a_slow_save_says_so_and_writes_the_file(window, small_design, tmp_path, monkeypatch):
    window.load_design(small_design, None)
    path = tmp_path / "saved.json"

    def slow_save(design, target):
        time.sleep(SLOW_S)
        save_project(design, target)

    monkeypatch.setattr(window_files, "save_project", slow_save)
    seen = _dialog_texts(window, then_cancel=False)
    assert window._save_to(path)
    assert seen and seen[0].startswith("Saving saved.json…")
    assert load_project(path).content_equal(small_design) and not window.isWindowModified()


def test_a_quick_open_shows_no_dialog(window, small_design, tmp_path):
    path = tmp_path / "quick.json"
    save_project(small_design, path)
    shown = []
    QTimer.singleShot(0, lambda: shown.extend(window.findChildren(QProgressDialog)))
    assert window.open_file(path) and shown == []


def test_the_minutely_autosave_writes_off_the_gui_thread_and_a_discard_wins(window, small_design, qtbot,
                                                                            monkeypatch):
    """A draft of a design drawn device by device takes 10+ s to write: the window must not
    freeze every minute, and a draft finished after a save (discard) must not be left behind."""
    import designer.window.recovery as recovery_module
    from core.operations import SetProperty

    window.load_design(small_design, None)
    window.document.push(SetProperty(next(iter(small_design.root.children)), "name", "Unsaved"))
    recovery = window.recovery

    def slow_save(design, target):
        time.sleep(SLOW_S)
        save_project(design, target)

    monkeypatch.setattr(recovery_module, "save_project", slow_save)
    start = time.perf_counter()
    recovery.autosave_in_background()
    assert time.perf_counter() - start < SLOW_S / 2  # back to the user at once
    with qtbot.waitSignal(recovery._wrote, timeout=10_000):
        pass
    assert load_project(recovery.draft_path).content_equal(window.document.design)
    recovery.autosave_in_background()
    recovery.discard()  # a save while the draft is being written
    with qtbot.waitSignal(recovery._wrote, timeout=10_000):
        pass
    assert not recovery.draft_path.exists() and not recovery.meta_path.exists()
