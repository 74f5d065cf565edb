"""Performance panel of an inference workload: the serving figures as the evaluation has them
(TTFT and TPOT at load beside a prompt alone and the bare decode step, served output tokens
beside decode tokens, the prefill share, the GPUs serving copies of the layout, each class of a
request mix, the two pools of a disaggregated deployment, a KV cache in host memory), TTFT and
TPOT marked against the SLOs, the throughput-latency chart one point per curve entry (filled
where both SLOs hold), and for a workload that cannot run the reason and no point."""

import dataclasses

import pytest

from core.catalog import default_catalog
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import (Deployment, KvCacheSpec, PhaseLayout, RequestClass, RequestMix,
                                     load_inference_preset)
from core.workload import load_preset
from designer.panels.serving_chart import point_tooltip
from designer.panels.serving_text import BOUND_TEXT, DOES_NOT_FIT, SERVING_LABELS

R1, LLAMA = "deepseek-r1-serve", "llama31-70b-serve"


def _evaluated(window, qtbot, system: str, preset: str, **changes):
    design = generate_supernode(SupernodeOptions(system, 1), default_catalog())
    design.workload = dataclasses.replace(load_inference_preset(preset), **changes)
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation.inference


def _shown(panel, label: str) -> str:
    """A row's value as read (the panel keeps "2,000 ms" on one line with no-break spaces)."""
    return panel.value(label).replace("\u00a0", " ")


def _labels(panel) -> set[str]:
    return set(panel._values)


def test_deepseek_r1_on_an_nvl72_shows_the_evaluation_and_its_curve(window, qtbot):
    served = _evaluated(window, qtbot, "GB200-NVL72", R1)
    panel = window.performance_panel
    assert served.runs and served.meets_slo and served.batch == 64
    assert _shown(panel, "Time to first token") == f"{served.ttft_ms:,.0f} ms  ✓ SLO 2,000 ms"
    assert _shown(panel, "TTFT alone") == f"{served.ttft_unloaded_ms:,.0f} ms"
    assert served.ttft_unloaded_ms < served.ttft_ms  # the wait in the prefill queue
    assert _shown(panel, "Time per output token") == f"{served.tpot_ms:,.1f} ms  ✓ SLO 50.0 ms"
    assert _shown(panel, "Decode step") == f"{served.decode_step_ms:,.1f} ms"
    assert served.decode_step_ms < served.tpot_ms  # the prefills interleaved at load
    assert _shown(panel, "Time in prefill") == f"{served.prefill_time_fraction:.0%} of each replica's time"
    assert _shown(panel, "Served output per GPU") == f"{served.output_tokens_per_s_per_gpu:,.0f} tokens/s"
    assert _shown(panel, "Decode per GPU") == (f"{served.decode_tokens_per_s_per_gpu:,.0f} tokens/s · "
                                               f"{BOUND_TEXT[served.decode.bound]}")
    assert served.output_tokens_per_s_per_gpu < served.decode_tokens_per_s_per_gpu  # prefill counted
    # EP 8 x TP 1: copies of 8 GPUs, nine of them fill the 72 GPUs
    assert _shown(panel, "Serving GPUs") == "72 of 72 · 9 copies" and served.serving_gpus_in_design == 72
    assert _shown(panel, "Output of the design") == f"{served.design_output_tokens_per_s:,.0f} tokens/s"
    assert served.design_output_tokens_per_s == pytest.approx(72 * served.output_tokens_per_s_per_gpu)
    assert _shown(panel, "Tokens per second per MW") == f"{served.tokens_per_s_per_mw:,.0f}"
    assert _shown(panel, "Concurrency per replica") == f"64 of {served.max_concurrency_per_replica:,}"
    # one request shape, aggregated, HBM only: no class, pool or host rows
    assert not _labels(panel) & {"Prefill pool", "Decode pool", "Host memory", "Prefix cache"}
    assert "Meets the SLOs" in panel.slo.text() and panel.slo.isVisibleTo(panel)
    assert panel.verdict.isHidden() and panel.breakdown.isHidden() and panel.scaling.isHidden()
    chart = panel.serving_chart
    assert chart.isVisibleTo(panel)
    assert len(chart.points) == len(served.curve) > 1 and len(chart.scatter.points()) == len(served.curve)
    assert chart.slo_x == pytest.approx(1000 / 50)  # TPOT SLO 50 ms: 20 tokens/s per user
    assert chart.limit_y is None  # one pool: nothing caps it but the KV cache
    spots = {spot.data().batch: spot for spot in chart.scatter.points()}
    chosen = next(p for p in served.curve if p.batch == 64)
    assert spots[64].pos().x() == pytest.approx(chosen.tokens_per_s_per_user)
    assert spots[64].pos().y() == pytest.approx(chosen.output_tokens_per_s_per_gpu)
    assert chosen.output_tokens_per_s_per_gpu == pytest.approx(served.output_tokens_per_s_per_gpu)
    tip = chart.scatter.opts["tip"](x=0, y=0, data=chosen)
    assert tip == point_tooltip(chosen)
    assert tip.startswith("batch 64 (meets both SLOs)") and f"TPOT {chosen.tpot_ms:,.1f} ms" in tip
    assert window.run_label.text() == (f"TPOT {served.tpot_ms:,.1f} ms ✓ · "
                                       f"{served.output_tokens_per_s_per_gpu:,.0f} output tokens/s per GPU")


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
    assert "✗ SLO 10.0 ms" in _shown(window.performance_panel, "Time per output token")


