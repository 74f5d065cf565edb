"""What a newcomer meets in the first hour (issue 25): New from Template opens a new document,
quitting with Discard is quiet, Save As names the design after its file, presets grouped by
kind with a first offer that fits, secondary windows beside their parent, and readable tabs
and Inspector on a 1366x768 screen."""

from __future__ import annotations

from pathlib import Path

import pytest
import shiboken6
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFileDialog, QMessageBox, QTabBar

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.operations import SetProperty
from core.project import load_project, save_project
from designer.common.window_fit import FRAME_ESTIMATE, beside, fitted_geometry
from designer.window.main_window import MainWindow

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
    from designer.window.wizard import TemplateWizard

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


# --- secondary windows beside their parent ---------------------------------------------------
WIDE = QRect(0, 0, 3840, 2120)
LAPTOP = QRect(0, 0, 1366, 728)  # a 1366x768 screen less a 40 px task bar


def test_a_secondary_window_opens_right_of_its_parent_when_the_screen_has_room():
    parent = QRect(100, 100, 1200, 900)
    client = beside(parent, QSize(1100, 760), WIDE)
    assert client.left() - FRAME_ESTIMATE.left() > parent.right() and client.top() >= parent.top()


def test_else_left_of_it_and_else_over_it_shifted_but_never_at_the_corner():
    right_half = QRect(2400, 100, 1300, 900)
    client = beside(right_half, QSize(1100, 760), WIDE)
    assert client.right() + FRAME_ESTIMATE.right() < right_half.left()
    full = fitted_geometry(LAPTOP)  # the main window fills a laptop screen
    client = beside(full, QSize(1100, 760), LAPTOP)
    assert client.topLeft() != LAPTOP.topLeft() and client.left() > full.left() and client.top() > full.top()


@given(st.integers(-2000, 4000), st.integers(-1000, 2000), st.integers(200, 3000), st.integers(200, 2000),
       st.integers(300, 6000), st.integers(300, 4000))
def test_a_secondary_window_never_leaves_the_usable_area(px, py, pw, ph, width, height):
    available = QRect(0, 0, width, height)
    client = beside(QRect(px, py, pw, ph), QSize(1100, 760), available)
    assert available.contains(client.marginsAdded(FRAME_ESTIMATE))


def _skipped_sweep(folder: Path) -> Path:
    from core.sweep.results import write_results
    from core.sweep.run import run_sweep
    from core.sweep.spec import sweep_spec_from_dict

    spec = sweep_spec_from_dict({"template": "fat-tree",
                                 "options": {"gpus": [512, 1024], "server": "DGX-H100",
                                             "switch": "QM9700", "island_gpus": [None, 1001]},
                                 "workloads": ["llama3-70b"]})
    recipes, outcomes = run_sweep(spec, jobs=1)
    path = folder / "results.csv"
    write_results(path, spec, recipes, outcomes)
    return path


def test_the_sweep_window_opens_beside_the_main_window_and_its_reasons_read_in_full(window, qtbot, tmp_path):
    view = window.sweep_results.open_results(_skipped_sweep(tmp_path))
    qtbot.addWidget(view)
    expected = beside(window.frameGeometry(), QSize(1100, 760), window.screen().availableGeometry())
    assert view.geometry() == expected
    qtbot.waitExposed(view)
    table = view.errors
    reason = table.columnCount() - 1
    assert table.rowCount() >= 1 and table.horizontalHeaderItem(reason).text() == "reason"
    # The reason column ends inside the table's viewport, and each row is tall enough for
    # its reason wrapped at the column's width.
    assert table.columnViewportPosition(reason) + table.columnWidth(reason) <= table.viewport().width()
    metrics = table.fontMetrics()
    for row in range(table.rowCount()):
        text = table.item(row, reason).text()
        needed = metrics.boundingRect(QRect(0, 0, table.columnWidth(reason) - 8, 10_000),
                                      int(Qt.TextFlag.TextWordWrap), text).height()
        assert table.rowHeight(row) >= needed, text


# --- a 1366x768 screen at a desktop's font size ----------------------------------------------
@pytest.fixture
def desktop_font(qapp):
    """The application font at 11 pt, a desktop's usual size (the offscreen platform's 9 pt
    hides what a user sees: "Overvi…", five Inspector fields)."""
    before = qapp.font()
    font = QFont(before)
    font.setPointSizeF(11)
    qapp.setFont(font)
    yield
    qapp.setFont(before)


