"""Canvas commands as QActions (menus, toolbar, context menu and shortcuts share them)."""

from __future__ import annotations

import atexit
import json

from PySide6.QtCore import QMimeData, QObject, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QInputDialog, QMenu

from core.errors import DesignError
from core.model import Block, Design
from core.failure_paths import Target, current_state, describe_target, units_in_design
from core.operations import MoveItems, SetOutOfService, SetProperty
from core.project import design_from_dict, design_to_dict
from designer.canvas.aggregate_items import BundleItem, GroupCard
from designer.canvas.items import BlockItem
from designer.canvas.links import LinkItem
from designer.canvas.view import DesignView
from designer.common import mime
from designer.common.qaction import make_action
from designer.project import edits
from designer.project.document import DesignDocument


_clipboard_hook = False


def _clear_our_clipboard() -> None:
    """PySide6 crashes at interpreter exit (SIGSEGV) when the clipboard still holds a
    QMimeData made in Python: drop ours while the application still exists."""
    app = QGuiApplication.instance()
    if app is None:
        return
    clipboard = QGuiApplication.clipboard()
    data = clipboard.mimeData()
    if data is not None and data.hasFormat(mime.ITEMS):
        clipboard.clear()


def _set_clipboard(data: QMimeData) -> None:
    global _clipboard_hook
    QGuiApplication.clipboard().setMimeData(data)
    if not _clipboard_hook:
        atexit.register(_clear_our_clipboard)
        _clipboard_hook = True


