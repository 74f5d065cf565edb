"""Inference workloads (issue 15, first slice): the JSON schema, the serving roofline on hand
numbers, the evaluation JSON section and the CLI on an 8-GPU server, an NVL72 and a
CloudMatrix384."""

import copy
import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.analysis.collectives import allreduce_time_s, alltoall_time_s
from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.analysis.serving import kv_bytes_per_token, model_shape
from core.catalog import default_catalog
from core.errors import WorkloadError
from core.evaluate import evaluate, evaluation_to_json
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import (PRECISION_BYTES, any_workload_from_dict, inference_workload_from_dict,
                                     inference_workload_to_dict, list_inference_presets,
                                     load_inference_preset)
from core.preset_fit import fit_to_design
from core.workload import list_presets, load_preset
from designer.cli import main

CATALOG = default_catalog()
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
DEEPSEEK = json.loads(list_inference_presets()["deepseek-r1-serve"].read_text())
A = InferenceAssumptions()


def _design(system: str, count: int = 1):
    return generate_supernode(SupernodeOptions(system, count), CATALOG)


def _fabric(system: str):
    return evaluate(_design(system), CATALOG).topology.fabric


FABRICS = {system: _fabric(system) for system in ("DGX-H100", "GB200-NVL72", "CloudMatrix384")}


def _workload(base: dict, **changes):
    raw = copy.deepcopy(base)
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            raw[section][field] = value
        else:
            raw[section] = value
    return inference_workload_from_dict(raw)


# --- the model's shape --------------------------------------------------------------------

def test_kv_bytes_per_token_gqa_is_two_x_layers_x_kv_heads_x_head_dim_x_bytes():
    llama = _workload(LLAMA)
    assert kv_bytes_per_token(llama) == 2 * 80 * 8 * 128 * 2  # 327,680 B: 320 KiB per token
    fp8 = _workload(LLAMA, kv_cache_precision="fp8")
    assert kv_bytes_per_token(fp8) == 2 * 80 * 8 * 128 * 1


def test_kv_bytes_per_token_mla_is_layers_x_latent_plus_rope_x_bytes():
    deepseek = _workload(DEEPSEEK)
    assert kv_bytes_per_token(deepseek) == 61 * (512 + 64) * 2  # 70,272 B: ~4.7x less than Llama 70B


def test_deepseek_preset_has_the_published_671b_total_and_37b_active_parameters():
    shape = model_shape(_workload(DEEPSEEK))
    assert shape.total_params == pytest.approx(671e9, rel=0.005)
    assert shape.active_params == pytest.approx(37e9, rel=0.02)
    assert model_shape(_workload(LLAMA)).total_params == pytest.approx(70.6e9, rel=0.005)


# --- the roofline on hand numbers -----------------------------------------------------------

def _one_h100_fp8(batch: int = 1, input_tokens: int = 2048, output_tokens: int = 256):
    return _workload(LLAMA, precision="fp8", kv_cache_precision="fp8",
                     requests={"input_tokens": input_tokens, "output_tokens": output_tokens},
                     deployment={"tp": 1, "pp": 1, "ep": 1, "dp": 1, "batch": batch})


PARAMS_70B = 70_552_387_584
# every step of Llama 70B (80 layers) on one stage carries the fixed cost per layer: 80 x 30.9 us
FIXED_70B_S = 80 * A.fixed_us_per_layer * 1e-6


def test_llama70b_fp8_decode_on_one_h100_at_batch_1_is_hbm_bound():
    workload = _one_h100_fp8()
    result = analyze_inference(_fabric("DGX-H100"), workload, 10.0)
    mean_context = 2048 + 256 / 2
    hbm_bytes = PARAMS_70B * 1 + mean_context * 2 * 80 * 8 * 128 * 1  # fp8 weights once + the KV cache
    step_s = hbm_bytes / (3.35e12 * A.hbm_efficiency) + FIXED_70B_S
    assert result.decode.bound == "memory"
    assert result.decode.communication_s == 0.0  # tp 1: no collective
    assert result.decode.fixed_s == pytest.approx(0.002472, rel=1e-9)  # 80 layers x 30.9 us
    assert result.decode_step_ms == pytest.approx(step_s * 1e3, rel=1e-9)  # ~28.9 ms
    assert result.decode_tokens_per_s_per_gpu == pytest.approx(1 / step_s, rel=1e-9)
    # at load the one sequence also waits for its own replica's prefills: 1 every 256 steps
    prefill_s = ((2048 * 2 * PARAMS_70B + 0.5 * 2048**2 * 80 * 4 * 8192) / (1978.9e12 * A.prefill_compute_efficiency)
                 + FIXED_70B_S)
    assert result.tpot_ms == pytest.approx((step_s + prefill_s / 256) * 1e3, rel=1e-9)  # ~29.9 ms


