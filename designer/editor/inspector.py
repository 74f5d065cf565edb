"""Inspector: edit the selected component, link or block. Every edit is one undo command.

Widgets only propose values; core's SetProperty validates them. A rejected value is shown as a
one-line error under the form and the widget snaps back to the model's value.

A link's two ends are editable among the components inside the block that owns it (paths
relative to that block, "su/leaf"); moving an end is one undo step (designer.project.edits.move_link_end:
RemoveLink + AddLink with the same id and properties).

In a block the canvas draws aggregated (designer.canvas.aggregate), a selected group card or
bundle shows a searchable list of its members or links; picking one selects it (``pick``), and
its form offers the way back to the list and, for a component, the list of its own links.
"""

from __future__ import annotations

import html
import operator
from typing import Any, Callable

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QCompleter, QDoubleSpinBox, QFormLayout, QLabel, QLineEdit, QListView, QPushButton,
    QScrollArea, QSpinBox, QVBoxLayout, QWidget,
)

from core.catalog import COMPUTE_KINDS, Catalog
from core.catalog_spec import NodeSpec, power_field
from core.cooling import COOLING_TYPES, cooling_type
from core.errors import DesignError
from core.model import LINK_KINDS, MEDIA, Block, Link, Node
from core.operations import SetProperty
from core.port_modes import link_breakout
from designer.canvas.aggregate import GroupBundle, MemberGroup, Summary
from designer.canvas.aggregate_items import group_name, members_noun
from designer.common.format import speed as fmt_speed
from designer.editor.dpu_engine_text import dpu_engine_lines
from designer.editor.member_list import MemberList
from designer.project.document import DesignDocument
from designer.project.edits import link_end_choices, move_link_end

RATE_KEY = "failure_rate_per_1000_days"
# The catalog field an item's power override replaces, by kind (as core/analysis/power.py reads).
TIERS = ["", "leaf", "spine", "core", "storage"]
ROLES = ["", "rack", "su", "pod", "island", "storage"]
SPEEDS = [25, 50, 100, 200, 400, 800, 1600]
MAX_COUNT = 10_000_000


