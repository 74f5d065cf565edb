"""The window as a user meets it: keys, size on the screen, the default layout."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QMargins, QPoint, QRect, QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QTabBar

from core.catalog import default_catalog
from core.operations import MoveItems
from designer.common.window_fit import FRAME_ESTIMATE, PREFERRED_SIZE, SCREEN_MARGIN_PX, fitted_geometry
from designer.window.default_layout import MIN_CANVAS_WIDTH_PX, MIN_SIDE_PX, SEPARATORS_PX, side_widths_px


def _one_undone_move(window, small_design):
    window.load_design(small_design, None)
    key = next(iter(small_design.root.children))
    window.document.push(MoveItems("", {key: (1234.0, 56.0)}))
    window.document.undo_stack.undo()
    assert window.document.undo_stack.canRedo()
    return small_design.root.children[key]


@pytest.mark.parametrize("keys", ["Ctrl+Y", "Ctrl+Shift+Z"])
def test_redo_keys_redo(window, qtbot, small_design, keys):
    item = _one_undone_move(window, small_design)
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(window.isActiveWindow)
    sequence = QKeySequence(keys)
    combo = sequence[0]
    qtbot.keyClick(window.view, combo.key(), combo.keyboardModifiers())
    assert (item.x, item.y) == (1234.0, 56.0)
    assert not window.document.undo_stack.canRedo()


def test_no_two_actions_share_a_key(window):
    """A key bound to two actions fires neither (Qt calls it ambiguous)."""
    owners: dict[str, str] = {}
    for action in window.findChildren(QAction):
        if action.shortcutContext() == Qt.ShortcutContext.WidgetShortcut:
            continue
        for key in action.shortcuts():
            text = key.toString()
            assert text not in owners, f"{text} is bound to both {owners[text]!r} and {action.text()!r}"
            owners[text] = action.text()
    assert {"Ctrl+Y", "Ctrl+Shift+Z", "Ctrl+Z"} <= set(owners)


# --- size on the screen ---------------------------------------------------------------------
LAPTOP = QRect(0, 0, 1366, 728)    # a 1366x768 screen less a 40 px task bar
DESKTOP = QRect(0, 0, 1600, 960)   # a 1600x1000 screen less a 40 px task bar


def _frame_inside(client: QRect, available: QRect) -> bool:
    return available.contains(client.marginsAdded(FRAME_ESTIMATE))


@pytest.mark.parametrize("available", [LAPTOP, DESKTOP, QRect(0, 0, 3840, 2120), QRect(1920, 0, 1280, 984)])
def test_the_window_fits_the_screen_with_a_margin_and_never_exceeds_its_design_size(available):
    client = fitted_geometry(available)
    assert _frame_inside(client, available.marginsRemoved(QMargins(*[SCREEN_MARGIN_PX] * 4)))
    assert client.width() <= PREFERRED_SIZE.width() and client.height() <= PREFERRED_SIZE.height()
    assert abs(client.center().x() - available.center().x()) <= 8  # centred
    if available.width() >= 1700 and available.height() >= 1150:
        assert client.size() == PREFERRED_SIZE


@given(st.integers(-4000, 4000), st.integers(-2000, 2000), st.integers(300, 8000), st.integers(300, 5000))
def test_a_fitted_window_never_leaves_the_usable_area(x, y, width, height):
    available = QRect(x, y, width, height)
    assert _frame_inside(fitted_geometry(available), available)


@given(st.integers(652, 6000), st.integers(0, 700))
def test_side_columns_leave_the_canvas_its_minimum_width(window_width, tab_titles_px):
    left, right = side_widths_px(window_width, tab_titles_px)
    assert window_width - left - right - SEPARATORS_PX >= MIN_CANVAS_WIDTH_PX
    assert left >= MIN_SIDE_PX and right >= MIN_SIDE_PX


@pytest.fixture
def interactive_window(qtbot):
    """A window as a user opens it (saved layout, autosave) with settings in the test sandbox."""
    from designer.window.main_window import MainWindow

    windows = []

    def make():
        win = MainWindow(default_catalog(), interactive=True)
        qtbot.addWidget(win)
        windows.append(win)
        return win

    yield make
    for win in windows:
        win.document.undo_stack.setClean()
        win.close()
    QSettings().remove("window")


def test_a_new_window_opens_fitted_to_its_screen_with_the_status_bar_on_it(interactive_window):
    win = interactive_window()
    available = win.screen().availableGeometry()
    assert win.geometry() == fitted_geometry(available)
    win.show()
    status = win.statusBar()
    bottom = status.mapToGlobal(QPoint(0, status.height() - 1))
    assert status.isVisible() and available.contains(bottom)


def test_a_saved_layout_too_big_for_this_screen_is_corrected(interactive_window):
    from designer.window.docks import LAYOUT_VERSION
    from designer.window.main_window import MainWindow

    # Saved on a 2560x1440 monitor that is gone, with side columns taking nearly all the width.
    big = MainWindow(default_catalog(), interactive=False)
    big.setGeometry(QRect(2600, 40, 2500, 1380))
    big.show()
    big.resizeDocks([big.palette_dock, big.inspector_dock], [1000, 1400], Qt.Orientation.Horizontal)
    QSettings().setValue("window/geometry", big.saveGeometry())
    QSettings().setValue("window/state", big.saveState(LAYOUT_VERSION))
    big.evaluator.shutdown()
    big.workload_panel.shutdown()
    big.close()

    win = interactive_window()
    available = win.screen().availableGeometry()
    assert available.contains(win.geometry())
    win.show()
    QApplication.processEvents()
    assert win.view.width() >= MIN_CANVAS_WIDTH_PX


# --- the default layout: every inspector field whole ---------------------------------------
def _cut_fields(window) -> list[str]:
    """Inspector fields not wholly inside the inspector's visible area."""
    viewport = window.inspector.viewport()
    cut = []
    for name, field in window.inspector.fields.items():
        area = QRect(field.mapTo(viewport, QPoint(0, 0)), field.size())
        if not viewport.rect().contains(area):
            cut.append(name)
    return cut


