"""The Cost panel: headline figures and capex by kind from the evaluation; "not computable"
and the unpriced ids (never a number as if free) when a price is missing; cost assumptions
edited in the Assumptions tab re-price the design."""

import math

import pytest

from core.catalog import default_catalog
from core.errors import DesignError
from designer.common.format import money, money_unit
from designer.window.main_window import MainWindow


@pytest.fixture
def make_window(qtbot):
    made = []

    def make(catalog):
        win = MainWindow(catalog, interactive=False)
        qtbot.addWidget(win)
        win.show()
        made.append(win)
        return win
    yield make
    for win in made:
        win.document.undo_stack.setClean()
        win.evaluator.shutdown()
        win.workload_panel.shutdown()


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


def test_a_priced_design_shows_its_cost_and_capex_by_kind(make_window, qtbot, small_design,
                                                          with_prices, every_price):
    catalog = with_prices(default_catalog(), every_price(default_catalog()))
    window = make_window(catalog)
    assert window.cost_panel in window.metric_panels
    cost = _evaluated(window, qtbot, small_design).cost
    panel = window.cost_panel
    assert panel.message() == ""
    assert panel.value("Hardware") == money(cost.hardware_capex_usd)
    assert panel.value("TCO (depreciation + opex)") == money(cost.tco_usd_per_year)
    assert panel.value("Per GPU-hour") == money(cost.usd_per_gpu_hour)
    assert panel.value("Training run") == "n/a (no workload)"
    chart = panel.by_kind
    assert chart.categories[-1] == "facility" and "switch" in chart.categories
    assert all(math.isfinite(v) and v > 0 for v in chart.values)
    # one unit for every bar, the one the largest reads best in: the bars add up to capex
    unit, scale = money_unit(max(*cost.capex_by_kind_usd.values(), cost.facility_capex_usd))
    assert sum(chart.values) * scale == pytest.approx(cost.capex_usd)
    assert chart.plot.getAxis("left").labelText == f"{unit} USD"

    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        assert window.assumptions_panel.set_text("cost.depreciation_years", "8")
    longer = blocker.args[0].evaluation.cost
    servers = cost.capex_by_part_usd["servers"]  # only the servers' life changed: 5 -> 8 years
    assert longer.tco_usd_per_year == pytest.approx(cost.tco_usd_per_year - servers / 5 + servers / 8)
    assert panel.value("TCO (depreciation + opex)") == money(longer.tco_usd_per_year)
    assert panel.value("Servers and GPUs") == money(servers / 8)
    assert panel.method.value("cost.depreciation_years") == "8"  # the method shows the edit

    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        assert window.assumptions_panel.set_text("cost.discount_by_kind", "switch=0.1")
    discounted = blocker.args[0].evaluation.cost
    assert discounted.capex_by_kind_usd["switch"] == pytest.approx(0.9 * cost.capex_by_kind_usd["switch"])
    assert window.document.design.assumptions.cost.discount_by_kind == {"switch": 0.1}
    assert not window.assumptions_panel.set_text("cost.discount_by_kind", "switch=1.5")  # core's bounds


def test_an_unpriced_component_reads_not_computable_with_the_ids(make_window, qtbot, small_design,
                                                                 with_prices, every_price):
    prices = every_price(default_catalog())
    del prices["QM9700"]
    window = make_window(with_prices(default_catalog(), prices))
    cost = _evaluated(window, qtbot, small_design).cost
    panel = window.cost_panel
    assert cost.hardware_capex_usd is None
    assert "no price for QM9700" in panel.message()
    for label in ("Hardware", "Total", "Opex", "TCO (depreciation + opex)", "Per GPU-hour"):
        assert panel.value(label) == "not computable"
    assert panel.value("Facility") == money(cost.facility_capex_usd)  # needs no prices
    chart = panel.by_kind
    switch = chart.categories.index("switch")
    assert math.isnan(chart.values[switch])  # a gap, not a zero-cost bar


def test_a_screenshot_can_show_the_cost_panel(make_window):
    # cluster-designer PROJECT --screenshot OUT.png --panel cost (the docs' Cost screenshot)
    win = make_window(default_catalog())
    win.raise_metric_panel("Cost")
    assert not win.metric_docks[win.metric_panels.index(win.cost_panel)].visibleRegion().isEmpty()
    assert win.metric_docks[win.metric_panels.index(win.performance_panel)].visibleRegion().isEmpty()
    with pytest.raises(DesignError, match="no metric panel 'costs'; the panels are overview, .*cost"):
        win.raise_metric_panel("costs")


def test_the_cost_method_is_edited_in_the_cost_panel_one_undo_step_per_edit(make_window, qtbot, small_design,
                                                                             with_prices, every_price):
    window = make_window(with_prices(default_catalog(), every_price(default_catalog())))
    cost = _evaluated(window, qtbot, small_design).cost
    panel, stack = window.cost_panel, window.document.undo_stack
    assert panel.value("Per delivered GPU-hour") == money(cost.usd_per_delivered_gpu_hour)
    assert cost.usd_per_delivered_gpu_hour > cost.usd_per_gpu_hour  # 85 % allocated by default
    editor = panel.method.editors["cost.utilization"]
    steps = stack.count()
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        editor.setText("0.5")
        editor.editingFinished.emit()
    half = blocker.args[0].evaluation.cost
    assert stack.count() == steps + 1 and window.document.design.assumptions.cost.utilization == 0.5
    assert half.usd_per_gpu_hour == pytest.approx(cost.usd_per_gpu_hour)  # owning is fully allocated
    assert half.usd_per_delivered_gpu_hour == pytest.approx(cost.usd_per_delivered_gpu_hour * 0.85 / 0.5)
    assert window.assumptions_panel.editors["cost.utilization"].text() == "0.5"  # one model, two views

    facility = panel.method.editors["cost.facility"]
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        facility.setCurrentText("colocation")
        facility.activated.emit(facility.currentIndex())
    colo = blocker.args[0].evaluation.cost
    assert stack.count() == steps + 2
    assert colo.facility_capex_usd == 0 and colo.colocation_usd_per_year > 0
    assert panel.value("Facility") == money(0.0)

    editor.setText("1.5")  # above core's bound: refused, nothing pushed, the field snaps back
    editor.editingFinished.emit()
    assert stack.count() == steps + 2 and panel.method.value("cost.utilization") == "0.5"
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        stack.undo()
    assert panel.method.value("cost.facility") == "build"
