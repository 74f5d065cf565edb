"""The main window: canvas in the middle, docks around it, menus, files and evaluation status.

MainWindow is put together from its parts, one job each: its docks and their layout
(designer/window/docks.py), its actions, menus and toolbar (menus.py) and its files (files.py);
this module builds the canvas and the status bar, wires them and follows the document and the
evaluation."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QVBoxLayout, QWidget

from core.catalog import Catalog, default_catalog
from core.errors import DesignError
from core.model import Change
from designer.canvas.actions import CanvasActions
from designer.canvas.breadcrumb import Breadcrumb
from designer.canvas.scene import DesignScene
from designer.canvas.view import DesignView
from designer.common.format import num, power
from designer.common.wheel_guard import install_wheel_guard
from designer.common.window_fit import PREFERRED_SIZE
from designer.panels.performance import status_text
from designer.project.document import DesignDocument, empty_design
from designer.project.evaluator import Evaluator, Result
from designer.site.floor_view import attach_floor_view
from designer.window.default_layout import MIN_CANVAS_WIDTH_PX
from designer.window.docks import LAYOUT_VERSION, WindowDocks
from designer.window.files import STATUS_MS, WindowFiles
from designer.window.guide import open_guide, show_about, show_shortcuts
from designer.window.menus import WindowMenus
from designer.window.recovery import RecoveryManager
from designer.window.user_settings import settings_problem
from designer.window.validity_banner import ValidityBanner

STARTUP_WARNING_MS = 30_000  # read once at start-up, so it stays longer than a status note


class MainWindow(WindowDocks, WindowMenus, WindowFiles, QMainWindow):
    """``interactive=False`` (screenshots, tests, benchmarks) skips saved layouts, recovery
    prompts and autosave, so runs are reproducible and never block on a dialog."""

    def __init__(self, catalog: Catalog | None = None, interactive: bool = True):
        super().__init__()
        install_wheel_guard(QApplication.instance())
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
        for panel, dock in ((self.assumptions_panel, self.assumptions_dock),
                            (self.workload_panel, self.workload_dock),
                            (self.services_panel, self.services_dock)):
            dock.visibilityChanged.connect(panel.dock_visibility_changed)

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
        perf = ev.performance
        self.workload_panel.show_recompute_memory(
            perf.memory_by_recompute_gb if perf is not None else {},
            perf.memory.hbm_gb if perf is not None else 0.0)
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

    # --- drops, close --------------------------------------------------------------------
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
