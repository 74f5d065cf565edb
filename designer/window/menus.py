"""The main window's actions, menus and toolbar (File, Edit, Design, View, Help); the slots they
call are the window's own (designer/window/files.py, docks.py) or its controllers'."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QToolBar

from designer.common import icons
from designer.common.qaction import make_action
from designer.interop.interop_actions import InteropController
from designer.sweep.sweep_view import SweepResultsController
from designer.window.baseline import BaselineController
from designer.window.export import DIAGRAM_FORMATS


def redo_shortcuts() -> list[QKeySequence]:
    """The platform's Redo keys plus Ctrl+Shift+Z and, off macOS, Ctrl+Y: users bring the habit
    of whichever system they came from (Qt's Redo is only Ctrl+Shift+Z on most Linux desktops)."""
    keys = [*QKeySequence.keyBindings(QKeySequence.StandardKey.Redo), QKeySequence("Ctrl+Shift+Z")]
    if sys.platform != "darwin":  # Cmd+Y is not Redo on a Mac
        keys.append(QKeySequence("Ctrl+Y"))
    return list({key.toString(): key for key in keys}.values())


class WindowMenus:
    """MainWindow's actions, menu bar and toolbar (a part of MainWindow: it builds them on the
    window's document, canvas actions and docks)."""

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        return make_action(self, text, slot, shortcut, tip)

    def _build_actions(self) -> None:
        Std = QKeySequence.StandardKey
        self.new_action = self._action("&New", self.new_design, Std.New, "Start an empty design")
        self.template_action = self._action("New from &Template…", self.new_from_template, "Ctrl+Shift+N",
                                            "Generate a fat-tree, computing islands or a super-node cluster")
        self.open_action = self._action("&Open…", self.open_dialog, Std.Open)
        self.save_action = self._action("&Save", self.save, Std.Save)
        self.save_as_action = self._action("Save &As…", self.save_as, Std.SaveAs)
        self.quit_action = self._action("&Quit", self.close, Std.Quit)
        self.undo_action = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence(Std.Undo))
        self.redo_action = self.document.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(redo_shortcuts())
        self.reset_layout_action = self._action("&Reset Layout", self.reset_layout)
        self.evaluate_action = self._action("&Evaluate Now", self.evaluate_now, "F5",
                                            "Re-run every analysis now")
        self.guide_action = self._action("&User Guide", self.show_guide, None,
                                         "How to draw, read the panels, compare, sweep and script designs")
        self.shortcuts_action = self._action("&Keyboard Shortcuts", self.show_shortcuts, "F1")
        self.about_action = self._action("&About Cluster Designer", self.show_about)
        self.baseline = BaselineController(self, self.catalog)
        self.sweep_results = SweepResultsController(self)
        self.interop = InteropController(self)
        self.export_actions = {}
        for ext in DIAGRAM_FORMATS:
            for selection in (False, True):
                label = f"{'Selection' if selection else 'Diagram'} as {ext[1:].upper()}…"
                self.export_actions[(ext, selection)] = self._action(
                    label, lambda _=False, e=ext, s=selection: self.export_diagram_dialog(e, s))
        self.summary_actions = {}
        for fmt, label in (("md", "Summary as Markdown…"), ("html", "Summary as HTML…"),
                           ("csv", "Summary as CSV…"), ("json", "Summary as JSON…"),
                           ("bom", "Bill of Materials as CSV…")):
            self.summary_actions[fmt] = self._action(label, lambda _=False, f=fmt: self.export_summary_dialog(f))

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        for action in (self.new_action, self.template_action, self.open_action,
                       self.sweep_results.open_action, self.interop.import_action):
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        export_menu = file_menu.addMenu("&Export")
        for ext in DIAGRAM_FORMATS:
            export_menu.addAction(self.export_actions[(ext, False)])
        export_menu.addSeparator()
        for ext in DIAGRAM_FORMATS:
            export_menu.addAction(self.export_actions[(ext, True)])
        export_menu.addSeparator()
        for action in self.summary_actions.values():
            export_menu.addAction(action)
        export_menu.addSeparator()
        for action in self.interop.export_actions:
            export_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self._refresh_recent_menu()

        a = self.canvas_actions
        edit = bar.addMenu("&Edit")
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        for action in (a.cut, a.copy, a.paste, a.duplicate, a.delete, None, a.select_all):
            edit.addSeparator() if action is None else edit.addAction(action)

        design = bar.addMenu("&Design")
        for action in (a.connect_mode, None, a.group, a.ungroup, a.repeat, a.toggle_collapse, None,
                       a.step_in, a.step_out, None, self.evaluate_action, None, *self.baseline.actions()):
            design.addSeparator() if action is None else design.addAction(action)

        view = bar.addMenu("&View")
        for action in (a.zoom_in, a.zoom_out, a.fit):
            view.addAction(action)
        view.addSeparator()
        panels = view.addMenu("&Panels")
        for dock in self.findChildren(QDockWidget):
            panels.addAction(dock.toggleViewAction())
        view.addAction(self.reset_layout_action)

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.guide_action)
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.about_action)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        a = self.canvas_actions
        # Fixed-width Undo/Redo buttons: the menu actions carry the command name, which would
        # make the toolbar jump at every edit.
        stack = self.document.undo_stack
        undo = self._action("Undo", stack.undo)
        redo = self._action("Redo", stack.redo)
        stack.canUndoChanged.connect(undo.setEnabled)
        stack.canRedoChanged.connect(redo.setEnabled)
        stack.undoTextChanged.connect(lambda text: undo.setToolTip(f"Undo {text}"))
        stack.redoTextChanged.connect(lambda text: redo.setToolTip(f"Redo {text}"))
        undo.setEnabled(False)
        redo.setEnabled(False)
        for action in (self.new_action, self.template_action, self.open_action, self.save_action, None,
                       undo, redo, None, a.connect_mode, a.group, a.step_out,
                       None, a.zoom_out, a.zoom_in, a.fit):
            bar.addSeparator() if action is None else bar.addAction(action)
        self.template_action.setIcon(icons.icon("block"))
        self.addToolBar(bar)