def test_prefill_of_a_long_prompt_on_one_h100_is_compute_bound_at_the_fp8_peak():
    workload = _one_h100_fp8(input_tokens=8192, output_tokens=64)
    result = analyze_inference(_fabric("DGX-H100"), workload, 10.0)
    s = 8192
    flops = s * 2 * 70_552_387_584 + 0.5 * s * s * 80 * 4 * 8192  # causal: half the score matrix
    ttft_s = flops / (1978.9e12 * A.prefill_compute_efficiency) + FIXED_70B_S
    assert result.prefill.bound == "compute"
    assert result.ttft_unloaded_ms == pytest.approx(ttft_s * 1e3, rel=1e-9)  # the prompt alone
    assert result.prefill_tokens_per_s_per_gpu == pytest.approx(s / ttft_s, rel=1e-9)
    # at load (batch 1, 64 answer tokens): the M/D/1-with-vacations wait is added
    d = result.decode_step_ms / 1e3
    rate = 1 / (64 * d + ttft_s)  # requests/s: 64 decode steps and one prefill each
    wait = rate * ttft_s**2 / (2 * (1 - rate * ttft_s)) + d / 2
    assert result.ttft_ms == pytest.approx((ttft_s + wait) * 1e3, rel=1e-9)


def test_kv_cache_capacity_caps_the_batch_and_says_so():
    workload = _one_h100_fp8(batch=100)
    result = analyze_inference(_fabric("DGX-H100"), workload, 10.0)
    free = 81_559 * 2**20 * (1 - A.activation_reserve_fraction) - 70_552_387_584
    per_request = (2048 + 256) * 2 * 80 * 8 * 128
    assert result.max_concurrency_per_replica == math.floor(free / per_request) == 16
    assert result.batch == 16
    assert "KV_CACHE_LIMITS_BATCH" in {d.code for d in result.diagnostics}


def test_tp8_decode_adds_two_all_reduces_per_layer_over_the_nvlink_domain():
    fabric = _fabric("DGX-H100")
    result = analyze_inference(fabric, _workload(LLAMA), 10.0)
    expected = 2 * 80 * allreduce_time_s(fabric, 64 * 8192 * 2.0, 8)
    assert result.decode.communication_s == pytest.approx(expected, rel=1e-12)
    assert result.batch == 64
    assert result.decode_step_ms == pytest.approx(1e3 * (max(result.decode.compute_s, result.decode.memory_s)
                                                         + expected + FIXED_70B_S), rel=1e-12)


def test_expert_parallel_decode_pays_dispatch_and_combine_per_moe_layer():
    fabric = _fabric("GB200-NVL72")
    # perfectly balanced routing: every EP rank gets its mean share
    result = analyze_inference(fabric, _workload(DEEPSEEK, expert_placement={"load_imbalance": 1.0}), 100.0)
    routed = 64 * 8 * 7168  # batch 64 per GPU (tp 1, ep 8: 8 replicas' tokens over 8 GPUs), top-8
    expected = 58 * (alltoall_time_s(fabric, routed * 1.0, 8) + alltoall_time_s(fabric, routed * 2.0, 8))
    assert result.decode.communication_s == pytest.approx(expected, rel=1e-12)
    # by default routing is uniform but random: the busiest of 8 ranks gets more than its share
    # (balls into bins), and the dispatch and combine wait for it
    chance = analyze_inference(fabric, _workload(DEEPSEEK), 100.0)
    assert expected < chance.decode.communication_s < 1.1 * expected


