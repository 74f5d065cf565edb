"""Workload tab: a preset chosen by name is fitted to the design in one undo step and says so."""

import pytest

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.preset_fit import fit_to_design
from core.project import load_project, save_project
from core.workload import load_preset

FITTED_NOTE = "Preset Llama 3 70B fitted to 2,048 GPUs: DP 32 -> 64, global batch 512 -> 1,024 sequences (16 micro-batches of 1 per replica, as in the preset); TP 8, PP 4 kept"


@pytest.fixture
def design_2048():
    return generate_fat_tree(FatTreeOptions(2048, "DGX-H100", "QM9700"), default_catalog())


def test_choosing_a_preset_fits_it_in_one_undo_step_and_shows_the_note(window, design_2048):
    window.load_design(design_2048, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    panel.choose_preset("llama3-70b")  # TP 8 PP 4 DP 32 in the preset: half the design
    workload = window.document.design.workload
    assert stack.count() == 1 and "fitted to 2,048 GPUs" in stack.undoText()
    assert workload.parallelism.gpus == 2048 and workload.model == load_preset("llama3-70b").model
    assert panel.spins["dp"].value() == 64 and panel.spins["tp"].value() == 8
    assert panel.preset.currentData() == "llama3-70b"  # still shown as the preset, not "(custom)"
    assert not panel.fit_note.isHidden() and panel.fit_note.text() == FITTED_NOTE
    assert window.evaluate_now().evaluation.performance.job_gpus == 2048
    stack.undo()
    assert window.document.design.workload is None and panel.fit_note.isHidden()
    stack.redo()
    assert window.document.design.workload == workload and panel.fit_note.text() == FITTED_NOTE


def test_keeping_the_preset_layout(window, design_2048):
    window.load_design(design_2048, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    panel.keep_layout.setChecked(True)
    panel.choose_preset("llama3-70b")
    assert window.document.design.workload == load_preset("llama3-70b")  # exactly as published
    assert panel.fit_note.isHidden() and stack.count() == 1
    assert window.evaluate_now().evaluation.performance.job_gpus == 1024  # runs on part of the design
    panel.keep_layout.setChecked(False)  # the shown preset is fitted again, as one more step
    assert stack.count() == 2 and window.document.design.workload.parallelism.dp == 64
    stack.undo()
    assert window.document.design.workload == load_preset("llama3-70b")


def test_a_preset_bigger_than_the_design_is_kept_and_the_tab_says_so(window, small_design):
    window.load_design(small_design, None)  # 1,024 GPUs
    panel = window.workload_panel
    panel.choose_preset("megatron-1t")  # 512 GPUs per replica: DP 6 -> 2 fits
    assert window.document.design.workload.parallelism.dp == 2
    small = generate_fat_tree(FatTreeOptions(256, "DGX-H100", "QM9700"), default_catalog())
    window.load_design(small, None)
    panel.choose_preset("megatron-1t")
    assert window.document.design.workload == load_preset("megatron-1t")  # not an invented layout
    assert "needs at least 512 GPUs" in panel.fit_note.text() and "does not fit" in panel.fit_note.text()
    window.evaluate_now()
    assert "exceeds the design" in panel.check.text()


def test_editing_the_layout_drops_the_fit_note(window, design_2048):
    window.load_design(design_2048, None)
    panel = window.workload_panel
    panel.choose_preset("llama3-70b")
    panel.name.setText("My 70B")  # not a layout change: the note stays
    panel.apply_edits()
    assert window.document.design.workload.preset_fit is not None and not panel.fit_note.isHidden()
    panel.spins["dp"].setValue(32)
    panel.apply_edits()
    assert window.document.design.workload.preset_fit is None and panel.fit_note.isHidden()


def test_the_note_is_saved_with_the_project(window, design_2048, tmp_path):
    design_2048.workload, _ = fit_to_design(load_preset("llama3-70b"), 2048, "llama3-70b")
    path = tmp_path / "p.json"
    save_project(design_2048, path)
    window.load_design(load_project(path), path)
    panel = window.workload_panel
    assert panel.fit_note.text() == FITTED_NOTE and panel.preset.currentData() == "llama3-70b"
    # The design grows after the fit: the tab says the fit is for the old size.
    panel.set_design_facts(4096, 8)
    assert "The design now has 4,096 GPUs" in panel.fit_note.text()


def test_fill_with_dp_follows_the_expert_parallel_rule(window, design_2048):
    window.load_design(design_2048, None)
    panel = window.workload_panel
    panel.keep_layout.setChecked(True)
    panel.choose_preset("mixtral-8x22b")  # TP 2, PP 4, EP 8, DP 64
    panel.spins["tp"].setValue(4)  # 2,048 / 16 = 128 replicas; then TP 3 would not divide the heads
    panel.spins["dp"].setValue(8)
    panel.spins["global_batch"].setValue(1024)
    panel._fill_dp()
    assert panel.spins["dp"].value() == 128 and panel.spins["dp"].value() % 8 == 0
    assert panel.spins["global_batch"].value() == 16_384  # 128 micro-batches per replica kept
    panel.spins["pp"].setValue(6)  # 2,048 / 24 = 85 replicas, rounded down to a multiple of EP 8
    panel.spins["dp"].setValue(8)
    panel._fill_dp()
    assert panel.spins["dp"].value() == 80
