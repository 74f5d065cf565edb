"""A block too big to draw item by item (an import: every server and switch its own component,
a link per cabled pair) is drawn as group cards and bundles; a single component or link is
still found, selected, edited, deleted and undone. The threshold is forced low here so a
176-component block is aggregated (the real one is designer.canvas.aggregate's)."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QMenu

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.operations import SetProperty
from designer.canvas import aggregate
from designer.canvas.aggregate_items import BundleItem, GroupCard
from tests.separate_design import draw_separately

SERVERS, LEAVES, SPINES = 128, 32, 16


@pytest.fixture
def imported():
    """1,024 GPUs as an inventory import: 176 components of count 1 and 1,536 links in one block."""
    catalog = default_catalog()
    return draw_separately(generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog), catalog)


@pytest.fixture
def low_threshold(monkeypatch):
    monkeypatch.setattr(aggregate, "AGGREGATE_CHILDREN", 150)
    monkeypatch.setattr(aggregate, "AGGREGATE_LINKS", 100_000)


@pytest.fixture
def shown(window, imported, low_threshold):
    window.load_design(imported, None)
    return window


def _card(window, catalog_id: str, tier: str = "") -> GroupCard:
    return next(item for item in window.scene.items() if isinstance(item, GroupCard)
                and (item.group.catalog_id, item.group.tier) == (catalog_id, tier))


def _bundle(window, tier: str) -> BundleItem:
    """The bundle from the servers' card, or between the leaf and spine cards."""
    return next(item for item in window.scene.items() if isinstance(item, BundleItem)
                and {item.source.group.tier, item.target.group.tier} == ({"", "leaf"} if tier == "leaf" else
                                                                         {"leaf", "spine"}))


def test_a_big_block_is_three_group_cards_two_bundles_and_a_banner(shown):
    scene = shown.scene
    assert scene.cards() == [] and scene.summary is not None
    cards = [item for item in scene.items() if isinstance(item, GroupCard)]
    assert sorted((c.title(), len(c.group.members)) for c in cards) == [
        ("DGX-H100", SERVERS), ("QM9700 · leaf", LEAVES), ("QM9700 · spine", SPINES)]
    root = shown.document.design.root
    bundles = [item for item in scene.items() if isinstance(item, BundleItem)]
    assert len(bundles) == 2
    assert sum(b.bundle.cables for b in bundles) == sum(link.count for link in root.links)
    assert _bundle(shown, "leaf").label == f"×{SERVERS * 8:,} 400G"  # 8 rails a server
    banner = shown.view.banner  # what the user reads over the canvas
    assert banner.isVisible() and banner.geometry().top() >= shown.view.viewport().geometry().top()
    assert "Aggregated view" in banner.text() and "176 components" in banner.text() and "1,536 links" in banner.text()
    top_card = shown.view.mapFromScene(_card(shown, "QM9700", "spine").sceneBoundingRect().topLeft())
    assert top_card.y() > banner.geometry().bottom() - shown.view.viewport().geometry().top()  # not hidden under it
    # Rows: spines above leaves above servers, whatever the imported positions say.
    assert _card(shown, "QM9700", "spine").y() < _card(shown, "QM9700", "leaf").y() < _card(shown, "DGX-H100").y()
    assert shown.outline.model.rowCount(shown.outline.model.index_of("")) == SERVERS + LEAVES + SPINES


def test_the_same_block_under_the_threshold_is_drawn_item_by_item(window, imported, monkeypatch):
    monkeypatch.setattr(aggregate, "AGGREGATE_CHILDREN", 200)
    monkeypatch.setattr(aggregate, "AGGREGATE_LINKS", 2_000)
    window.load_design(imported, None)
    assert window.scene.summary is None and len(window.scene.cards()) == SERVERS + LEAVES + SPINES
    assert not any(isinstance(item, GroupCard) for item in window.scene.items())
    assert window.view.banner.isHidden()


