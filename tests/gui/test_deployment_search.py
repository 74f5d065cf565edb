"""The serving deployment search in the window: "Auto (search)" in the inference form runs
core's search_deployment on a worker thread for the design as it is, lists the chosen
deployment and the runners-up with their figures and core's reasons, "Use" sets one in one undo
step; it says when no deployment meets the SLOs or none runs. A workload whose deployment is
"auto" shows the search the evaluation ran in the Performance panel."""

import dataclasses

import pytest

from core.analysis.inference_search import search_deployment
from core.catalog import default_catalog
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import AUTO, load_inference_preset
from designer.panels.deployment_search import COLUMNS, deployment_cells

R1, LLAMA = "deepseek-r1-serve", "llama31-70b-serve"
TOKENS, TTFT, TPOT, SLO = (1 + [h for h, _ in COLUMNS].index(h) for h in ("Tok/s\nper GPU", "TTFT\nms", "TPOT\nms",
                                                                          "SLO"))


def _loaded(window, qtbot, system: str, workload):
    design = generate_supernode(SupernodeOptions(system, 1), default_catalog())
    design.workload = workload
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


def _searched(window, qtbot):
    panel = window.workload_panel
    with qtbot.waitSignal(panel.inference_search_finished, timeout=60_000) as done:
        panel.inference_form.search_button.click()
        assert not panel.inference_form.search_button.isEnabled()  # running on the worker thread
    assert panel.inference_form.search_button.isEnabled()
    return done.args[0]


def test_auto_search_on_a_dgx_h100_lists_the_candidates_and_use_sets_one(window, qtbot):
    preset = load_inference_preset(LLAMA)
    ev = _loaded(window, qtbot, "DGX-H100", preset)
    stack, panel = window.document.undo_stack, window.workload_panel
    outcome = _searched(window, qtbot)
    search = outcome.search
    assert outcome.workload == preset and stack.count() == 0  # searching changes nothing
    # the candidates are core's search_deployment on the design's GPUs, in its order
    direct = search_deployment(ev.topology.fabric, preset, ev.power.facility_kw,
                               usd_per_gpu_hour=ev.cost.usd_per_gpu_hour)
    assert [c.deployment for c in search.candidates] == [c.deployment for c in direct.candidates]
    assert len(search.candidates) >= 3 and search.meets_slo and search.available_gpus == 8
    for mine, theirs in zip(search.candidates, direct.candidates):
        assert mine.output_tokens_per_s_per_gpu == pytest.approx(theirs.output_tokens_per_s_per_gpu)
        assert mine.reason == theirs.reason
    # one pair of rows per candidate: the figures, then why it wins or loses
    view = panel.inference_form.search_view
    table = view.table
    assert panel.inference_form.search_box.isVisibleTo(panel) and table.isVisibleTo(panel)
    assert table.rowCount() == 2 * len(search.candidates)
    for n, c in enumerate(search.candidates):
        layout, batch = deployment_cells(c.deployment)
        assert (table.item(2 * n, 1).text(), table.item(2 * n, 2).text()) == (layout, batch)
        assert table.item(2 * n, TOKENS).text() == f"{c.output_tokens_per_s_per_gpu:,.0f}"
        assert table.item(2 * n, TTFT).text() == f"{c.ttft_ms:,.0f}"
        assert table.item(2 * n, TPOT).text() == f"{c.tpot_ms:,.1f}"
        assert table.item(2 * n, SLO).text() == ("✓" if c.meets_slo else "✗")
        assert table.note(2 * n + 1) == (f"loses: {c.reason}" if n else
                                         "★ chosen: the most output tokens/s of the service within both SLOs")
    assert "✓ Chosen" in view.status.text()
    disaggregated = next(n for n, c in enumerate(search.candidates) if c.deployment.disaggregated)
    assert table.item(2 * disaggregated, 1).text().startswith("P TP ")  # both pools, a line each
    # "Use" on a runner-up: one undo step sets exactly that deployment on the workload
    runner_up = search.candidates[1]
    table.cellWidget(2, 0).click()
    assert stack.count() == 1 and stack.undoText().startswith("Use deployment aggregated TP ")
    assert window.document.design.workload == dataclasses.replace(preset, deployment=runner_up.deployment)
    assert table.cellWidget(2, 0).text() == "✓" and table.cellWidget(0, 0).text() == "Use"
    assert panel.inference_form.layouts.layout_of("decode") == dataclasses.asdict(runner_up.deployment.decode)
    served = window.evaluate_now().evaluation.inference
    assert served.workload.deployment == runner_up.deployment
    assert served.output_tokens_per_s_per_gpu == pytest.approx(runner_up.output_tokens_per_s_per_gpu)
    assert not view.notes.text().startswith("The design changed")  # using a row is not a change to flag
    stack.undo()
    assert window.document.design.workload == preset
    assert panel.inference_form.layouts.layout_of("decode")["tp"] == 8
    # any other change makes the list stale
    panel.inference_form.ttft.setValue(1500.0)
    panel.apply.click()
    assert stack.count() == 1 and "The design changed since this search" in view.notes.text()


