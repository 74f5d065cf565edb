"""A request mix served (issue 15): prefill and TTFT per class, one decode batch at the mix's
in-flight context, KV capacity at the in-flight mean full context, the longest request must fit,
``ttft_ms`` the share-weighted mean, and the SLO met only when every class meets it. Also the
pipeline stages' compute (each stage computes its own layers, one stage after another)."""

import copy
import json

import pytest

from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.catalog import default_catalog
from core.evaluate import evaluate, evaluation_to_json
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import inference_workload_from_dict, list_inference_presets
from core.report import render_report

CATALOG = default_catalog()
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
A = InferenceAssumptions()
FIXED_S = 80 * A.fixed_us_per_layer * 1e-6  # Llama 70B's 80 layers x 30.9 us, every step
PARAMS_70B = 70_552_387_584
KV_FP8 = 2 * 80 * 8 * 128  # bytes per token of Llama 70B's fp8 KV cache
H100_FP8 = 1978.9e12
DESIGN = generate_supernode(SupernodeOptions("DGX-H100", 1), CATALOG)
H100 = evaluate(DESIGN, CATALOG).topology.fabric


def _one_h100(mix, batch=2, ttft_slo=2000.0, **deployment):
    raw = copy.deepcopy(LLAMA)
    raw.update(precision="fp8", kv_cache_precision="fp8",
               requests={"mix": [{"input_tokens": i, "output_tokens": o, "share": w} for i, o, w in mix]},
               deployment={"tp": 1, "batch": batch, **deployment})
    raw["slo"]["ttft_ms"] = ttft_slo
    return inference_workload_from_dict(raw)


def _prefill_s(tokens: int) -> float:
    """One prompt alone on one H100 at fp8: compute-bound (the weights take 26 ms to read), and
    the 80 layers' fixed cost."""
    flops = tokens * 2 * PARAMS_70B + 0.5 * tokens**2 * 80 * 4 * 8192
    return (max(flops / (H100_FP8 * A.prefill_compute_efficiency), PARAMS_70B / (3.35e12 * A.hbm_efficiency))
            + FIXED_S)


MIX = [(1024, 128, 0.5), (4096, 512, 0.5)]


def test_each_class_has_its_own_prefill_and_ttft_and_the_mean_is_share_weighted():
    result = analyze_inference(H100, _one_h100(MIX), 10.0)
    p = (_prefill_s(1024), _prefill_s(4096))
    assert [c.ttft_unloaded_ms for c in result.classes] == pytest.approx([x * 1e3 for x in p], rel=1e-9)
    # one queue for both: the same wait before each class's own prefill
    waits = [c.ttft_ms - c.ttft_unloaded_ms for c in result.classes]
    assert waits[0] == pytest.approx(waits[1], rel=1e-9) and waits[0] > 0
    assert result.ttft_ms == pytest.approx(0.5 * result.classes[0].ttft_ms + 0.5 * result.classes[1].ttft_ms)
    assert result.ttft_unloaded_ms == pytest.approx(1e3 * (p[0] + p[1]) / 2, rel=1e-9)
    # prompt tokens per second of prefill: 2,560 mean tokens in the mean prefill time
    assert result.prefill_tokens_per_s_per_gpu == pytest.approx(2560 / ((p[0] + p[1]) / 2), rel=1e-9)
    # the KV cache one request of each class needs, whole model, at its full context
    assert [c.kv_gb_per_request for c in result.classes] == pytest.approx(
        [KV_FP8 * 1152 / 1e9, KV_FP8 * 4608 / 1e9])


def test_decode_reads_the_kv_cache_at_the_in_flight_mean_context():
    result = analyze_inference(H100, _one_h100(MIX), 10.0)
    # in flight: 0.5 x 128 : 0.5 x 512 = 1 : 4 (long answers stay longer in the batch)
    context = 0.2 * (1024 + 64) + 0.8 * (4096 + 256)  # 3,699 tokens, not 2,560 + 160
    hbm = PARAMS_70B + 2 * context * KV_FP8
    d = hbm / (3.35e12 * A.hbm_efficiency) + FIXED_S
    assert result.decode_step_ms == pytest.approx(d * 1e3, rel=1e-9)
    # TPOT at load: d + B x mean prefill / mean output (320 tokens)
    p_mean = (_prefill_s(1024) + _prefill_s(4096)) / 2
    assert result.tpot_ms == pytest.approx((d + 2 * p_mean / 320) * 1e3, rel=1e-9)