# prefill: 8 GPUs (EP 8); decode: 16 GPUs (EP 16) at batch 128 per replica
DISAGGREGATED = Deployment("disaggregated", PhaseLayout(1, 1, 8, 8, 1), PhaseLayout(1, 1, 16, 16, 128))


def test_a_disaggregated_deployment_shows_its_two_pools(window, qtbot):
    served = _evaluated(window, qtbot, "GB200-NVL72", R1, deployment=DISAGGREGATED)
    panel = window.performance_panel
    pools = served.disaggregated
    assert served.runs and pools is not None and pools.limited_by == "prefill"
    prefill, decode = pools.prefill, pools.decode
    assert (prefill.gpus, decode.gpus) == (8, 16) and prefill.utilisation == pytest.approx(1.0)
    assert _shown(panel, "Prefill pool") == (f"8 GPUs · {prefill.requests_per_s:,.1f} req/s · 100% busy · "
                                             "limits")
    assert _shown(panel, "Decode pool") == (f"16 GPUs · {decode.requests_per_s:,.1f} req/s · "
                                            f"{decode.utilisation:.0%} busy")
    # the decode pool serves what the prefill pool feeds it
    assert decode.utilisation == pytest.approx(prefill.requests_per_s / decode.requests_per_s)
    assert _shown(panel, "Balancing ratio") == (f"{pools.balanced_prefill_per_decode_gpu:,.2f} prefill per "
                                                "decode GPU (now 0.50)")
    assert _shown(panel, "KV hand-over") == f"{pools.kv_transfer_ms:,.2f} ms · {pools.kv_transfer_level} level"
    assert _shown(panel, "Weights") == (f"{prefill.weights_gb_per_gpu:,.1f} GB prefill · "
                                        f"{decode.weights_gb_per_gpu:,.1f} GB decode")
    # 24 GPUs a copy: three copies of both pools fill 72
    assert _shown(panel, "Serving GPUs") == "72 of 72 · 3 copies"
    # a decode pool's TPOT is its decode step; it never prefills
    assert served.tpot_ms == pytest.approx(served.decode_step_ms)
    assert not _labels(panel) & {"Decode step", "Time in prefill"}
    # the chart: past the batch where the prefill pool limits, the served tokens stay at what it
    # feeds: its requests/s x 1,024 output tokens over the 24 GPUs
    chart = panel.serving_chart
    limit = prefill.requests_per_s * 1024 / 24
    assert chart.limit_y == pytest.approx(limit)
    assert max(p.output_tokens_per_s_per_gpu for p in chart.points) == pytest.approx(limit)
    assert served.output_tokens_per_s_per_gpu == pytest.approx(limit)
    assert "the decode pool at that batch per replica" in chart.legend.text()


MIX = RequestMix((RequestClass(4096, 1024, 0.9), RequestClass(32768, 2048, 0.1)))


