"""Assumptions editor, parallelism search in the workload panel, the bottleneck paragraph."""

import dataclasses

import pytest

from core.analysis.performance import analyze_performance
from core.assumptions import Assumptions
from core.workload import load_preset, with_parallelism
from designer.assumptions.assumption_fields import CHOSEN_ELSEWHERE, humanise, parse_value, section_fields, sections
from designer.common.format import power as power_text
from designer.panels.performance import bottleneck_html


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last


# --- assumptions ---------------------------------------------------------------------------
def test_pue_edit_updates_facility_power_and_undo_restores_it(window, qtbot, small_design):
    first = _evaluated(window, qtbot, small_design).evaluation.power
    before = window.power_panel.value("Facility")
    assert before == power_text(first.facility_kw)
    panel = window.assumptions_panel
    stack = window.document.undo_stack
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000) as blocker:
        assert panel.set_text("power.pue", "1.2")
    power = blocker.args[0].evaluation.power
    assert power.pue == pytest.approx(1.2)
    assert power.facility_kw == pytest.approx(power.it_kw * 1.2)
    assert window.power_panel.value("Facility") == power_text(power.facility_kw) != before
    assert window.power_panel.value("PUE") == "1.20"
    assert stack.count() == 1 and "PUE" in stack.undoText()
    assert window.document.design.assumptions.power.pue == 1.2
    assert panel.labels["power.pue"].text().startswith("●")  # marked as changed
    assert panel.sections["power"].reset.isEnabled() and not panel.sections["network"].reset.isEnabled()
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        stack.undo()
    assert window.power_panel.value("Facility") == before
    assert panel.editors["power.pue"].text() == ""  # back to "auto"
    assert not panel.labels["power.pue"].text().startswith("●")


@pytest.mark.parametrize("key, text, fragment", [
    ("power.pue", "abc", "not a number"),
    ("power.pue", "0.8", "PUE: 0.8 is below the minimum 1.0 (allowed 1.0 to 3.0"),  # core's bounds
    ("power.pue", "30", "above the maximum 3.0"),
    ("network.nic_latency_us", "-1", "below the minimum 0.0"),
    ("reliability.spare_target", "1", "must be below 1.0"),
    ("performance.tp_overlap", "1.5", "above the maximum 1.0"),
    ("power.switches_per_rack", "2.5", "whole number"),
    ("performance.gemm_efficiency", "0.5, 0.9", "needs 4 values"),
])
def test_invalid_assumption_gives_one_line_and_changes_nothing(window, small_design, key, text, fragment):
    window.load_design(small_design, None)
    panel = window.assumptions_panel
    before = window.document.design.assumptions
    shown_before = panel.editors[key].text()
    assert not panel.set_text(key, text)
    assert window.document.undo_stack.count() == 0
    assert window.document.design.assumptions == before
    message = panel.message.text()
    assert panel.message.isVisibleTo(panel) and fragment in message and "\n" not in message
    assert panel.editors[key].text() == shown_before  # the field snaps back
    assert fragment in window.statusBar().currentMessage()


def test_reset_section_is_one_undo_step_and_keeps_other_sections(window, small_design):
    window.load_design(small_design, None)
    panel = window.assumptions_panel
    assert panel.set_text("power.pue", "1.3")
    assert panel.set_text("power.electricity_usd_per_kwh", "0.12")
    assert panel.set_text("network.nic_latency_us", "0.7")
    panel.editors["reliability.include_spare_wait"].setChecked(True)  # a checkbox edit
    assert window.document.design.assumptions.reliability.include_spare_wait is True
    stack = window.document.undo_stack
    assert stack.count() == 4
    panel.sections["power"].reset.click()
    a = window.document.design.assumptions
    assert a.power == Assumptions().power and a.network.nic_latency_us == 0.7
    assert stack.count() == 5 and not panel.sections["power"].reset.isEnabled()
    stack.undo()
    assert window.document.design.assumptions.power.pue == 1.3
    assert window.document.design.assumptions.power.electricity_usd_per_kwh == 0.12
    assert panel.editors["power.pue"].text() == "1.3"