@pytest.mark.parametrize("available", [LAPTOP, DESKTOP], ids=["1366x768", "1600x1000"])
def test_default_layout_shows_every_field_of_a_link_and_a_component(window, small_design, available):
    window.fit_to_screen(available)
    window.load_design(small_design, None)
    QApplication.processEvents()
    window.scene.select([], [small_design.root.links[0].id])
    assert {"a", "b", "kind", "speed_gbit_s", "count", "length_m", "medium"} <= set(window.inspector.fields)
    assert _cut_fields(window) == []
    spine = next(key for key, child in small_design.root.children.items() if getattr(child, "tier", "") == "spine")
    window.scene.select([spine])
    assert "overrides.failure_rate_per_1000_days" in window.inspector.fields
    assert _cut_fields(window) == []
    assert window.view.width() >= MIN_CANVAS_WIDTH_PX
    status = window.statusBar()
    assert status.geometry().bottom() < window.height()  # the status bar is inside the window
    # the metric tabs show their titles whole
    bars = [bar for bar in window.findChildren(QTabBar) if bar.parent() is window and bar.isVisible()
            and "Performance" in [bar.tabText(i) for i in range(bar.count())]]
    assert bars and bars[0].width() >= bars[0].sizeHint().width()


def test_reset_layout_restores_the_default_split(window, small_design):
    window.fit_to_screen(LAPTOP)
    window.load_design(small_design, None)
    window.resizeDocks([window.inspector_dock], [60], Qt.Orientation.Vertical)
    window.scene.select([], [small_design.root.links[0].id])
    assert _cut_fields(window)
    window.reset_layout()
    QApplication.processEvents()
    assert _cut_fields(window) == []