def test_clicking_a_card_lists_its_members_and_picking_one_edits_it_with_undo(shown, qtbot):
    view, scene, inspector = shown.view, shown.scene, shown.inspector
    card = _card(shown, "DGX-H100")
    view.centerOn(card)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(card.pos()))
    assert scene.selected_groups() == [card.key] and scene.selected_ids() == []
    members = inspector.members
    assert members.model.rowCount() == SERVERS and "128 separate components" in inspector._info.text()
    members.filter.setText("nodes-12")
    members.apply_filter()  # what the typing pause triggers
    assert [members.model.value(r) for r in range(members.model.rowCount())] == [
        "nodes-12", "nodes-120", "nodes-121", "nodes-122", "nodes-123", "nodes-124", "nodes-125", "nodes-126",
        "nodes-127"]
    members.picked.emit("nodes-12")
    assert scene.selected_ids() == ["nodes-12"] and card.isSelected() and card.status() == "selected: nodes-12"
    count = inspector.fields["count"]
    count.setValue(3)
    design = shown.document.design
    assert design.node("nodes-12").count == 3 and card.group.units == SERVERS + 2
    shown.document.undo_stack.undo()
    assert design.node("nodes-12").count == 1 and card.group.units == SERVERS
    assert scene.selected_ids() == ["nodes-12"]  # still picked after the undo
    # Back to the list, filtered as it was; and a click on the card (already selected) lists
    # the members again.
    inspector.back.click()
    assert scene.selected_ids() == [] and inspector.members.filter.text() == "nodes-12"
    assert inspector.members.model.rowCount() == 9 and inspector.members.count_label.text() == "9 of 128 components"
    inspector.members.picked.emit("nodes-12")
    assert scene.selected_ids() == ["nodes-12"]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(card.pos()))
    assert scene.selected_ids() == [] and scene.selected_groups() == [card.key]


def test_one_link_of_a_picked_server_is_deleted_and_undeleted(shown, qtbot):
    scene, inspector, design = shown.scene, shown.inspector, shown.document.design
    scene.select(["nodes-7"])
    links = inspector.members
    assert links.model.rowCount() == 8  # its 8 NIC rails
    position = links.model.value(3)
    link = design.root.links[int(position)]
    links.picked.emit(position)
    assert scene.selected_link_ids() == [link.id] and scene.selected_ids() == []
    bundle = _bundle(shown, "leaf")
    assert bundle.isSelected() and inspector.fields["a"].currentText() == link.a
    before = len(design.root.links)
    with qtbot.waitSignal(shown.evaluator.finished, timeout=30_000):
        shown.canvas_actions.delete.trigger()
    assert len(design.root.links) == before - 1 and link.id not in {l.id for l in design.root.links}
    assert bundle.bundle.links == SERVERS * 8 - 1
    assert scene.selected_link_ids() == []
    shown.document.undo_stack.undo()
    assert design.root.links[int(position)] is link and bundle.bundle.links == SERVERS * 8


def test_deleting_a_picked_server_reaches_the_panels(shown, qtbot):
    with qtbot.waitSignal(shown.evaluator.finished, timeout=30_000) as first:
        shown.evaluate_now()
    gpus = first.args[0].evaluation.counts.gpus
    shown.scene.select(["nodes-0"])
    with qtbot.waitSignal(shown.evaluator.finished, timeout=30_000) as after:
        shown.canvas_actions.delete.trigger()
    assert after.args[0].evaluation.counts.gpus == gpus - 8
    assert shown.overview_panel.value("GPUs") == f"{gpus - 8:,}"
    assert len(_card(shown, "DGX-H100").group.members) == SERVERS - 1


def test_select_all_selects_the_cards_and_deletes_nothing(shown):
    shown.canvas_actions.select_all.trigger()
    assert len(shown.scene.selected_groups()) == 3 and shown.scene.selected_ids() == []
    assert not shown.canvas_actions.delete.isEnabled()
    assert "3 cards and lines selected" in shown.inspector._info.text()


def test_a_bundle_lists_its_links_and_its_context_menu_offers_delete_once_one_is_picked(shown):
    scene, inspector = shown.scene, shown.inspector
    bundle = _bundle(shown, "spine")
    scene.select_bundle(bundle.key)
    assert inspector.members.model.rowCount() == bundle.bundle.links
    menu = QMenu()
    shown.canvas_actions._fill_aggregate_menu(menu, bundle)
    assert shown.canvas_actions.delete not in menu.actions()
    inspector.members.picked.emit(inspector.members.model.value(0))
    assert len(scene.selected_link_ids()) == 1 and bundle.picked == scene.selected_link_ids()
    menu = QMenu()
    shown.canvas_actions._fill_aggregate_menu(menu, bundle)
    assert shown.canvas_actions.delete in menu.actions() and shown.canvas_actions.delete.isEnabled()


