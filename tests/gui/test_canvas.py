"""Canvas gestures: palette drop, drag to connect, move, copy/paste, group, navigation."""

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent, QTextLayout, QTextOption,
)
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Block, Node
from core.operations import SetProperty


def _drop(win, catalog_id, pos: QPoint):
    data = win.palette.mime_for(catalog_id)
    viewport = win.view.viewport()
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(pos, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(pos), actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, drop)


def test_palette_drop_adds_component(window):
    root = window.document.design.root
    assert not root.children
    _drop(window, "DGX-H100", QPoint(200, 150))
    nodes = [c for c in root.children.values() if isinstance(c, Node)]
    assert [n.catalog_id for n in nodes] == ["DGX-H100"]
    assert window.scene.card(nodes[0].id) is not None
    assert window.document.undo_stack.count() == 1
    assert window.isWindowModified()


def test_dragging_onto_a_link_previews_a_free_spot_and_drops_there(window):
    view = window.view
    a = view.place("QM9700", QPointF(0, -200))
    b = view.place("DGX-H100", QPointF(0, 200))
    view.connect_items(a, b)
    view.resetTransform()
    view.centerOn(0, 0)
    link = window.scene.link_item(window.document.design.root.links[0].id)
    pos = view.mapFromScene(QPointF(0, 0))  # on the line, under its label
    data = window.palette.mime_for("BlueField-3")
    actions = Qt.DropAction.CopyAction
    before = view.viewport().grab().toImage()
    for event in (QDragEnterEvent(pos, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier),
                  QDragMoveEvent(pos, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)):
        QApplication.sendEvent(view.viewport(), event)
    spot = view.ghost_spot
    assert spot is not None
    ghost = QRectF(spot.x() - 100, spot.y() - 32, 200, 64)
    assert not link.mapToScene(link.shape()).intersects(ghost)  # off the line and its label
    assert not any(card.mapRectToScene(card.card_rect()).intersects(ghost) for card in window.scene.cards())
    assert abs(spot.x()) <= 200 and abs(spot.y()) <= 200  # near where the pointer is
    assert view.viewport().grab().toImage() != before  # the outline is drawn
    drop = QDropEvent(QPointF(pos), actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), drop)
    added = [n for n in window.document.design.root.children.values() if n.catalog_id == "BlueField-3"]
    assert [(n.x, n.y) for n in added] == [(spot.x(), spot.y())]  # lands where the preview showed
    assert view.ghost_spot is None


def test_a_drag_that_leaves_the_canvas_removes_the_preview(window):
    view = window.view
    pos = QPoint(120, 90)
    data = window.palette.mime_for("QM9700")
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), enter)
    assert view.ghost_spot is not None
    QApplication.sendEvent(view.viewport(), QDragLeaveEvent())
    assert view.ghost_spot is None and not window.document.design.root.children


def test_double_click_in_palette_places_at_centre(window):
    item = window.palette.item_for("QM9700")
    window.palette.tree.itemDoubleClicked.emit(item, 0)
    assert [c.catalog_id for c in window.document.design.root.children.values()] == ["QM9700"]


def test_palette_search_filters(window):
    window.palette.search.setText("quantum")
    visible = [window.palette.item_for(i) for i in ("QM9700", "DGX-H100")]
    assert not visible[0].isHidden() and visible[1].isHidden()


def test_drag_between_components_adds_link(window, qtbot, point_of):
    a = window.view.place("DGX-H100", QPointF(0, 200))
    b = window.view.place("QM9700", QPointF(0, -100))
    window.view.resetTransform()
    window.view.centerOn(0, 50)
    viewport = window.view.viewport()
    start, end = point_of(a), point_of(b)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, start)
    qtbot.mouseMove(viewport, (start + end) / 2)
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, end)
    links = window.document.design.root.links
    assert len(links) == 1
    link = links[0]
    assert {link.a, link.b} == {a, b}
    assert link.kind == "scale-out" and link.speed_gbit_s == 400 and link.count == 8
    assert window.scene.link_item(link.id) is not None
    assert window.canvas_actions.connect_mode.isChecked() is False


def test_connect_mode_and_move_with_snap(window, qtbot, point_of):
    a = window.view.place("DGX-H100", QPointF(0, 200))
    b = window.view.place("AI400X2", QPointF(300, 200))
    window.view.resetTransform()
    window.view.centerOn(150, 200)
    window.canvas_actions.connect_mode.trigger()
    viewport = window.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point_of(a))
    qtbot.mouseMove(viewport, point_of(b))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point_of(b))
    assert window.document.design.root.links[0].kind == "storage"
    window.canvas_actions.connect_mode.trigger()
    # A drag is one MoveItems on release, snapped to the grid.
    before = window.document.undo_stack.count()
    start = point_of(a) + QPoint(-60, 0)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, start + QPoint(0, 9 * step))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(0, 45))
    assert window.document.undo_stack.count() == before + 1
    node = window.document.design.root.children[a]
    assert node.y % 20 == 0 and node.y != 200
    window.document.undo_stack.undo()
    node = window.document.design.root.children[a]  # edits replace a node rather than change it
    assert (node.x, node.y) == (0, 200)
    assert window.scene.card(a).pos() == QPointF(0, 200)