class InspectorWidget(QScrollArea):
    error = Signal(str)
    link_reconnected = Signal(str)  # link id, after one of its ends moved (the canvas reselects it)
    # In an aggregated block: select these children and links (picked from a list), or a group
    # card / bundle again (by key).
    pick = Signal(list, list)
    pick_group = Signal(str)
    pick_bundle = Signal(str)

    def __init__(self, document: DesignDocument, catalog: Catalog,
                 summary_of: Callable[[], Summary | None] = lambda: None, parent=None):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.summary_of = summary_of  # the summary of the block the canvas shows, if aggregated
        self._block_path = ""         # that block
        self.members: MemberList | None = None  # the list shown, if any (tests drive it)
        self.back: QPushButton | None = None    # the way back from a member to its list, if any
        self._filters: dict[str, str] = {}      # filter text per list, kept across rebuilds
        # The item being read into the form: found once per build or refresh, not once per field
        # (finding a link in a block of a million links takes a pass over them).
        self._found: tuple[Any, Any] | None = None
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._target: tuple[str, str, str] | None = None  # ("node"|"block"|"link", path, link id)
        self._refreshers: list[Callable[[], None]] = []
        self.fields: dict[str, QWidget] = {}  # by property name (tests drive them)
        # While a link end moves, the canvas may redraw that link (new end cards) and drop it
        # from the selection: keep showing the link instead of an empty inspector.
        self._moving_link = False
        self._build_empty("Select a component, link or block to see and edit its properties.")

    # --- selection -----------------------------------------------------------------------
    def show_selection(self, block_path: str, ids: list[str], link_ids: list[str],
                       groups: list[str] = (), bundles: list[str] = ()) -> None:
        """Show the selected children and links of block ``block_path``; with none, the one
        selected group card or bundle of an aggregated block (``groups``, ``bundles``: keys)."""
        self._block_path = block_path
        if self._moving_link and not ids and not link_ids:
            return
        if not ids and not link_ids and len(groups) + len(bundles) == 1:
            self._target = ("group", block_path, groups[0]) if groups else ("bundle", block_path, bundles[0])
            if self._resolve() is None:
                self._target = None
                self._build_empty("The selected item no longer exists.")
                return
            self._build()
            return
        if not ids and not link_ids and len(groups) + len(bundles) > 1:
            self._target = None
            self._build_empty(f"{len(groups) + len(bundles)} cards and lines selected: click one to list what "
                              "it holds.")
            return
        if len(ids) + len(link_ids) > 1:
            self._target = None
            self._build_empty(f"{len(ids) + len(link_ids)} items selected.")
            return
        if link_ids:
            self._target = ("link", block_path, link_ids[0])
        elif ids or block_path:
            path = "/".join(p for p in (block_path, ids[0] if ids else "") if p)
            try:
                item = self.document.design.resolve(path)
            except DesignError:
                item = None
            self._target = ("block" if isinstance(item, Block) else "node", path, "")
        else:
            self._target = None
            self._build_empty("Select a component, link or block to see and edit its properties.\n\n"
                              "Drag components from the palette; Shift+drag (or Connect mode, C) "
                              "from one component to another to link them.")
            return
        if self._resolve() is None:
            # A selection naming an item the design no longer has shows nothing rather than
            # failing; whoever sent it sends the current selection next.
            self._target = None
            self._build_empty("The selected item no longer exists.")
            return
        self._build()

    def refresh(self) -> None:
        """Re-read values after a model change (undo, another editor); rebuild if the target went."""
        if self._target is None:
            return
        if self._resolve() is None:
            self._target = None
            self._build_empty("The selected item no longer exists.")
            return
        if self._target[0] in ("group", "bundle"):
            self._build()  # its list follows the block (members added or gone)
            return
        self._found = (self._target, self._resolve())
        try:
            for refresh in self._refreshers:
                refresh()
        finally:
            self._found = None

    def _resolve(self) -> Any:
        """The shown item, or None when nothing is shown or the design no longer has it (or has
        another kind of item at its path, whose fields the form does not have)."""
        if self._target is None:
            return None
        if self._found is not None and self._found[0] == self._target:
            return self._found[1]
        kind, path, link_id = self._target
        if kind in ("group", "bundle"):
            summary = self.summary_of()
            if summary is None or path != self._block_path:
                return None
            index = summary.group_index(link_id) if kind == "group" else summary.bundle_index(link_id)
            if index is None:
                return None
            return summary.groups[index] if kind == "group" else summary.bundles[index]
        try:
            if kind == "link":
                return _link_in(self.document.design.block(path), link_id)
            item = self.document.design.resolve(path)
        except DesignError:
            return None
        return item if isinstance(item, Block) == (kind == "block") else None

    # --- form building -------------------------------------------------------------------
    def _new_body(self) -> tuple[QVBoxLayout, QFormLayout]:
        self._refreshers = []
        self.fields = {}
        self.members = None
        self.back = None
        body = QWidget()
        outer = QVBoxLayout(body)
        outer.setContentsMargins(10, 8, 10, 8)
        self._heading = QLabel()
        self._heading.setStyleSheet("font-size: 11pt; font-weight: 600; color: #263238;")
        self._heading.setWordWrap(True)
        outer.addWidget(self._heading)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        outer.addLayout(form)
        self._error = QLabel()
        self._error.setStyleSheet("color: #c62828;")
        self._error.setWordWrap(True)
        self._error.hide()
        outer.addWidget(self._error)
        self._info = QLabel()
        self._info.setWordWrap(True)
        self._info.setTextFormat(Qt.TextFormat.RichText)
        self._info.setStyleSheet("color: #546e7a;")
        self._info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self._info)
        outer.addStretch(1)
        self._body = body
        return outer, form

    def _show_body(self) -> None:
        # Install the body only once it is filled, so the scroll area sizes it from its real
        # minimum size (scrolling instead of squashing the rows in a short dock).
        self.setWidget(self._body)

    def _build_empty(self, text: str) -> None:
        self._new_body()
        self._heading.setText("Inspector")
        self._info.setText(text.replace("\n", "<br>"))
        self._show_body()

    def _build(self) -> None:
        _, form = self._new_body()
        item = self._resolve()
        kind = self._target[0]  # type: ignore[index]
        self._found = (self._target, item)
        try:
            if kind == "group":
                self._build_group(item)
            elif kind == "bundle":
                self._build_bundle(item)
            elif kind == "link":
                self._build_link(form, item)
            elif kind == "block":
                self._build_block(form, item)
            else:
                self._build_node(form, item)
        finally:
            self._found = None
        self._show_body()

    def _commit(self, name: str, value: Any, text: str | None = None) -> None:
        # A field can still report an edit after its item went (focus leaving a field while
        # undo removes the item): there is nothing left to set.
        item = self._resolve()
        if item is None:
            return
        _kind, path, link_id = self._target  # type: ignore[misc]
        if getattr(item, name) == value:
            return
        try:
            self.document.push(SetProperty(path, name, value, link_id), text)
            self._error.hide()
        except DesignError as exc:
            self._error.setText(str(exc))
            self._error.show()
            self.error.emit(str(exc))
            self.refresh()

    # Field factories: each registers a refresher that reads the model into the widget.
    def _text(self, form: QFormLayout, label: str, name: str, tip: str = "") -> QLineEdit:
        edit = QLineEdit()
        edit.setToolTip(tip)
        edit.editingFinished.connect(lambda: self._commit(name, edit.text().strip()))
        self._register(name, edit, lambda: edit.setText(getattr(self._resolve(), name)))
        form.addRow(label, edit)
        return edit

    def _int(self, form: QFormLayout, label: str, name: str, suffix: str = "", tip: str = "") -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(1, MAX_COUNT)
        spin.setGroupSeparatorShown(True)
        spin.setKeyboardTracking(False)  # commit on Enter/focus-out/arrows, not per keystroke
        spin.setPrefix("×")
        spin.setSuffix(suffix)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v: self._commit(name, int(v)))
        self._register(name, spin, lambda: spin.setValue(getattr(self._resolve(), name)))
        form.addRow(label, spin)
        return spin

    def _float(self, form: QFormLayout, label: str, name: str, suffix: str, lo: float, hi: float,
               decimals: int = 1) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(lo, hi)
        spin.setDecimals(decimals)
        spin.setSuffix(suffix)
        spin.setKeyboardTracking(False)
        spin.valueChanged.connect(lambda v: self._commit(name, float(v)))
        self._register(name, spin, lambda: spin.setValue(getattr(self._resolve(), name)))
        form.addRow(label, spin)
        return spin

    def _choice(self, form: QFormLayout, label: str, name: str, choices: list[tuple[str, Any]],
                editable: bool = False) -> QComboBox:
        combo = QComboBox()
        combo.setEditable(editable)
        # Long catalog names must not widen the dock: elide in the closed box, full in the list.
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        for text, value in choices:
            combo.addItem(text, value)

        def read() -> None:
            value = getattr(self._resolve(), name)
            index = combo.findData(value)
            if index < 0:
                combo.addItem(str(value), value)
                index = combo.count() - 1
            combo.setCurrentIndex(index)

        def commit() -> None:
            if editable and combo.currentText() != combo.itemText(combo.currentIndex()):
                self._commit(name, combo.currentText().strip())
            else:
                self._commit(name, combo.currentData())

        combo.activated.connect(lambda _i: commit())
        if editable:
            combo.lineEdit().editingFinished.connect(lambda: self._commit(name, combo.currentText().strip()))
        self._register(name, combo, read)
        form.addRow(label, combo)
        return combo

    def _check(self, form: QFormLayout, label: str, name: str) -> QCheckBox:
        box = QCheckBox()
        box.toggled.connect(lambda on: self._commit(name, bool(on)))
        self._register(name, box, lambda: box.setChecked(getattr(self._resolve(), name)))
        form.addRow(label, box)
        return box

    def _override(self, form: QFormLayout, label: str, key: str, unit: str, default: Any) -> QLineEdit:
        """An optional number in ``node.overrides``; empty means "use the catalog value"."""
        edit = QLineEdit()
        validator = QDoubleValidator(0.0, 1e12, 6)
        validator.setNotation(QDoubleValidator.Notation.StandardNotation)
        edit.setValidator(validator)
        edit.setPlaceholderText(f"catalog: {default if default is not None else 'default'} {unit}".strip())
        edit.setToolTip("Leave empty to use the catalog value")

        def read() -> None:
            value = self._resolve().overrides.get(key)
            edit.setText("" if value is None else f"{value:g}")

        def commit() -> None:
            item = self._resolve()
            if item is None:
                return
            overrides = dict(item.overrides)
            text = edit.text().strip().replace(",", ".")
            if text:
                try:
                    overrides[key] = float(text)
                except ValueError:
                    self._error.setText(f"{label}: {text!r} is not a number")
                    self._error.show()
                    return
            else:
                overrides.pop(key, None)
            self._commit("overrides", overrides, f"Set {label.lower()}")

        edit.editingFinished.connect(commit)
        self._register(f"overrides.{key}", edit, read)
        form.addRow(label, edit)
        return edit

    def _register(self, name: str, widget: QWidget, read: Callable[[], None]) -> None:
        def refresh() -> None:
            widget.blockSignals(True)
            try:
                read()
            finally:
                widget.blockSignals(False)
        self.fields[name] = widget
        self._refreshers.append(refresh)
        refresh()

    # --- per-target forms ----------------------------------------------------------------
    def _build_node(self, form: QFormLayout, node: Node) -> None:
        spec = self.catalog.get(node.catalog_id) if node.catalog_id in self.catalog else None
        kind = spec.kind if spec else "component"
        self._heading.setText(f"{node.label}  ({kind})")
        self._text(form, "Name", "name", "Display name (the id stays fixed)")
        if spec is not None:
            same_kind = sorted(self.catalog.by_kind(kind), key=lambda s: s.name)
            self._choice(form, "Model", "catalog_id", [(f"{s.name} ({s.id})", s.id) for s in same_kind])
        self._int(form, "Count", "count", tip="Identical units of this component per instance of its block")
        if kind == "switch":
            self._choice(form, "Tier", "tier", [(t or "(infer from links)", t) for t in TIERS], editable=True)
        if kind in COMPUTE_KINDS and spec is not None:
            # "" follows the catalog entry (shown with its type); a type sets these racks' limit and PUE
            own = cooling_type(str(spec.cooling or "air"))
            self._choice(form, "Cooling", "cooling",
                         [(f"{own} (catalog)", "")] + [(t, t) for t in COOLING_TYPES])
        self._override(form, "Failure rate", RATE_KEY, "per 1000 days",
                       spec.failure_rate_per_1000_days if spec else None)
        power = power_field(spec) if spec is not None else None
        if power is not None:
            self._override(form, f"Power ({power[1]})", *power)
        if isinstance(spec, NodeSpec) and spec.dpu:  # how many DPUs front this node's storage
            self._override(form, "DPUs per unit", "dpus", "", spec.dpus)
        path = self._target[1]  # type: ignore[index]
        info = [f"<b>Path</b> {path}", f"<b>Catalog id</b> {node.catalog_id}"]
        if spec is not None:
            info += [f"<b>Vendor</b> {spec.vendor}", f"<b>Source</b> {spec.source}",
                     f"<b>Confidence</b> {spec.confidence}", *dpu_engine_lines(spec, self.catalog)]
        self._info.setText("<br>".join(info))
        self._add_member_context(path)

    def _build_block(self, form: QFormLayout, block: Block) -> None:
        self._heading.setText(f"{block.label}  (block)")
        self._text(form, "Name", "name")
        self._choice(form, "Role", "role", [(r or "(none)", r) for r in ROLES], editable=True)
        self._int(form, "Repeat count", "count", tip="Instances of this block (stored once, drawn once)")
        self._check(form, "Collapsed", "collapsed")
        # the racks of every component inside that sets no cooling of its own
        self._choice(form, "Cooling", "cooling",
                     [("(each component's own)", "")] + [(t, t) for t in COOLING_TYPES])
        nodes = sum(1 for _ in block.iter_nodes())
        self._info.setText(f"<b>Path</b> {self._target[1]}<br><b>Contains</b> {len(block.children)} "  # type: ignore[index]
                           f"direct items, {nodes} components, {len(block.links)} link bundles<br>"
                           "Double-click the block on the canvas to step inside.")
        self._add_member_context(self._target[1])  # type: ignore[index]

    def _link_end(self, form: QFormLayout, label: str, end: str) -> QComboBox:
        """An editable choice of the component at end ``end`` ("a" or "b") of the selected link."""
        combo = QComboBox()
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        combo.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        combo.completer().setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        combo.setToolTip("A component inside the block that owns this link (path relative to it); "
                         "pick one or type its path")

        # A block drawn device by device offers 100,000 ends: the choices live in one string
        # list model (no item objects), compared with the last ones as a Python list, and the
        # popup lays out rows of one height without measuring each.
        view = QListView()
        view.setUniformItemSizes(True)
        combo.setView(view)
        shown: list[str] = []

        def read() -> None:
            value = getattr(self._resolve(), end)
            choices = link_end_choices(self.document.design, self._target[1])  # type: ignore[index]
            if choices != shown:
                shown[:] = choices
                combo.setModel(QStringListModel(choices, combo))
            index = combo.findText(value)
            if index < 0:
                combo.addItem(value)
                shown.clear()  # the list now holds more than the choices: rebuilt at the next read
                index = combo.count() - 1
            combo.setCurrentIndex(index)
            combo.setEditText(value)

        combo.activated.connect(lambda i: self._move_end(end, combo.itemText(i)))
        combo.lineEdit().editingFinished.connect(lambda: self._move_end(end, combo.currentText()))
        self._register(end, combo, read)
        form.addRow(label, combo)
        return combo

    def _move_end(self, end: str, path: str) -> None:
        if self._resolve() is None or self._target[0] != "link":  # type: ignore[index]
            return
        _, block_path, link_id = self._target
        try:
            operation = move_link_end(self.document.design, block_path, link_id, end, path)
            if operation is None:
                # Unchanged: also the editingFinished that follows a pick, or follows the snap-back
                # after a rejected text (QComboBox itself emits activated for text matching an
                # item first), so an error shown just before stays.
                return
            self._moving_link = True
            try:
                self.document.push(operation, f"Connect link {link_id} to {path.strip()}")
            finally:
                self._moving_link = False
            self._error.hide()
            self.link_reconnected.emit(link_id)
        except DesignError as exc:
            message = str(exc).splitlines()[0]
            self._error.setText(message)
            self._error.show()
            self.error.emit(message)
            self.refresh()  # the field snaps back to the model's end

    def _build_link(self, form: QFormLayout, link: Link) -> None:
        self._heading.setText(f"Link {link.id}")
        self._link_end(form, "From", "a")
        self._link_end(form, "To", "b")
        self._choice(form, "Kind", "kind", [(k, k) for k in LINK_KINDS])
        speed = self._float(form, "Speed", "speed_gbit_s", " Gb/s", 1.0, 100_000.0, 0)
        speed.setToolTip("Per cable, per direction. Common: " + ", ".join(f"{s}G" for s in SPEEDS))
        self._int(form, "Cables", "count", tip="Cables per instance of the owning block")
        self._float(form, "Cable length", "length_m", " m", 0.0, 100_000.0, 1)
        self._choice(form, "Medium", "medium", [(m, m) for m in MEDIA])
        breakout = link_breakout(self.document.design, self._target[1], link, self.catalog)  # type: ignore[index]
        self._info.setText(f"<b>Owned by</b> {self._target[1] or 'design root'}<br>"  # type: ignore[index]
                           + (f"<b>Breakout</b> {html.escape(breakout)}<br>" if breakout else "")
                           + "Ends are components inside the owning block, as paths relative to it.")
        summary = self._aggregated(self._target[1])  # type: ignore[index]
        if summary is not None:
            links = self.document.design.block(self._target[1]).links  # type: ignore[index]
            bundle = summary.bundle_of_link(_link_position(links, link.id))
            if bundle is not None:
                self._add_back(f"◂ All {summary.bundles[bundle].links:,} links of this line",
                               lambda key=summary.bundles[bundle].key: self.pick_bundle.emit(key))

    # --- aggregated blocks: lists of members -------------------------------------------------
    def _aggregated(self, block_path: str) -> Summary | None:
        """The summary of ``block_path`` when it is the aggregated block the canvas shows."""
        summary = self.summary_of()
        return summary if summary is not None and block_path == self._block_path else None

    def _insert(self, widget: QWidget, stretch: int = 0, under_form: bool = False) -> None:
        """Put ``widget`` in the form's page: right under the fields (``under_form``: the dock is
        sized for the longest form, which must still show whole) or above the final stretch; a
        list takes the height the page has to spare."""
        layout = self._body.layout()
        layout.insertWidget(2 if under_form else layout.count() - 1, widget, stretch)

    def _add_back(self, text: str, slot: Callable[[], None]) -> None:
        button = QPushButton(text)
        button.setFlat(True)
        button.setStyleSheet("text-align: left; color: #1565c0;")
        button.clicked.connect(slot)
        self.back = button
        self._insert(button, under_form=True)

    def _list(self, what: str, key: str) -> MemberList:
        members = MemberList(what)
        members.filter.blockSignals(True)
        members.filter.setText(self._filters.get(key, ""))
        members.filter.blockSignals(False)
        members.filter.textChanged.connect(lambda text: self._filters.__setitem__(key, text))
        self.members = members
        self._insert(members, stretch=10)
        return members

    def _add_member_context(self, path: str) -> None:
        """For a child of the aggregated block: the way back to its card's list, and the list
        of its links (where a single link is found to edit or delete)."""
        parent, _, key = path.rpartition("/")
        summary = self._aggregated(parent)
        index = summary.group_of(key) if summary is not None else None
        if index is None:
            return
        group = summary.groups[index]
        self._add_back(f"◂ All {len(group.members):,} like it", lambda: self.pick_group.emit(group.key))
        links = self._list("links of this component", f"member:{path}")
        block = self.document.design.block(parent)

        def fill() -> None:
            current = self.summary_of()
            if current is not None:
                links.set_rows(current.member_links(key), lambda p: _link_label(block.links[int(p)]),
                               lambda p: _link_search(block.links[int(p)]))

        links.picked.connect(lambda p: self.pick.emit([], [block.links[int(p)].id]))
        self._refreshers.append(fill)
        fill()

    def _build_group(self, group: MemberGroup) -> None:
        summary = self.summary_of()
        block = self.document.design.block(self._block_path)
        what = members_noun(group)
        self._heading.setText(f"{len(group.members):,} × {group_name(group, ' · ')}")
        detail = "" if group.kind == "block" else f"{group.title}<br>"
        self._info.setText(
            f"{detail}{len(group.members):,} separate {what} ({group.units:,} units) of "
            f"{block.label or 'the design'}, drawn as one card: the block holds {summary.children:,} items "
            f"and {summary.links:,} links. Pick one to see and edit it.")
        members = self._list("blocks" if group.kind == "block" else "components", f"group:{group.key}")
        members.set_rows(group.members, lambda key: _member_label(block, key))
        members.picked.connect(lambda key: self.pick.emit([key], []))

    def _build_bundle(self, bundle: GroupBundle) -> None:
        summary = self.summary_of()
        block = self.document.design.block(self._block_path)
        ends = [summary.groups[bundle.a], summary.groups[bundle.b]]
        names = [group_name(g, " · ") for g in ends]
        self._heading.setText(f"{bundle.links:,} links: {names[0]} ↔ {names[1]}")
        speed = f"{bundle.speed_gbit_s:,.0f} Gb/s on average (mixed speeds)" if bundle.mixed else \
            f"{bundle.speed_gbit_s:g} Gb/s"
        self._info.setText(f"{bundle.kind}, {bundle.cables:,} cables at {speed}, drawn as one line. "
                           "Pick a link to see and edit it (Delete removes it).")
        links = self._list("links", f"bundle:{bundle.key}")
        links.set_rows(summary.bundle_links(summary.bundle_index(bundle.key)),
                       lambda p: _link_label(block.links[int(p)]), lambda p: _link_search(block.links[int(p)]))
        links.picked.connect(lambda p: self.pick.emit([], [block.links[int(p)].id]))


_LINK_ID = operator.attrgetter("id")


def _link_position(links: list[Link], link_id: str) -> int:
    """Where link ``link_id`` is in ``links`` (ids compared in C), -1 if absent."""
    try:
        return operator.indexOf(map(_LINK_ID, links), link_id)  # stops at the link
    except ValueError:
        return -1


def _link_in(block: Block, link_id: str) -> Link:
    position = _link_position(block.links, link_id)
    if position < 0:
        raise DesignError(f"no link {link_id!r} in block {block.id!r}")
    return block.links[position]


def _member_label(block: Block, key: str) -> str:
    child = block.children.get(key)
    if child is None:
        return key
    name = f" — {child.name}" if child.name and child.name != key else ""
    count = f" ×{child.count:,}" if child.count != 1 else ""
    return f"{key}{name}{count}"


def _link_label(link: Link) -> str:
    return f"{link.id}: {link.a} ↔ {link.b}  ×{link.count:,} {fmt_speed(link.speed_gbit_s)}"


def _link_search(link: Link) -> str:
    return f"{link.id} {link.a} {link.b}"
