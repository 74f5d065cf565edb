"""What a newcomer meets in the first hour (issue 25): New from Template opens a new document,
quitting with Discard is quiet, Save As names the design after its file, presets grouped by
kind with a first offer that fits, secondary windows beside their parent, and readable tabs
and Inspector on a 1366x768 screen."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtWidgets import QFileDialog, QMessageBox

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
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


def _accept_wizard(monkeypatch) -> None:
    """The template wizard accepted with its default template, as if OK were clicked."""
    from designer.wizard import TemplateWizard

    def accept(wizard):
        wizard.update_preview()
        return True
    monkeypatch.setattr(TemplateWizard, "exec", accept)


def test_new_from_template_opens_a_new_untitled_document_and_never_touches_the_open_file(
        window, monkeypatch, tmp_path, no_modal_dialogs):
    path = tmp_path / "mypod.json"
    mine = generate_fat_tree(FatTreeOptions(256, "DGX-H100", "QM9700"), window.catalog)
    save_project(mine, path)
    on_disk = path.read_bytes()
    assert window.open_file(path)
    window.document.push(SetProperty("spine", "count", 8))  # unsaved work
    _accept_wizard(monkeypatch)
    window.new_from_template()
    assert no_modal_dialogs[-1][0] == "question" and "mypod.json" in no_modal_dialogs[-1][1]
    doc = window.document
    assert doc.path is None and "mypod.json" not in window.windowTitle()
    assert doc.design.name != mine.name and doc.undo_stack.count() == 0
    assert "spine" not in doc.design.root.children or doc.design.root.children["spine"].count != 8
    assert window.isWindowModified()  # generated, saved nowhere yet: quitting asks
    # Ctrl+S asks where to save the new design; cancelled, the user's file is as it was.
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: asked.append(a) or ("", ""))
    window.save_action.trigger()
    assert len(asked) == 1 and path.read_bytes() == on_disk


def test_new_from_template_cancelled_at_the_unsaved_question_keeps_the_document(
        window, small_design, monkeypatch, tmp_path):
    path = tmp_path / "mypod.json"
    save_project(small_design, path)
    assert window.open_file(path)
    window.document.push(SetProperty("spine", "count", 8))
    _accept_wizard(monkeypatch)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    window.new_from_template()
    assert window.document.path == path and window.document.design.root.children["spine"].count == 8


def test_new_from_template_keeps_the_workload(window, small_design, monkeypatch):
    from core.workload import load_preset

    window.load_design(small_design, None)
    window.document.design.workload = load_preset("llama3-70b")
    _accept_wizard(monkeypatch)
    window.new_from_template()
    assert window.document.design.workload is not None
    assert window.document.design.workload == load_preset("llama3-70b")


def test_presets_are_grouped_by_kind_under_headings_that_cannot_be_chosen(window):
    combo = window.workload_panel.preset
    texts = [combo.itemText(i) for i in range(combo.count())]
    names = [combo.itemData(i) for i in range(combo.count())]
    training, inference = texts.index("Training"), texts.index("Inference")
    assert 0 < training < inference < len(texts) - 1
    model = combo.model()
    for heading in (training, inference):
        assert names[heading] is None and not model.item(heading).isEnabled()
    assert all("(inference)" not in t for t in texts[training + 1:inference])
    assert texts[inference + 1:-1] and all("(inference)" in t for t in texts[inference + 1:-1])


def test_switching_an_h100_design_to_inference_offers_a_preset_it_can_run(window, qtbot):
    design = load_project(ROOT / "resources" / "examples" / "dgx-h100-superpod-4su.json", window.catalog)
    window.load_design(design, None)
    window.workload_panel.kind_buttons["inference"].click()
    workload = window.document.design.workload
    # DeepSeek-R1 (first by name) does not fit 8 H100s; the one offered runs.
    assert not workload.name.startswith("DeepSeek")
    result = window.evaluate_now()
    assert result is not None and not result.evaluation.cannot_run