def test_copy_paste_and_duplicate_keep_internal_links(window):
    doc = window.document
    a = window.view.place("DGX-H100", QPointF(0, 200))
    b = window.view.place("QM9700", QPointF(0, 0))
    c = window.view.place("QM9700", QPointF(300, 0))
    window.view.connect_items(a, b)
    window.view.connect_items(b, c)
    window.scene.select([a, b])
    window.canvas_actions.copy.trigger()
    window.canvas_actions.paste.trigger()
    root = doc.design.root
    assert len(root.children) == 5 and len(root.links) == 3  # only a-b was internal
    new_ids = window.scene.selected_ids()
    assert len(new_ids) == 2 and not set(new_ids) & {a, b, c}
    pasted = root.links[-1]
    assert {pasted.a, pasted.b} == set(new_ids)
    window.canvas_actions.duplicate.trigger()
    assert len(root.children) == 7 and len(root.links) == 4
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert len(root.children) == 3 and len(root.links) == 2


def test_delete_group_ungroup_and_navigation(window):
    doc = window.document
    a = window.view.place("DGX-H100", QPointF(0, 200))
    b = window.view.place("QM9700", QPointF(0, 0))
    spine = window.view.place("QM9700", QPointF(300, -200))
    window.view.connect_items(a, b)
    window.view.connect_items(b, spine)
    window.scene.select([a, b])
    window.canvas_actions.group.trigger()
    root = doc.design.root
    group_id = window.scene.selected_ids()[0]
    group = root.children[group_id]
    assert isinstance(group, Block) and set(group.children) == {a, b}
    assert len(group.links) == 1 and root.links[0].a == f"{group_id}/{b}"
    # The outer link is drawn to the block's card.
    assert window.scene.link_item(root.links[0].id).source is window.scene.card(group_id)
    # Repeat the block; the badge and outline follow.
    from core.operations import SetProperty
    doc.push(SetProperty(group_id, "count", 4))
    assert window.scene.card(group_id).count == 4
    assert window.outline.item_for(group_id).text(1) == "×4"
    # Step inside with the canvas action, then out again through the breadcrumb.
    window.canvas_actions.step_in.trigger()
    assert window.scene.block_path == group_id
    assert {c.key for c in window.scene.cards()} == {a, b}
    assert [p for _, p in window.breadcrumb.crumbs] == ["", group_id]
    window.breadcrumb.navigate.emit("")
    assert window.scene.block_path == ""
    # Collapse toggles through an undo command.
    window.scene.select([group_id])
    window.canvas_actions.toggle_collapse.trigger()
    assert root.children[group_id].collapsed is False
    doc.push(SetProperty(group_id, "count", 1))
    window.scene.select([group_id])
    window.canvas_actions.ungroup.trigger()
    assert set(root.children) == {a, b, spine}
    window.scene.select([spine])
    window.canvas_actions.delete.trigger()
    assert spine not in root.children and len(root.links) == 1


def test_scene_draws_one_item_per_child_for_100k(window, big_design):
    window.load_design(big_design, None)
    cards = window.scene.cards()
    assert len(cards) == len(big_design.root.children)
    assert len(window.scene.items()) < 50
    # A link into a child block ends on that block's card.
    link = big_design.root.links[0]
    item = window.scene.link_item(link.id)
    assert {item.source.key, item.target.key} == {link.a.split("/")[0], link.b.split("/")[0]}
    # Stepping inside a pod still shows only its own children.
    pod = next(k for k, v in big_design.root.children.items() if isinstance(v, Block))
    window.canvas_actions.enter_block(pod)
    assert len(window.scene.cards()) == len(big_design.root.children[pod].children)


def test_zoom_and_fit(window, small_design):
    window.load_design(small_design, None)
    window.view.fit()
    level = window.view.zoom_level()
    window.canvas_actions.zoom_in.trigger()
    assert window.view.zoom_level() > level
    window.view.zoom(1e-6)
    assert window.view.zoom_level() >= 0.03 - 1e-9


