"""The diagram as drawn, as a diagrams.net (draw.io) file: one page per block.

The first page is the top level; every block gets a page of its own with its children and links,
so a repeated block is drawn once, as on the canvas. A component is a card at its drawn position
("Leaf x8 / QM9700"), a block a card naming its count and role, and a link bundle one edge
labelled with its cables and speed ("x256 400G"). A link to a component inside a block ends on
that block's card, as the canvas draws a collapsed block. The file is mxGraph XML (``mxfile`` /
``diagram`` / ``mxGraphModel`` / ``mxCell``), uncompressed so that it diffs and greps.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from core.atomic_write import atomic_write_bytes
from core.model import Block, Design, Link, Node

# The canvas's card size (designer/canvas/items.py): cards are centred on a child's x, y.
CARD_W, CARD_H = 200.0, 64.0
# Pages past this many blocks would make a file no one opens; the rest are summarised.
MAX_PAGES = 200
_NODE_STYLE = "rounded=1;whiteSpace=wrap;html=1;fillColor=#dae8fc;strokeColor=#6c8ebf;"
_BLOCK_STYLE = "rounded=1;whiteSpace=wrap;html=1;fillColor=#fff2cc;strokeColor=#d6b656;dashed=1;"
_EDGE_STYLE = {"scale-up": "endArrow=none;strokeColor=#82b366;strokeWidth=2;",
               "scale-out": "endArrow=none;strokeColor=#6c8ebf;",
               "storage": "endArrow=none;strokeColor=#b85450;dashed=1;",
               "frontend": "endArrow=none;strokeColor=#999999;dashed=1;"}


def drawio_xml(design: Design) -> bytes:
    mxfile = ET.Element("mxfile", host="Cluster Designer", type="device")
    pages = [("", design.root)] + list(design.root.iter_blocks())
    for number, (path, block) in enumerate(pages[:MAX_PAGES]):
        _page(mxfile, number, path, block, design.name)
    ET.indent(mxfile)
    return ET.tostring(mxfile, encoding="utf-8", xml_declaration=True)


def write_drawio(design: Design, path: str | Path) -> None:
    atomic_write_bytes(path, drawio_xml(design))


def _page(mxfile: ET.Element, number: int, path: str, block: Block, design_name: str) -> None:
    title = design_name if not path else f"{path} ({block.label}, x{block.count})"
    diagram = ET.SubElement(mxfile, "diagram", id=f"page{number}", name=title[:120])
    model = ET.SubElement(diagram, "mxGraphModel", grid="1", gridSize="10", guides="1",
                          tooltips="1", connect="1", arrows="0", page="0")
    root = ET.SubElement(model, "root")
    ET.SubElement(root, "mxCell", id="0")
    ET.SubElement(root, "mxCell", id="1", parent="0")
    cell_of: dict[str, str] = {}
    for index, (child_id, child) in enumerate(block.children.items()):
        cell = f"c{index}"
        cell_of[child_id] = cell
        _vertex(root, cell, child)
    for index, link in enumerate(block.links):
        _edge(root, f"e{index}", link, cell_of)


def _vertex(root: ET.Element, cell: str, child: Node | Block) -> None:
    if isinstance(child, Block):
        role = f" ({child.role})" if child.role else ""
        value = f"<b>{_html(child.label)}</b><br>x{child.count} block{role}, {len(child.children)} items"
        style = _BLOCK_STYLE
    else:
        tier = f", {child.tier}" if child.tier else ""
        value = f"<b>{_html(child.label)}</b> x{child.count}<br>{_html(child.catalog_id)}{tier}"
        style = _NODE_STYLE
    vertex = ET.SubElement(root, "mxCell", id=cell, value=value, style=style, vertex="1", parent="1")
    ET.SubElement(vertex, "mxGeometry", {"x": f"{child.x - CARD_W / 2:g}", "y": f"{child.y - CARD_H / 2:g}",
                                         "width": f"{CARD_W:g}", "height": f"{CARD_H:g}", "as": "geometry"})


def _edge(root: ET.Element, cell: str, link: Link, cell_of: dict[str, str]) -> None:
    # An end inside a block ("su/leaf") is drawn on the block's card ("su").
    source, target = cell_of.get(link.a.split("/")[0]), cell_of.get(link.b.split("/")[0])
    if source is None or target is None:
        return
    value = f"x{link.count} {link.speed_gbit_s:g}G {link.kind}"
    edge = ET.SubElement(root, "mxCell", id=cell, value=value, style=_EDGE_STYLE.get(link.kind, ""),
                         edge="1", parent="1", source=source, target=target)
    ET.SubElement(edge, "mxGeometry", {"relative": "1", "as": "geometry"})


def _html(text: str) -> str:
    # values are HTML labels (html=1): escape what the label's own markup would take as tags
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
