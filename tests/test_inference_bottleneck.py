"""What limits an inference deployment and the what-ifs (issue 15: "decode is HBM-bound; FP8 KV
cache would give +38% tokens/s"): limiters on hand numbers, every what-if served again (never
extrapolated), sorted, the best within the SLOs, in the evaluation JSON, the report and the
GUI's bottleneck paragraph."""

import copy
import json
from dataclasses import replace

import pytest

from core.analysis.inference import analyze_inference_workload
from core.analysis.inference_bottleneck import MATERIAL_GAIN, explain_inference_bottleneck
from core.analysis.inference_search import serve_at_best_batch
from core.analysis.serving import serve_deployment
from core.analysis.serving_context import with_deployment
from core.catalog import default_catalog
from core.evaluate import evaluate, evaluation_to_json
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import Deployment, inference_workload_from_dict, list_inference_presets

CATALOG = default_catalog()
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
DEEPSEEK = json.loads(list_inference_presets()["deepseek-r1-serve"].read_text())
DESIGNS = {system: generate_supernode(SupernodeOptions(system, 1), CATALOG)
           for system in ("DGX-H100", "GB200-NVL72", "CloudMatrix384")}
FABRICS = {system: evaluate(design, CATALOG).topology.fabric for system, design in DESIGNS.items()}


def _workload(base: dict, **changes):
    return inference_workload_from_dict({**copy.deepcopy(base), **changes})


def _explain(system: str, workload, kw: float = 10.0):
    analysis = analyze_inference_workload(FABRICS[system], workload, kw)
    return analysis, explain_inference_bottleneck(analysis)


def _service(result) -> float:
    return result.output_tokens_per_s_per_gpu * result.workload.deployment.gpus


def test_decode_hbm_bytes_split_into_weights_and_kv_cache_as_computed_by_hand():
    _, bn = _explain("DGX-H100", _workload(LLAMA))  # TP 8, batch 64, BF16, 2,048 in + 256 out
    weights = 70_552_387_584 * 2 / 8  # bytes per GPU, all read each step (dense)
    kv = 64 * (2048 + 256 / 2) * (2 * 80 * 8 * 128 * 2) / 8  # batch x mean context x KV/token over TP
    assert bn.kv_share_of_decode_bytes == pytest.approx(kv / (kv + weights), rel=1e-9)  # 24%
    decode = next(x for x in bn.limiters if x.key == "decode_memory")
    assert decode.text.startswith("decode is HBM-bound: weights 76%, KV cache 24% of the bytes")


def test_limiters_are_the_roofline_parts_with_their_share_of_the_step_and_of_gpu_time():
    analysis, bn = _explain("DGX-H100", _workload(LLAMA))
    r = analysis.result
    # a request's GPU time: its prompt's prefill step on the 8 GPUs, then 256 decode steps shared by 64
    prefill_gpu_s = r.prefill.stage_s * 8
    decode_gpu_s = 256 * r.decode.stage_s * 8 / 64
    by_key = {x.key: x for x in bn.limiters}
    assert set(by_key) == {"prefill_compute", "prefill_communication", "prefill_fixed", "decode_memory",
                           "decode_communication", "decode_fixed"}
    # the parts of each phase add up to its stage step (the fixed per-layer cost is a part of its own)
    for phase, step in (("prefill", r.prefill), ("decode", r.decode)):
        assert sum(x.seconds for x in bn.limiters if x.phase == phase) == pytest.approx(step.stage_s, rel=1e-12)
    assert by_key["decode_fixed"].seconds == pytest.approx(r.decode.fixed_s, rel=1e-12)
    decode = by_key["decode_memory"]
    assert decode.share == pytest.approx(r.decode.memory_s / r.decode.stage_s, rel=1e-12)
    assert decode.gpu_time_share == pytest.approx(
        decode.share * decode_gpu_s / (prefill_gpu_s + decode_gpu_s), rel=1e-12)
    assert [x.gpu_time_share for x in bn.limiters] == sorted((x.gpu_time_share for x in bn.limiters), reverse=True)
    assert bn.primary == bn.limiters[0].name


def test_every_what_if_is_the_roofline_served_again_with_that_one_change():
    fabric = FABRICS["DGX-H100"]
    workload = _workload(LLAMA)
    analysis, bn = _explain("DGX-H100", workload)
    base = _service(analysis.result)
    keys = {x.key: x for x in bn.what_ifs}
    assert {"kv_fp8", "weights_fp8", "tp4", "batch_x2"} <= set(keys)
    assert "weights_fp4" not in keys  # an H100 has no FP4
    expected = {
        "kv_fp8": replace(workload, kv_cache_precision="fp8"),
        "weights_fp8": replace(workload, precision="fp8"),
        "batch_x2": with_deployment(workload, Deployment.aggregated(8, 1, 1, 1, 128)),
        # TP 4 keeps the 8 GPUs (2 replicas) and the 64 requests in flight (32 per replica)
        "tp4": with_deployment(workload, Deployment.aggregated(4, 1, 1, 2, 32)),
    }
    for key, variant in expected.items():
        again = serve_deployment(fabric, variant, 10.0)
        assert keys[key].gain == pytest.approx(_service(again) / base - 1, rel=1e-9), key
        assert keys[key].meets_slo == again.meets_slo and keys[key].tpot_ms == again.tpot_ms


