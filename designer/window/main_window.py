"""The main window: canvas in the middle, docks around it, menus, files and evaluation status."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget, QFileDialog, QInputDialog, QLabel, QMainWindow, QMessageBox, QTabBar, QTabWidget, QToolBar,
    QVBoxLayout, QWidget,
)

from core.catalog import Catalog, default_catalog
from core.errors import DesignError
from core.model import Change
from core.operations import ReplaceRoot, SetDesignName
from core.project import load_project, save_project
from designer.assumptions.assumptions_panel import AssumptionsPanel
from designer.canvas.actions import CanvasActions
from designer.canvas.breadcrumb import Breadcrumb
from designer.canvas.scene import DesignScene
from designer.canvas.view import DesignView
from designer.common import icons
from designer.common.busy import Cancelled, run_busy
from designer.window.baseline import BaselineController
from designer.window.default_layout import (
    MIN_CANVAS_WIDTH_PX, METRICS_MIN_PX, inspector_form_height_px, side_widths_px,
)
from designer.common.format import num, power
from designer.common.qaction import make_action
from designer.common.window_fit import PREFERRED_SIZE, fitted_geometry
from designer.editor.inspector import InspectorWidget
from designer.editor.outline import OutlineWidget
from designer.editor.palette import PaletteWidget
from designer.interop.interop_actions import InteropController
from designer.panels.bandwidth import BandwidthPanel
from designer.panels.comparison import ComparisonPanel
from designer.panels.cost import CostPanel
from designer.panels.latency import LatencyPanel
from designer.panels.overview import OverviewPanel
from designer.panels.performance import PerformancePanel, status_text
from designer.panels.power import PowerPanel
from designer.panels.reliability import ReliabilityPanel
from designer.panels.storage import StoragePanel
from designer.panels.warnings import WarningsPanel
from designer.project.document import DesignDocument, empty_design
from designer.project.evaluator import Evaluator, Result
from designer.services.services_panel import ServicesPanel
from designer.site.floor_view import attach_floor_view
from designer.sweep.sweep_view import SweepResultsController
from designer.window.export import DIAGRAM_FORMATS, SUMMARY_EXTENSIONS, export_summary, render_scene, with_extension
from designer.window.guide import open_guide, show_about, show_shortcuts
from designer.window.recovery import RecoveryManager
from designer.window.user_settings import recent_paths, settings_problem
from designer.window.validity_banner import ValidityBanner
from designer.workload.workload_panel import WorkloadPanel

MAX_RECENT = 8
LAYOUT_VERSION = 3  # 2: Assumptions dock added; 3: Services (older saved layouts fall back to the default)
PROJECT_FILTER = "Cluster Designer project (*.json);;All files (*)"
STATUS_MS = 6000
STARTUP_WARNING_MS = 30_000  # read once at start-up, so it stays longer than a status note
WARNINGS_HEIGHT_PX = 110
DOCK_TAB_STYLE = "QTabBar::tab { padding: 4px 6px; }"


def redo_shortcuts() -> list[QKeySequence]:
    """The platform's Redo keys plus Ctrl+Shift+Z and, off macOS, Ctrl+Y: users bring the habit
    of whichever system they came from (Qt's Redo is only Ctrl+Shift+Z on most Linux desktops)."""
    keys = [*QKeySequence.keyBindings(QKeySequence.StandardKey.Redo), QKeySequence("Ctrl+Shift+Z")]
    if sys.platform != "darwin":  # Cmd+Y is not Redo on a Mac
        keys.append(QKeySequence("Ctrl+Y"))
    return list({key.toString(): key for key in keys}.values())


class MainWindow(QMainWindow):
    """``interactive=False`` (screenshots, tests, benchmarks) skips saved layouts, recovery
    prompts and autosave, so runs are reproducible and never block on a dialog."""

    def __init__(self, catalog: Catalog | None = None, interactive: bool = True):
        super().__init__()
        self.catalog = catalog or default_catalog()
        self.interactive = interactive
        self.settings = QSettings()
        self.document = DesignDocument(empty_design(), None, self)
        self.evaluator = Evaluator(self.catalog, self)
        self.recovery = RecoveryManager(self.document, parent=self)
        self._build_canvas()
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_status()
        self._wire()
        self.floor_view = attach_floor_view(self)  # the floor plan (designer/site/floor_view.py)
        self.setAcceptDrops(True)
        self._shown_once = False
        self._form_height_px: int | None = None  # the Inspector's longest form (measured once)
        if interactive:
            self.fit_to_screen()
        else:
            self.resize(PREFERRED_SIZE)  # screenshots, tests and benchmarks look the same everywhere
        self._default_state = self.saveState(LAYOUT_VERSION)
        self._layout_restored = False
        if interactive:
            self._layout_restored = self._restore_layout()
            self.recovery.start()
        self._update_title()
        self._on_replaced()
        self.recovery.failed.connect(self.show_error)
        self._show_startup_warnings()

    # --- construction --------------------------------------------------------------------
    def _build_canvas(self) -> None:
        self.scene = DesignScene(self.document.design, self.catalog, self)
        self.view = DesignView(self.scene, self.document, self.catalog)
        self.canvas_actions = CanvasActions(self.view, self.document, self)
        self.breadcrumb = Breadcrumb()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.breadcrumb)
        self.validity_banner = ValidityBanner()  # above the canvas: seen whichever panel is up
        layout.addWidget(self.validity_banner)
        layout.addWidget(self.view)
        # Docks never squeeze the canvas below a usable width (dragging a dock edge, or a
        # layout saved on a wider screen).
        central.setMinimumWidth(MIN_CANVAS_WIDTH_PX)
        self.setCentralWidget(central)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)  # saveState/restoreState key
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def raise_metric_panel(self, title: str) -> None:
        """Bring the metric panel titled ``title`` (any case: "cost", "Power") to the front."""
        panels = [*self.metric_panels, self.comparison_panel]
        for panel, dock in zip(panels, [*self.metric_docks, self.comparison_dock]):
            if panel.title.lower() == title.lower():
                dock.show()
                dock.raise_()
                return
        raise DesignError(f"no metric panel {title!r}; the panels are "
                          + ", ".join(panel.title.lower() for panel in panels))

    def _build_docks(self) -> None:
        self.setDockNestingEnabled(True)
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        left, right, bottom = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                               Qt.DockWidgetArea.BottomDockWidgetArea)
        self.palette = PaletteWidget(self.catalog)
        self.outline = OutlineWidget(self.catalog)
        self.inspector = InspectorWidget(self.document, self.catalog, lambda: self.scene.summary)
        self.inspector.link_reconnected.connect(self._reselect_link)
        self.inspector.pick.connect(self._pick)
        self.inspector.pick_group.connect(lambda key: self.scene.select_group(key))
        self.inspector.pick_bundle.connect(lambda key: self.scene.select_bundle(key))
        self.workload_panel = WorkloadPanel(self.document, self.catalog)
        self.assumptions_panel = AssumptionsPanel(self.document)
        self.services_panel = ServicesPanel(self.document)
        self.overview_panel = OverviewPanel()
        self.bandwidth_panel = BandwidthPanel()
        self.latency_panel = LatencyPanel()
        self.power_panel = PowerPanel()
        self.reliability_panel = ReliabilityPanel()
        self.storage_panel = StoragePanel()
        self.cost_panel = CostPanel()
        self.cost_panel.method.edit = self.assumptions_panel.set_text  # one path, one undo step per edit
        self.performance_panel = PerformancePanel()
        self.warnings_panel = WarningsPanel()
        self.metric_panels = [self.overview_panel, self.bandwidth_panel, self.latency_panel, self.power_panel,
                              self.reliability_panel, self.storage_panel, self.cost_panel,
                              self.performance_panel]

        # Bottom docks sit under the canvas only; the side columns run full height.
        self.setCorner(Qt.Corner.BottomLeftCorner, left)
        self.setCorner(Qt.Corner.BottomRightCorner, right)
        self.palette_dock = self._dock("Palette", self.palette, left, "palette")
        self.outline_dock = self._dock("Outline", self.outline, left, "outline")
        self.splitDockWidget(self.palette_dock, self.outline_dock, Qt.Orientation.Vertical)
        self.inspector_dock = self._dock("Inspector", self.inspector, right, "inspector")
        self.metric_docks = [self._dock(panel.title, panel, right, panel.title.lower())
                             for panel in self.metric_panels]
        # Split before tabifying: Qt turns a split against a tabbed dock into another tab.
        self.splitDockWidget(self.inspector_dock, self.metric_docks[0], Qt.Orientation.Vertical)
        self.workload_dock = self._dock("Workload", self.workload_panel, right, "workload")
        self.tabifyDockWidget(self.inspector_dock, self.workload_dock)
        self.assumptions_dock = self._dock("Assumptions", self.assumptions_panel, right, "assumptions")
        self.services_dock = self._dock("Services", self.services_panel, right, "services")
        self.tabifyDockWidget(self.workload_dock, self.services_dock)
        self.tabifyDockWidget(self.services_dock, self.assumptions_dock)
        for dock in self.metric_docks[1:]:
            self.tabifyDockWidget(self.metric_docks[0], dock)
        # Not a metric panel (it shows no result of its own): fed by the baseline after them.
        self.comparison_panel = ComparisonPanel()
        self.comparison_dock = self._dock("Comparison", self.comparison_panel, right, "comparison")
        self.tabifyDockWidget(self.metric_docks[-1], self.comparison_dock)
        self.warnings_dock = self._dock("Warnings", self.warnings_panel, bottom, "warnings")
        self.inspector_dock.raise_()
        self.metric_docks[-1].raise_()  # Performance first: it has the most to say
        # Qt fixes the window's minimum size part-way through the calls above, while some docks
        # still stand stacked rather than tabbed (with seven metric docks: 734 px, taller than
        # an 800 px screen allows): recompute it from the finished layout.
        self.layout().activate()

    def _size_docks(self) -> None:
        """The default split for the window's current size: the side columns leave the canvas
        most of the width; the Inspector gets the height of its longest form (every field of a
        link or a component whole), the metric panels under it the rest."""
        self.layout().activate()
        bars = [bar for bar in self.findChildren(QTabBar) if bar.parent() is self and bar.isVisible()]
        # Wide enough for the metric tabs' titles ("Po…" is no title), if the canvas can spare it.
        tab_titles_px = max((bar.sizeHint().width() for bar in bars
                             if self.metric_panels[-1].title in (bar.tabText(i) for i in range(bar.count()))),
                            default=0)
        left, right = side_widths_px(self.width(), tab_titles_px)
        self.resizeDocks([self.palette_dock, self.inspector_dock], [left, right], Qt.Orientation.Horizontal)
        self.layout().activate()
        if self._form_height_px is None:
            self._form_height_px = inspector_form_height_px(self.catalog)
        # The metric panels are tabbed: Qt parks the ones behind the raised tab outside the window.
        metrics = next((dock for dock in self.metric_docks if self.rect().intersects(dock.geometry())),
                       self.metric_docks[-1])
        column = self.inspector_dock.height() + metrics.height()
        chrome = self.inspector_dock.height() - self.inspector.viewport().height()  # title bar, frame
        inspector = max(0, min(self._form_height_px + chrome, column - METRICS_MIN_PX))
        # resizeDocks shares the column in proportion to the sizes given, tab bars included.
        tab = max((bar.height() for bar in bars), default=0)
        self.resizeDocks([self.inspector_dock, metrics], [inspector + tab, column - inspector + tab],
                         Qt.Orientation.Vertical)
        palette = self.palette_dock.height() + self.outline_dock.height()
        self.resizeDocks([self.palette_dock, self.outline_dock], [round(palette * 0.6), round(palette * 0.4)],
                         Qt.Orientation.Vertical)
        self.resizeDocks([self.warnings_dock], [WARNINGS_HEIGHT_PX], Qt.Orientation.Vertical)

    def fit_to_screen(self, available: QRect | None = None) -> None:
        """Size the window to ``available`` (default: the usable area of its screen) with a
        margin, never larger, and lay the docks out for that size once it is shown."""
        self.setGeometry(fitted_geometry(available if available is not None else self.screen().availableGeometry()))
        if self.isVisible():
            self._size_docks()

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

    def _build_status(self) -> None:
        self.eval_label = QLabel("")
        self.counts_label = QLabel("")
        self.run_label = QLabel("")  # the workload's MFU and days, or "does not fit" (why: tooltip)
        self.eval_label.setMinimumWidth(180)
        self.statusBar().addPermanentWidget(self.run_label)
        self.statusBar().addPermanentWidget(self.counts_label)
        self.statusBar().addPermanentWidget(self.eval_label)

    def _wire(self) -> None:
        doc = self.document
        doc.changed.connect(self._on_change)
        doc.replaced.connect(self._on_replaced)
        doc.path_changed.connect(self._update_title)
        # A method, not a lambda: Qt disconnects a deleted window's methods, and the undo stack
        # says it is clean once more while the window is being deleted (after Quit -> Discard).
        doc.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.scene.selectionChanged.connect(self._on_selection)
        self.scene.block_changed.connect(self._on_block_changed)
        self.evaluator.started.connect(lambda: self.eval_label.setText("Evaluating…"))
        self.evaluator.finished.connect(self._on_evaluated)
        self.evaluator.failed.connect(self._on_evaluation_failed)
        self.baseline.compared.connect(self._show_comparison)
        self.baseline.error.connect(self.show_error)
        self.palette.place_requested.connect(lambda cid: self.view.place(cid))
        self.outline.reveal.connect(self.reveal_path)
        self.outline.menu_requested.connect(lambda _path, at: self.canvas_actions.failure_menu().exec(at))
        self.warnings_panel.reveal.connect(self.reveal_paths)
        self.breadcrumb.navigate.connect(self.navigate)
        self.view.file_dropped.connect(self.open_file)
        for source in (self.view, self.canvas_actions, self.inspector, self.workload_panel,
                       self.services_panel, self.assumptions_panel):
            source.error.connect(self.show_error)
        # Tabs behind others make their charts and fields when first raised: a quicker start.
        for panel, dock in zip(self.metric_panels, self.metric_docks):
            dock.visibilityChanged.connect(panel.dock_visibility_changed)
        self.assumptions_dock.visibilityChanged.connect(self.assumptions_panel.dock_visibility_changed)

    # --- model events --------------------------------------------------------------------
    def _on_clean_changed(self, clean: bool) -> None:
        self.setWindowModified(not clean)

    def _on_change(self, change: Change) -> None:
        self.scene.on_change(change)
        self.outline.follow(self.document.design, change.kind)
        if change.kind != "geometry":
            self.breadcrumb.show_path(self.document.design, self.scene.block_path)
            self._update_title()  # an untitled design's title is its name, which edits change
        self.inspector.refresh()
        if change.kind == "workload":
            self.workload_panel.load_from_design()
            self.services_panel.load_from_design()
        if change.kind == "assumptions":
            self.assumptions_panel.refresh()
        if change.kind != "geometry":
            self.workload_panel.design_changed(change)
        if change.kind != "geometry":  # positions never change a metric
            self.evaluator.request(self.document.design)

    def _on_replaced(self) -> None:
        self.scene.set_design(self.document.design)
        self.outline.rebuild(self.document.design)
        self.workload_panel.load_from_design()
        self.workload_panel.design_changed(None)
        self.services_panel.load_from_design()
        self.assumptions_panel.refresh()
        self._on_selection()
        self.evaluator.request(self.document.design, debounce=False)
        self.view.fit()  # and again on every resize until the user zooms or pans (DesignView.auto_fit)

    def _on_block_changed(self, path: str) -> None:
        self.breadcrumb.show_path(self.document.design, path)
        self._on_selection()
        self.view.fit()  # every step in or out (canvas, breadcrumb, outline, undo) shows the whole block

    def _reselect_link(self, link_id: str) -> None:
        # The inspector already shows this link: highlight it again without a selection signal,
        # which would rebuild the inspector while its combo box is still emitting. A link that
        # moved out of this level stays in the inspector, unhighlighted.
        item = self.scene.link_item(link_id)
        if item is not None:
            self.scene.blockSignals(True)
            item.setSelected(True)
            self.scene.blockSignals(False)

    def _on_selection(self) -> None:
        scene = self.scene
        self.inspector.show_selection(scene.block_path, scene.selected_ids(), scene.selected_link_ids(),
                                      scene.selected_groups(), scene.selected_bundles())
        self.services_panel.set_selection([scene.child_path(key) for key in scene.selected_ids()])

    def _pick(self, ids: list[str], link_ids: list[str]) -> None:
        """A member picked from the Inspector's list of a group card or bundle: select it."""
        self.scene.select(ids, link_ids)

    def _on_evaluated(self, result: Result) -> None:
        for panel in self.metric_panels:
            panel.update_result(result)
        self.warnings_panel.update_result(result)
        self.validity_banner.update_result(result)
        ev = result.evaluation
        n = len(ev.warnings)
        self.warnings_dock.setWindowTitle(f"Warnings ({n})" if n else "Warnings")
        self.workload_panel.set_design_facts(ev.counts.gpus, ev.bandwidth.scale_up_domain_gpus)
        self.services_panel.set_result(result)
        self.counts_label.setText(f"{num(ev.counts.gpus)} GPUs · {num(ev.counts.switches)} switches · "
                                  f"{power(ev.power.facility_kw)} facility")
        run_text, run_tip = status_text(ev)
        self.run_label.setText(run_text)
        self.run_label.setToolTip(run_tip)
        self.run_label.setStyleSheet("color: #b71c1c; font-weight: 600;" if ev.cannot_run else "")
        self.eval_label.setText(f"Evaluated in {result.elapsed_s * 1000:,.0f} ms")
        self.baseline.show(result)  # after the panels: their deltas go beside the rows just set

    def _show_comparison(self, comparison) -> None:
        self.comparison_panel.show_comparison(comparison)
        for panel in self.metric_panels:
            panel.show_deltas(comparison)

    def _on_evaluation_failed(self, message: str) -> None:
        self.eval_label.setText("Evaluation failed")
        self.show_error(message)

    def evaluate_now(self) -> Result | None:
        return self.evaluator.evaluate_now(self.document.design)

    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(f"⚠ {message}", STATUS_MS)

    def _show_startup_warnings(self) -> None:
        """A user catalog left out or a settings file we cannot use: say so, and carry on."""
        problems = list(self.catalog.warnings)
        settings = settings_problem(self.settings) if self.interactive else None
        if settings:
            problems.append(settings)
        if problems:
            self.statusBar().showMessage("⚠ " + "; ".join(problems), STARTUP_WARNING_MS)

    # --- navigation and reveal -----------------------------------------------------------
    def navigate(self, block_path: str) -> None:
        if block_path != self.scene.block_path:
            self.scene.set_block(block_path)
            self.view.fit()

    def reveal_path(self, path: str) -> None:
        """Show ``path`` (outline click): open its parent block, select it and centre on it."""
        if not path:
            self.navigate("")
            return
        self.reveal_paths([path])

    def reveal_paths(self, paths: list[str]) -> None:
        """Select the components at ``paths`` (warnings): step into the deepest block holding
        them all, then select the items there that are or contain them."""
        design = self.document.design
        valid = []
        for path in paths:
            try:
                design.resolve(path)
                valid.append(path)
            except DesignError:
                continue
        if not valid:
            self.show_error("the components of this warning are not in the design")
            return
        parents = [p.split("/")[:-1] for p in valid]
        common: list[str] = []
        for parts in zip(*parents):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
        block_path = "/".join(common)
        if block_path != self.scene.block_path:
            self.scene.set_block(block_path)
        depth = len(common)
        keys = list(dict.fromkeys(p.split("/")[depth] for p in valid))
        self.scene.select(keys)
        card = self.scene.card(keys[0]) or self.scene.group_card_of(keys[0])
        if card is not None:
            rect = self.scene.content_rect(selected_only=True)
            if not self.view.viewport().rect().contains(self.view.mapFromScene(rect).boundingRect()):
                self.view.fit()
            self.view.centerOn(rect.center())
            self.view.auto_fit = False  # keep the revealed items centred

    # --- files ---------------------------------------------------------------------------
    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.document.title}[*] — Cluster Designer")
        self.setWindowModified(self.document.modified)

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current design (saved, discarded or unmodified)."""
        if not self.document.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save the changes to {self.document.title}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_design(self) -> None:
        if self.maybe_save():
            self.recovery.discard()
            self.document.reset(empty_design(), None)

    def new_from_template(self) -> None:
        """Generate a design in the wizard and open it as a new untitled document, after
        asking to save unsaved work (as New and Open do): the open file is never touched."""
        from designer.window.wizard import TemplateWizard  # noqa: PLC0415 - the generators: when first asked for

        wizard = TemplateWizard(self.catalog, self)
        if wizard.exec() and wizard.design is not None and self.maybe_save():
            self.apply_template(wizard.design)

    def apply_template(self, design) -> None:
        """Open the generated ``design`` as a new untitled document (Save asks for a file),
        with the current design's workload, assumptions and services, which describe the job
        rather than the hardware. Not yet saved anywhere, it counts as unsaved work."""
        opened = self.document.design.snapshot()
        ReplaceRoot(design.root, design.name, design.metadata).apply(opened)
        self.recovery.discard()
        self.document.reset(opened, None)  # the canvas shows its top level, fitted
        self.document.undo_stack.resetClean()

    def open_dialog(self) -> None:
        start = str(self.document.path.parent) if self.document.path else ""
        name, _ = QFileDialog.getOpenFileName(self, "Open project", start, PROJECT_FILTER)
        if name:
            self.open_file(Path(name))

    def open_file(self, path: Path) -> bool:
        if not self.maybe_save():
            return False
        try:
            design = self.read_project(Path(path))
        except Cancelled:
            self.statusBar().showMessage(f"Opening {Path(path).name} cancelled", STATUS_MS)
            return False
        except DesignError as exc:
            # The current document and its file stay untouched: nothing is ever saved over a
            # file that failed to load.
            QMessageBox.critical(self, "Cannot open project", str(exc))
            return False
        self.recovery.discard()
        self.document.reset(design, Path(path))
        self._add_recent(Path(path))
        self.statusBar().showMessage(f"Opened {path}", STATUS_MS)
        return True

    def read_project(self, path: Path):
        """The design in project file ``path``, read on a worker thread while the window says
        so (a design drawn device by device is 300 MB of JSON). Raises DesignError, or
        designer.common.busy.Cancelled when the user gives up waiting."""
        try:
            size = f" ({path.stat().st_size / 1e6:,.0f} MB)"
        except OSError:
            size = ""  # load_project names the problem
        return run_busy(self, f"Opening {path.name}{size}…", lambda: load_project(path, self.catalog),
                        cancellable=True, what="opening the project")

    def load_design(self, design, path: Path | None, copy_of: Path | None = None) -> None:
        """Show an already loaded design (the command line path; no prompts). With ``path``
        None it is untitled: Save asks for a file. ``copy_of`` is the file it was read from
        (the bundled example): the title says it is a copy, and that file is never written."""
        self.document.reset(design, path, copy_of)
        if path is not None and self.interactive:
            self._add_recent(path)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or Path.home() / f"{self.document.design.name or 'design'}.json")
        name, _ = QFileDialog.getSaveFileName(self, "Save project", start, PROJECT_FILTER)
        if not name:
            return False
        path = with_extension(name, ".json", (".json",))
        return self._save_to(path, name_after_file=self.document.design.name != path.stem)

    def _save_to(self, path: Path, name_after_file: bool = False) -> bool:
        """Write the project to ``path``. ``name_after_file`` (Save As): the design takes the
        file's name (summaries and diagrams are titled with it), as an undoable step that is
        part of what is saved; nothing changes when the write fails."""
        design = self.document.design
        rename = SetDesignName(path.stem) if name_after_file else None
        # Written from a snapshot on a worker thread, while the window says so: writing a design
        # drawn device by device takes seconds.
        named = design.snapshot()
        if rename is not None:
            rename.apply(named)
        try:
            run_busy(self, f"Saving {path.name}…", lambda: save_project(named, path), what="saving the project")
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot save project", str(exc))
            return False
        if rename is not None:
            self.document.push(rename, f"Name the design {path.stem}")
        self.document.undo_stack.setClean()
        self.document.set_path(path)
        self.recovery.discard()
        self._add_recent(path)
        self.statusBar().showMessage(f"Saved {path}", STATUS_MS)
        return True

    def recent_files(self) -> list[str]:
        return recent_paths(self.settings.value("recent", []))

    def _add_recent(self, path: Path) -> None:
        if not self.interactive:
            return
        text = str(Path(path).resolve())
        recent = [text] + [p for p in self.recent_files() if p != text]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files() if self.interactive else []
        for n, name in enumerate(recent):
            action = self.recent_menu.addAction(f"&{n + 1} {name}")
            action.triggered.connect(lambda _=False, p=name: self.open_file(Path(p)))
        self.recent_menu.setEnabled(bool(recent))

    # --- export --------------------------------------------------------------------------
    def export_diagram(self, path: Path, width_px: int = 1600, selected_only: bool = False) -> None:
        render_scene(self.scene, path, width_px, selected_only, self.document.design.name)

    def export_diagram_dialog(self, ext: str, selected_only: bool) -> None:
        base = (self.document.path.stem if self.document.path else self.document.design.name) or "diagram"
        name, _ = QFileDialog.getSaveFileName(self, "Export diagram", f"{base}{ext}",
                                              f"{ext[1:].upper()} (*{ext})")
        if not name:
            return
        path = with_extension(name, ext, DIAGRAM_FORMATS)
        width = 1600
        if ext == ".png":
            width, ok = QInputDialog.getInt(self, "PNG size", "Width in pixels:", 2400, 200, 20_000, 100)
            if not ok:
                return
        try:
            self.export_diagram(path, width, selected_only)
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot export", str(exc))
            return
        self.statusBar().showMessage(f"Exported {path}", STATUS_MS)

    def export_summary(self, path: Path, fmt: str | None = None) -> None:
        result = self.evaluator.last if not self.evaluator.busy else None
        result = result or self.evaluate_now()
        if result is None:
            raise DesignError("the design could not be evaluated")
        export_summary(result.evaluation, path, fmt)

    def export_summary_dialog(self, fmt: str) -> None:
        extensions = SUMMARY_EXTENSIONS[fmt]
        ext = extensions[0]
        base = (self.document.path.stem if self.document.path else self.document.design.name) or "summary"
        suggested = f"{base}-bom{ext}" if fmt == "bom" else f"{base}{ext}"
        name, _ = QFileDialog.getSaveFileName(self, "Export summary", suggested, f"{fmt.upper()} (*{ext})")
        if not name:
            return
        path = with_extension(name, ext, extensions)
        try:
            self.export_summary(path, fmt)
        except DesignError as exc:
            QMessageBox.critical(self, "Cannot export", str(exc))
            return
        self.statusBar().showMessage(f"Exported {path}", STATUS_MS)

    # --- layout, drops, close ------------------------------------------------------------
    def _restore_layout(self) -> bool:
        """Apply the saved window geometry and dock layout; True when a saved dock layout was
        applied. Qt's restoreGeometry brings a geometry that no longer fits (a monitor
        unplugged, a lower resolution) inside the usable area of a screen, and the canvas's
        minimum width holds whatever dock sizes were saved (both checked by tests)."""
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        return isinstance(state, QByteArray) and self.restoreState(state, LAYOUT_VERSION)

    def reset_layout(self) -> None:
        self.restoreState(self._default_state, LAYOUT_VERSION)
        for dock in self.findChildren(QDockWidget):
            if not dock.isFloating():
                dock.show()
        self._style_dock_tab_bars()
        self._size_docks()
        QTimer.singleShot(0, self, self.hide_stray_tab_bars)

    def offer_recovery(self) -> None:
        """After a crash: offer each draft left by a session that is gone."""
        for draft in RecoveryManager.orphaned_drafts():
            where = f" (from {draft.original})" if draft.original else ""
            answer = QMessageBox.question(
                self, "Recover unsaved work",
                f"Cluster Designer closed unexpectedly. Recover “{draft.name}”{where}, autosaved at "
                f"{draft.saved_at}?", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            if answer == QMessageBox.StandardButton.Yes:
                try:
                    design = self.read_project(draft.project)
                except Cancelled:
                    continue  # the draft stays for the next start
                except DesignError as exc:
                    QMessageBox.critical(self, "Cannot recover", str(exc))
                    continue
                self.document.reset(design, draft.original)
                self.document.undo_stack.resetClean()  # recovered work is unsaved work
                RecoveryManager.remove(draft)
                return
            RecoveryManager.remove(draft)

    def _style_dock_tab_bars(self) -> None:
        """Dock tabs with less padding than the style's: the nine metric titles then fit a
        1366 px screen's right column whole at a desktop's 11 pt font (at the style's:
        "Overvi…"); a title is read whole or not at all (past the column: scroll arrows). Set
        on the tab bars alone: a style sheet on the window would restyle every widget in it."""
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self and bar.styleSheet() != DOCK_TAB_STYLE:
                bar.setStyleSheet(DOCK_TAB_STYLE)
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            self._style_dock_tab_bars()
            if not self._layout_restored:
                self._size_docks()
            self.hide_stray_tab_bars()
            QTimer.singleShot(0, self, self.hide_stray_tab_bars)

    def hide_stray_tab_bars(self) -> None:
        """Qt leaves a stray dock tab bar ("Overview | Bandwidth") floating over the palette when
        docks are tabified before the window is first laid out; hide any tab bar that does not
        sit over a dock showing one of its tabs."""
        self.layout().activate()
        docks = {d.windowTitle(): d for d in self.findChildren(QDockWidget) if d.isVisible() and not d.isFloating()}
        self._style_dock_tab_bars()  # Qt makes a tab bar anew when docks are tabbed again
        for bar in self.findChildren(QTabBar):
            if bar.parent() is not self or not bar.isVisible():
                continue
            titles = [bar.tabText(i) for i in range(bar.count())]
            owned = any(t in docks and abs(docks[t].geometry().x() - bar.geometry().x()) <= 2 for t in titles)
            if not owned:
                bar.hide()

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                event.acceptProposedAction()
                QTimer.singleShot(0, lambda p=Path(url.toLocalFile()): self.open_file(p))
                return

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        if self.interactive:
            self.settings.setValue("window/geometry", self.saveGeometry())
            self.settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        self.recovery.timer.stop()
        self.recovery.discard()
        self.evaluator.shutdown()
        self.workload_panel.shutdown()
        self.scene.blockSignals(True)  # the scene's teardown must not drive half-destroyed panels
        event.accept()

    # --- help ----------------------------------------------------------------------------
    def show_guide(self) -> bool:
        return open_guide(self)

    def show_shortcuts(self) -> None:
        a = self.canvas_actions
        show_shortcuts(self, [self.undo_action, self.redo_action, *a.all(), self.evaluate_action])

    def show_about(self) -> None:
        show_about(self)