def test_every_core_assumption_has_a_labelled_editor(window):
    panel = window.assumptions_panel
    for section in sections():
        fields = {f.name for f in dataclasses.fields(getattr(Assumptions(), section))} - CHOSEN_ELSEWHERE
        shown = {info.name for info in section_fields(section)}
        assert shown == fields, f"{section}: no editor for {fields - shown}"
        for info in section_fields(section):
            assert info.label and f"{section}.{info.name}" in panel.editors
    assert humanise("nic_latency_us") == ("NIC latency", "µs")
    assert humanise("host_per_1000_node_days") == ("Host", "per 1000 node-days")
    pue = next(i for i in section_fields("power") if i.name == "pue")
    assert pue.optional and parse_value(pue, "auto", None) is None and "cooling" in pue.meaning
    mode = next(i for i in section_fields("reliability") if i.name == "checkpoint_mode")
    assert set(mode.choices) == {"async", "sync"}


# --- parallelism search --------------------------------------------------------------------
def test_search_proposes_a_fitting_configuration_and_applies_it_in_one_step(window, qtbot, small_design):
    _evaluated(window, qtbot, small_design)
    panel = window.workload_panel
    panel.choose_preset("llama3-70b")
    preset = load_preset("llama3-70b")
    stack = window.document.undo_stack
    steps = stack.count()
    with qtbot.waitSignal(panel.search_finished, timeout=60_000) as blocker:
        panel.search_button.click()
        assert not panel.search_button.isEnabled()  # running on the worker thread
    outcome = blocker.args[0]
    best = outcome.candidates[0]
    assert best.fits_memory and best.parallelism.gpus <= 1024
    assert len(outcome.candidates) >= 2
    assert all(c.reason for c in outcome.candidates[1:])  # each runner-up says why it loses
    # Core agrees that the proposal fits and what its MFU is.
    fabric = window.evaluator.last.evaluation.topology.fabric
    check = analyze_performance(fabric, with_parallelism(preset, **dataclasses.asdict(best.parallelism)),
                                Assumptions().performance)
    assert check.fits_memory and check.mfu == pytest.approx(best.mfu)
    table = panel.search_table
    assert table.rowCount() == 2 * len(outcome.candidates)
    assert table.item(0, 1).text() == str(best.parallelism.tp)
    assert "best" in table.note(1) and "loses" in table.note(3)
    assert panel.search_button.isEnabled()
    # One click applies it as one undo step.
    table.cellWidget(0, 0).click()
    assert stack.count() == steps + 1
    workload = window.document.design.workload
    assert workload.parallelism == best.parallelism and workload.model == preset.model
    assert panel.spins["tp"].value() == best.parallelism.tp and panel.spins["dp"].value() == best.parallelism.dp
    result = window.evaluate_now()
    assert result.evaluation.performance.parallelism == best.parallelism
    stack.undo()
    assert window.document.design.workload == preset


def test_search_without_a_workload_asks_for_one(window, small_design):
    window.load_design(small_design, None)
    panel = window.workload_panel
    assert not panel.search_button.isEnabled()
    assert not panel.start_search()


# --- bottleneck ----------------------------------------------------------------------------
class _WithBottleneck:
    """An Evaluation that also carries a bottleneck (whatever core's version provides)."""

    def __init__(self, evaluation, bottleneck):
        self._evaluation = evaluation
        self.bottleneck = bottleneck

    def __getattr__(self, name):
        return getattr(self._evaluation, name)


@dataclasses.dataclass(frozen=True)
class _WhatIf:
    text: str
    mfu: float


@dataclasses.dataclass(frozen=True)
class _Bottleneck:
    text: str
    what_if: _WhatIf