def _filled(window) -> float:
    """Share of the viewport (the larger of width and height) the diagram covers."""
    shown = window.view.mapFromScene(window.scene.content_rect()).boundingRect()
    viewport = window.view.viewport().rect()
    assert viewport.contains(shown)
    return max(shown.width() / viewport.width(), shown.height() / viewport.height())


def _fitted(window) -> bool:
    """The whole diagram is visible and as large as fit() makes it (it fills the view, or a
    small diagram reached the zoom cap)."""
    from designer.canvas.view import FIT_MAX_ZOOM

    return _filled(window) > 0.6 or abs(window.view.zoom_level() - FIT_MAX_ZOOM) < 1e-6


def test_design_opened_before_the_window_is_sized_fills_the_canvas(qtbot, big_design):
    from core.catalog import default_catalog
    from designer.window.main_window import MainWindow

    win = MainWindow(default_catalog(), interactive=False)
    qtbot.addWidget(win)
    win.resize(700, 500)
    win.load_design(big_design, None)  # the command line path: load, then show
    win.show()
    qtbot.waitUntil(lambda: win.view.auto_fit)
    small = win.view.zoom_level()
    win.resize(1800, 1200)
    qtbot.waitUntil(lambda: win.view.zoom_level() > 2 * small and _fitted(win), timeout=5_000)
    # Once the user zooms, resizing no longer refits.
    win.canvas_actions.zoom_in.trigger()
    level = win.view.zoom_level()
    win.resize(1600, 1000)
    QApplication.processEvents()
    assert win.view.zoom_level() == level
    win.document.undo_stack.setClean()
    win.evaluator.shutdown()


def test_template_and_stepping_in_and_out_fit_the_view(window, small_design):
    from designer.window.wizard import TemplateWizard

    window.apply_template(TemplateWizard(window.catalog).generate())
    assert _fitted(window)
    window.load_design(small_design, None)
    su = next(k for k, v in small_design.root.children.items() if isinstance(v, Block))
    window.view.zoom(0.2)
    window.canvas_actions.enter_block(su)
    assert window.view.auto_fit and _fitted(window)
    window.view.zoom(0.2)
    window.canvas_actions.step_outside()
    assert window.view.auto_fit and _fitted(window)
    window.view.zoom(0.2)
    window.breadcrumb.navigate.emit(su)
    assert _fitted(window)


def test_components_placed_at_the_same_spot_land_on_free_grid_cells(window):
    item = window.palette.item_for("QM9700")
    for _ in range(5):
        window.palette.tree.itemDoubleClicked.emit(item, 0)
    window.view.place("DGX-H100", QPointF(0, 0))
    window.view.place("DGX-H100", QPointF(10, 10))  # a drop onto an existing card
    nodes = list(window.document.design.root.children.values())
    assert len(nodes) == 7
    assert len({(n.x, n.y) for n in nodes}) == 7
    rects = [window.scene.card(n.id).sceneBoundingRect() for n in nodes]
    cards = [window.scene.card(n.id).card_rect().translated(window.scene.card(n.id).pos()) for n in nodes]
    assert not any(a.intersects(b) for i, a in enumerate(cards) for b in cards[i + 1:])
    assert all(n.x % 20 == 0 and n.y % 20 == 0 for n in nodes)
    assert len(rects) == 7
    # The first one sits exactly where it was asked to.
    centre = window.view.mapToScene(window.view.viewport().rect().center())
    first = nodes[0]
    assert abs(first.x - centre.x()) <= 10 and abs(first.y - centre.y()) <= 10
    assert window.document.undo_stack.count() == 7