def test_more_hbm_bandwidth_efficiency_means_faster_memory_bound_decode():
    fabric, workload = _fabric("DGX-H100"), _one_h100_fp8()
    slow = analyze_inference(fabric, workload, 10.0, InferenceAssumptions(hbm_efficiency=0.5))
    fast = analyze_inference(fabric, workload, 10.0, InferenceAssumptions(hbm_efficiency=0.9))
    # the HBM part scales with 1 / efficiency; the fixed cost per layer does not
    hbm_ms = lambda r: r.decode_step_ms - 1e3 * r.decode.fixed_s  # noqa: E731
    assert hbm_ms(slow) / hbm_ms(fast) == pytest.approx(0.9 / 0.5, rel=1e-3)


@given(st.integers(1, 500))
def test_a_larger_batch_never_lowers_tokens_per_gpu_nor_shortens_tpot(batch):
    fabric = _fabric("DGX-H100")
    small = analyze_inference(fabric, _workload(LLAMA, deployment={"tp": 8, "batch": batch}), 10.0)
    large = analyze_inference(fabric, _workload(LLAMA, deployment={"tp": 8, "batch": batch + 1}), 10.0)
    assert large.decode_tokens_per_s_per_gpu >= small.decode_tokens_per_s_per_gpu
    assert large.tpot_ms >= small.tpot_ms


# --- what cannot be computed is null, with the reason -----------------------------------------

def test_deepseek_fp8_does_not_fit_one_dgx_h100_and_gives_null_with_the_reason():
    ev = evaluation_to_json(evaluate(_design("DGX-H100"), CATALOG, load_inference_preset("deepseek-r1-serve")))
    section = ev["inference"]
    assert section["runs"] is False
    assert all(section[key] is None for key in ("prefill_tokens_per_s_per_gpu", "decode_tokens_per_s_per_gpu",
                                                 "ttft_ms", "tpot_ms", "tokens_per_s_per_mw"))
    reason = section["cannot_run"][0]
    assert reason["code"] == "DOES_NOT_FIT_MEMORY" and reason["severity"] == "error"
    assert reason["message"].startswith("inference.deployment: 98.9 GB of fp8 weights per GPU")


def test_a_precision_the_accelerator_lacks_is_named():
    ev = evaluation_to_json(evaluate(_design("CloudMatrix384"), CATALOG, load_inference_preset("deepseek-r1-serve")))
    reason = ev["inference"]["cannot_run"][0]
    assert reason["code"] == "SERVING_PRECISION_UNSUPPORTED"
    assert "Ascend-910C has no dense fp8" in reason["message"]
    assert ev["inference"]["tpot_ms"] is None


def test_a_deployment_larger_than_the_design_cannot_run():
    workload = _workload(LLAMA, deployment={"tp": 8, "dp": 2})
    result = analyze_inference(_fabric("DGX-H100"), workload, 10.0)
    assert not result.runs and result.cannot_run[0].code == "PARALLELISM_EXCEEDS_GPUS"
    assert result.tpot_ms is None


def test_expert_parallelism_over_a_level_without_bandwidth_cannot_run():
    """A GB200 compute tray alone has no NVLink switch: its GPUs have no scale-up bandwidth,
    so EP over its 4 GPUs cannot exchange tokens (it was a division by zero in the cost)."""
    workload = _workload(DEEPSEEK, precision="fp4", kv_cache_precision="fp8",
                         deployment={"tp": 1, "ep": 4, "dp": 4, "batch": 64})
    result = analyze_inference(_fabric("GB200-Compute-Tray"), workload, 10.0, usd_per_gpu_hour=2.0)
    assert not result.runs
    assert [r.code for r in result.cannot_run] == ["NO_NETWORK_BANDWIDTH"]
    assert "TP 1, EP 4" in result.cannot_run[0].message
    alone = _workload(DEEPSEEK, precision="fp4", kv_cache_precision="fp8",
                      deployment={"tp": 1, "ep": 1, "dp": 1, "batch": 64})
    assert analyze_inference(_fabric("GB200-Compute-Tray"), alone, 10.0).cannot_run[0].code \
        == "DOES_NOT_FIT_MEMORY"


# --- evaluation and training untouched ------------------------------------------------------

def test_a_training_workload_has_no_inference_section_and_the_same_performance():
    design = _design("GB200-NVL72", 2)
    workload, _ = fit_to_design(load_preset("llama3-70b"), 144, "llama3-70b")
    ev = evaluation_to_json(evaluate(design, CATALOG, workload))
    assert ev["inference"] is None
    assert ev["performance"]["runs"] is True and 0.2 < ev["performance"]["mfu"] < 0.7
    assert ev["workload"]["training_tokens"] == 15e12


