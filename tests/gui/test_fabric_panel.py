"""The Bandwidth panel shows how the fabric spreads traffic (issue 23): the load-balancing
mode, the fraction of line rate per tier, and line rate against what all-to-all gets; an
assumption typed in the Assumptions tab (forcing static ECMP) moves them."""

from core.catalog import default_catalog
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


def test_bandwidth_panel_shows_effective_against_line_rate_per_tier(window, qtbot):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "TH5"), default_catalog())
    ev = _evaluated(window, qtbot, design)
    panel = window.bandwidth_panel
    assert panel.value("Load balancing") == "flowlet"
    assert panel.value("In-network reduction") == "none"
    assert panel.value("Spine effective").endswith("of line rate (worst)")
    chart = panel.effective
    assert chart.categories == ["leaf line", "leaf a2a", "spine line", "spine a2a"]
    rates = ev.bandwidth.effective_by_tier_gbit_s["spine"]
    assert chart.values[2:] == [rates["line"], rates["alltoall"]]
    assert chart.values[3] < chart.values[2]

    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        assert window.assumptions_panel.set_text("network.load_balancing", "ecmp")
    assert panel.value("Load balancing") == "ecmp"
    assert panel.effective.values[3] < chart.values[2]


def test_bandwidth_panel_of_infiniband_is_at_line_rate(window, qtbot):
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), default_catalog())
    _evaluated(window, qtbot, design)
    assert window.bandwidth_panel.value("Load balancing") == "adaptive"
    assert window.bandwidth_panel.value("Spine effective").startswith("100")