def test_what_ifs_meeting_the_slos_come_first_most_gain_first_and_the_best_is_named():
    _, bn = _explain("DGX-H100", _workload(LLAMA))
    order = [(not x.runs, not x.meets_slo, -(x.gain or 0.0)) for x in bn.what_ifs]
    assert order == sorted(order)
    assert bn.best is bn.what_ifs[0] and bn.best.key == "weights_fp8" and bn.best.gain > MATERIAL_GAIN
    assert f"would give +{100 * bn.best.gain:.0f}% output tokens/s" in bn.best.text
    assert "Most help: the weights in FP8 instead of BF16 would give +" in bn.summary


def test_a_what_if_missing_the_slos_says_so_and_is_never_the_best():
    workload = _workload(LLAMA, slo={"ttft_ms": 2000, "tpot_ms": 12})  # TP 8 batch 64: 11.4 ms
    _, bn = _explain("DGX-H100", workload)
    doubled = next(x for x in bn.what_ifs if x.key == "batch_x2")
    assert doubled.meets_slo is False and "but misses the SLO: TPOT" in doubled.text
    assert bn.best is None or bn.best.meets_slo


def test_the_kv_cache_in_fp8_helps_an_hbm_bound_decode_whose_batch_the_kv_cache_holds():
    # "auto": the batch is the search's, so FP8 KV lets it double within the SLOs
    workload = _workload(DEEPSEEK, deployment="auto")
    analysis, bn = _explain("GB200-NVL72", workload, 100.0)
    kv = next(x for x in bn.what_ifs if x.key == "kv_fp8")
    again = serve_at_best_batch(analysis.context, replace(analysis.result.workload, kv_cache_precision="fp8"))
    assert kv.gain == pytest.approx(_service(again) / _service(analysis.result) - 1, rel=1e-9)
    assert again.batch > analysis.result.batch and kv.meets_slo and kv.gain > 0.05
    assert [c.deployment for c in bn.layout_search] == [c.deployment for c in analysis.search.candidates]


def test_no_fp8_what_if_on_an_accelerator_without_fp8():
    _, bn = _explain("CloudMatrix384", _workload(LLAMA, deployment={"tp": 8, "batch": 64}), 100.0)
    assert not {"kv_fp8", "weights_fp8", "weights_fp4"} & {x.key for x in bn.what_ifs}


def test_a_deployment_that_cannot_run_has_no_bottleneck():
    _, bn = _explain("DGX-H100", _workload(DEEPSEEK))
    assert bn is None


def test_the_evaluation_json_bottleneck_has_the_training_shape_for_inference():
    ev = evaluate(DESIGNS["DGX-H100"], CATALOG, _workload(LLAMA, deployment="auto"))
    out = evaluation_to_json(ev)["bottleneck"]
    assert {"primary", "summary", "limiters", "what_ifs", "best", "layout_search", "mfu"} <= set(out)
    assert out["kind"] == "inference" and out["mfu"] is None
    assert out["layout_search"][0]["deployment"] == evaluation_to_json(ev)["inference"]["deployment"]
    assert all({"key", "name", "share", "text"} <= set(x) for x in out["limiters"])
    assert all({"key", "text", "gain", "meets_slo", "changes"} <= set(x) for x in out["what_ifs"])
    blocked = evaluate(DESIGNS["DGX-H100"], CATALOG, _workload(DEEPSEEK))
    assert evaluation_to_json(blocked)["bottleneck"] is None


def test_the_report_and_the_gui_paragraph_read_the_inference_bottleneck():
    from core.report import render_report
    from designer.panels.performance import bottleneck_html, bottleneck_tooltip

    ev = evaluate(DESIGNS["DGX-H100"], CATALOG, _workload(LLAMA))
    section = render_report(ev, "md").split("## Bottleneck")[1].split("\n## ")[0]
    assert "| Limited by | prefill compute |" in section
    assert "| Most help | the weights in FP8 instead of BF16 would give +" in section
    paragraph = bottleneck_html(ev.bottleneck)
    assert "What limits serving:</b> prefill is compute\u2011bound" in paragraph and "the weights in FP8" in paragraph
    assert "decode is HBM-bound" in bottleneck_tooltip(ev.bottleneck)
