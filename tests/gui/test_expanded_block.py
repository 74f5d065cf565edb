"""An expanded block card draws a small read-only diagram of its children and internal links."""

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt

from core.model import Block, Design, Link, Node
from core.operations import AddLink, AddNode, SetProperty
from core.project import load_project
from designer.canvas.items import BlockItem
from designer.canvas.preview import PREVIEW_MAX_CHILDREN

SUPERPOD = Path(__file__).resolve().parents[2] / "resources" / "examples" / "dgx-h100-superpod-4su.json"


def _expand(window, key: str) -> BlockItem:
    """Expand ``key`` the way a user does: select it, Collapse / Expand."""
    window.scene.select([key])
    window.canvas_actions.toggle_collapse.trigger()
    card = window.scene.card(key)
    assert isinstance(card, BlockItem) and not card.collapsed
    return card


def _tiles_in_item_coordinates(card: BlockItem) -> list[QRectF]:
    centre = card.diagram_rect().center()
    return [tile.rect.translated(centre) for tile in card.preview_items().tiles]


def _on_border(point: QPointF, rect: QRectF, tolerance: float = 0.5) -> bool:
    inside = rect.adjusted(-tolerance, -tolerance, tolerance, tolerance).contains(point)
    strictly_inside = rect.adjusted(tolerance, tolerance, -tolerance, -tolerance).contains(point)
    return inside and not strictly_inside


def test_expanded_block_draws_one_tile_per_child_and_one_wire_per_link(window):
    window.load_design(load_project(SUPERPOD), SUPERPOD)
    su = window.document.design.root.children["su"]
    card = window.scene.card("su")
    collapsed = card.card_rect()
    assert card.preview_items().tiles == ()
    card = _expand(window, "su")
    expanded = card.card_rect()
    assert expanded.width() > collapsed.width() and expanded.height() > collapsed.height()
    assert expanded.top() == collapsed.top()  # the header stays put; the card grows downwards
    preview = card.preview_items()
    assert [(t.label, t.count) for t in preview.tiles] == [(c.label, c.count) for c in su.children.values()]
    assert [t.kind for t in preview.tiles] == ["server", "switch"]
    order = list(su.children)
    assert [(w.a, w.b, w.kind, w.count) for w in preview.wires] == [
        (order.index(link.a), order.index(link.b), link.kind, link.count) for link in su.links]
    assert preview.hidden == 0
    # Everything sits inside the diagram frame, which sits inside the card.
    assert expanded.contains(card.diagram_rect())
    assert all(card.diagram_rect().contains(rect) for rect in _tiles_in_item_coordinates(card))
    # Compute nodes sit below the leaf, as on the block's own canvas, with room for the count.
    nodes, leaf = _tiles_in_item_coordinates(card)
    assert nodes.top() > leaf.bottom()
    assert preview.wires[0].label_rect is not None
    window.view.viewport().grab()  # paints the expanded card


def test_external_links_end_on_the_expanded_card_border(window):
    window.load_design(load_project(SUPERPOD), SUPERPOD)
    card = _expand(window, "su")
    rect = card.card_rect().translated(card.pos())
    ends = []
    for link in card.links:
        path = link.path()
        ends.append(path.pointAtPercent(0.0) if link.source is card else path.pointAtPercent(1.0))
    assert len(ends) == 2  # up to the spines, across to the storage fabric
    assert all(_on_border(point, rect) for point in ends)
    # The storage fabric is up and to the left: its link leaves the (wider) card's top edge
    # left of centre, the spine link leaves straight up.
    storage = window.scene.link_item("st1").path()
    start = storage.pointAtPercent(0.0)
    assert start.x() < card.pos().x() and abs(start.y() - rect.top()) < 0.5


def test_preview_follows_edits_inside_the_block_from_the_parent_level(window):
    window.load_design(load_project(SUPERPOD), SUPERPOD)
    doc = window.document
    card = _expand(window, "su")
    assert window.scene.block_path == ""
    doc.push(SetProperty("su/nodes", "count", 16))
    assert card.preview_items().tiles[0].count == 16
    size_before = card.card_rect().size()
    doc.push(AddNode("su", Node("storage", "AI400X2", 2, "Storage", x=260, y=160)))
    assert [t.label for t in card.preview_items().tiles] == ["Compute nodes", "Leaf", "Storage"]
    assert card.card_rect().width() > size_before.width()  # room for the new column
    doc.push(AddLink("su", Link("s1", "storage", "leaf", kind="storage", speed_gbit_s=200, count=4)))
    wires = card.preview_items().wires
    assert [(w.a, w.b, w.kind, w.count) for w in wires][-1] == (2, 1, "storage", 4)
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert len(card.preview_items().tiles) == 2 and len(card.preview_items().wires) == 1
    # Collapsing drops the preview and the card shrinks back.
    window.scene.select(["su"])
    window.canvas_actions.toggle_collapse.trigger()
    assert card.preview_items().tiles == () and card.card_rect().height() < size_before.height()


