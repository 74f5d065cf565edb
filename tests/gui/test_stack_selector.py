"""Workload tab's "Software stack" selector: one undo step per choice, the panels re-evaluate,
"custom (based on X)" after an edit in the Assumptions tab, and a saved stack comes back."""

from core.project import load_project, save_project
from core.stacks import PRESETS, get_preset
from tests.gui.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "dgx-h100-superpod-4su.json"


def test_choosing_a_stack_is_one_undo_step_and_the_panels_re_evaluate(window, qtbot):
    window.load_design(load_project(EXAMPLE), None)
    selector, undo = window.workload_panel.stack, window.document.undo_stack
    assert [selector.itemData(i) for i in range(selector.count())] == list(PRESETS)
    assert selector.currentData() == "nemo-2024"
    default_mfu = window.evaluate_now().evaluation.performance.mfu
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        selector.choose("megatron-lm-2021")
    assert undo.count() == 1 and undo.undoText() == "Software stack Megatron-LM 2021"
    assert window.document.design.assumptions.performance == get_preset("megatron-lm-2021").assumptions()
    assert blocker.args[0].evaluation.performance.mfu < default_mfu - 0.05
    selector.choose("megatron-lm-2021")  # the same stack again changes nothing
    assert undo.count() == 1
    undo.undo()
    assert selector.currentData() == "nemo-2024"
    assert window.evaluate_now().evaluation.performance.mfu == default_mfu
    undo.redo()
    assert selector.currentData() == "megatron-lm-2021"


def test_an_edited_assumption_shows_custom_based_on_the_stack(window):
    window.load_design(load_project(EXAMPLE), None)
    selector = window.workload_panel.stack
    selector.choose("conservative")
    assert window.assumptions_panel.set_text("performance.tp_overlap", "0.5")
    assert selector.currentText() == "custom (based on conservative)"
    assert selector.count() == len(PRESETS) + 1
    selector.choose("conservative")  # choosing the stack again puts its values back
    assert selector.currentData() == "conservative" and selector.count() == len(PRESETS)
    assert window.document.design.assumptions.performance == get_preset("conservative").assumptions()


def test_a_saved_stack_is_shown_when_the_project_opens(window, tmp_path):
    window.load_design(load_project(EXAMPLE), None)
    window.workload_panel.stack.choose("composer-fsdp-2023")
    path = tmp_path / "p.json"
    save_project(window.document.design, path)
    window.load_design(load_project(EXAMPLES / "gb200-nvl72-su.json"), None)
    assert window.workload_panel.stack.currentData() == "nemo-2024"
    window.load_design(load_project(path), path)
    assert window.workload_panel.stack.currentData() == "composer-fsdp-2023"
    assert "rows: 14, 16" in window.workload_panel.stack.toolTip()
    assert window.workload_panel.stack.currentText() == "MosaicML Composer FSDP 2023"