def _palette_lines(palette, item) -> list[str]:
    """The lines ``item``'s name wraps into in the width the palette draws it in."""
    tree = palette.tree
    rect = tree.visualItemRect(item)
    width = rect.width() - tree.iconSize().width() - 12  # icon and the style's text margins
    layout = QTextLayout(item.text(0), tree.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        lines.append(item.text(0)[line.textStart():line.textStart() + line.textLength()])
    layout.endLayout()
    return lines


def test_palette_wraps_long_names_at_spaces_and_keeps_model_numbers_whole(window):
    # Was: eliding in the middle, which cut "Quantum-2 QM970…InfiniBand NDR)".
    palette = window.palette
    window.palette_dock.resize(230, window.palette_dock.height())
    palette.resize(230, palette.height())
    QApplication.processEvents()
    short, long = palette.item_for("HLS-3"), palette.item_for("Q3400")
    one_line = palette.tree.visualItemRect(short).height()
    assert palette.tree.visualItemRect(long).height() > one_line  # wrapped, not elided
    assert palette.tree.visualItemRect(palette.item_for("A100-80GB-8x200G-RoCE")).height() < 2.6 * one_line
    for catalog_id in ("Q3400", "QM9700", "NVSwitch-Gen3", "OSFP-400G-SR4"):
        item = palette.item_for(catalog_id)
        lines = _palette_lines(palette, item)
        assert len(lines) > 1
        assert all(line.endswith(" ") for line in lines[:-1]), lines  # breaks at spaces only
        spec = window.catalog.get(catalog_id)
        assert item.text(0).replace("\u2060", "") == spec.name
        assert spec.name in item.toolTip(0) and "source" in item.toolTip(0)


def test_palette_group_counts_follow_the_search(window):
    palette = window.palette
    groups = {palette.tree.topLevelItem(i).text(0).split(" (")[0]: palette.tree.topLevelItem(i)
              for i in range(palette.tree.topLevelItemCount())}
    switches = len(window.catalog.by_kind("switch"))
    assert groups["Switches"].text(0) == f"Switches ({switches})"
    palette.search.setText("quantum")
    shown = sum(not groups["Switches"].child(i).isHidden() for i in range(groups["Switches"].childCount()))
    assert 0 < shown < switches
    assert groups["Switches"].text(0) == f"Switches ({shown})"
    palette.search.setText("")
    assert groups["Switches"].text(0) == f"Switches ({switches})"


def test_offscreen_size_hint_warning_is_dropped_and_others_forwarded(capsys):
    from PySide6.QtCore import QMessageLogContext, QtMsgType

    from designer.common.qtapp import message_handler

    context = QMessageLogContext()
    message_handler(QtMsgType.QtWarningMsg, context, "This plugin does not support propagateSizeHints()")
    message_handler(QtMsgType.QtWarningMsg, context, "QPainter::begin: Paint device returned engine == 0")
    err = capsys.readouterr().err
    assert "propagateSizeHints" not in err
    assert "QPainter::begin: Paint device returned engine == 0" in err


def test_drawing_an_nvl72_from_trays_and_switch_chips(window, qtbot):
    # A user drags a GB200 compute tray and an NVLink5 switch chip, sets 18 of each and connects
    # them: the link proposal is a copper scale-up bundle using all 72 NVLink ports of each tray,
    # and the panels show one 72-GPU scale-up domain.
    tray = window.view.place("GB200-Compute-Tray", QPointF(0, 200))
    chip = window.view.place("NVLink5-Switch-Chip", QPointF(0, -100))
    design = window.document.design
    for node_id in (tray, chip):
        window.document.push(SetProperty(node_id, "count", 18))
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000) as blocker:
        link_id = window.view.connect_items(tray, chip)
    link = design.root.link(link_id)
    assert (link.kind, link.speed_gbit_s, link.count, link.medium) == (
        "scale-up", 400, 18 * 72, "copper")
    assert blocker.args[0].evaluation.bandwidth.scale_up_domain_gpus == 72
    assert window.bandwidth_panel.value("Scale-up domain") == "72 GPUs"


def _answer_chooser(window, keys, seen):
    """Answer the 'Connect to which component' popup with key presses once it is shown."""
    def answer():
        menu = QApplication.activePopupWidget()
        seen.append([a.text() for a in menu.actions() if not a.isSeparator()])
        for key in keys:
            QTest.keyClick(menu, key)

    def give_up():  # a popup still open here means the keys did nothing: fail, don't hang
        menu = QApplication.activePopupWidget()
        if menu is not None:
            seen.append("still open")
            menu.close()
    QTimer.singleShot(0, window, answer)
    QTimer.singleShot(3000, window, give_up)  # dies with the window


def test_linking_to_a_block_asks_which_component(window):
    # Connecting a spine to an SU block offers the SU's components, its leaf first (the
    # likely end); Return takes it, Down + Return the other one, Escape cancels.
    doc = window.document
    window.load_design(generate_fat_tree(FatTreeOptions(256, "DGX-H100", "QM9700", tiers=2),
                                         window.catalog), None)
    root = doc.design.root
    assert "su" in root.children and "spine" in root.children
    before = len(root.links)
    seen: list = []
    _answer_chooser(window, [Qt.Key.Key_Return], seen)
    link_id = window.view.connect_items("spine", "su")
    assert seen[0] == ["su/leaf", "su/nodes"]
    assert (root.link(link_id).a, root.link(link_id).b) == ("spine", "su/leaf")
    _answer_chooser(window, [Qt.Key.Key_Down, Qt.Key.Key_Return], seen)
    link_id = window.view.connect_items("spine", "su")
    assert root.link(link_id).b == "su/nodes"
    steps = doc.undo_stack.count()
    _answer_chooser(window, [Qt.Key.Key_Escape], seen)
    assert window.view.connect_items("spine", "su") is None
    assert len(root.links) == before + 2 and doc.undo_stack.count() == steps
    assert "still open" not in seen
