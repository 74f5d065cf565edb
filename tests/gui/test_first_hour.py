"""What a newcomer meets in the first hour (issue 25): New from Template opens a new document,
quitting with Discard is quiet, Save As names the design after its file, presets grouped by
kind with a first offer that fits, secondary windows beside their parent, and readable tabs
and Inspector on a 1366x768 screen."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtWidgets import QMessageBox

from core.catalog import default_catalog
from core.operations import SetProperty
from core.project import load_project, save_project
from designer.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def test_quit_and_discard_prints_no_error_about_a_deleted_window(qtbot, capfd, no_modal_dialogs):
    # Quit with unsaved changes, Discard: the window closes and is deleted; the undo stack's
    # last cleanChanged (sent while the window is being deleted) must reach no slot of it.
    window = MainWindow(default_catalog(), interactive=False)
    window.show()
    window.view.place("DGX-H100")
    assert window.document.modified
    assert window.close()
    assert no_modal_dialogs[-1][0] == "question"  # asked, and answered Discard
    window.evaluator.shutdown()
    window.workload_panel.shutdown()
    shiboken6.delete(window)
    err = capfd.readouterr().err
    assert "RuntimeError" not in err and "already deleted" not in err, err