def test_a_search_no_deployment_meets_says_so_and_lists_the_nearest(window, qtbot):
    """A 5 ms TPOT target: no layout of one DGX H100 decodes Llama 3.1 70B that fast."""
    slo = dataclasses.replace(load_inference_preset(LLAMA).slo, tpot_ms=5.0)
    _loaded(window, qtbot, "DGX-H100", dataclasses.replace(load_inference_preset(LLAMA), slo=slo))
    search = _searched(window, qtbot).search
    view = window.workload_panel.inference_form.search_view
    assert not search.meets_slo and search.candidates
    status = view.status.text().replace("\u00a0", " ")
    assert "No deployment meets the SLOs" in status and "TPOT ≤ 5.0 ms" in status
    best = search.candidates[0]
    assert f"(TPOT {best.tpot_ms:,.1f} ms &gt; 5.0 ms)" in status  # html: the one it misses
    assert view.table.item(0, SLO).text() == "✗" and view.table.item(0, SLO).toolTip().startswith("TPOT ")
    assert view.table.note(1).startswith("★ chosen: no deployment meets both SLOs")


def test_a_search_where_nothing_runs_says_why_and_lists_nothing(window, qtbot):
    """DeepSeek-R1 in FP8 on 8 H100: no layout fits its weights."""
    _loaded(window, qtbot, "DGX-H100", load_inference_preset(R1))
    search = _searched(window, qtbot).search
    view = window.workload_panel.inference_form.search_view
    assert search.candidates == () and search.result.cannot_run[0].code == "NO_DEPLOYMENT_FITS"
    assert "No deployment runs" in view.status.text()
    assert "83.9 GB of fp8 weights per GPU exceed the 77.0 GB" in view.status.text()
    assert view.table.isHidden() and not window.workload_panel.use_deployment(0)


def test_an_invalid_form_is_not_searched(window, qtbot):
    _loaded(window, qtbot, "DGX-H100", load_inference_preset(LLAMA))
    panel = window.workload_panel
    panel.inference_form.layouts.spins["decode"]["tp"].setValue(3)  # 3 does not divide 64 heads: invalid
    with qtbot.waitSignal(panel.error):
        assert not panel.start_inference_search()
    assert "3 does not divide the 64 attention heads" in panel.inference_form.search_view.status.text()
    assert panel.inference_form.search_button.isEnabled() and not panel.inference_runner.running


def test_an_auto_workload_shows_the_search_in_the_performance_panel(window, qtbot):
    ev = _loaded(window, qtbot, "DGX-H100", dataclasses.replace(load_inference_preset(LLAMA), deployment=AUTO))
    search = ev.inference_search
    details = window.performance_panel.serving_details
    view = details.search
    assert search is not None and details.search_title.isVisibleTo(window.performance_panel)
    assert view.table.rowCount() == 2 * len(search.candidates) and not view.table.use_column
    best = search.candidates[0]
    assert ev.inference.workload.deployment == best.deployment  # what is served is what was chosen
    assert view.table.item(0, 0).text() == deployment_cells(best.deployment)[0]
    assert view.table.item(0, TOKENS - 1).text() == f"{best.output_tokens_per_s_per_gpu:,.0f}"
    assert view.table.note(3) == f"loses: {search.candidates[1].reason}"
    assert "✓ Chosen" in view.status.text()
    # a fixed deployment has no search to show
    _loaded(window, qtbot, "DGX-H100", load_inference_preset(LLAMA))
    assert details.search.isHidden() and details.search_title.isHidden()