def test_nested_blocks_are_tiles_and_links_into_them_attach_to_their_tile(window, big_design):
    window.load_design(big_design, None)
    pod_id = next(k for k, v in big_design.root.children.items() if isinstance(v, Block))
    pod = big_design.root.children[pod_id]
    card = _expand(window, pod_id)
    preview = card.preview_items()
    # One tile per child of the pod; the SUs inside are not drawn child by child.
    assert len(preview.tiles) == len(pod.children)
    order = list(pod.children)
    for wire, link in zip(preview.wires, pod.links, strict=True):
        ends = {order[wire.a], order[wire.b]}
        assert ends == {link.a.split("/")[0], link.b.split("/")[0]}
    assert [t.kind == "block" for t in preview.tiles] == [isinstance(c, Block) for c in pod.children.values()]
    assert any(t.kind == "block" for t in preview.tiles)
    window.view.viewport().grab()


def test_crowded_block_caps_the_preview_and_stays_bounded(window):
    crowd = Block("crowd", "Crowd", collapsed=False)
    for i in range(PREVIEW_MAX_CHILDREN + 5):
        row, column = divmod(i, 9)
        crowd.children[f"n{i}"] = Node(f"n{i}", "DGX-H100", 1, x=column * 260, y=row * 160)
    crowd.links = [Link(f"l{i}", f"n{i}", f"n{i + 1}") for i in range(PREVIEW_MAX_CHILDREN + 4)]
    window.load_design(Design("Crowd", Block("root", children={"crowd": crowd})), None)
    card = window.scene.card("crowd")
    preview = card.preview_items()
    assert len(preview.tiles) == PREVIEW_MAX_CHILDREN and preview.hidden == 5
    # Links to children left out are not drawn; the others are.
    assert len(preview.wires) == PREVIEW_MAX_CHILDREN - 1
    rect = card.card_rect()
    assert rect.width() <= 700 and rect.height() <= 520
    tiles = _tiles_in_item_coordinates(card)
    assert all(card.diagram_rect().contains(tile) for tile in tiles)
    assert not any(a.intersects(b) for i, a in enumerate(tiles) for b in tiles[i + 1:])
    window.view.viewport().grab()


def test_double_click_on_the_preview_steps_inside(window, qtbot):
    window.load_design(load_project(SUPERPOD), SUPERPOD)
    card = _expand(window, "su")
    window.view.resetTransform()
    tile = _tiles_in_item_coordinates(card)[0]
    window.view.centerOn(card.mapToScene(tile.center()))
    point = window.view.mapFromScene(card.mapToScene(tile.center()))
    qtbot.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: window.scene.block_path == "su")


def test_expanding_moves_neighbours_aside_in_the_same_undo_step(window):
    # In the 100k example the two pod blocks sit 260 apart: expanded, the first would cover
    # the second. Expanding moves the cards to its right (and only them) clear of it.
    big = Path(__file__).resolve().parents[2] / "resources" / "examples" / "h100-100k.json"
    window.load_design(load_project(big), big)
    root = window.document.design.root
    before = {key: (child.x, child.y) for key, child in root.children.items()}
    steps = window.document.undo_stack.count()
    card = _expand(window, "pod")
    grown = card.card_rect().translated(card.pos())
    for key, other in ((k, window.scene.card(k)) for k in root.children if k != "pod"):
        assert not grown.intersects(other.card_rect().translated(other.pos())), key
    moved = {k for k, child in root.children.items() if (child.x, child.y) != before[k]}
    assert moved and all(root.children[k].x > before[k][0] for k in moved)
    assert root.children["pod"].x == before["pod"][0]
    assert window.document.undo_stack.count() == steps + 1
    window.document.undo_stack.undo()
    assert root.children["pod"].collapsed
    assert {key: (child.x, child.y) for key, child in root.children.items()} == before