def test_the_outline_and_its_search_reveal_one_member(shown):
    outline, scene = shown.outline, shown.scene
    outline.reveal.emit("leaf-3")
    assert scene.selected_ids() == ["leaf-3"] and _card(shown, "QM9700", "leaf").isSelected()
    outline.search.setText("spine-1")
    outline.find()
    found = [outline.matches_model.value(r) for r in range(outline.matches_model.rowCount())]
    assert found == ["spine-1", *(f"spine-1{n}" for n in range(6))]
    outline.matches.clicked.emit(outline.matches_model.index(0))
    assert scene.selected_ids() == ["spine-1"]


def test_a_right_click_on_a_card_selects_it_and_a_double_click_does_not_crash(shown, qtbot):
    view = shown.view
    card = _card(shown, "QM9700", "leaf")
    view.centerOn(card)
    point = view.mapFromScene(card.pos())
    asked = []
    view.context_menu_requested.disconnect(shown.canvas_actions.show_context_menu)  # a menu would wait
    view.context_menu_requested.connect(lambda _pos, item: asked.append(item))
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, view.mapToGlobal(point)))
    assert asked == [card] and shown.scene.selected_groups() == [card.key]
    menu = QMenu()
    shown.canvas_actions._fill_aggregate_menu(menu, card)
    assert "Pick one" in menu.actions()[0].text() and shown.canvas_actions.select_all in menu.actions()
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert shown.scene.block_path == "" and shown.scene.selected_groups() == [card.key]


def test_the_outline_follows_a_deletion_and_its_undo_row_by_row(shown):
    """A reset would close the open blocks and lay out 100,000 rows again after every edit."""
    outline = shown.outline
    model = outline.model
    resets, removed, inserted = [], [], []
    model.modelReset.connect(lambda: resets.append(True))
    model.rowsRemoved.connect(lambda _parent, first, last: removed.append((first, last)))
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    shown.scene.select(["nodes-5"])
    shown.canvas_actions.delete.trigger()
    assert removed == [(5, 5)] and model.rowCount(model.index_of("")) == SERVERS + LEAVES + SPINES - 1
    shown.document.undo_stack.undo()
    assert inserted == [(5, 5)] and model.index_of("nodes-5").row() == 5
    shown.document.push(SetProperty("nodes-6", "count", 4))
    assert outline.item_for("nodes-6").text(1) == "×4"
    assert resets == [] and outline.tree.isExpanded(model.index_of(""))


def test_a_big_child_block_expanded_shows_its_groups_not_its_first_children(window, imported, low_threshold):
    from core.operations import Group

    imported.apply(Group("", tuple(imported.root.children), "pod", "Imported pod"))
    imported.apply(SetProperty("pod", "collapsed", False))
    window.load_design(imported, None)
    card = window.scene.card("pod")
    preview = card.preview_items()
    assert sorted((t.label, t.count) for t in preview.tiles) == [
        ("DGX-H100", SERVERS), ("QM9700 · leaf", LEAVES), ("QM9700 · spine", SPINES)]
    assert preview.hidden == 0  # not "… 136 more": every group is a tile
    assert sorted(w.count for w in preview.wires) == sorted(
        b.cables for b in window.scene._summarizer("pod").summarize(imported.block("pod")).bundles)  # noqa: SLF001
    assert card.summary == f"DGX-H100 ×{SERVERS} · QM9700 · leaf ×{LEAVES} · QM9700 · spine ×{SPINES}"


def test_a_component_placed_from_the_palette_joins_the_view_picked_and_undoes(shown):
    before = len(shown.document.design.root.children)
    new_id = shown.view.place("AI400X2")
    assert len(shown.document.design.root.children) == before + 1
    assert shown.scene.selected_ids() == [new_id] and shown.inspector.fields["count"].value() == 1
    card = _card(shown, "AI400X2")
    assert card.isSelected() and card.status() == f"selected: {new_id}"
    shown.document.undo_stack.undo()
    assert not any(isinstance(i, GroupCard) and i.group.catalog_id == "AI400X2" for i in shown.scene.items())
    assert shown.scene.selected_ids() == []