def test_tokens_per_s_per_mw_is_served_output_per_gpu_times_the_gpus_the_layout_fills():
    ev = evaluate(_design("GB200-NVL72"), CATALOG, load_inference_preset("llama31-70b-serve"))
    out = evaluation_to_json(ev)["inference"]
    assert out["meets_slo"] is True
    assert out["serving_gpus_in_design"] == 72  # nine TP-8 replicas fill the NVL72
    # served output with each request's prefill on the same GPUs: B / (d + B p / o) per replica
    d, p = out["decode_step_ms"] / 1e3, out["ttft_unloaded_ms"] / 1e3
    assert out["output_tokens_per_s_per_gpu"] == pytest.approx(64 / (d + 64 * p / 256) / 8, rel=1e-12)
    assert out["output_tokens_per_s_per_gpu"] < out["decode_tokens_per_s_per_gpu"]
    assert out["tokens_per_s_per_mw"] == pytest.approx(
        out["output_tokens_per_s_per_gpu"] * 72 / (ev.power.facility_kw / 1000))
    assert evaluation_to_json(ev)["workload"]["kind"] == "inference"


def test_presets_are_listed_apart_from_the_training_presets():
    assert set(list_inference_presets()) == {"llama31-70b-serve", "deepseek-r1-serve", "deepseek-r1-int8-serve"}
    assert not set(list_inference_presets()) & set(list_presets())
    for name in list_inference_presets():
        workload = load_inference_preset(name)
        assert inference_workload_from_dict(inference_workload_to_dict(workload)) == workload


# Why a preset does not run on a system, as the evaluation says it (None: it runs). DeepSeek-R1's
# 671B parameters are 99 GB of FP8 per GPU over EP 8, more than an H100's 80 GB; the Ascend 910C
# has no FP8 (its INT8 preset runs there); the INT8 preset lays out the 384 NPUs of one
# CloudMatrix384, more than an 8-GPU server or a 72-GPU rack have.
CANNOT_RUN = {
    ("DGX-H100", "deepseek-r1-serve"): "DOES_NOT_FIT_MEMORY",
    ("CloudMatrix384", "deepseek-r1-serve"): "SERVING_PRECISION_UNSUPPORTED",
    ("DGX-H100", "deepseek-r1-int8-serve"): "PARALLELISM_EXCEEDS_GPUS",
    ("DGX-H200", "deepseek-r1-int8-serve"): "PARALLELISM_EXCEEDS_GPUS",
    ("GB200-NVL72", "deepseek-r1-int8-serve"): "SERVING_PRECISION_UNSUPPORTED",
}


@pytest.mark.parametrize("system", ["DGX-H100", "DGX-H200", "GB200-NVL72", "CloudMatrix384"])
@pytest.mark.parametrize("preset", ["llama31-70b-serve", "deepseek-r1-serve", "deepseek-r1-int8-serve"])
def test_presets_evaluate_from_the_cli(tmp_path, capsys, system, preset):
    project = tmp_path / "design.json"
    assert main(["generate", "supernode", "--system", system, "--count", "1", "-o", str(project)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(project), "--workload", preset, "--format", "json"]) == 0
    section = json.loads(capsys.readouterr().out)["inference"]
    blocked = CANNOT_RUN.get((system, preset))
    assert section["runs"] is (blocked is None)
    assert (section["tpot_ms"] is not None) is (blocked is None)
    if blocked is not None:
        assert blocked in {reason["code"] for reason in section["cannot_run"]}