def test_performance_panel_shows_what_limits_mfu(window, qtbot, small_design):
    small_design.workload = load_preset("llama3-70b")
    result = _evaluated(window, qtbot, small_design)
    panel = window.performance_panel
    real = getattr(result.evaluation, "bottleneck", None)
    if real is None:
        assert panel.bottleneck.isHidden()
    else:
        text = panel.bottleneck.text()
        assert not panel.bottleneck.isHidden() and text == bottleneck_html(real)
        assert "What limits MFU" in text and real.limiters[0].name in text
        if real.best is not None:
            assert "What would help most" in text
        assert panel.bottleneck.toolTip()  # core's summary and each limiter's explanation
    fake = _Bottleneck("tensor-parallel all-reduce over NVLink takes 18 % of the step",
                       _WhatIf("overlap TP communication with compute (+4 points of MFU)", 0.39))
    panel.update_result(dataclasses.replace(result, evaluation=_WithBottleneck(result.evaluation, fake)))
    text = panel.bottleneck.text()
    assert not panel.bottleneck.isHidden()
    assert "What limits MFU" in text and "tensor-parallel all-reduce" in text
    assert "what would help most" in text and "overlap TP communication" in text
    # Without a workload there is nothing to explain.
    small_design.workload = None
    window.load_design(small_design, None)
    window.evaluate_now()
    assert panel.bottleneck.isHidden()


def test_bottleneck_text_accepts_plain_strings_and_lists():
    assert bottleneck_html(None) == ""
    assert "What limits MFU" in bottleneck_html("the pipeline bubble")
    html = bottleneck_html(_Bottleneck("What limits MFU: DP traffic", [_WhatIf("more DP overlap", 0.4)]))
    assert html.count("What limits MFU") == 1 and "more DP overlap" in html


# --- MFU scaling chart -----------------------------------------------------------------------
def _line_gpus(chart) -> list[float]:
    """GPU counts the chart draws a line point at (crosses for missing sizes have no pen)."""
    drawn = []
    for item in chart.plot.getPlotItem().listDataItems():
        if item.opts["pen"] is not None and item.xData is not None:
            drawn += [round(10 ** x) for x in item.xData]
    return drawn


def test_mfu_chart_marks_sizes_that_do_not_fit_instead_of_drawing_zero(window, qtbot, small_design):
    # ZeRO-1 shards the optimizer over DP: 16 and 32 GPUs overflow an H100's memory.
    small_design.workload = with_parallelism(load_preset("llama3-70b"), tp=8, pp=1, dp=128, zero_stage=1,
                                             recompute="selective", global_batch=2048, micro_batch=1,
                                             virtual_stages=1)
    result = _evaluated(window, qtbot, small_design)
    chart = window.performance_panel.scaling
    assert chart.missing == [16, 32]
    drawn = _line_gpus(chart)
    assert 16 not in drawn and 32 not in drawn and 1024 in drawn
    assert all(y is None or y > 0 for y in chart.y)
    assert chart.marked == (1024, pytest.approx(result.evaluation.performance.mfu * 100))


def test_mfu_chart_of_a_job_larger_than_the_design_draws_no_line(window, qtbot):
    from core.model import Block, Design, Node

    design = Design("one DGX", Block("root", "one DGX", children={"dgx": Node("dgx", "DGX-H100")}))
    design.workload = load_preset("gpt3-175b")  # 1,024 GPUs of model and data parallelism
    _evaluated(window, qtbot, design)
    chart = window.performance_panel.scaling
    assert chart.missing and all(gpus > 8 for gpus in chart.missing)
    assert _line_gpus(chart) == [] and chart.marked is None


def test_performance_panel_says_when_core_has_no_result_for_the_workload(window, qtbot, small_design):
    small_design.workload = load_preset("llama3-70b")
    result = _evaluated(window, qtbot, small_design)
    panel = window.performance_panel
    no_result = dataclasses.replace(result, evaluation=dataclasses.replace(result.evaluation, performance=None),
                                    scaling=())
    panel.update_result(no_result)
    assert "cannot run on this design" in panel.message() and "Llama" in panel.message()
    assert panel.scaling.isHidden() and panel.breakdown.isHidden()
