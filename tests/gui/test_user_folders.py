"""The per-user folders the app reads and writes (settings, recovery drafts, user catalog) and the
screenshot writer: whatever is wrong there, the app warns and carries on, and never crashes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from core.catalog import USER_CATALOG_ENV, load_catalog
from core.operations import SetProperty
from designer.common.qtapp import APPLICATION, ORGANIZATION
from designer.window import recovery
from designer.window.main_window import MainWindow
from designer.window.recovery import RecoveryManager

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "gb200-nvl72-su.json"


@pytest.fixture
def settings_in(qapp):
    """Point Qt's per-user settings at another folder for one test, named as the app names them
    (QSettings refuses to work without an organization name)."""
    original = os.environ["XDG_CONFIG_HOME"], qapp.organizationName(), qapp.applicationName()
    qapp.setOrganizationName(ORGANIZATION)
    qapp.setApplicationName(APPLICATION)

    def use(folder: Path) -> None:
        for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
            QSettings.setPath(fmt, QSettings.Scope.UserScope, str(folder))

    yield use
    use(Path(original[0]))
    qapp.setOrganizationName(original[1])
    qapp.setApplicationName(original[2])


def interactive_window(qtbot, catalog) -> MainWindow:
    win = MainWindow(catalog, interactive=True)
    qtbot.addWidget(win)
    win.recovery.timer.stop()
    return win


def close(win: MainWindow) -> None:
    win.document.undo_stack.setClean()
    win.evaluator.shutdown()
    win.workload_panel.shutdown()


def test_a_bad_user_catalog_is_a_status_bar_warning_and_the_bundled_catalog_works(
        qtbot, tmp_path, monkeypatch):
    bad = tmp_path / "user-catalog.json"
    bad.write_text('{"components": [{"id": "x",}]}')
    monkeypatch.setenv(USER_CATALOG_ENV, str(bad))
    catalog = load_catalog()
    win = MainWindow(catalog, interactive=False)
    qtbot.addWidget(win)
    try:
        message = win.statusBar().currentMessage()
        assert "user catalog ignored" in message and str(bad) in message and "invalid JSON" in message
        assert "H100-SXM5-80GB" in catalog
    finally:
        close(win)


def test_the_window_opens_with_a_user_catalog_that_is_a_folder(tmp_path):
    """Before, the GUI refused to start (exit 2) when the user catalog could not be read."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **{USER_CATALOG_ENV: str(tmp_path)})
    out = tmp_path / "shot.png"
    done = subprocess.run([sys.executable, "-m", "designer.cli", str(EXAMPLE), "--screenshot", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0


def test_a_settings_folder_that_is_a_file_is_a_warning(qtbot, tmp_path, settings_in):
    blocker = tmp_path / "config"
    blocker.write_text("a file where the settings folder should be")
    settings_in(blocker)
    win = interactive_window(qtbot, load_catalog(include_user=False))
    try:
        message = win.statusBar().currentMessage()
        assert "settings file" in message and str(blocker) in message
        win._add_recent(EXAMPLE)  # must not raise although nothing can be stored
    finally:
        close(win)


@pytest.mark.parametrize("stored", [5, {"a": 1}, [3, None, "", "/tmp/real.json"]])
def test_damaged_recent_files_in_the_settings_are_dropped(qtbot, tmp_path, settings_in, stored):
    settings_in(tmp_path)
    QSettings().setValue("recent", stored)
    QSettings().sync()
    win = interactive_window(qtbot, load_catalog(include_user=False))
    try:
        expected = ["/tmp/real.json"] if isinstance(stored, list) else []
        assert win.recent_files() == expected
        assert win.recent_menu.isEnabled() == bool(expected)
        assert win.statusBar().currentMessage() == ""
    finally:
        close(win)


def test_autosave_into_an_unusable_folder_warns_once_and_recovers(window, small_design, tmp_path, monkeypatch):
    blocker = tmp_path / "data"
    blocker.write_text("a file where the app-data folder should be")
    monkeypatch.setattr(recovery, "recovery_dir", lambda: blocker / "recovery")
    window.load_design(small_design, None)
    window.document.push(SetProperty(next(iter(small_design.root.children)), "name", "Unsaved"))
    reports = []
    window.recovery.failed.connect(reports.append)

    assert not window.recovery.autosave()
    assert not window.recovery.autosave()  # same reason: not repeated every minute
    assert len(reports) == 1 and "autosave failed" in reports[0] and str(blocker) in reports[0]
    assert reports[0] in window.statusBar().currentMessage()

    blocker.unlink()
    assert window.recovery.autosave()
    assert window.recovery.draft_path.is_file()
    window.recovery.discard()


@pytest.mark.parametrize("meta", ['[1, 2]', '{"pid": "abc"}', '{"name": "x"}', '{"pid": 1.5}', "not json"])
def test_damaged_recovery_drafts_are_skipped_not_crashed_on(tmp_path, monkeypatch, meta):
    monkeypatch.setattr(recovery, "recovery_dir", lambda: tmp_path)
    (tmp_path / "draft-1-abc.json").write_text("{}")
    (tmp_path / "draft-1-abc.meta.json").write_text(meta)
    good = {"pid": 2 ** 22 + 12345, "original": 7, "saved_at": "today", "name": "kept"}
    (tmp_path / "draft-2-abc.json").write_text("{}")
    (tmp_path / "draft-2-abc.meta.json").write_text(json.dumps(good))
    drafts = RecoveryManager.orphaned_drafts()
    assert [(d.name, d.original) for d in drafts] == [("kept", None)]


def test_a_recovery_folder_that_is_a_file_offers_nothing(tmp_path, monkeypatch):
    blocker = tmp_path / "recovery"
    blocker.write_text("not a folder")
    monkeypatch.setattr(recovery, "recovery_dir", lambda: blocker)
    assert RecoveryManager.orphaned_drafts() == []


def test_a_screenshot_into_a_missing_folder_is_one_line_and_writes_nothing(tmp_path, capsys, qapp):
    from designer.window.app import run

    out = tmp_path / "missing" / "shot.png"
    assert run(str(EXAMPLE), screenshot=str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot save" in err and "does not exist" in err
    assert not out.parent.exists()
