"""Starting without a project: the bundled example as an untitled copy."""

from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from core.catalog import default_catalog
from core.model import SetProperty
from core.project import load_project
from designer.app import DEFAULT_EXAMPLE, run
from designer.main_window import MainWindow


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
    assert design.name == load_project(DEFAULT_EXAMPLE).name  # a named design keeps its name
    window.document.undo_stack.setClean()
    window.evaluator.shutdown()
    window.workload_panel.shutdown()
    window.close()


def test_screenshot_without_a_project_renders_the_example(tmp_path, qapp):
    out = tmp_path / "shot.png"
    assert run(None, screenshot=str(out)) == 0
    assert not QImage(str(out)).isNull()
