"""Power reads in the unit that suits it, everywhere the window shows one."""

import math

from hypothesis import given
from hypothesis import strategies as st

from core.model import Block, Design, Node
from designer.common.format import power

SCALE_KW = {"W": 0.001, "kW": 1.0, "MW": 1000.0}


def test_power_examples():
    assert power(12.34) == "12.3 kW"
    assert power(512.3) == "512 kW"
    assert power(1934.0) == "1.93 MW"
    assert power(193_400.0) == "193 MW"
    assert power(0.025) == "25.0 W"
    assert power(999.6) == "1.00 MW"  # rounds into the next unit, never "1,000 kW"
    assert power(0.0) == "0 kW"
    assert power(None) == power(math.nan) == "—"


@given(st.floats(min_value=1e-3, max_value=1e8, allow_nan=False))
def test_power_keeps_three_significant_digits_and_never_reads_zero(kw):
    text = power(kw)
    number, unit = text.rsplit(" ", 1)
    shown_kw = float(number.replace(",", "")) * SCALE_KW[unit]
    assert shown_kw > 0
    assert math.isclose(shown_kw, kw, rel_tol=5e-3)
    # the smallest unit in which the number is at least 1
    assert unit == ("MW" if shown_kw >= 1000 else "kW" if shown_kw >= 1 else "W")


def test_one_server_reads_in_kw_in_the_status_bar_and_the_power_panel(window):
    design = Design("one DGX", Block("root", "one DGX", children={"dgx": Node("dgx", "DGX-H100")}))
    window.load_design(design, None)
    result = window.evaluate_now()
    facility_kw = result.evaluation.power.facility_kw
    assert 1 < facility_kw < 100
    assert power(facility_kw) in window.counts_label.text() and "kW" in window.counts_label.text()
    assert "MW" not in window.counts_label.text()
    assert window.power_panel.value("Facility") == power(facility_kw)
    assert window.power_panel.value("IT (nameplate)").endswith(" kW")
    assert window.power_panel.by_kind.plot.getAxis("left").labelText == "kW"
