"""The default dock layout for a window size: how wide the side columns are, how much height
the Inspector needs, and the narrowest canvas anyone can still work on."""

from __future__ import annotations

from core.catalog import Catalog
from core.model import Block, Design, Link, Node
from designer.editor.inspector import InspectorWidget
from designer.project.document import DesignDocument

MIN_CANVAS_WIDTH_PX = 400   # a card (200 px) with room around it to drop and connect
LEFT_SHARE, LEFT_PX = 0.18, (220, 310)    # palette and outline column: share of the width, bounds
RIGHT_SHARE, RIGHT_PX = 0.36, (400, 520)  # inspector and metric panels (six tabs side by side)
MIN_SIDE_PX = 120            # below this a side column is useless; the canvas gives way first
SEPARATORS_PX = 12           # dock separators and frames across the width
METRICS_MIN_PX = 220         # the metric panels under the Inspector keep at least this height


def _clamp(value: float, bounds: tuple[int, int]) -> int:
    return int(min(max(round(value), bounds[0]), bounds[1]))


def side_widths_px(window_width: int, right_wanted_px: int = 0) -> tuple[int, int]:
    """Widths of the left (palette, outline) and right (inspector, metrics) columns: a share
    of the window within bounds, the right one at least ``right_wanted_px`` (its tab titles
    unelided). When the canvas would fall below MIN_CANVAS_WIDTH_PX the left column gives way
    to the tab titles down to MIN_SIDE_PX, then both shrink together."""
    left = _clamp(window_width * LEFT_SHARE, LEFT_PX)
    right = max(_clamp(window_width * RIGHT_SHARE, RIGHT_PX), right_wanted_px)
    room = window_width - MIN_CANVAS_WIDTH_PX - SEPARATORS_PX
    if left + right > room:
        if right == right_wanted_px and room - right >= MIN_SIDE_PX:
            # whole tab titles first ("Po…" is no title): the palette column gives way for them
            left = room - right
        else:
            left = max(MIN_SIDE_PX, int(left * room / (left + right)))
            right = max(MIN_SIDE_PX, room - left)
    return left, right


def inspector_form_height_px(catalog: Catalog) -> int:
    """The height the Inspector needs to show every field of its longest forms whole (a link,
    and a switch with tier, failure rate and power), measured on a throwaway inspector so it
    follows the fields, fonts and style actually in use."""
    switch = next(iter(catalog.by_kind("switch")), None)
    server = next(iter(catalog.by_kind("server")), None)
    if switch is None or server is None:
        return 0
    probe_design = Design("probe", Block("root", "probe", children={
        "leaf": Node("leaf", switch.id, tier="leaf"), "node": Node("node", server.id)},
        links=[Link("link", "leaf", "node")]))
    document = DesignDocument(probe_design)
    probe = InspectorWidget(document, catalog)
    heights = []
    for ids, link_ids in ((["leaf"], []), ([], ["link"])):
        probe.show_selection("", ids, link_ids)
        body = probe.widget()
        body.adjustSize()
        body.layout().activate()  # positions the fields of a widget that is never shown
        bottom = max(field.mapTo(body, field.rect().bottomLeft()).y() for field in probe.fields.values())
        heights.append(bottom + body.layout().contentsMargins().bottom() + 1)
    probe.deleteLater()
    document.deleteLater()
    return max(heights)
