"""Items of an aggregated block (designer.canvas.aggregate): one card per group of identical
children and one line per bundle of links between two groups (the view's banner says the block
is aggregated). They are laid out by the scene (imports often carry no usable positions), are
not moved by hand, and select the group or bundle; the Inspector lists its members."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle

from designer.canvas.aggregate import GroupBundle, MemberGroup
from designer.canvas.drawing import SUB_FONT, TITLE_FONT, draw_badge, elide
from designer.canvas.links import BundleLine, bundle_path, label_rect_at, paint_link
from designer.common import icons, style
from designer.common.format import count as fmt_count, speed as fmt_speed

GROUP_W, GROUP_H = 250.0, 84.0
STACK_OFFSETS = (8.0, 4.0)       # the cards peeking out behind say "many"
LOOP_REACH = 90.0                # how far a bundle from a group to itself loops out of the card


def group_name(group: MemberGroup, tier_joint: str = " ") -> str:
    """A group as the canvas and the Inspector name it: "SN5600 · leaf", "DGX-H100", "rack blocks"."""
    if group.kind == "block":
        return group.title
    return f"{group.catalog_id}{tier_joint}{group.tier}" if group.tier else group.catalog_id


def members_noun(group: MemberGroup) -> str:
    one = len(group.members) == 1
    return ("block" if one else "blocks") if group.kind == "block" else ("component" if one else "components")


class GroupCard(QGraphicsItem):
    """A group of identical children drawn as one stacked card; selecting it lists the members."""

    def __init__(self, key: str):
        super().__init__()
        self.key = key
        self.group: MemberGroup | None = None
        self.picked: list[str] = []  # members chosen in the Inspector (shown on the card)
        self.bundles: list["BundleItem"] = []
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self._hover = False

    def set_group(self, group: MemberGroup, picked: list[str]) -> None:
        self.group, self.picked = group, picked
        what = members_noun(group)
        tier = f", tier {group.tier}" if group.tier else ""
        self.setToolTip(f"{group.title}{tier}\n{len(group.members):,} {what} drawn as one card "
                        f"({group.units:,} units)\nClick to list them in the Inspector")
        self.update()

    def card_rect(self) -> QRectF:
        return QRectF(-GROUP_W / 2, -GROUP_H / 2, GROUP_W, GROUP_H)

    def boundingRect(self) -> QRectF:
        return self.card_rect().adjusted(-4, -14, 14, 14)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.card_rect(), 8, 8)
        return path

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()

    def title(self) -> str:
        return "" if self.group is None else group_name(self.group, " · ")

    def status(self) -> str:
        """The card's last line: how many members it draws, or which are picked among them."""
        group = self.group
        if group is None:
            return ""
        if len(self.picked) == 1:
            return f"selected: {self.picked[0]}"
        if self.picked:
            return f"{len(self.picked):,} of {len(group.members):,} selected"
        return f"{len(group.members):,} separate {members_noun(group)}"

    def paint(self, painter: QPainter, option, widget=None) -> None:
        group = self.group
        if group is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self.card_rect()
        accent = style.color(group.kind)
        painter.setPen(QPen(style.CARD_BORDER, 1))
        for offset in STACK_OFFSETS:
            painter.setBrush(QColor("#eceff1") if offset > STACK_OFFSETS[-1] else QColor("#f5f7f8"))
            painter.drawRoundedRect(rect.translated(offset, offset), 8, 8)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            pen = QPen(style.SELECTION, 3)
        else:
            pen = QPen(style.CARD_BORDER.darker(115) if self._hover else style.CARD_BORDER, 1.2)
        painter.setPen(pen)
        painter.setBrush(style.CARD_FILL)
        painter.drawRoundedRect(rect, 8, 8)
        icons.renderer(group.kind).render(painter, QRectF(rect.left() + 10, rect.top() + 14, 40, 40))
        left = rect.left() + 58
        width = rect.right() - left - 8
        painter.setPen(style.TEXT)
        painter.setFont(TITLE_FONT)
        painter.drawText(QRectF(left, rect.top() + 8, width, 20), Qt.AlignmentFlag.AlignLeft
                         | Qt.AlignmentFlag.AlignVCenter, elide(self.title(), TITLE_FONT, width))
        painter.setPen(style.SUBTEXT)
        painter.setFont(SUB_FONT)
        name = "" if group.kind == "block" else group.title
        painter.drawText(QRectF(left, rect.top() + 28, width, 16), Qt.AlignmentFlag.AlignLeft
                         | Qt.AlignmentFlag.AlignVCenter, elide(name, SUB_FONT, width))
        painter.setPen(style.SELECTION.darker(130) if self.picked else style.SUBTEXT)
        painter.drawText(QRectF(left, rect.top() + 46, width, 16), Qt.AlignmentFlag.AlignLeft
                         | Qt.AlignmentFlag.AlignVCenter, elide(self.status(), SUB_FONT, width))
        draw_badge(painter, rect.right() + 4, rect.top(), fmt_count(group.units), accent)


class BundleItem(BundleLine):
    """The links of one kind between two groups (or among one group's members: a loop)."""

    def __init__(self, key: str, source: GroupCard, target: GroupCard):
        super().__init__(key)
        self.source, self.target = source, target
        self.bundle: GroupBundle | None = None
        self.picked: list[str] = []  # link ids chosen in the Inspector
        source.bundles.append(self)
        if target is not source:
            target.bundles.append(self)

    def detach(self) -> None:
        for card in (self.source, self.target):
            if self in card.bundles:
                card.bundles.remove(self)

    def set_bundle(self, bundle: GroupBundle, picked: list[str]) -> None:
        self.bundle, self.picked = bundle, picked
        speed = f"~{fmt_speed(round(bundle.speed_gbit_s))}" if bundle.mixed else fmt_speed(bundle.speed_gbit_s)
        self.label = f"{fmt_count(bundle.cables)} {speed}"
        titles = [card.group.title if card.group else "" for card in (self.source, self.target)]
        between = f"among {titles[0]}" if self.source is self.target else f"between {titles[0]} and {titles[1]}"
        mixed = " (mixed speeds: the mean)" if bundle.mixed else ""
        chosen = f"\nselected: {picked[0]}" if len(picked) == 1 else ""
        self.setToolTip(f"{bundle.links:,} {bundle.kind} links, {bundle.cables:,} cables at "
                        f"{bundle.speed_gbit_s:g} Gb/s{mixed}, {between}\nClick to list them in the Inspector"
                        f"{chosen}")
        self.update_path()

    def update_path(self) -> None:
        self.prepareGeometryChange()
        if self.source is self.target:
            # A loop out of the card's right side (rows above and below are close).
            rect = self.source.card_rect().translated(self.source.pos())
            y = rect.center().y() + self.bend * 0.3
            start, end = QPointF(rect.right(), y - 18), QPointF(rect.right(), y + 18)
            reach = rect.right() + LOOP_REACH + abs(self.bend)
            path = QPainterPath(start)
            path.cubicTo(QPointF(reach, y - 50), QPointF(reach, y + 50), end)
        else:
            path = bundle_path(self.source, self.target, self.bend)
        self._path = path
        self._label_rect = label_rect_at(path.pointAtPercent(0.5), self.label)
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if self.bundle is not None:
            paint_link(painter, self._path, self._label_rect, self.label, self.bundle.kind,
                       bool(option.state & QStyle.StateFlag.State_Selected))
