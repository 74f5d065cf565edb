"""GUI tests run headless; Qt's settings and app-data go to a throw-away folder."""

import os
import tempfile

os.environ["QT_QPA_PLATFORM"] = "offscreen"
_SANDBOX = tempfile.mkdtemp(prefix="cluster-designer-gui-tests-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_SANDBOX, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_SANDBOX, "data")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.generators import FatTreeOptions, generate_fat_tree  # noqa: E402
from core.model import Design  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch):
    """Message boxes would block an offscreen run: answer them and record what was shown."""
    shown: list[tuple[str, str]] = []

    def record(kind, answer):
        def box(parent, title, text, *args, **kwargs):
            shown.append((kind, text))
            return answer
        return box

    monkeypatch.setattr(QMessageBox, "critical", record("critical", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "warning", record("warning", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "information", record("information", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "question", record("question", QMessageBox.StandardButton.Discard))
    return shown


@pytest.fixture
def window(qtbot):
    from designer.window.main_window import MainWindow

    win = MainWindow(default_catalog(), interactive=False)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.document.undo_stack.setClean()
    win.evaluator.shutdown()
    win.workload_panel.shutdown()


@pytest.fixture
def small_design() -> Design:
    return generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), default_catalog())


@pytest.fixture
def big_design() -> Design:
    path = EXAMPLES / "h100-100k.json"
    if path.exists():
        from core.project import load_project

        return load_project(path)
    return generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), default_catalog())


@pytest.fixture
def point_of(window):
    """Viewport position of the centre of the card ``key`` (for synthesised mouse gestures)."""
    def point(key):
        return window.view.mapFromScene(window.scene.card(key).pos())
    return point
