"""The Services tab (designer/services/services_panel.py): adding, removing and editing inference services
and putting the main workload on a partition, each one undo step whose undo and redo give the
design back exactly; an edit core refuses leaves the design as it was and says why in one line."""

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import load_inference_preset
from core.operations import SetWorkload
from core.project import design_to_dict, load_project
from core.services import Partition, Service
from core.workload import load_preset
from designer.services.partition_editor import BLOCKS, GPUS

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

LLAMA, R1 = "llama31-70b-serve", "deepseek-r1-serve"


@pytest.fixture
def fat_tree(window, qtbot, small_design):
    """1,024 DGX H100 training Llama 3 70B, no services yet."""
    small_design.workload = load_preset("llama3-70b")
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(small_design, None)
    return window


@pytest.fixture
def train_and_serve(window, qtbot):
    """1,024 H100 (block su) train Llama 3 70B; 8 GB200 NVL72 racks (block serve) serve R1."""
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(load_project(EXAMPLES / "train-and-serve.json", window.catalog), None)
    return window


def _saved(window):
    return design_to_dict(window.document.design)


def _one_step_undone_and_redone_exactly(window, before, after):
    """The last gesture was one undo step from ``before`` to ``after`` (saved forms)."""
    stack = window.document.undo_stack
    assert _saved(window) == after != before
    stack.undo()
    assert _saved(window) == before
    stack.redo()
    assert _saved(window) == after


def _add(panel, name: str, preset: str, gpus: int | None = None):
    panel.add_name.setText(name)
    panel.add_workload.setCurrentIndex(panel.add_workload.findData(preset))
    panel.add_workload.activated.emit(panel.add_workload.currentIndex())
    if gpus is not None:
        panel.add_partition.gpus.setValue(gpus)
    panel.add_button.click()