def test_an_inference_workload_file_from_the_cli_and_its_errors(tmp_path, capsys):
    project = tmp_path / "design.json"
    main(["generate", "supernode", "--system", "DGX-H100", "--count", "1", "-o", str(project)])
    good = tmp_path / "serve.json"
    good.write_text(json.dumps(LLAMA))
    capsys.readouterr()
    assert main(["evaluate", str(project), "--workload", str(good), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["inference"]["runs"] is True
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**LLAMA, "slo": {"ttft_ms": 100, "tpot_ms": -1}}))
    assert main(["evaluate", str(project), "--workload", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "bad.json.slo.tpot_ms" in err


# --- the schema ----------------------------------------------------------------------------

@pytest.mark.parametrize("change, where", [
    ({"precision": "fp6"}, "workload.precision"),
    ({"deployment": {"tp": 3}}, "workload.deployment.tp"),
    ({"deployment": {"ep": 2}}, "workload.deployment.ep"),  # dense model
    ({"deployment": {"mode": "chunked"}}, "workload.deployment.mode"),
    ({"deployment": {"mode": "disaggregated"}}, "workload.deployment.prefill: missing"),
    ({"deployment": {"mode": "disaggregated", "prefill": {"tp": 8}, "decode": {"tp": 3}}},
     "workload.deployment.decode.tp"),
    ({"deployment": "manual"}, "workload.deployment: expected"),
    ({"requests": {"mix": []}}, "workload.requests.mix: expected a list"),
    ({"requests": {"mix": [{"input_tokens": 100, "output_tokens": 10, "share": 0.5}]}},
     "workload.requests.mix: the shares sum to 0.5"),
    ({"requests": {"mix": [{"input_tokens": 130000, "output_tokens": 9000, "share": 1}]}},
     "workload.requests.mix[0]: input + output"),
    ({"kv_cache": {"placement": "ssd"}}, "workload.kv_cache.placement"),
    ({"kv_cache": {"placement": "host"}}, "workload.kv_cache.host_gb_per_gpu: missing"),
    ({"kv_cache": {"placement": "hbm", "prefix_hit_rate": 0.5}},
     "workload.kv_cache.prefix_hit_rate: does not apply"),
    ({"kv_cache": {"placement": "remote", "prefix_hit_rate": 1.5}}, "workload.kv_cache.prefix_hit_rate"),
    ({"requests": {"input_tokens": 131000, "output_tokens": 1000}}, "workload.requests"),
    ({"slo": {"ttft_ms": 0, "tpot_ms": 10}}, "workload.slo.ttft_ms"),
    ({"extra": 1}, "workload.extra"),
    ({"kind": "serving"}, "workload.kind"),
])
def test_bad_inference_fields_name_their_place(change, where):
    with pytest.raises(WorkloadError, match="^" + re.escape(where)):
        any_workload_from_dict({**LLAMA, **change})


SCHEMA_FORMS = [
    {"requests": {"mix": [{"input_tokens": 512, "output_tokens": 128, "share": 0.75},
                          {"input_tokens": 8192, "output_tokens": 1024, "share": 0.25}]}},
    {"deployment": {"mode": "disaggregated", "prefill": {"tp": 4, "dp": 2, "batch": 2},
                    "decode": {"tp": 8, "dp": 4, "batch": 128}}},
    {"deployment": "auto"},
    {"kv_cache": {"placement": "host", "host_gb_per_gpu": 256}},
    {"kv_cache": {"placement": "host", "host_gb_per_gpu": 256, "host_link_gbyte_s": 64}},
    {"kv_cache": {"placement": "remote", "prefix_hit_rate": 0.5}},
]


@pytest.mark.parametrize("change", SCHEMA_FORMS)
def test_every_schema_form_round_trips_through_its_json(change):
    workload = inference_workload_from_dict({**LLAMA, **change})
    again = inference_workload_to_dict(workload)
    assert inference_workload_from_dict(again) == workload
    if "deployment" not in change:  # a layout's JSON fills in the defaulted 1s
        assert {key: again[key] for key in change} == change


def test_request_mix_means_are_share_weighted_and_capacity_uses_the_longest_context():
    workload = inference_workload_from_dict({**LLAMA, **SCHEMA_FORMS[0]})
    assert workload.requests.mean_input_tokens == 0.75 * 512 + 0.25 * 8192  # 2,432
    assert workload.requests.mean_output_tokens == 0.75 * 128 + 0.25 * 1024  # 352
    assert workload.requests.max_context_tokens == 8192 + 1024


def test_disaggregated_deployment_counts_both_pools():
    workload = inference_workload_from_dict({**LLAMA, **SCHEMA_FORMS[1]})
    dep = workload.deployment
    assert dep.disaggregated and dep.prefill.gpus == 8 and dep.decode.gpus == 32 and dep.gpus == 40
    aggregated = _workload(LLAMA)
    assert aggregated.deployment.prefill == aggregated.deployment.decode
    assert aggregated.deployment.gpus == 8


def test_mla_keys_are_checked():
    raw = copy.deepcopy(DEEPSEEK)
    raw["model"]["mla"]["kv_rank"] = 512
    with pytest.raises(WorkloadError, match=r"^workload\.model\.mla\.kv_rank: unknown key"):
        inference_workload_from_dict(raw)
    raw = copy.deepcopy(DEEPSEEK)
    raw["deployment"]["ep"] = 3
    with pytest.raises(WorkloadError, match=r"^workload\.deployment\.ep: 3 does not divide 256 experts"):
        inference_workload_from_dict(raw)


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**9), st.floats(allow_nan=True),
                   st.text(max_size=5), st.lists(st.integers(), max_size=2),
                   st.sampled_from(list(PRECISION_BYTES)))
