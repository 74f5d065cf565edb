"""Project files, recovery drafts, diagram and summary exports, and the CLI entry points."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication

from core.errors import DesignError
from core.operations import SetProperty
from core.project import design_to_dict, load_project, save_project
from designer.window.export import export_diagram
from designer.window.recovery import RecoveryManager


def test_save_then_open_gives_an_equal_model(window, small_design, tmp_path):
    window.load_design(small_design, None)
    window.view.place("AI400X2", QPointF(500, 300))
    path = tmp_path / "cluster.json"
    assert window._save_to(path)
    assert not window.isWindowModified()
    assert "cluster.json" in window.windowTitle()
    saved = window.document.design.snapshot()
    window.new_design()
    assert window.open_file(path)
    assert window.document.design.content_equal(saved)
    assert design_to_dict(window.document.design) == design_to_dict(saved)
    assert window.document.path == path


def test_modified_marker_follows_undo_stack_clean_state(window, small_design, tmp_path):
    window.load_design(small_design, None)
    assert not window.isWindowModified()
    su = next(iter(small_design.root.children))
    window.document.push(SetProperty(su, "name", "Renamed"))
    assert window.isWindowModified()
    window.document.undo_stack.undo()
    assert not window.isWindowModified()


def test_load_error_is_one_line_and_keeps_the_open_design(window, small_design, tmp_path, no_modal_dialogs):
    window.load_design(small_design, tmp_path / "good.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert not window.open_file(bad)
    kind, text = no_modal_dialogs[-1]
    assert kind == "critical" and "invalid JSON" in text and "\n" not in text
    assert window.document.design is small_design
    assert window.document.path == tmp_path / "good.json"
    assert bad.read_text() == "{not json"  # never saved over


def test_drop_a_project_file_on_the_window_opens_it(window, small_design, tmp_path, qtbot):
    path = tmp_path / "dropped.json"
    save_project(small_design, path)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(100, 100), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.view.viewport(), enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.view.viewport(), drop)
    assert window.document.path == path
    assert window.document.design.content_equal(small_design)


def test_recovery_draft_written_and_offered_after_a_crash(window, small_design, tmp_path):
    window.load_design(small_design, None)
    window.document.push(SetProperty(next(iter(small_design.root.children)), "name", "Unsaved"))
    assert window.recovery.autosave()
    draft = window.recovery.draft_path
    assert draft.exists() and load_project(draft).content_equal(window.document.design)
    assert all(d.project != draft for d in RecoveryManager.orphaned_drafts())  # we are alive
    meta = json.loads(window.recovery.meta_path.read_text())
    meta["pid"] = 2 ** 22 + 12345  # a process that does not exist: the session "crashed"
    window.recovery.meta_path.write_text(json.dumps(meta))
    orphans = RecoveryManager.orphaned_drafts()
    assert [d.project for d in orphans] == [draft]
    window.document.undo_stack.setClean()
    window.document.reset(small_design.snapshot(), None)
    window.offer_recovery()  # the test's dialog stub answers "Discard" → not Yes → removed
    assert not draft.exists()


@pytest.mark.parametrize("ext", [".svg", ".pdf", ".png"])
def test_diagram_exports_are_valid(window, small_design, tmp_path, ext):
    window.load_design(small_design, None)
    path = tmp_path / f"diagram{ext}"
    window.export_diagram(path, width_px=1234)
    data = path.read_bytes()
    if ext == ".svg":
        root = ET.fromstring(data)
        assert root.tag.endswith("svg")
        assert b"Spine" in data  # labels are text, not pixels
    elif ext == ".pdf":
        assert data.startswith(b"%PDF")
    else:
        image = QImage(str(path))
        assert image.width() == 1234 and image.height() > 100


def test_selection_export_and_headless_function(window, small_design, tmp_path):
    window.load_design(small_design, None)
    window.scene.select(["spine"])
    window.export_diagram(tmp_path / "sel.png", 400, selected_only=True)
    assert QImage(str(tmp_path / "sel.png")).width() == 400
    assert window.scene.selected_ids() == ["spine"]  # selection restored after export
    export_diagram(small_design, tmp_path / "cli.svg")
    ET.fromstring((tmp_path / "cli.svg").read_bytes())
    with pytest.raises(DesignError):
        export_diagram(small_design, tmp_path / "diagram.gif")
    assert not (tmp_path / "diagram.gif").exists()


def test_a_png_too_large_to_render_is_refused_with_the_width_that_fits(small_design, tmp_path):
    # The height follows the diagram's shape: 20,000 px wide is fine for a wide diagram and
    # gigabytes for a tall one. A stack of 60 cards is tall.
    from core.model import Block, Design, Node

    tall = Design("tall", Block("root", children={
        f"n{i}": Node(f"n{i}", "DGX-H100", 1, x=0.0, y=200.0 * i) for i in range(60)}))
    with pytest.raises(DesignError, match=r"PNG is larger than 64 megapixels: use a width of at most [\d,]+ px"):
        export_diagram(tall, tmp_path / "tall.png", width_px=20_000)
    assert not (tmp_path / "tall.png").exists()
    export_diagram(tall, tmp_path / "tall.png", width_px=600)
    assert QImage(str(tmp_path / "tall.png")).width() == 600


@pytest.mark.parametrize("fmt,ext", [("md", ".md"), ("html", ".html"), ("csv", ".csv"),
                                     ("json", ".json"), ("bom", ".csv")])
def test_summary_exports(window, small_design, tmp_path, fmt, ext):
    window.load_design(small_design, None)
    path = tmp_path / f"summary-{fmt}{ext}"
    window.export_summary(path, fmt)
    text = path.read_text()
    if fmt == "json":
        assert json.loads(text)["counts"]["gpus"] == 1024
    elif fmt == "md":
        assert text.startswith("# ") and "GPUs" in text
    elif fmt == "html":
        assert "<html" in text
    elif fmt == "bom":
        assert text.splitlines()[0].startswith("kind,catalog_id")
    else:
        assert "counts.gpus" in text


def test_cli_screenshot_and_bad_project(tmp_path, capsys, qapp):
    from designer.window.app import run

    project = Path(__file__).resolve().parents[2] / "resources" / "examples" / "dgx-h100-superpod-4su.json"
    if not project.exists():
        pytest.skip("example project not bundled yet")
    out = tmp_path / "shot.png"
    assert run(str(project), screenshot=str(out)) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1600, 1000)
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "something else"}')
    assert run(str(bad), screenshot=str(tmp_path / "x.png")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Cluster Designer project" in err
    assert not (tmp_path / "x.png").exists()


def test_hundred_thousand_gpu_design_opens_and_evaluates(window, big_design, qtbot):
    with qtbot.waitSignal(window.evaluator.finished, timeout=60_000) as blocker:
        window.load_design(big_design, None)
    assert blocker.args[0].evaluation.counts.gpus >= 100_000
    assert window.overview_panel.value("GPUs") == f"{blocker.args[0].evaluation.counts.gpus:,}"
    assert len(window.scene.items()) < 50


def test_screenshot_command_prints_nothing_on_stderr(tmp_path):
    """The offscreen plugin's "propagateSizeHints()" notice is dropped (designer/common/qtapp.py)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    project = root / "resources" / "examples" / "dgx-h100-superpod-4su.json"
    if not project.exists():
        pytest.skip("example project not bundled yet")
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-m", "designer.cli", str(project), "--screenshot", str(out)],
                          capture_output=True, text=True, env=env, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "propagateSizeHints" not in done.stderr and done.stderr.strip() == ""
    assert out.exists()
