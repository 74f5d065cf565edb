"""Inspector edits, evaluation updates, undo/redo of a whole editing session, workload, wizard."""

import copy
import dataclasses
from pathlib import Path

from PySide6.QtCore import QPointF

from core.operations import MoveItems, SetProperty
from core.project import design_to_dict, load_project
from core.workload import list_presets, load_preset
from designer.window.wizard import TemplateWizard


def test_inspector_count_edit_updates_metric_panels(window, qtbot, small_design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000):
        window.load_design(small_design, None)
    before = window.evaluator.last.evaluation.counts.gpus
    assert window.overview_panel.value("GPUs") == f"{before:,}"
    su = next(k for k in small_design.root.children if k.startswith("su"))
    window.scene.select([su])
    spin = window.inspector.fields["count"]
    assert spin.value() == small_design.root.children[su].count
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000) as blocker:
        spin.setValue(2)
    gpus = blocker.args[0].evaluation.counts.gpus
    assert gpus == 2 * 32 * 8 and gpus != before
    assert window.overview_panel.value("GPUs") == f"{gpus:,}"
    assert window.power_panel.by_kind.values  # the chart was drawn
    assert window.undo_action.text() == "&Undo Set count" or "Set count" in window.undo_action.text()


def test_inspector_rejects_invalid_values(window, small_design):
    window.load_design(small_design, None)
    link = small_design.root.links[0]
    window.scene.select([], [link.id])
    assert "kind" in window.inspector.fields
    length = window.inspector.fields["length_m"]
    length.setValue(42.0)
    assert small_design.root.link(link.id).length_m == 42.0  # edits replace a link rather than change it
    window.inspector.fields["kind"].setCurrentText("storage")
    window.inspector.fields["kind"].activated.emit(window.inspector.fields["kind"].currentIndex())
    assert small_design.root.link(link.id).kind == "storage"
    node_path = next(p for p, n in small_design.root.iter_nodes() if n.tier == "spine")
    window.reveal_path(node_path)
    rate = window.inspector.fields["overrides.failure_rate_per_1000_days"]
    rate.setText("0.5")
    rate.editingFinished.emit()
    assert small_design.node(node_path).overrides == {"failure_rate_per_1000_days": 0.5}
    rate.setText("")
    rate.editingFinished.emit()
    assert small_design.node(node_path).overrides == {}


def test_inspector_moves_a_link_end_in_one_undo_step(window, small_design):
    window.load_design(small_design, None)
    design = window.document.design
    link = design.root.links[0]
    original = dataclasses.asdict(link)
    assert (link.a, link.b) == ("su/leaf", "spine")
    window.scene.select([], [link.id])
    inspector = window.inspector
    ends = inspector.fields["a"], inspector.fields["b"]
    choices = [path for path, _ in design.root.iter_nodes()]
    for combo, value in zip(ends, (link.a, link.b)):
        assert combo.isEditable() and combo.currentText() == value
        assert [combo.itemText(i) for i in range(combo.count())] == choices  # components reachable in the block
    stack = window.document.undo_stack
    steps = stack.count()

    # Pick another component for end a: one undo step, same id and properties.
    a = ends[0]
    a.setCurrentIndex(a.findText("su/nodes"))
    a.activated.emit(a.currentIndex())
    moved = design.root.link(link.id)
    assert (moved.a, moved.b) == ("su/nodes", "spine")
    assert {k: v for k, v in dataclasses.asdict(moved).items() if k != "a"} == \
           {k: v for k, v in original.items() if k != "a"}
    assert stack.count() == steps + 1 and "su/nodes" in stack.undoText()
    assert inspector.fields["a"].currentText() == "su/nodes" and inspector._error.isHidden()
    assert window.scene.selected_link_ids() == [link.id]  # the canvas keeps it highlighted
    a.lineEdit().editingFinished.emit()  # the focus-out after a pick changes nothing more
    assert stack.count() == steps + 1

    # Moving end b into the same child block: the canvas no longer draws the link at this
    # level, the inspector still shows it.
    b = inspector.fields["b"]
    b.setCurrentIndex(b.findText("su/leaf"))
    b.activated.emit(b.currentIndex())
    assert (design.root.link(link.id).a, design.root.link(link.id).b) == ("su/nodes", "su/leaf")
    assert stack.count() == steps + 2
    assert inspector.fields["b"].currentText() == "su/leaf"

    # Invalid choices: a one-line message, nothing changed, the field snaps back.
    for text, fragment in (("su/ghost", "no component 'su/ghost'"), ("su", "is a block"),
                           ("su/nodes", "both ends")):
        b = inspector.fields["b"]
        b.setEditText(text)
        b.lineEdit().editingFinished.emit()
        message = inspector._error.text()
        assert not inspector._error.isHidden() and fragment in message and "\n" not in message
        assert design.root.link(link.id).b == "su/leaf" and stack.count() == steps + 2
        assert b.currentText() == "su/leaf"
        assert fragment in window.statusBar().currentMessage()

    # Each move undoes in one step, back to the original link.
    stack.undo()
    assert design.root.link(link.id).b == "spine"
    stack.undo()
    assert dataclasses.asdict(design.root.link(link.id)) == original
    assert stack.count() == steps + 2 and stack.index() == steps
    window.scene.select([], [link.id])
    assert inspector.fields["a"].currentText() == "su/leaf"
    assert window.scene.link_item(link.id) is not None  # drawn again between su and spine