def test_kv_capacity_is_counted_at_the_in_flight_mean_full_context():
    result = analyze_inference(H100, _one_h100(MIX, batch=100), 10.0)
    free = 81_559 * 2**20 * (1 - A.activation_reserve_fraction) - PARAMS_70B
    held = 0.2 * 1152 + 0.8 * 4608  # 3,917 tokens a request in flight holds
    assert result.max_concurrency_per_replica == int(free // (held * KV_FP8)) == 9
    assert result.batch == 9
    (note,) = [d for d in result.diagnostics if d.code == "KV_CACHE_LIMITS_BATCH"]
    assert note.message == ("inference.deployment.batch: the KV cache holds 9 requests of 3,917 tokens "
                            "per replica, not 100: the batch is 9")


def test_a_class_too_long_for_the_kv_cache_cannot_run_even_if_the_mean_fits():
    # 6.4 GB of free HBM holds 39,162 fp8 tokens: 40,960 do not fit, 1% of requests or not
    result = analyze_inference(H100, _one_h100([(512, 64, 0.99), (36864, 4096, 0.01)], batch=1), 10.0)
    assert not result.runs and result.ttft_ms is None and result.classes == ()
    (reason,) = result.cannot_run
    assert reason.code == "DOES_NOT_FIT_MEMORY"
    assert reason.message.startswith("inference: the KV cache of one 40,960-token request (6.7 GB per GPU)")


def test_the_slo_holds_only_when_every_class_meets_ttft():
    result = analyze_inference(H100, _one_h100(MIX), 10.0)
    short, long = (c.ttft_ms for c in result.classes)
    between = (result.ttft_ms + long) / 2  # above the mean, below the long class
    missed = analyze_inference(H100, _one_h100(MIX, ttft_slo=between), 10.0)
    assert missed.ttft_ms < between and not missed.meets_slo
    assert [c.meets_ttft_slo for c in missed.classes] == [True, False]
    (note,) = [d for d in missed.diagnostics if d.code == "SLO_MISSED"]
    assert "for the 4,096-in, 512-out class" in note.message
    assert not all(p.meets_slo for p in missed.curve if p.batch == missed.batch)
    met = analyze_inference(H100, _one_h100(MIX, ttft_slo=long + 1), 10.0)
    assert met.meets_slo and all(c.meets_ttft_slo for c in met.classes)


def test_the_json_and_the_report_give_every_class():
    design = generate_supernode(SupernodeOptions("GB200-NVL72", 1), CATALOG)
    raw = copy.deepcopy(LLAMA)
    raw["requests"] = {"mix": [{"input_tokens": 512, "output_tokens": 128, "share": 0.75},
                               {"input_tokens": 8192, "output_tokens": 1024, "share": 0.25}]}
    ev = evaluate(design, CATALOG, inference_workload_from_dict(raw))
    section = evaluation_to_json(ev)["inference"]
    assert len(section["ttft_ms_by_class"]) == 2
    assert section["ttft_ms"] == pytest.approx(0.75 * section["ttft_ms_by_class"][0]
                                               + 0.25 * section["ttft_ms_by_class"][1])
    assert [c["input_tokens"] for c in section["classes"]] == [512, 8192]
    text = render_report(ev, "md")
    assert "| 8,192 in, 1,024 out (25%) | TTFT " in text
    assert "at load, mean over the classes" in text


def test_pipeline_stages_each_compute_their_own_layers_one_after_another():
    # PP 2 on two H100s: each stage computes half the FLOPs on its one GPU, the two stages one
    # after the other, so a prompt reaches its first token as on one GPU (no TP collective;
    # each stage carries its 40 layers' fixed cost)
    raw = copy.deepcopy(LLAMA)
    raw.update(precision="fp8", kv_cache_precision="fp8", requests={"input_tokens": 8192, "output_tokens": 64},
               deployment={"tp": 1, "pp": 2, "batch": 1})
    result = analyze_inference(H100, inference_workload_from_dict(raw), 10.0)
    flops = 8192 * 2 * PARAMS_70B + 0.5 * 8192**2 * 80 * 4 * 8192
    stage = flops / 2 / (H100_FP8 * A.prefill_compute_efficiency)
    assert result.prefill.compute_s == pytest.approx(stage, rel=1e-9)
    assert result.ttft_unloaded_ms == pytest.approx(2 * (stage + FIXED_S / 2) * 1e3, rel=1e-9)