FIELDS = st.sampled_from([
    ("precision",), ("kv_cache_precision",), ("name",), ("requests", "input_tokens"),
    ("requests", "output_tokens"), ("slo", "ttft_ms"), ("slo", "tpot_ms"), ("deployment", "tp"),
    ("deployment", "pp"), ("deployment", "ep"), ("deployment", "dp"), ("deployment", "batch"),
    ("deployment", "mode"), ("model", "mla", "kv_lora_rank"), ("model", "mla", "qk_rope_head_dim"),
    ("model", "layers"), ("requests",), ("slo",), ("deployment",), ("model", "mla"), ("kv_cache",),
    ("kv_cache", "placement"), ("kv_cache", "host_gb_per_gpu"), ("kv_cache", "prefix_hit_rate"),
    ("kv_cache", "host_link_gbyte_s")])


@given(FIELDS, VALUES)
def test_any_field_value_loads_or_gives_one_located_line(place, value):
    raw = copy.deepcopy(DEEPSEEK)
    raw["kv_cache"] = {"placement": "host", "host_gb_per_gpu": 100}
    target = raw
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    try:
        workload = any_workload_from_dict(raw)
    except WorkloadError as error:
        message = str(error)
        assert "\n" not in message and message.startswith("workload")
    else:
        assert inference_workload_from_dict(inference_workload_to_dict(workload)) == workload


# --- report and cost ----------------------------------------------------------------------

def test_cost_per_million_output_tokens_charges_the_prefill_and_the_decode_share():
    ev = evaluate(_design("GB200-NVL72"), CATALOG, load_inference_preset("llama31-70b-serve"))
    inf = ev.inference
    # a request holds its replica's 8 GPUs for its prefill alone, then for its 1/64 share of
    # 256 decode steps (TP 8, batch 64, 256 out)
    request_gpu_s = (inf.ttft_unloaded_ms + 256 * inf.decode_step_ms / 64) / 1e3 * 8
    assert inf.usd_per_million_output_tokens == pytest.approx(
        ev.cost.usd_per_gpu_hour / 3600 * request_gpu_s / 256 * 1e6, rel=1e-12)


def test_the_report_has_an_inference_section_and_no_training_run_figures():
    from core.report import render_report

    ev = evaluate(_design("GB200-NVL72"), CATALOG, load_inference_preset("deepseek-r1-serve"))
    text = render_report(ev, "md")
    section = text.split("## Inference")[1].split("\n## ")[0]
    assert "| SLO | meets |" in section and "memory-bound" in section
    assert "Training run | n/a (inference workload: see Inference)" in text
    blocked = render_report(evaluate(_design("DGX-H100"), CATALOG, load_inference_preset("deepseek-r1-serve")), "md")
    assert "| Result | does not fit: inference.deployment: 98.9 GB" in blocked


def test_generate_stores_an_inference_preset_in_the_project_and_evaluate_serves_it(tmp_path, capsys):
    from core.project import load_project, save_project

    out = tmp_path / "g.json"
    assert main(["generate", "supernode", "--system", "DGX-H100", "--count", "1",
                 "--workload", "llama31-70b-serve", "-o", str(out)]) == 0
    design = load_project(out)
    assert design.workload == load_inference_preset("llama31-70b-serve")
    capsys.readouterr()
    assert main(["evaluate", str(out), "--format", "json"]) == 0
    section = json.loads(capsys.readouterr().out)["inference"]
    assert section["runs"] is True and section["decode_tokens_per_s_per_gpu"] > 0
    # every schema form survives a save and a load in the project file
    for change in SCHEMA_FORMS:
        design.workload = inference_workload_from_dict({**LLAMA, **change})
        save_project(design, out)
        assert load_project(out).workload == design.workload


