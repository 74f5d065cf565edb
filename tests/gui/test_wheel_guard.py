"""The mouse wheel over a form scrolls the form: a spin box or combo box under the pointer keeps
its value unless it has the keyboard focus (a walk-through turned 61 layers into 21)."""

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree


def _wheel_down(widget, notches: int = 3) -> None:
    centre = QPointF(widget.rect().center())
    for _ in range(notches):
        event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)


def test_the_wheel_over_an_unfocused_field_scrolls_the_tab_not_the_value(window, qtbot):
    window.load_design(generate_fat_tree(FatTreeOptions(2048, "HGX-H800", "QM9700"),
                                         default_catalog()), None)
    panel = window.workload_panel
    panel.keep_layout.setChecked(True)
    panel.choose_preset("deepseek-v3")
    layers, precision = panel.spins["layers"], panel.precision
    assert layers.value() == 61 and not layers.hasFocus()
    _wheel_down(layers)
    _wheel_down(precision)
    assert layers.value() == 61 and precision.currentText() == "fp8-block"
    assert layers.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not focus it
    # a field the user clicked or tabbed into takes the wheel as before
    window.activateWindow()
    layers.setFocus()
    qtbot.waitUntil(layers.hasFocus)
    _wheel_down(layers, 1)
    assert layers.value() == 60
