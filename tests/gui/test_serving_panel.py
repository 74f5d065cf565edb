"""Performance panel of an inference workload: the serving figures as the evaluation has them,
TTFT and TPOT marked against the SLOs, the throughput-latency chart one point per curve entry
(filled where both SLOs hold), and for a workload that cannot run the reason and no point."""

import dataclasses

import pytest

from core.catalog import default_catalog
from core.diagnostics import Diagnostic
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import load_inference_preset
from core.workload import load_preset
from designer.panels.serving_chart import point_tooltip
from designer.panels.serving_text import BOUND_TEXT, DOES_NOT_FIT, NOT_MODELLED

R1, LLAMA = "deepseek-r1-serve", "llama31-70b-serve"
SERVING_LABELS = ("Time to first token", "Time per output token", "Prefill per GPU", "Decode per GPU",
                  "Tokens per second per MW", "Per million output tokens")


def _evaluated(window, qtbot, system: str, preset: str, **changes):
    design = generate_supernode(SupernodeOptions(system, 1), default_catalog())
    design.workload = dataclasses.replace(load_inference_preset(preset), **changes)
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation.inference


def test_deepseek_r1_on_an_nvl72_shows_the_evaluation_and_its_curve(window, qtbot):
    served = _evaluated(window, qtbot, "GB200-NVL72", R1)
    panel = window.performance_panel
    assert served.runs and served.meets_slo and served.batch == 64
    assert panel.value("Time to first token") == f"{served.ttft_ms:,.0f} ms  ✓ SLO 2,000 ms"
    assert panel.value("Time per output token") == f"{served.tpot_ms:,.1f} ms  ✓ SLO 50.0 ms"
    assert panel.value("Decode per GPU").startswith(f"{served.decode_tokens_per_s_per_gpu:,.0f} tokens/s · ")
    assert panel.value("Decode per GPU").endswith(BOUND_TEXT[served.decode.bound])
    assert panel.value("Concurrency per replica") == f"64 of {served.max_concurrency_per_replica:,}"
    assert "Meets the SLOs" in panel.slo.text() and panel.slo.isVisibleTo(panel)
    assert panel.verdict.isHidden() and panel.breakdown.isHidden() and panel.scaling.isHidden()
    chart = panel.serving_chart
    assert chart.isVisibleTo(panel)
    assert len(chart.points) == len(served.curve) > 1 and len(chart.scatter.points()) == len(served.curve)
    assert chart.slo_x == pytest.approx(1000 / 50)  # TPOT SLO 50 ms: 20 tokens/s per user
    spots = {spot.data().batch: spot for spot in chart.scatter.points()}
    chosen = next(p for p in served.curve if p.batch == 64)
    assert spots[64].pos().x() == pytest.approx(chosen.tokens_per_s_per_user)
    assert spots[64].pos().y() == pytest.approx(chosen.output_tokens_per_s_per_gpu)
    tip = chart.scatter.opts["tip"](x=0, y=0, data=chosen)
    assert tip == point_tooltip(chosen)
    assert tip.startswith("batch 64 (meets both SLOs)") and f"TPOT {chosen.tpot_ms:,.1f} ms" in tip
    assert window.run_label.text().startswith(f"TPOT {served.tpot_ms:,.1f} ms ✓")


def test_points_missing_an_slo_are_hollow(window, qtbot):
    """A 10 ms TPOT target: the large batches (slower per user) miss it."""
    slo = dataclasses.replace(load_inference_preset(R1).slo, tpot_ms=10.0)
    served = _evaluated(window, qtbot, "GB200-NVL72", R1, slo=slo)
    chart = window.performance_panel.serving_chart
    meets = {p.batch: p.meets_slo for p in served.curve}
    assert any(meets.values()) and not all(meets.values())
    for spot in chart.scatter.points():
        filled = spot.brush().color().name() != "#ffffff"
        assert filled == meets[spot.data().batch]
    assert "Misses the SLOs" in window.performance_panel.slo.text()
    assert "✗ SLO 10.0 ms" in window.performance_panel.value("Time per output token")


@pytest.mark.parametrize("system, preset, reason", [
    ("DGX-H100", R1, "98.9 GB of fp8 weights per GPU exceed the 72.0 GB H100-SXM5-80GB leaves"),
    ("CloudMatrix384", R1, "Ascend-910C has no dense fp8 TFLOPs in the catalog (it has bf16, fp16, int8)"),
])
def test_a_workload_that_cannot_run_shows_the_reason_and_no_point(window, qtbot, system, preset, reason):
    served = _evaluated(window, qtbot, system, preset)
    panel = window.performance_panel
    assert not served.runs and reason in served.cannot_run[0].message
    assert panel.verdict.isVisibleTo(panel) and "Does not fit" in panel.verdict.text()
    assert reason in panel.verdict.text()
    for label in SERVING_LABELS:
        assert panel.value(label) == DOES_NOT_FIT
    assert panel.value("Weights") == "98.9 GB"  # a fact of the design, the reason itself
    assert panel.serving_chart.isHidden() and panel.serving_chart.points == []
    assert panel.slo.isHidden()
    assert window.run_label.text() == f"{served.workload.name}: {DOES_NOT_FIT}"


@pytest.mark.parametrize("system", ["DGX-H100", "GB200-NVL72", "CloudMatrix384"])
def test_the_dense_70b_serves_on_each_design(window, qtbot, system):
    served = _evaluated(window, qtbot, system, LLAMA)
    chart = window.performance_panel.serving_chart
    assert served.runs and len(chart.points) == len(served.curve) > 1
    assert window.performance_panel.value("Deployment") == "aggregated, TP 8 · PP 1 · EP 1 · DP 1 · 8 GPUs"


def test_a_workload_the_serving_model_does_not_cover_says_not_modelled(window, qtbot):
    served = _evaluated(window, qtbot, "GB200-NVL72", R1)
    not_covered = dataclasses.replace(served, runs=False, curve=(), cannot_run=(
        Diagnostic("INFERENCE_NOT_MODELLED", "inference: a KV cache in host memory is not modelled yet"),))
    result = window.evaluator.last
    panel = window.performance_panel
    panel.update_result(dataclasses.replace(result, evaluation=dataclasses.replace(
        result.evaluation, inference=not_covered)))
    assert "Not modelled yet" in panel.verdict.text() and "Does not fit" not in panel.verdict.text()
    assert panel.value("Time to first token") == NOT_MODELLED and panel.serving_chart.isHidden()


def test_a_training_workload_after_a_serving_one_looks_as_before(window, qtbot, small_design):
    _evaluated(window, qtbot, "GB200-NVL72", R1)
    small_design.workload = load_preset("llama3-70b")  # 1,024 GPUs, as the design
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(small_design, None)
    panel = window.performance_panel
    assert panel.serving_chart.isHidden() and panel.slo.isHidden() and panel.serving_chart.points == []
    assert panel.value("MFU").endswith("%") and not panel.breakdown.isHidden()