def test_a_bad_inference_workload_in_a_project_names_its_json_path(tmp_path):
    from core.errors import ProjectFileError
    from core.project import load_project

    out = tmp_path / "g.json"
    main(["generate", "supernode", "--system", "DGX-H100", "--count", "1",
          "--workload", "llama31-70b-serve", "-o", str(out)])
    raw = json.loads(out.read_text())
    raw["workload"]["deployment"]["tp"] = 3
    out.write_text(json.dumps(raw))
    with pytest.raises(ProjectFileError, match=r"\$\.workload\.deployment\.tp: 3 does not divide"):
        load_project(out)


def test_compare_puts_the_serving_figures_side_by_side(tmp_path, capsys):
    paths = []
    for system in ("DGX-H100", "GB200-NVL72"):
        paths.append(str(tmp_path / f"{system}.json"))
        main(["generate", "supernode", "--system", system, "--count", "1", "-o", paths[-1]])
    capsys.readouterr()
    assert main(["compare", *paths, "--workload", "llama31-70b-serve", "--format", "json"]) == 0
    designs = json.loads(capsys.readouterr().out)["designs"]
    h100, gb200 = (d["inference"]["decode_tokens_per_s_per_gpu"] for d in designs)
    assert gb200 > h100 > 0  # 8 vs 3.35 TB/s of HBM on a memory-bound decode


def test_moe_without_expert_parallelism_shards_every_expert_over_tp():
    raw = copy.deepcopy(DEEPSEEK)
    raw["deployment"] = {"tp": 8, "ep": 1, "dp": 1, "batch": 8}
    raw["precision"] = "fp8"
    tp_only = inference_workload_from_dict(raw)
    result = analyze_inference(_fabric("GB200-NVL72"), tp_only, 100.0)
    assert result.weights_gb_per_gpu == pytest.approx(model_shape(tp_only).total_params / 8 / 1e9)
    # EP 8 with TP 1: each GPU keeps all attention and dense weights, 1/8 of the routed experts
    shape = model_shape(tp_only)
    expert_parallel = analyze_inference(_fabric("GB200-NVL72"), _workload(DEEPSEEK), 100.0)
    assert expert_parallel.weights_gb_per_gpu == pytest.approx(
        (shape.total_params - shape.routed_params + shape.routed_params / 8) / 1e9)


@given(tp=st.sampled_from([1, 2, 4, 8, 16, 64]), pp=st.integers(1, 80), dp=st.integers(1, 20),
       batch=st.integers(1, 100_000), input_tokens=st.integers(1, 100_000), output_tokens=st.integers(1, 30_000),
       precision=st.sampled_from(list(PRECISION_BYTES)), kv=st.sampled_from(list(PRECISION_BYTES)),
       system=st.sampled_from(["DGX-H100", "GB200-NVL72", "CloudMatrix384"]))
def test_any_valid_deployment_gives_finite_figures_or_null_with_a_reason(
        tp, pp, dp, batch, input_tokens, output_tokens, precision, kv, system):
    workload = _workload(LLAMA, precision=precision, kv_cache_precision=kv,
                         requests={"input_tokens": input_tokens, "output_tokens": output_tokens},
                         deployment={"tp": tp, "pp": pp, "dp": dp, "batch": batch})
    result = analyze_inference(FABRICS[system], workload, 100.0, usd_per_gpu_hour=2.0)
    figures = (result.prefill_tokens_per_s_per_gpu, result.decode_tokens_per_s_per_gpu, result.ttft_ms,
               result.tpot_ms, result.tokens_per_s_per_mw, result.usd_per_million_output_tokens)
    if result.runs:
        assert all(math.isfinite(x) and x > 0 for x in figures)
        assert 1 <= result.batch <= batch
    else:
        assert result.cannot_run and all(x is None for x in figures)
        assert all(d.severity == "error" and "\n" not in d.message for d in result.cannot_run)



