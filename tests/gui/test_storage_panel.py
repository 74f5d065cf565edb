"""The Storage panel: each I/O class's job bandwidth, latency and bottleneck on the SuperPOD
with AI400X2, the checkpoint tiers, and a host-memory tier typed in the Assumptions tab
moving the checkpoint's blocking time and restore source."""

from core.catalog import default_catalog
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.workload import load_preset


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


def test_storage_panel_shows_every_io_class_and_the_checkpoint_tiers(window, qtbot):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", storage="AI400X2",
                                              storage_nodes=4), default_catalog())
    design.workload = load_preset("gpt3-175b")  # TP 8 PP 8 DP 16: all 1,024 GPUs
    _evaluated(window, qtbot, design)
    panel = window.storage_panel
    assert panel.value("Data loading: job") == "360.0 GB/s · 0.352 GB/s per GPU"
    assert panel.value("Checkpoint write: bottleneck") == "AI400X2 throughput"
    assert panel.value("Small random read: bottleneck") == "AI400X2 random-read IOPS"
    assert "4 x AI400X2" in panel.value("Path")
    assert panel.value("Checkpoint tiers") == "storage"
    assert panel.by_class.values == [360.0, 260.0, 360.0, panel.by_class.values[3]]

    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        assert window.assumptions_panel.set_text("storage.checkpoint_tiers",
                                                 "host-memory=200 1024 1")
    assert panel.value("Checkpoint tiers") == "host-memory → storage"
    assert panel.value("Checkpoint restore").endswith("from host-memory")
    # a tier row that is not [GB/s, GB, copies] is refused with core's message
    assert not window.assumptions_panel.set_text("storage.checkpoint_tiers", "host-memory=200 1024")


def test_storage_panel_without_storage_says_so(window, qtbot, small_design):
    _evaluated(window, qtbot, small_design)
    assert window.storage_panel.message().startswith("no storage in the design")
    assert window.storage_panel.value("Checkpoint size") == "no workload"


def test_storage_panel_shows_the_dpus_that_front_storage(window, qtbot):
    # DGX-B200 reaches its storage fabric through 2 BlueField-3 each: the path and the DPU
    # rows say so, with the engines at work and the host cores they free
    design = generate_fat_tree(FatTreeOptions(256, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=16), default_catalog())
    ev = _evaluated(window, qtbot, design)
    panel = window.storage_panel
    assert "BlueField-3 DPU ports" in panel.value("Path")
    assert panel.value("BlueField-3 × 64").startswith("fronts storage · engines: ")
    assert "storage" in panel.value("BlueField-3 × 64")
    freed = ev.dpus.models["BlueField-3"].cores_freed_total
    assert panel.value("BlueField-3: host cores freed").startswith(f"{freed:,.0f} ")
