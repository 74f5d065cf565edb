"""Workload tab and Performance panel for MoE training: the MoE, MTP and MLA fields edit the
workload in one undo step, and the panel shows the all-to-all and the experts' memory."""

import pytest

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.workload import load_preset


@pytest.fixture
def h800_2048():
    return generate_fat_tree(FatTreeOptions(2048, "HGX-H800", "QM9700"), default_catalog())


def test_moe_fields_edit_the_workload_and_the_panel_shows_the_alltoall(window, h800_2048):
    window.load_design(h800_2048, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    panel.keep_layout.setChecked(True)
    panel.choose_preset("deepseek-v3")
    fields = panel.moe_fields
    assert fields.mla.isChecked() and fields.mla_spins["kv_lora_rank"].value() == 512
    assert fields.ints["route_nodes"].value() == 4 and fields.ints["mtp_depth"].value() == 1
    fields.ints["route_nodes"].setValue(2)
    fields.floats["imbalance"].setValue(1.3)
    before = stack.count()
    panel.apply_edits()
    workload = window.document.design.workload
    assert stack.count() == before + 1
    assert workload.model.moe.route_nodes == 2 and workload.model.moe.imbalance == 1.3
    assert workload.model.mla == load_preset("deepseek-v3").model.mla
    perf = window.evaluate_now().evaluation.performance
    assert perf.moe and perf.alltoall_s > 0
    rows = window.performance_panel._rows_of  # label -> grid row of the panel
    assert "All-to-all per step" in rows and "   experts' activations" in rows
    stack.undo()
    assert window.document.design.workload.model.moe.route_nodes == 4


def test_unticking_mla_drops_it_from_the_workload(window, h800_2048):
    window.load_design(h800_2048, None)
    panel = window.workload_panel
    panel.keep_layout.setChecked(True)
    panel.choose_preset("deepseek-v3")
    panel.moe_fields.mla.setChecked(False)
    panel.apply_edits()
    assert window.document.design.workload.model.mla is None


def test_the_optimizer_choice_edits_the_workload_and_moves_memory_and_step(window, h800_2048):
    """Muon: one momentum buffer instead of Adam's two (less optimizer memory) and the
    Newton-Schulz iterations in the optimizer step (a longer one); undo brings AdamW back."""
    window.load_design(h800_2048, None)
    panel = window.workload_panel
    panel.keep_layout.setChecked(True)
    panel.choose_preset("deepseek-v3")
    assert panel.optimizer.currentText() == "adamw"
    adam = window.evaluate_now().evaluation.performance
    panel.optimizer.setCurrentText("muon")
    panel.apply_edits()
    assert window.document.design.workload.optimizer == "muon"
    muon = window.evaluate_now().evaluation.performance
    assert muon.memory.optimizer_gb < adam.memory.optimizer_gb
    assert muon.breakdown_s["optimizer"] > adam.breakdown_s["optimizer"]
    window.document.undo_stack.undo()
    assert window.document.design.workload.optimizer == "adamw"
    assert panel.optimizer.currentText() == "adamw"


def test_the_recompute_modes_show_what_the_layout_needs_with_each(window):
    """Beside each recompute mode, the memory per GPU the applied layout needs with it (the
    latest evaluation), marked ✗ over the GPU: Meta's Llama 3 405B 8K layout is 0.3% over an
    H100 without recompute, and 'selective' saves nothing under flash attention."""
    from core.workload import with_parallelism
    design = generate_fat_tree(FatTreeOptions(8192, "DGX-H100", "QM9700"), default_catalog())
    design.workload = with_parallelism(load_preset("llama3-405b"), tp=8, pp=16, dp=64,
                                       virtual_stages=8, zero_stage=2, recompute="none")
    window.load_design(design, None)
    perf = window.evaluate_now().evaluation.performance
    combo = window.workload_panel.recompute
    texts = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
    need = perf.memory_by_recompute_gb
    assert texts["none"] == f"none — {need['none']:,.1f} GB ✗"
    assert texts["selective"].endswith("✗") and need["selective"] == need["none"]
    assert texts["norms-up-proj"] == f"norms-up-proj — {need['norms-up-proj']:,.1f} GB"
    assert combo.currentData() == "none"
    assert window.workload_panel.form_dict()["parallelism"]["recompute"] == "none"