def test_evaluation_runs_off_thread_newest_wins(window, qtbot, small_design):
    window.load_design(small_design, None)
    results = []
    window.evaluator.finished.connect(results.append)
    su = next(k for k in small_design.root.children if k.startswith("su"))
    for n in (2, 3, 1, 5):  # a burst of edits: one evaluation of the last state
        window.document.push(SetProperty(su, "count", n))
    assert window.eval_label.text() == "Evaluating…"
    qtbot.waitUntil(lambda: not window.evaluator.busy and bool(results), timeout=20_000)
    assert [r.evaluation.counts.gpus for r in results] == [5 * 32 * 8]
    assert window.eval_label.text().startswith("Evaluated in")


def test_undo_redo_of_an_editing_session(window, small_design):
    window.load_design(small_design, None)
    doc = window.document
    start = copy.deepcopy(design_to_dict(doc.design))
    start_design = doc.design.snapshot()
    view, actions, scene = window.view, window.canvas_actions, window.scene
    a = view.place("DGX-B200", QPointF(600, 300))
    b = view.place("SN5600", QPointF(600, 0))
    view.connect_items(a, b)
    doc.push(MoveItems("", {a: (640.0, 320.0)}))
    scene.select([a, b])
    actions.duplicate.trigger()
    actions.group.trigger()
    group = scene.selected_ids()[0]
    doc.push(SetProperty(group, "count", 3))
    su = next(k for k in doc.design.root.children if k.startswith("su"))
    scene.select([su])
    actions.delete.trigger()
    presets = list(list_presets())
    if presets:
        window.workload_panel.choose_preset(presets[0])
    end = copy.deepcopy(design_to_dict(doc.design))
    steps = doc.undo_stack.count()
    assert steps >= 9 and end != start
    assert window.isWindowModified()
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert design_to_dict(doc.design) == start
    assert doc.design.content_equal(start_design)
    assert not window.isWindowModified()
    while doc.undo_stack.canRedo():
        doc.undo_stack.redo()
    assert design_to_dict(doc.design) == end


def test_workload_panel_checks_parallelism(window, small_design):
    window.load_design(small_design, None)
    # a dense preset: an MoE one's EP would refuse DP 1 below
    presets = [name for name in list_presets() if not load_preset(name).model.moe.enabled]
    panel = window.workload_panel
    if not presets:
        return
    panel.choose_preset(presets[0])
    assert window.document.design.workload is not None
    window.evaluate_now()
    panel.auto.setChecked(False)
    panel.spins["tp"].setValue(16)
    panel.spins["pp"].setValue(1)
    panel.spins["cp"].setValue(1)
    panel.spins["dp"].setValue(1024)
    text = panel.check.text()
    assert "exceeds the design" in text and "scale-up domain" in text
    panel.spins["tp"].setValue(8)
    panel.spins["dp"].setValue(1)
    panel._fill_dp()
    assert panel.spins["dp"].value() == 1024 // 8
    assert "fits the design" in panel.check.text()