def test_the_throughput_latency_curve_trades_tokens_per_user_for_tokens_per_gpu():
    """Each doubling of the decode batch raises tokens/s per GPU and lowers tokens/s per user
    (TPOT grows), up to the batch the KV cache holds; the chosen batch is a point of it."""
    workload = _workload(LLAMA, precision="fp8", kv_cache_precision="fp8")
    result = analyze_inference(FABRICS["DGX-H100"], workload, 10.0 * 1000)
    batches = [point.batch for point in result.curve]
    assert batches[0] == 1 and batches[-1] == result.max_concurrency_per_replica
    assert result.batch in batches
    per_gpu = [point.decode_tokens_per_s_per_gpu for point in result.curve]
    per_user = [point.tokens_per_s_per_user for point in result.curve]
    assert all(b > a for a, b in zip(per_gpu, per_gpu[1:]))
    assert all(b < a for a, b in zip(per_user, per_user[1:]))
    chosen = next(p for p in result.curve if p.batch == result.batch)
    assert chosen.tpot_ms == pytest.approx(result.tpot_ms)
    assert chosen.decode_tokens_per_s_per_gpu == pytest.approx(result.decode_tokens_per_s_per_gpu)
    assert all(p.meets_slo == (p.tpot_ms <= 50 and p.ttft_ms <= 2000) for p in result.curve)


REQUEST_CLASS = st.tuples(st.integers(1, 60_000), st.integers(1, 20_000))
KV_CACHES = st.one_of(
    st.just({"placement": "hbm"}),
    st.builds(lambda gb, link: {"placement": "host", "host_gb_per_gpu": gb,
                                **({"host_link_gbyte_s": link} if link else {})},
              st.floats(1, 2000), st.one_of(st.none(), st.floats(1, 1000))),
    st.builds(lambda hit: {"placement": "remote", "prefix_hit_rate": hit}, st.floats(0, 1)))
LAYOUTS = st.builds(lambda tp, dp, batch: {"tp": tp, "dp": dp, "batch": batch},
                    st.sampled_from([1, 2, 4, 8]), st.integers(1, 8), st.integers(1, 5000))


@given(classes=st.lists(REQUEST_CLASS, min_size=1, max_size=4), kv=KV_CACHES, prefill=LAYOUTS,
       decode=LAYOUTS, disaggregated=st.booleans(), storage=st.one_of(st.none(), st.floats(0.1, 50)),
       system=st.sampled_from(["DGX-H100", "GB200-NVL72", "CloudMatrix384"]))
def test_every_schema_form_gives_finite_figures_or_null_with_a_reason(
        classes, kv, prefill, decode, disaggregated, storage, system):
    share = 1 / len(classes)
    mix = [{"input_tokens": i, "output_tokens": o, "share": share} for i, o in classes]
    deployment = ({"mode": "disaggregated", "prefill": prefill, "decode": decode} if disaggregated
                  else decode)
    workload = _workload(LLAMA, requests={"mix": mix}, kv_cache=kv, deployment=deployment)
    result = analyze_inference(FABRICS[system], workload, 100.0, usd_per_gpu_hour=2.0,
                               storage_read_gbyte_s_per_gpu=storage)
    figures = (result.prefill_tokens_per_s_per_gpu, result.decode_tokens_per_s_per_gpu, result.ttft_ms,
               result.tpot_ms, result.tokens_per_s_per_mw, result.usd_per_million_output_tokens,
               result.output_tokens_per_s_per_gpu, result.ttft_unloaded_ms, result.decode_step_ms)
    if result.runs:
        assert all(math.isfinite(x) and x > 0 for x in figures)
        assert len(result.classes) == len(classes) and result.curve
        assert result.tpot_ms >= result.decode_step_ms
        assert result.output_tokens_per_s_per_gpu <= result.decode_tokens_per_s_per_gpu * (1 + 1e-9)
        assert result.meets_slo == all(p for p in (result.tpot_ms <= 50, *(c.ttft_ms <= 2000 for c in result.classes)))
        assert (result.disaggregated is not None) is disaggregated
        json.dumps(result.to_json(), allow_nan=False)
    else:
        assert result.cannot_run and all(x is None for x in figures)
        assert all(d.severity == "error" and "\n" not in d.message for d in result.cannot_run)
