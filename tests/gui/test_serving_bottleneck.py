"""The Performance panel's "What limits serving" paragraph and what-ifs for an inference
workload: the binding phase and the change that helps most as core has them (ev.bottleneck),
every what-if with its gain and SLO verdict, and no word of MFU."""

import dataclasses
import html

import pytest

from core.catalog import default_catalog
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import load_inference_preset
from designer.panels.performance import bottleneck_html
from designer.panels.serving_details import WHAT_IFS_TITLE, serving_bottleneck_html

R1, LLAMA = "deepseek-r1-serve", "llama31-70b-serve"


def _evaluation(window, qtbot, system: str, preset: str, **changes):
    design = generate_supernode(SupernodeOptions(system, 1), default_catalog())
    design.workload = dataclasses.replace(load_inference_preset(preset), **changes)
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


def _plain(text: str) -> str:
    return text.replace("\u2011", "-").replace("\u00a0", " ")


def test_deepseek_r1_on_an_nvl72_names_the_binding_phase_and_the_best_what_if(window, qtbot):
    ev = _evaluation(window, qtbot, "GB200-NVL72", R1)
    b, panel = ev.bottleneck, window.performance_panel
    top = b.limiters[0]
    # core: decode's HBM reads take the most of a request's GPU time; FP4 weights help most
    assert (top.phase, top.key) == ("decode", "decode_memory") and b.best is not None
    weights, kv = 1 - b.kv_share_of_decode_bytes, b.kv_share_of_decode_bytes
    paragraph = _plain(panel.bottleneck.text())
    assert not panel.bottleneck.isHidden() and panel.bottleneck.text() == bottleneck_html(b)
    assert paragraph.startswith(f"<b>What limits serving:</b> decode is HBM-bound (weights {weights:.0%}, "
                                f"KV cache {kv:.0%} of the bytes): {top.share:.0%} of the decode step")
    decode_share = top.gpu_time_share / top.share
    assert f"decode takes {decode_share:.0%} of a request's GPU time" in paragraph
    gain = f"{100 * b.best.gain:+.0f}%"
    assert f"<b>What would help most:</b> {b.best.description}: {gain} output tokens/s" in paragraph
    assert (f"({b.output_tokens_per_s_per_gpu:,.0f} → {b.best.output_tokens_per_s_per_gpu:,.0f} per GPU), "
            "meets the SLOs.") in paragraph
    assert b.best.meets_slo and b.best.gain > 0.01
    assert "MFU" not in paragraph
    # every what-if, in core's order, with its gain; the one missing TPOT says by how much
    details = panel.serving_details
    assert details.isVisibleTo(panel) and details.what_ifs_title.text() == WHAT_IFS_TITLE
    shown = _plain(details.what_ifs.text())
    assert "MFU" not in shown + details.what_ifs_title.text()
    positions = [shown.index(x.description) for x in b.what_ifs]
    assert positions == sorted(positions) and len(b.what_ifs) >= 4
    for x in b.what_ifs:
        assert f"{100 * x.gain:+.0f}%" in shown
    doubled = next(x for x in b.what_ifs if x.key == "batch_x2")
    assert not doubled.meets_slo and f"misses TPOT {doubled.tpot_ms:,.1f} ms" in shown
    # hovering: core's own sentence for each limiter and each what-if
    assert html.escape(top.text) in panel.bottleneck.toolTip()
    assert html.escape(b.best.text) in details.what_ifs.toolTip()


def test_the_dense_70b_on_a_dgx_is_prefill_bound(window, qtbot):
    """Llama 3.1 70B in BF16 on one DGX H100: 2,048-token prompts make prefill take most of a
    request's GPU time; FP8 weights help most."""
    ev = _evaluation(window, qtbot, "DGX-H100", LLAMA)
    b = ev.bottleneck
    assert b.limiters[0].key == "prefill_compute" and b.best.key == "weights_fp8"
    paragraph = _plain(window.performance_panel.bottleneck.text())
    assert "What limits serving:</b> prefill is compute-bound" in paragraph
    assert f"the weights in FP8 instead of BF16: {100 * b.best.gain:+.0f}% output tokens/s" in paragraph


def test_when_no_change_helps_within_the_slos_the_paragraph_says_so(window, qtbot):
    """A 10 ms TPOT target no deployment of R1 on an NVL72 at batch 64 keeps: no what-if meets
    the SLOs, so none is "most help"."""
    slo = dataclasses.replace(load_inference_preset(R1).slo, tpot_ms=10.0)
    ev = _evaluation(window, qtbot, "GB200-NVL72", R1, slo=slo)
    assert ev.bottleneck.best is None
    paragraph = window.performance_panel.bottleneck.text()
    assert ("<b>What would help most:</b> no single change tried raises output tokens/s by 1% within the "
            "SLOs.") in paragraph


@pytest.mark.parametrize("placement, source", [("host", "host memory"), ("remote", "the remote prefix cache"),
                                               (None, "host memory or storage")])
def test_a_kv_fetch_names_where_the_cache_comes_from(placement, source):
    from core.analysis.inference_bottleneck import InferenceBottleneck, InferenceLimiter

    fetch = InferenceLimiter("decode_kv_fetch", "decode KV-cache fetch", "decode", 0.04, 0.9, 0.6, "")
    b = InferenceBottleneck(100.0, 800.0, fetch.name, "", (fetch,), (), None, None)
    assert f"decode waits for the KV cache from {source}: 90% of the decode step" in serving_bottleneck_html(
        b, placement)


def test_a_phase_held_by_its_fixed_per_layer_costs_is_named_so_not_compute_bound():
    """When the layers' fixed costs are the largest part of a request's GPU time, the paragraph
    says so (it used to fall through to "compute-bound")."""
    from core.analysis.inference_bottleneck import InferenceBottleneck, InferenceLimiter

    top = InferenceLimiter("decode_fixed", "decode fixed per-layer costs", "decode", 0.0025, 0.6, 0.5, "")
    bottleneck = InferenceBottleneck(1000.0, 8000.0, top.name, "", (top,), (), None, None)
    text = html.unescape(serving_bottleneck_html(bottleneck))
    assert "decode is held by its layers' fixed costs" in text and "compute" not in text.split(":")[1]
