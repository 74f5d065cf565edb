"""Disaggregated prefill/decode (issue 15): a prefill pool and a decode pool, each its own
layout, the KV cache handed over between them over the fabric level both pools span; TTFT from
the prefill pool plus the hand-over, TPOT from the decode pool alone, the deployment's
throughput set by the pool that limits, and the prefill:decode ratio that would balance them."""

import copy
import json

import pytest

from core.analysis.collectives import allreduce_time_s
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
PARAMS_70B = 70_552_387_584


def _fabric(system: str, count: int = 1):
    return evaluate(generate_supernode(SupernodeOptions(system, count), CATALOG), CATALOG).topology.fabric


def _disaggregated(prefill: dict, decode: dict, **changes):
    raw = copy.deepcopy(LLAMA)
    raw["deployment"] = {"mode": "disaggregated", "prefill": prefill, "decode": decode}
    raw.update(changes)
    return inference_workload_from_dict(raw)


TWO_DGX = _fabric("DGX-H100", 2)  # 16 GPUs: the pools' two servers meet at the leaf


def test_one_server_prefills_the_other_decodes_on_hand_numbers():
    workload = _disaggregated({"tp": 8, "batch": 1}, {"tp": 8, "batch": 64})
    result = analyze_inference(TWO_DGX, workload, 20.0)
    assert result.runs and result.disaggregated is not None
    # the prefill step: 2,048 bf16 tokens on a TP-8 H100 replica, compute-bound
    flops = 2048 * 2 * PARAMS_70B + 0.5 * 2048**2 * 80 * 4 * 8192
    compute = flops / 8 / (989.4e12 * A.prefill_compute_efficiency)
    tp_all_reduces = 2 * 80 * allreduce_time_s(TWO_DGX, 2048 * 8192 * 2.0, 8)
    step = compute + tp_all_reduces + 80 * A.fixed_us_per_layer * 1e-6  # + 80 layers' fixed cost
    assert result.prefill.bound == "compute"
    assert result.disaggregated.prefill.step_ms == pytest.approx(step * 1e3, rel=1e-9)
    # the hand-over: each prefill GPU holds 1/8 of the KV heads, 2,048 x 40 KiB = 84 MB, over
    # the leaf (the pools span 16 GPUs) at 47 GB/s x the KV-transfer efficiency
    per_gpu = 2048 * 2 * 80 * 8 * 128 * 2 / 8
    handover = per_gpu / (47e9 * A.kv_transfer_efficiency) + (1.23 + 1.0) * 1e-6
    assert result.disaggregated.kv_transfer_level == "leaf"
    assert result.disaggregated.kv_transfer_ms == pytest.approx(handover * 1e3, rel=1e-9)  # ~3 ms
    # TPOT: the decode pool's step alone, no prefill interleaved
    d = result.decode_step_ms / 1e3
    assert result.tpot_ms == result.decode_step_ms
    # the pools: 1 / step requests/s against 64 / (256 d)
    prefill_rate, decode_rate = 1 / step, 64 / (256 * d)
    assert result.disaggregated.prefill.requests_per_s == pytest.approx(prefill_rate, rel=1e-9)
    assert result.disaggregated.decode.requests_per_s == pytest.approx(decode_rate, rel=1e-9)
    rate = min(prefill_rate, decode_rate)
    assert result.disaggregated.limited_by == ("prefill" if prefill_rate < decode_rate else "decode")
    # TTFT: half the step in progress while the pool is busy, the step, the hand-over
    assert result.ttft_ms == pytest.approx((rate / prefill_rate * step / 2 + step + handover) * 1e3, rel=1e-9)
    assert result.ttft_unloaded_ms == pytest.approx((step + handover) * 1e3, rel=1e-9)
    # throughput over both pools' 16 GPUs; the balance the user would aim for
    assert result.output_tokens_per_s_per_gpu == pytest.approx(rate * 256 / 16, rel=1e-9)
    assert result.disaggregated.balanced_prefill_per_decode_gpu == pytest.approx(
        (decode_rate / 8) / (prefill_rate / 8), rel=1e-9)
    assert result.prefill_time_fraction is None
    assert result.prefill_tokens_per_s_per_gpu == pytest.approx(2048 / step / 8, rel=1e-9)
    assert result.decode_tokens_per_s_per_gpu == pytest.approx(64 / d / 8, rel=1e-9)