def test_a_request_mix_shows_each_class_and_the_one_that_misses(window, qtbot):
    served = _evaluated(window, qtbot, "GB200-NVL72", R1, requests=MIX)
    panel = window.performance_panel
    short, long = served.classes
    assert short.meets_ttft_slo and not long.meets_ttft_slo and not served.meets_slo
    assert _shown(panel, "4,096 in · 1,024 out · 90%") == f"{short.ttft_ms:,.0f} ms  ✓"
    assert _shown(panel, "32,768 in · 2,048 out · 10%") == f"{long.ttft_ms:,.0f} ms  ✗ SLO 2,000 ms"
    # the row of the whole mix is the share-weighted mean, marked by the slowest class
    assert served.ttft_ms == pytest.approx(0.9 * short.ttft_ms + 0.1 * long.ttft_ms)
    assert _shown(panel, "Time to first token") == f"{served.ttft_ms:,.0f} ms mean  ✗ SLO 2,000 ms"
    slo_line = panel.slo.text().replace("\u00a0", " ")
    assert "Misses the SLOs" in slo_line and f"(32,768 in) {long.ttft_ms:,.0f} ms > 2,000 ms" in slo_line


def test_a_kv_cache_in_host_memory_shows_what_spills_there(window, qtbot):
    """Llama 3.1 70B at batch 1,024 on one DGX H100: the KV cache outgrows the HBM the BF16
    weights leave and the rest is read over PCIe every decode step, which then binds decode."""
    deployment = Deployment.aggregated(tp=8, batch=1024)
    served = _evaluated(window, qtbot, "DGX-H100", LLAMA, deployment=deployment,
                        kv_cache=KvCacheSpec("host", 256.0))
    panel = window.performance_panel
    kv = served.kv_placement
    assert served.runs and served.batch == 1024 and kv.placement == "host"
    assert kv.host_kv_gb_per_gpu > 0 and kv.host_link_gbyte_s == 64
    assert _shown(panel, "Host memory") == "256 GB per GPU · link 64 GB/s"
    assert _shown(panel, "KV in host memory") == f"{kv.host_kv_gb_per_gpu:,.1f} GB per GPU"
    assert served.decode.bound == "host_link"
    assert _shown(panel, "Decode per GPU").endswith(" · host‑link‑bound")
    assert "decode waits for the KV cache from host memory" in panel.bottleneck.text()


@pytest.mark.parametrize("system, preset, reason", [
    ("DGX-H100", R1, "98.9 GB of fp8 weights per GPU exceed the 77.0 GB H100-SXM5-80GB leaves"),
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
    # nothing limits figures that do not exist: no paragraph, no what-ifs
    assert panel.bottleneck.isHidden() and panel.serving_details.isHidden()
    assert window.run_label.text() == f"{served.workload.name}: {DOES_NOT_FIT}"


def test_deepseek_r1_in_int8_serves_on_a_cloudmatrix384(window, qtbot):
    """The catalog gives the Ascend 910C INT8: the preset in INT8 runs there (batch held by the
    KV cache, TPOT over the target)."""
    served = _evaluated(window, qtbot, "CloudMatrix384", R1, precision="int8")
    panel = window.performance_panel
    assert served.runs and panel.verdict.isHidden()
    assert len(panel.serving_chart.points) == len(served.curve) > 1
    assert _shown(panel, "Serving GPUs") == "384 of 384 · 48 copies"
    assert ("Meets the SLOs" if served.meets_slo else "Misses the SLOs") in panel.slo.text()


@pytest.mark.parametrize("system", ["DGX-H100", "GB200-NVL72", "CloudMatrix384"])
def test_the_dense_70b_serves_on_each_design(window, qtbot, system):
    served = _evaluated(window, qtbot, system, LLAMA)
    chart = window.performance_panel.serving_chart
    assert served.runs and len(chart.points) == len(served.curve) > 1
    assert window.performance_panel.value("Deployment") == "aggregated, TP 8 · PP 1 · EP 1 · DP 1 · 8 GPUs"


def test_a_training_workload_after_a_serving_one_looks_as_before(window, qtbot, small_design):
    _evaluated(window, qtbot, "GB200-NVL72", R1)
    small_design.workload = load_preset("llama3-70b")  # 1,024 GPUs, as the design
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(small_design, None)
    panel = window.performance_panel
    assert panel.serving_chart.isHidden() and panel.slo.isHidden() and panel.serving_chart.points == []
    assert panel.serving_details.isHidden()
    assert panel.value("MFU").endswith("%") and not panel.breakdown.isHidden()
    assert "What limits MFU" in panel.bottleneck.text()