class CanvasActions(QObject):
    error = Signal(str)

    def __init__(self, view: DesignView, document: DesignDocument, parent=None):
        super().__init__(parent)
        self.view = view
        self.document = document
        # Keep our own reference: while Qt tears the scene down, view.scene() no longer
        # returns the DesignScene wrapper.
        self.scene = scene = view.design_scene
        scene.selectionChanged.connect(self.update_enabled)
        scene.block_changed.connect(lambda _path: self.update_enabled())
        document.undo_stack.indexChanged.connect(lambda _index: self.update_enabled())  # Restore follows undo

        def make(text, slot, shortcut=None, tip="") -> QAction:
            return make_action(self, text, slot, shortcut, tip)

        Std = QKeySequence.StandardKey
        self.delete = make("&Delete", self.delete_selection, Std.Delete, "Delete the selection")
        self.delete.setShortcuts([QKeySequence(Std.Delete), QKeySequence("Backspace")])
        self.cut = make("Cu&t", self.cut_selection, Std.Cut)
        self.copy = make("&Copy", self.copy_selection, Std.Copy)
        self.paste = make("&Paste", self.paste_clipboard, Std.Paste)
        self.duplicate = make("D&uplicate", self.duplicate_selection, "Ctrl+D",
                              "Copy the selection with the links among it")
        self.select_all = make("Select &All", self.select_everything, Std.SelectAll)
        self.group = make("&Group", self.group_selection, "Ctrl+G", "Group the selection into a block")
        self.ungroup = make("&Ungroup", self.ungroup_selection, "Ctrl+Shift+G")
        self.repeat = make("&Repeat Count…", self.ask_repeat, "Ctrl+R", "How many times the block repeats")
        self.toggle_collapse = make("&Collapse / Expand", self.toggle_collapsed, "Ctrl+E")
        self.step_in = make("Step &Inside", self.step_into_selection, "Ctrl+Down")
        self.step_out = make("Step &Out", self.step_outside, "Ctrl+Up")
        self.fit = make("&Fit to View", view.fit, "Ctrl+0")
        self.zoom_in = make("Zoom &In", lambda: view.zoom(1.25), Std.ZoomIn)
        self.zoom_out = make("Zoom &Out", lambda: view.zoom(0.8), Std.ZoomOut)
        self.connect_mode = make("&Connect Mode", self._set_connect_mode, "C",
                                 "Drag from one component to another to link them (or Shift+drag)")
        self.connect_mode.setCheckable(True)
        self.fail = make("&Fail…", lambda: self.take_out_of_service("failed"), None,
                         "What-if: mark units of the selected component, block or link as failed")
        self.drain = make("D&rain…", lambda: self.take_out_of_service("drained"), None,
                          "What-if: take units out of service on purpose (maintenance)")
        self.restore = make("Rest&ore", self.restore_selection, None,
                            "Put the failed and drained units of the selection back in service")
        view.step_inside.connect(self.enter_block)
        view.context_menu_requested.connect(self.show_context_menu)
        for action in self.all():
            view.addAction(action)
        self.update_enabled()

    def all(self) -> list[QAction]:
        return [self.delete, self.cut, self.copy, self.paste, self.duplicate, self.select_all,
                self.group, self.ungroup, self.repeat, self.toggle_collapse, self.step_in,
                self.step_out, self.fit, self.zoom_in, self.zoom_out, self.connect_mode,
                self.fail, self.drain, self.restore]

    # --- state ---------------------------------------------------------------------------
    def _selected_blocks(self) -> list[str]:
        block = self.scene.current_block()
        return [k for k in self.scene.selected_ids() if isinstance(block.children.get(k), Block)]

    def update_enabled(self) -> None:
        ids = self.scene.selected_ids()
        links = self.scene.selected_link_ids()
        blocks = self._selected_blocks()
        for action in (self.cut, self.copy, self.duplicate, self.group):
            action.setEnabled(bool(ids))
        self.delete.setEnabled(bool(ids or links))
        for action in (self.ungroup, self.repeat, self.toggle_collapse, self.step_in):
            action.setEnabled(len(blocks) == 1 and len(ids) == 1)
        self.step_out.setEnabled(bool(self.scene.block_path))
        target = self._failure_target()
        try:
            state = current_state(self.document.design, target) if target is not None else (0, 0)
        except DesignError:  # the selection of a block the design no longer holds
            target, state = None, (0, 0)
        self.fail.setEnabled(target is not None)
        self.drain.setEnabled(target is not None)
        self.restore.setEnabled(any(state))

    # --- failure what-ifs ----------------------------------------------------------------
    def _failure_target(self) -> Target | None:
        """The one selected component, block or link (failure gestures take one item)."""
        ids, links = self.scene.selected_ids(), self.scene.selected_link_ids()
        if len(ids) + len(links) != 1:
            return None
        if links:
            return Target(self.scene.block_path, links[0])
        return Target(self.scene.child_path(ids[0]))

    def take_out_of_service(self, state: str) -> None:
        """Fail (or drain) units of the selected item: how many is asked when it has more than
        one (counted over every instance of its enclosing blocks, the first ones first)."""
        target = self._failure_target()
        if target is None:
            return
        design = self.document.design
        total = units_in_design(design, target.path, target.link_id)
        failed, drained = current_state(design, target)
        other = drained if state == "failed" else failed
        free = total - other
        if free < 1:
            self.error.emit(f"{describe_target(target.path, target.link_id)}: every unit is already "
                            f"{'drained' if state == 'failed' else 'failed'}")
            return
        n = free
        if free > 1:
            what = "cables" if target.link_id else "units"
            verb = "fail" if state == "failed" else "drain"
            now = failed if state == "failed" else drained
            n, ok = QInputDialog.getInt(
                self.view, "Fail" if state == "failed" else "Drain",
                f"How many of the {free:,} {what} of {target} to {verb}?\n(counted over every "
                f"instance of the enclosing blocks, the first instances first)", max(1, now), 1, free)
            if not ok:
                return
        new = (n, other) if state == "failed" else (other, n)
        self._push(SetOutOfService(target.path, *new, target.link_id))  # indexChanged updates

    def restore_selection(self) -> None:
        target = self._failure_target()
        if target is not None and any(current_state(self.document.design, target)):
            self._push(SetOutOfService(target.path, 0, 0, target.link_id))

    def _push(self, op, text: str | None = None) -> bool:
        try:
            self.document.push(op, text)
            return True
        except DesignError as exc:
            self.error.emit(str(exc))
            return False

    # --- editing -------------------------------------------------------------------------
    def delete_selection(self) -> None:
        ids, links = self.scene.selected_ids(), self.scene.selected_link_ids()
        if ids or links:
            self._push(edits.delete_items(self.scene.block_path, ids, links), "Delete")

    def copy_selection(self) -> None:
        ids = self.scene.selected_ids()
        if not ids:
            return
        frag = edits.fragment(self.document.design, self.scene.block_path, ids)
        text = json.dumps(design_to_dict(Design("fragment", frag)))
        data = QMimeData()
        data.setData(mime.ITEMS, text.encode("utf-8"))
        data.setText(text)
        _set_clipboard(data)

    def cut_selection(self) -> None:
        self.copy_selection()
        ids = self.scene.selected_ids()
        if ids:
            self._push(edits.delete_items(self.scene.block_path, ids, []), "Cut")

    def paste_clipboard(self) -> None:
        data = QGuiApplication.clipboard().mimeData()
        if data is None or not data.hasFormat(mime.ITEMS):
            return
        try:
            frag = design_from_dict(json.loads(bytes(data.data(mime.ITEMS)).decode("utf-8"))).root
        except (ValueError, DesignError) as exc:
            self.error.emit(f"cannot paste: {exc}")
            return
        self._paste(frag, "Paste")

    def duplicate_selection(self) -> None:
        ids = self.scene.selected_ids()
        if ids:
            self._paste(edits.fragment(self.document.design, self.scene.block_path, ids), "Duplicate")

    def _paste(self, frag: Block, text: str) -> None:
        if not frag.children:
            return
        try:
            op, new_ids = edits.paste(self.document.design, self.scene.block_path, frag)
        except DesignError as exc:
            self.error.emit(str(exc))
            return
        if self._push(op, text):
            self.scene.select(new_ids)

    def select_everything(self) -> None:
        self.scene.select_all()

    def group_selection(self) -> None:
        ids = self.scene.selected_ids()
        if not ids:
            return
        op = edits.group_items(self.document.design, self.scene.block_path, ids)
        if self._push(op):
            self.scene.select([op.new_id])

    def ungroup_selection(self) -> None:
        blocks = self._selected_blocks()
        if len(blocks) == 1:
            inner = list(self.scene.current_block().children[blocks[0]].children)
            if self._push(edits.ungroup(self.scene.block_path, blocks[0])):
                self.scene.select(inner)

    def ask_repeat(self) -> None:
        blocks = self._selected_blocks()
        if len(blocks) != 1:
            return
        block = self.scene.current_block().children[blocks[0]]
        value, ok = QInputDialog.getInt(self.view, "Repeat count",
                                        f"How many instances of {block.label}?", block.count, 1, 10_000_000)
        if ok and value != block.count:
            self._push(SetProperty(self.scene.child_path(blocks[0]), "count", value), "Set repeat count")

    def toggle_collapsed(self) -> None:
        blocks = self._selected_blocks()
        if len(blocks) != 1:
            return
        key = blocks[0]
        path = self.scene.child_path(key)
        if not self.scene.current_block().children[key].collapsed:
            self._push(SetProperty(path, "collapsed", True), "Collapse")
            return
        # An expanded card draws its contents and grows: neighbours move aside in the same undo
        # step, so nothing ends up hidden under it.
        stack = self.document.undo_stack
        stack.beginMacro("Expand")
        try:
            if self._push(SetProperty(path, "collapsed", False)):
                moves = self.scene.room_for(key)
                if moves:
                    self._push(MoveItems(self.scene.block_path, moves))
        finally:
            stack.endMacro()

    # --- navigation ----------------------------------------------------------------------
    def enter_block(self, key: str) -> None:
        self.scene.set_block(self.scene.child_path(key))
        self.view.fit()

    def step_into_selection(self) -> None:
        blocks = self._selected_blocks()
        if len(blocks) == 1:
            self.enter_block(blocks[0])

    def step_outside(self) -> None:
        path = self.scene.block_path
        if not path:
            return
        parent, _, key = path.rpartition("/")
        self.scene.set_block(parent)
        self.view.fit()
        self.scene.select([key])

    def _set_connect_mode(self, on: bool) -> None:
        self.view.connect_mode = on

    # --- context menu --------------------------------------------------------------------
    def show_context_menu(self, global_pos, item) -> None:
        self.context_menu(item).exec(global_pos)

    def failure_menu(self) -> QMenu:
        """Fail / Drain / Restore of the selection (the outline's row menu)."""
        menu = QMenu(self.view)
        for action in (self.fail, self.drain, self.restore):
            menu.addAction(action)
        return menu

    def context_menu(self, item) -> QMenu:
        """The context menu for ``item`` (a card, link, aggregate or None for the canvas)."""
        menu = QMenu(self.view)
        if isinstance(item, (GroupCard, BundleItem)):
            self._fill_aggregate_menu(menu, item)
        elif isinstance(item, LinkItem):
            for action in (self.fail, self.drain, self.restore, None, self.delete):
                menu.addSeparator() if action is None else menu.addAction(action)
        elif isinstance(item, BlockItem):
            for action in (self.step_in, self.toggle_collapse, self.repeat, None, self.ungroup,
                           self.group, None, self.fail, self.drain, self.restore, None, self.copy,
                           self.duplicate, self.delete):
                menu.addSeparator() if action is None else menu.addAction(action)
        elif item is not None:
            for action in (self.group, None, self.fail, self.drain, self.restore, None, self.cut,
                           self.copy, self.duplicate, self.delete):
                menu.addSeparator() if action is None else menu.addAction(action)
        else:
            for action in (self.paste, self.select_all, None, self.connect_mode, self.step_out, None,
                           self.fit, self.zoom_in, self.zoom_out):
                menu.addSeparator() if action is None else menu.addAction(action)
        return menu

    def _fill_aggregate_menu(self, menu: QMenu, item: GroupCard | BundleItem) -> None:
        """A group card or bundle: what was picked among its members, or how to pick one."""
        if item.picked:
            menu.addSection(item.picked[0] if len(item.picked) == 1 else f"{len(item.picked):,} selected")
            if isinstance(item, BundleItem):
                actions = [self.delete]
            else:
                actions = [self.step_in, self.repeat, None, self.group, None, self.cut, self.copy, self.duplicate,
                           self.delete]
        else:
            menu.addSection("Pick one in the Inspector's list to edit it")
            actions = [self.select_all, None, self.fit, self.zoom_in, self.zoom_out]
        for action in actions:
            menu.addSeparator() if action is None else menu.addAction(action)