def test_pools_inside_one_nvlink_domain_hand_over_at_nvlink_speed():
    nvl = _fabric("GB200-NVL72")
    workload = _disaggregated({"tp": 8, "dp": 2, "batch": 2}, {"tp": 8, "dp": 4, "batch": 128})
    result = analyze_inference(nvl, workload, 130.0)
    # a prefill step holds two 2,048-token prompts; the prefill GPUs send both prompts' KV
    per_gpu = 2 * 2048 * 2 * 80 * 8 * 128 * 2 / 8
    assert result.disaggregated.kv_transfer_level == "scale-up"
    assert result.disaggregated.kv_transfer_ms == pytest.approx(
        (per_gpu / (738e9 * A.kv_transfer_efficiency) + 2e-6) * 1e3, rel=1e-9)
    assert result.disaggregated.prefill.gpus == 16 and result.disaggregated.decode.gpus == 32


def test_the_limiting_pool_is_named_and_the_balancing_ratio_given():
    nvl = _fabric("GB200-NVL72")
    workload = _disaggregated({"tp": 8, "dp": 2, "batch": 2}, {"tp": 8, "dp": 4, "batch": 128})
    result = analyze_inference(nvl, workload, 130.0)
    dis = result.disaggregated
    assert dis.limited_by == "prefill" and dis.prefill.utilisation == pytest.approx(1.0)
    assert dis.decode.utilisation < 0.9
    (note,) = [d for d in result.diagnostics if d.code == "DISAGGREGATED_POOLS_UNBALANCED"]
    assert note.severity == "info"
    assert f"{dis.balanced_prefill_per_decode_gpu:.2f} prefill GPUs per decode GPU" in note.message
    # the pools as the ratio says: prefill and decode serve within a few % of each other
    ratio = dis.balanced_prefill_per_decode_gpu
    balanced = _disaggregated({"tp": 8, "dp": round(4 * ratio), "batch": 2}, {"tp": 8, "dp": 4, "batch": 128})
    again = analyze_inference(_fabric("GB200-NVL72", 2), balanced, 260.0).disaggregated
    assert again.prefill.requests_per_s == pytest.approx(again.decode.requests_per_s, rel=0.2)
    # balanced pools: more served tokens per GPU than the prefill-starved deployment
    assert analyze_inference(_fabric("GB200-NVL72", 2), balanced, 260.0).output_tokens_per_s_per_gpu \
        > result.output_tokens_per_s_per_gpu


def test_both_pools_must_hold_the_weights_and_fit_the_design():
    # prefill at TP 1 cannot hold 141 GB of bf16 Llama 70B; decode at TP 8 can
    workload = _disaggregated({"tp": 1, "batch": 1}, {"tp": 8, "batch": 64})
    result = analyze_inference(TWO_DGX, workload, 20.0)
    assert not result.runs and result.ttft_ms is None and result.disaggregated is None
    (reason,) = result.cannot_run
    assert reason.code == "DOES_NOT_FIT_MEMORY"
    assert reason.message.startswith("inference.deployment.prefill: 141.1 GB of bf16 weights per GPU")
    too_many = _disaggregated({"tp": 8, "batch": 1}, {"tp": 8, "dp": 2, "batch": 64})
    (reason,) = analyze_inference(TWO_DGX, too_many, 20.0).cannot_run
    assert reason.code == "PARALLELISM_EXCEEDS_GPUS"
    assert "prefill + decode pools = 24 GPUs, the design connects 16" in reason.message


def test_the_evaluation_json_and_report_carry_both_pools():
    design = generate_supernode(SupernodeOptions("GB200-NVL72", 1), CATALOG)
    workload = _disaggregated({"tp": 8, "dp": 2, "batch": 2}, {"tp": 8, "dp": 4, "batch": 128})
    ev = evaluate(design, CATALOG, workload)
    section = evaluation_to_json(ev)["inference"]
    assert section["runs"] is True and section["prefill_time_fraction"] is None
    dis = section["disaggregated"]
    assert dis["limited_by"] == "prefill" and dis["kv_transfer_level"] == "scale-up"
    assert {"gpus", "batch", "step_ms", "requests_per_s", "utilisation"} <= set(dis["prefill"])
    # the design is filled with whole copies of both pools (48 GPUs of 72)
    assert section["serving_gpus_in_design"] == 48
    assert section["tokens_per_s_per_mw"] == pytest.approx(
        section["output_tokens_per_s_per_gpu"] * 48 / (ev.power.facility_kw / 1000))
    text = render_report(ev, "md")
    assert "| Limited by | the prefill pool; " in text and "| KV cache hand-over | " in text
    assert "| Prefill pool | 16 GPUs, 2 prompts a step of " in text