def test_wizard_shows_counts_live_and_rejects_impossible_input(qtbot, window):
    wizard = TemplateWizard(window.catalog)
    qtbot.addWidget(wizard)
    fields = wizard.fields("fat-tree")
    fields["gpus"].setValue(2048)
    wizard.update_preview()
    assert "2,048</b> GPUs" in wizard.preview.text() and wizard.design is not None
    fields["gpus"].setValue(1001)  # not a multiple of 8 GPUs per server
    wizard.update_preview()
    assert "Cannot build" in wizard.preview.text() and wizard.design is None
    wizard.template.setCurrentIndex(2)
    wizard.update_preview()
    assert wizard.design is not None and "GPUs" in wizard.preview.text()
    window.apply_template(wizard.design)  # a new untitled document (tests/gui/test_first_hour.py)
    assert window.document.design.name == wizard.design.name


def _superpod_with_ufm(qtbot, window) -> TemplateWizard:
    """The template wizard set to the RA's 4-SU compute fabric: 127 DGX H100 and 4 UFM."""
    wizard = TemplateWizard(window.catalog)
    qtbot.addWidget(wizard)
    fields = wizard.fields("fat-tree")
    fields["gpus"].setValue(1016)
    fields["ufm_appliances"].setValue(4)
    wizard.update_preview()
    return wizard


def test_wizard_places_ufm_appliances_on_free_leaf_ports(qtbot, window):
    # SuperPOD RA Table 4: 31 DGX per SU leave a leaf port each for the 4 UFM appliances.
    wizard = _superpod_with_ufm(qtbot, window)
    fields = wizard.fields("fat-tree")
    assert wizard.design is not None and wizard.design.root.children["ufm"].count == 4
    # RA Tables 7-8 (4 SU): 2,040 NDR 400G + 4 NDR 200G compute-fabric cables
    assert "2,044</b> cables" in wizard.preview.text()
    fields["gpus"].setValue(1024)  # full SUs: no port left, and the wizard says why
    wizard.update_preview()
    assert wizard.design is None and "no free leaf ports" in wizard.preview.text()


def test_warning_click_selects_components(window, qtbot):
    design = window.document.design
    a = window.view.place("DGX-H100", QPointF(0, 0))
    window.scene.select([a])
    window.canvas_actions.group.trigger()
    group = window.scene.selected_ids()[0]
    window.scene.clearSelection()
    window.warnings_panel.reveal.emit([f"{group}/{a}"])
    assert window.scene.block_path == group
    assert window.scene.selected_ids() == [a]
    assert design.resolve(f"{group}/{a}")


def test_ufm_appliance_in_palette_inspector_and_power(window, qtbot):
    # The appliance kind has its own palette group; a generated UFM node is inspectable and its
    # power shows under its own kind.
    item = window.palette.item_for("UFM-Appliance")
    assert item is not None and item.parent().text(0).startswith("Appliances")
    wizard = _superpod_with_ufm(qtbot, window)
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000) as blocker:
        window.apply_template(wizard.design)
    window.scene.select(["ufm"])
    assert window.inspector.fields["count"].value() == 4
    assert blocker.args[0].evaluation.power.by_kind_kw["appliance"] == 3.0


def test_reliability_panel_says_when_checkpoints_have_no_storage(window, qtbot):
    # The hand-drawn NVL72 example has no storage fabric: the panel must not show a 0 s write.
    path = Path(__file__).resolve().parents[2] / "resources" / "examples" / "hand-drawn-nvl72-x4.json"
    with qtbot.waitSignal(window.evaluator.finished, timeout=20_000):
        window.load_design(load_project(path), path)
    assert window.reliability_panel.value("Checkpoint write") == "no storage"
