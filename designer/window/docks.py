"""The main window's docks around the canvas: which panel goes where, the default split for the
window's size (the figures: designer/window/default_layout.py), the saved layout, and the dock
tab bars Qt leaves behind."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QTabBar, QTabWidget, QWidget

from core.errors import DesignError
from designer.assumptions.assumptions_panel import AssumptionsPanel
from designer.common.window_fit import fitted_geometry
from designer.editor.inspector import InspectorWidget
from designer.editor.outline import OutlineWidget
from designer.editor.palette import PaletteWidget
from designer.panels.bandwidth import BandwidthPanel
from designer.panels.comparison import ComparisonPanel
from designer.panels.cost import CostPanel
from designer.panels.latency import LatencyPanel
from designer.panels.overview import OverviewPanel
from designer.panels.performance import PerformancePanel
from designer.panels.power import PowerPanel
from designer.panels.reliability import ReliabilityPanel
from designer.panels.storage import StoragePanel
from designer.panels.warnings import WarningsPanel
from designer.services.services_panel import ServicesPanel
from designer.window.default_layout import METRICS_MIN_PX, inspector_form_height_px, side_widths_px
from designer.workload.workload_panel import WorkloadPanel

LAYOUT_VERSION = 3  # 2: Assumptions dock added; 3: Services (older saved layouts fall back to the default)
WARNINGS_HEIGHT_PX = 110
DOCK_TAB_STYLE = "QTabBar::tab { padding: 4px 6px; }"


class WindowDocks:
    """MainWindow's docks and their layout (a part of MainWindow: a QMainWindow's dock areas)."""

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