def test_adding_a_service_on_a_gpu_count_is_one_undo_step(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    stack, before = window.document.undo_stack, _saved(fat_tree)
    _add(panel, "chat", LLAMA, gpus=64)
    assert stack.count() == 1 and stack.undoText() == "Add service chat"
    assert window.document.design.services == (Service("chat", Partition(gpus=64), load_inference_preset(LLAMA)),)
    assert panel.table.rowCount() == 1 and panel.table.item(0, 0).text() == "chat"
    assert panel.table.item(0, 1).text() == "64 GPUs" and panel.table.item(0, 2).text() == "Llama 3.1 70B serving"
    assert panel.editor_box.isVisibleTo(panel) and panel.edit_name.text() == "chat"  # the new one, to edit
    assert panel.add_error.isHidden()
    _one_step_undone_and_redone_exactly(window, before, _saved(window))


def test_a_new_service_starts_on_its_presets_own_gpu_count(fat_tree):
    """R1's preset deploys EP 8 x DP 8 on 8 GPUs (EP spans the replicas); Llama 3.1 70B TP 8."""
    panel = fat_tree.services_panel
    for preset in (R1, LLAMA):
        panel.add_workload.setCurrentIndex(panel.add_workload.findData(preset))
        panel.add_workload.activated.emit(panel.add_workload.currentIndex())
        assert panel.add_partition.gpus.value() == load_inference_preset(preset).deployment.gpus == 8


def test_the_selection_on_the_canvas_is_the_new_services_blocks(train_and_serve):
    window, panel = train_and_serve, train_and_serve.services_panel
    assert not panel.add_partition.take.isEnabled()  # nothing selected yet
    window.scene.select(["su"])
    assert panel.add_partition.take.isEnabled()
    panel.add_partition.take.click()
    assert panel.add_partition.mode() == BLOCKS and panel.add_partition.blocks_label.text() == "su"
    _add(panel, "batch", LLAMA)
    added = window.document.design.services[-1]
    assert added == Service("batch", Partition(blocks=("su",)), load_inference_preset(LLAMA))
    # a block inside a stepped-into block is named by its whole path
    window.scene.set_block("serve")
    key = next(iter(window.scene.current_block().children))
    window.scene.select([key])
    panel.edit_partition.take.click()
    assert panel.edit_partition.blocks_label.text() == f"serve/{key}"


def test_a_copy_of_the_main_inference_workload_can_be_added(window, qtbot, small_design):
    small_design.workload = load_inference_preset(LLAMA)
    window.load_design(small_design, None)
    panel = window.services_panel
    assert panel.add_workload.itemData(0) == "main"
    assert panel.add_workload.itemText(0) == "Copy of the main workload — Llama 3.1 70B serving"
    panel.add_workload.setCurrentIndex(0)
    panel.add_button.click()
    service = window.document.design.services[0]
    assert service.workload is window.document.design.workload and service.name == "service-1"


def test_renaming_a_service_and_moving_it_is_one_undo_step(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    _add(panel, "chat", LLAMA, gpus=64)
    before = _saved(window)
    panel.select_service("chat")
    panel.edit_name.setText("support")
    panel.edit_partition.gpus.setValue(128)
    panel.edit_partition.name.setText("serving")
    panel.edit_partition.name.textEdited.emit("serving")
    panel.edit_apply.click()
    assert window.document.undo_stack.undoText() == "Change service chat"
    assert window.document.design.services == (
        Service("support", Partition("serving", gpus=128), load_inference_preset(LLAMA)),)
    assert panel.edit_name.text() == "support" and panel.table.item(0, 1).text() == "serving: 128 GPUs"
    _one_step_undone_and_redone_exactly(window, before, _saved(window))


def test_a_services_workload_is_edited_with_the_inference_form(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    _add(panel, "chat", LLAMA, gpus=64)
    before = _saved(window)
    panel.fields_toggle.click()
    assert panel.form.isVisibleTo(panel)
    panel.form.tpot.setValue(25.0)
    panel.edit_apply.click()
    workload = window.document.design.services[0].workload
    preset = load_inference_preset(LLAMA)
    assert workload == dataclasses.replace(preset, slo=dataclasses.replace(preset.slo, tpot_ms=25.0))
    _one_step_undone_and_redone_exactly(window, before, _saved(window))
    # another preset, chosen then applied
    before = _saved(window)
    panel.edit_preset.setCurrentIndex(panel.edit_preset.findData(R1))
    panel.edit_preset.activated.emit(panel.edit_preset.currentIndex())
    assert window.document.design.services[0].workload == workload  # not before Apply
    panel.edit_apply.click()
    assert window.document.design.services[0].workload == load_inference_preset(R1)
    _one_step_undone_and_redone_exactly(window, before, _saved(window))


def test_apply_without_a_change_makes_no_undo_step(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    _add(panel, "chat", LLAMA, gpus=64)
    panel.edit_apply.click()
    panel.main_apply.click()
    assert window.document.undo_stack.count() == 1


def test_removing_a_service_is_one_undo_step_and_undo_puts_it_back_in_its_place(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    for name in ("a", "b", "c"):
        _add(panel, name, LLAMA, gpus=8)
    before = _saved(window)
    panel.select_service("b")
    panel.remove.click()
    assert [s.name for s in window.document.design.services] == ["a", "c"]
    assert window.document.undo_stack.undoText() == "Remove service b"
    _one_step_undone_and_redone_exactly(window, before, _saved(window))
    window.document.undo_stack.undo()
    assert [panel.table.item(r, 0).text() for r in range(3)] == ["a", "b", "c"]


def test_the_main_workloads_partition_is_one_undo_step(fat_tree):
    window, panel = fat_tree, fat_tree.services_panel
    before = _saved(window)
    assert panel.main_partition.mode() == "left"  # no partition: what the services leave
    panel.main_partition.gpus.setValue(512)
    panel.main_partition.name.setText("training")
    panel.main_apply.click()
    assert window.document.design.workload_partition == Partition("training", gpus=512)
    assert window.document.undo_stack.undoText() == "Main workload on 512 GPUs"
    _one_step_undone_and_redone_exactly(window, before, _saved(window))
    # back to whatever the services leave
    panel.main_partition.buttons["left"].setChecked(True)
    panel.main_apply.click()
    assert window.document.design.workload_partition is None


@pytest.mark.parametrize("gesture, fragment", [
    ("taken name", "'reasoning' is already a service's name"),
    ("no blocks", "give blocks (a list of design paths) or gpus (a count)"),
    ("main partition name of a service", "'reasoning' already names another partition"),
])
def test_a_refused_edit_says_why_in_one_line_and_changes_nothing(train_and_serve, gesture, fragment):
    window, panel = train_and_serve, train_and_serve.services_panel
    before, steps = _saved(window), window.document.undo_stack.count()
    if gesture == "taken name":
        _add(panel, "reasoning", LLAMA, gpus=8)
        error = panel.add_error
    elif gesture == "no blocks":
        panel.add_partition.buttons[BLOCKS].setChecked(True)
        _add(panel, "empty", LLAMA)
        error = panel.add_error
    else:
        panel.main_partition.name.setText("reasoning")
        panel.main_apply.click()
        error = panel.main_error
    assert _saved(window) == before and window.document.undo_stack.count() == steps
    assert error.isVisibleTo(panel) and fragment in error.text() and "\n" not in error.text()


def test_the_list_shows_each_partitions_gpus_from_the_evaluation(train_and_serve, qtbot):
    window, panel = train_and_serve, train_and_serve.services_panel
    assert panel.table.item(0, 3).text() == "576"  # 8 NVL72 racks x 72 GPUs
    assert "1,024 H100-SXM5-80GB GPUs" in panel.main_label.text() and "training" in panel.main_label.text()
    # a service on more GPUs than the design has outside its block partitions: none, and why
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        _add(panel, "huge", LLAMA, gpus=4096)
    row = next(r for r in range(panel.table.rowCount()) if panel.table.item(r, 0).text() == "huge")
    assert panel.table.item(row, 3).text() == "✗ none"
    assert "partition huge: it asks 4,096 GPUs" in panel.table.item(row, 3).toolTip()


def test_another_design_empties_the_tab(train_and_serve, small_design):
    window, panel = train_and_serve, train_and_serve.services_panel
    window.load_design(small_design, None)
    QApplication.processEvents()
    assert panel.table.rowCount() == 0 and panel.empty_note.isVisibleTo(panel)
    assert not panel.editor_box.isVisibleTo(panel) and not panel.remove.isEnabled()
    assert panel.add_partition.mode() == GPUS


def test_add_a_service_offers_first_a_preset_that_serves_on_the_designs_gpus(fat_tree, qtbot):
    """Issue 25: the first inference preset by name (DeepSeek-R1 INT8, 671B parameters at a
    byte each over 8 GPUs) exceeds what an H100 holds; "Add a service" offers the first that
    serves on the 8 H100s a new service starts with, until the user picks one."""
    panel = fat_tree.services_panel
    panel.ensure_built()
    assert next(iter(panel._presets)) == "deepseek-r1-int8-serve"
    assert panel.add_workload.currentData() == LLAMA
    assert panel.add_partition.gpus.value() == load_inference_preset(LLAMA).deployment.gpus
    # a pick stays through later evaluations and workload changes
    panel.add_workload.setCurrentIndex(panel.add_workload.findData(R1))
    panel.add_workload.activated.emit(panel.add_workload.currentIndex())
    with qtbot.waitSignal(fat_tree.evaluator.finished, timeout=30_000):
        fat_tree.document.push(SetWorkload(load_preset("llama3-405b")))
    assert panel.add_workload.currentData() == R1


def test_on_one_h200_box_deepseek_r1_fp8_is_offered(window, qtbot):
    """8 H200 hold DeepSeek-R1's FP8 weights (98.9 GB per GPU on its 8 GPUs), and the INT8 preset
    is CloudMatrix's 384-GPU disaggregated deployment, which one box cannot hold."""
    design = generate_supernode(SupernodeOptions("DGX-H200", 1), window.catalog)
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    window.services_panel.ensure_built()
    assert window.services_panel.add_workload.currentData() == R1
