"""Starting without a project (the bundled example as an untitled copy), Save As on an
untitled design, and the file names of saves and exports."""

from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from core.catalog import default_catalog
from core.operations import SetProperty
from core.project import load_project
from designer.window.app import DEFAULT_EXAMPLE, run
from designer.window.main_window import MainWindow


def _answer_save_dialog(monkeypatch, answer: Path | None) -> list[str]:
    """Answer every save dialog with ``answer`` (None: Cancel); return the suggested names."""
    suggested: list[str] = []

    def dialog(parent, caption, start, *args, **kwargs):
        suggested.append(start)
        return ("" if answer is None else str(answer)), ""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    return suggested


def test_started_without_a_project_the_example_is_an_untitled_copy(qtbot, monkeypatch, tmp_path):
    example_bytes = DEFAULT_EXAMPLE.read_bytes()
    # Interactive, as a user starts it: recent files are kept (in the tests' own settings).
    window = MainWindow(default_catalog(), interactive=True)
    qtbot.addWidget(window)
    recent_before = window.recent_files()
    design = load_project(DEFAULT_EXAMPLE, window.catalog)
    example_name = design.name
    window.load_design(design, None, DEFAULT_EXAMPLE)
    assert window.document.path is None
    assert window.windowTitle().startswith(f"Copy of {design.name}")
    assert window.recent_files() == recent_before  # the example is not a recent file

    window.document.push(SetProperty("spine", "count", 8))
    suggested = _answer_save_dialog(monkeypatch, None)
    assert window.save() is False  # Save asks where to write; Cancel writes nothing
    assert len(suggested) == 1 and Path(suggested[0]).parent != DEFAULT_EXAMPLE.parent
    assert DEFAULT_EXAMPLE.read_bytes() == example_bytes and window.isWindowModified()

    _answer_save_dialog(monkeypatch, tmp_path / "my-pod")
    assert window.save() is True
    assert window.document.path == tmp_path / "my-pod.json"
    assert load_project(tmp_path / "my-pod.json").root.children["spine"].count == 8
    assert DEFAULT_EXAMPLE.read_bytes() == example_bytes
    assert window.recent_files()[0] == str((tmp_path / "my-pod.json").resolve())
    # The copy is named after its file (the README's promise); the example keeps its name.
    assert design.name == "my-pod" and load_project(tmp_path / "my-pod.json").name == "my-pod"
    assert load_project(DEFAULT_EXAMPLE).name == example_name != "my-pod"
    window.document.undo_stack.setClean()
    window.evaluator.shutdown()
    window.workload_panel.shutdown()
    window.close()


def test_screenshot_without_a_project_renders_the_example(tmp_path, qapp):
    out = tmp_path / "shot.png"
    assert run(None, screenshot=str(out)) == 0
    assert not QImage(str(out)).isNull()


def test_save_as_names_an_untitled_design_after_its_file(window, monkeypatch, tmp_path):
    window.new_design()
    window.view.place("DGX-H100")
    _answer_save_dialog(monkeypatch, tmp_path / "rack-a")
    assert window.save_as() is True
    design = window.document.design
    assert design.name == "rack-a" and load_project(tmp_path / "rack-a.json").name == "rack-a"
    assert not window.isWindowModified() and "rack-a.json" in window.windowTitle()
    # The summary is titled with the new name.
    window.export_summary(tmp_path / "rack-a.md", "md")
    assert (tmp_path / "rack-a.md").read_text().splitlines()[0].endswith("rack-a")
    # Naming is an undo step saved with the file: undoing it is a change to save.
    window.document.undo_stack.undo()
    assert design.name == "Untitled" and window.isWindowModified()
    window.document.undo_stack.redo()
    assert design.name == "rack-a" and not window.isWindowModified()
    # Save As under another file name names the design after that file, as one undo step.
    _answer_save_dialog(monkeypatch, tmp_path / "copy.json")
    assert window.save_as() is True and design.name == "copy" and load_project(tmp_path / "copy.json").name == "copy"
    window.document.undo_stack.undo()
    assert design.name == "rack-a" and load_project(tmp_path / "rack-a.json").name == "rack-a"


def test_save_as_that_fails_changes_nothing(window, monkeypatch, tmp_path, no_modal_dialogs):
    window.new_design()
    window.view.place("DGX-H100")
    steps = window.document.undo_stack.count()
    _answer_save_dialog(monkeypatch, tmp_path / "no-such-folder" / "pod.json")
    assert window.save_as() is False
    assert window.document.design.name == "Untitled" and window.document.undo_stack.count() == steps
    assert no_modal_dialogs[-1][0] == "critical" and "does not exist" in no_modal_dialogs[-1][1]


@pytest.mark.parametrize("fmt,typed,written", [
    ("md", "summary", "summary.md"), ("html", "summary", "summary.html"), ("html", "summary.htm", "summary.htm"),
    ("csv", "summary.v2", "summary.v2.csv"), ("json", "summary.JSON", "summary.JSON"),
    ("bom", "parts", "parts.csv")])
def test_summary_exports_add_the_extension_the_user_left_out(window, monkeypatch, tmp_path, fmt, typed,
                                                            written):
    window.new_design()
    window.view.place("DGX-H100")
    _answer_save_dialog(monkeypatch, tmp_path / typed)
    window.export_summary_dialog(fmt)
    assert [p.name for p in tmp_path.iterdir()] == [written]


def test_diagram_export_and_save_as_add_the_extension_to_a_dotted_name(window, monkeypatch, tmp_path):
    window.new_design()
    window.view.place("DGX-H100")
    _answer_save_dialog(monkeypatch, tmp_path / "pod.v2")
    window.export_diagram_dialog(".svg", False)
    assert window.save_as()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pod.v2.json", "pod.v2.svg"]
