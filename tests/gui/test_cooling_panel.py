"""Cooling in the window: the Inspector sets a compute node's cooling (one undoable step), and
the Power panel lists the compute racks by cooling type with the over-limit warning."""

from core.model import Block, Design, Node


def _nvl72_racks() -> Design:
    root = Block("root", "racks")
    root.children["dgx"] = Node("dgx", "DGX-H100", 8)
    root.children["nvl"] = Node("nvl", "GB300-NVL72", 2)
    return Design("racks", root)


def test_inspector_cooling_puts_nvl72_racks_on_air_and_the_power_panel_warns(window, qtbot):
    design = _nvl72_racks()
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    # Catalog cooling: DGX H100 on air (2 racks of 40.8 kW), NVL72 cold-plate (2 of 142 kW).
    assert window.power_panel.value("Air") == "2 racks · max 40.8 kW of 50.0 kW · PUE 1.40"
    assert window.power_panel.value("Cold-plate") == "2 racks · max 142 kW of 200 kW · PUE 1.15"
    assert window.power_panel.message() == ""
    window.reveal_path("nvl")
    combo = window.inspector.fields["cooling"]
    assert combo.currentText() == "cold-plate (catalog)"
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        combo.setCurrentIndex(combo.findData("air"))
        combo.activated.emit(combo.currentIndex())
    assert design.node("nvl").cooling == "air"
    assert "Set" in window.document.undo_stack.undoText()
    # 2 DGX racks + 2 NVL72 racks on air; the NVL72 racks are over the 50 kW limit.
    assert window.power_panel.value("Air") == \
        "⚠ 2 over the limit · 4 racks · max 142 kW of 50.0 kW · PUE 1.40"
    assert "RACK_OVER_COOLING_LIMIT" in {w.code for w in window.evaluator.last.evaluation.warnings}
    assert "GB300-NVL72 racks of 142.0 kW on air cooling (limit 50 kW)" in window.power_panel.message()
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.document.undo_stack.undo()
    assert design.node("nvl").cooling == ""
    assert window.power_panel.message() == ""


def test_inspector_block_cooling_reaches_the_components_inside(window, qtbot, small_design):
    # 1,024 DGX H100 (air, 40.8 kW racks) in repeated SU blocks; one SU template set to
    # immersion cools all its instances' racks, and the PUE follows (1.05 for all compute).
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(small_design, None)
    assert "Air" in window.power_panel._values
    su = next(k for k in small_design.root.children if k.startswith("su"))
    window.scene.select([su])
    combo = window.inspector.fields["cooling"]
    assert combo.currentText() == "(each component's own)"
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        combo.setCurrentIndex(combo.findData("immersion"))
        combo.activated.emit(combo.currentIndex())
    assert small_design.block(su).cooling == "immersion"
    power = blocker.args[0].evaluation.power
    assert list(power.cooling) == ["immersion"] and power.pue == 1.05
    assert window.power_panel.value("Immersion") == "32 racks · max 40.8 kW of 250 kW · PUE 1.05"