def _whole_fields(window) -> int:
    viewport = window.inspector.viewport()
    return sum(viewport.rect().contains(QRect(field.mapTo(viewport, QPoint(0, 0)), field.size()))
               for field in window.inspector.fields.values())


def test_on_a_1366x768_screen_tabs_read_whole_and_the_inspector_shows_more_than_five_fields(
        qtbot, qapp, desktop_font):
    window = MainWindow(default_catalog(), interactive=False)
    qtbot.addWidget(window)
    window.fit_to_screen(QRect(0, 0, 1366, 768 - 40))  # less a task bar
    window.load_design(load_project(ROOT / "resources" / "examples" / "dgx-h100-superpod-4su.json"), None)
    window.show()
    qtbot.waitExposed(window)
    qapp.processEvents()
    bars = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window and bar.isVisible()]
    titles = [bar.tabText(i) for bar in bars for i in range(bar.count())]
    assert {"Overview", "Bandwidth", "Performance", "Inspector"} <= set(titles)
    for bar in bars:
        for i in range(bar.count()):
            assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width(), f"{bar.tabText(i)!r} is elided"
            assert bar.tabRect(i).right() <= bar.width(), f"{bar.tabText(i)!r} is scrolled out of sight"
    window.scene.select(["spine"])
    qapp.processEvents()
    assert _whole_fields(window) > 5
    window.scene.select([], [window.document.design.root.links[0].id])
    qapp.processEvents()
    assert _whole_fields(window) > 5
    window.document.undo_stack.setClean()
    window.evaluator.shutdown()
    window.workload_panel.shutdown()


# --- the guide from the window ---------------------------------------------------------------
def test_help_user_guide_opens_the_guides_index_page(window, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    from PySide6.QtWidgets import QMenu

    help_menu = next(menu for menu in window.menuBar().findChildren(QMenu) if menu.title() == "&Help")
    assert window.guide_action in help_menu.actions()
    window.guide_action.trigger()
    assert len(opened) == 1 and opened[0].isLocalFile()
    path = Path(opened[0].toLocalFile())
    assert path == ROOT / "docs" / "guide" / "index.md" and path.is_file()
    assert path.read_text().startswith("# ")


def test_without_a_guide_the_window_says_where_it_lives(window, monkeypatch, no_modal_dialogs):
    import designer.window.guide as guide

    monkeypatch.setattr(guide, "guide_path", lambda: None)
    assert window.show_guide() is False
    assert no_modal_dialogs[-1][0] == "information" and "docs/guide/index.md" in no_modal_dialogs[-1][1]


def test_the_tabs_behind_the_inspector_are_made_when_first_raised_and_show_the_design(window,
                                                                                         qtbot):
    """Start-up (item 1): the Workload, Services and Assumptions tabs wait behind the
    Inspector unmade; raised, each shows the design as it is then, not as it was at start."""
    from html import escape

    from core.resources import default_example

    design = load_project(default_example(), window.catalog)
    window.load_design(design, None, default_example())
    window.evaluator.evaluate_now(window.document.design)
    tabs = {"workload": (window.workload_panel, window.workload_dock),
            "services": (window.services_panel, window.services_dock),
            "assumptions": (window.assumptions_panel, window.assumptions_dock)}
    assert not any(panel.body_built for panel, _ in tabs.values())
    for panel, dock in tabs.values():
        dock.raise_()
        qtbot.waitUntil(lambda panel=panel: panel.body_built)
    workload = window.document.design.workload
    assert window.workload_panel.name.text() == workload.name
    assert window.workload_panel.spins["layers"].value() == workload.model.layers
    assert f"<b>{escape(workload.name)}</b> (training)" in window.services_panel.main_label.text()
    assert "power.pue" in window.assumptions_panel.editors and len(window.assumptions_panel.editors) > 50


def test_a_tab_not_yet_made_is_made_when_a_field_of_it_is_read(window):
    """A menu action or a script reads the Workload tab's fields before it was ever raised."""
    assert not window.workload_panel.body_built
    assert window.workload_panel.preset.count() > 0  # built on the read
    assert window.workload_panel.body_built
    with pytest.raises(AttributeError, match="no attribute 'no_such_field'"):
        window.workload_panel.no_such_field
