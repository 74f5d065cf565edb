"""The Inspector lists a server's DPU engines (article 003's five) with their figures, and its
DPU count can be overridden per node, which the evaluation follows."""

from core.catalog import default_catalog
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree


def test_inspector_lists_the_dpu_engines_and_overrides_the_dpu_count(window, qtbot):
    design = generate_fat_tree(FatTreeOptions(64, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=2), default_catalog())
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    path = next(p for p, n in design.root.iter_nodes() if n.catalog_id == "DGX-B200")
    window.reveal_path(path)
    text = window.inspector._info.text()
    assert "2 x BlueField-3 per unit" in text
    for line in ("Storage: 50 GB/s", "Network: 400 Gb/s", "Security: 400 Gb/s IPsec",
                 "Control: 16 Arm cores", "Compute (virtio)"):
        assert line in text
    dpus = window.inspector.fields["overrides.dpus"]
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        dpus.setText("1")
        dpus.editingFinished.emit()
    assert window.document.design.node(path).overrides == {"dpus": 1.0}
    assert window.evaluator.last.evaluation.counts.dpus == 8


def test_encrypting_storage_on_the_dpus_is_one_checkbox_in_the_assumptions(window, qtbot):
    design = generate_fat_tree(FatTreeOptions(64, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=2), default_catalog())
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    box = window.assumptions_panel.editors["storage.dpu_encrypt_storage"]
    assert not box.isChecked()
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        box.click()
    ev = window.evaluator.last.evaluation
    assert ev.dpus.encrypt_storage
    assert "security" in ev.dpus.models["BlueField-3"].engines_used
    assert window.storage_panel.value("Storage encryption") == "IPsec on the DPUs"
