"""The serving options of a mixture-of-experts deployment (issue 21 item 6; docs/reference/
serving-model.md §1b): speculative decoding with MTP modules, redundant expert copies, the EP
ranks' load imbalance, and attention computed at a precision the engine's kernels choose."""

import copy
import json
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.analysis.serving_phase import KvTiers, phase_model
from core.catalog import default_catalog
from core.errors import WorkloadError
from core.evaluate import evaluate
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import (SpeculativeSpec, inference_workload_from_dict,
                                     inference_workload_to_dict, list_inference_presets)

CATALOG = default_catalog()
DEEPSEEK = json.loads(list_inference_presets()["deepseek-r1-serve"].read_text())
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
H200 = evaluate(generate_supernode(SupernodeOptions("DGX-H200", 1), CATALOG), CATALOG).topology.fabric


def _workload(base: dict, **changes):
    raw = copy.deepcopy(base)
    raw.update(changes)
    return inference_workload_from_dict(raw)


# --- the schema ----------------------------------------------------------------------------------

def test_old_files_keep_their_json_and_new_options_round_trip():
    assert set(inference_workload_to_dict(_workload(DEEPSEEK))) == set(DEEPSEEK)
    options = {"attention_precision": "bf16", "speculative": {"draft_tokens": 2, "acceptance": 0.8},
               "expert_placement": {"redundant_experts": 32, "load_imbalance": 1.3}}
    workload = _workload(DEEPSEEK, **options)
    again = inference_workload_to_dict(workload)
    assert {k: again[k] for k in options} == options
    assert inference_workload_from_dict(again) == workload


@pytest.mark.parametrize("changes, where", [
    ({"speculative": {"draft_tokens": 0, "acceptance": 0.8}}, "workload.speculative.draft_tokens"),
    ({"speculative": {"draft_tokens": 1, "acceptance": 1.5}}, "workload.speculative.acceptance"),
    ({"speculative": {"draft_tokens": 1}}, "workload.speculative.acceptance"),
    ({"expert_placement": {"load_imbalance": 0.5}}, "workload.expert_placement.load_imbalance"),
    ({"expert_placement": {"redundant_experts": -1}}, "workload.expert_placement.redundant_experts"),
    ({"expert_placement": {"spare": 1}}, "workload.expert_placement.spare"),
    ({"attention_precision": "fp6"}, "workload.attention_precision"),
])
def test_bad_options_are_errors_naming_their_path(changes, where):
    with pytest.raises(WorkloadError, match=where.replace(".", r"\.")):
        _workload(DEEPSEEK, **changes)


def test_ep_need_only_divide_the_experts_with_their_redundant_copies():
    # DeepSeek's EPLB decode: 256 experts + 32 copies over EP 144 (2 per GPU) (DeepSeek
    # open-infra-index day 6: 288 experts over 144 GPUs)
    layout = {"tp": 1, "dp": 144, "ep": 144, "batch": 64}
    with pytest.raises(WorkloadError, match=r"deployment\.ep: 144 does not divide 256 experts"):
        _workload(DEEPSEEK, deployment=layout)
    workload = _workload(DEEPSEEK, deployment=layout, expert_placement={"redundant_experts": 32})
    assert workload.expert_slots == 288
    with pytest.raises(WorkloadError, match="needs a mixture-of-experts model"):
        _workload(LLAMA, expert_placement={"redundant_experts": 8})


def test_redundant_copies_take_hbm_on_the_ranks_that_hold_them():
    layout = {"tp": 1, "dp": 8, "ep": 8, "batch": 16}
    plain = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout), 10.0)
    spare = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout,
                                              expert_placement={"redundant_experts": 32}), 10.0)
    expert = 3 * 7168 * 2048 * 58  # one expert's weights over the 58 MoE layers, FP8: 1 byte each
    assert spare.weights_gb_per_gpu - plain.weights_gb_per_gpu == pytest.approx(32 / 8 * expert / 1e9, rel=1e-9)


# --- the EP ranks' load imbalance ----------------------------------------------------------------

def test_the_busiest_rank_sets_the_expert_time_and_a_measured_imbalance_replaces_chance():
    layout = {"tp": 1, "dp": 8, "ep": 8, "batch": 256}
    balanced = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout,
                                                 expert_placement={"load_imbalance": 1.0}), 10.0)
    chance = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout), 10.0)
    skewed = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout,
                                               expert_placement={"load_imbalance": 1.5}), 10.0)
    def compute(result):  # the overlapped part of the step: compute, the experts' math in it
        step = result.decode
        return step.stage_s - step.communication_s - step.fixed_s

    assert compute(balanced) < compute(chance) < compute(skewed)
    assert balanced.decode.communication_s < chance.decode.communication_s < skewed.decode.communication_s
    # balls into bins: 256 x 8 ranks' tokens x top-8 = 16,384 copies over 8 ranks, 2,048 each on
    # average, sd 42; the busiest of 8 is ~1.42 sd above: +2.9% on the routed FLOPs, part of
    # the step's
    extra = compute(chance) / compute(balanced) - 1.0
    assert 0.003 < extra < 0.03


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4096), st.sampled_from([2, 4, 8, 32, 256]))
def test_chance_imbalance_is_between_balanced_and_all_on_one_rank(batch, ep):
    workload = _workload(DEEPSEEK, deployment={"tp": 1, "dp": ep, "ep": ep, "batch": batch})
    model = phase_model(H200, workload, workload.deployment.decode, InferenceAssumptions(), KvTiers())
    factor = model._ep_imbalance(float(batch))
    assert 1.0 <= factor <= ep
    assert model._ep_imbalance(float(batch) * 4) <= factor  # more tokens, relatively more even


# --- speculative decoding with MTP ---------------------------------------------------------------

def test_mtp_acceptance_gives_the_expected_tokens_per_step():
    # DeepSeek-V3 report §5.4.3: second-token acceptance 85-90%, "1.8 times TPS"
    assert SpeculativeSpec(1, 0.85).tokens_per_step == pytest.approx(1.85)
    assert SpeculativeSpec(3, 0.8).tokens_per_step == pytest.approx(1 + 0.8 + 0.64 + 0.512)


def test_mtp_speeds_a_memory_bound_decode_and_costs_a_compute_bound_one():
    small = {"tp": 1, "dp": 8, "ep": 8, "batch": 4}
    spec = {"draft_tokens": 1, "acceptance": 0.85}
    plain = analyze_inference(H200, _workload(DEEPSEEK, deployment=small), 10.0)
    mtp = analyze_inference(H200, _workload(DEEPSEEK, deployment=small, speculative=spec), 10.0)
    # weights and KV read once per step for 1.85 tokens: up to 1.85x, less the draft module,
    # the doubled dispatches and the experts the drafts' tokens touch besides (32 tokens over
    # EP 8 at top-8 of 256 read 64% of a rank's experts, 64 tokens 87%)
    assert 1.3 < plain.decode_step_ms / mtp.decode_step_ms < 1.85
    # a step far past the ridge pays 2x the FLOPs for 1.85 tokens
    big = {"tp": 1, "dp": 8, "ep": 8, "batch": 2048}
    plain = analyze_inference(H200, _workload(DEEPSEEK, deployment=big, kv_cache_precision="fp8",
                                              requests={"input_tokens": 256, "output_tokens": 64}), 10.0)
    mtp = analyze_inference(H200, _workload(DEEPSEEK, deployment=big, kv_cache_precision="fp8",
                                            requests={"input_tokens": 256, "output_tokens": 64},
                                            speculative=spec), 10.0)
    assert plain.batch == mtp.batch
    assert mtp.decode.compute_s > plain.decode.compute_s


# --- attention at the engine's precision ---------------------------------------------------------

def test_hopper_mla_at_bf16_doubles_the_absorbed_attention_time():
    layout = {"tp": 1, "dp": 8, "ep": 8, "batch": 64}
    fp8 = _workload(DEEPSEEK, deployment=layout, kv_cache_precision="fp8",
                    expert_placement={"load_imbalance": 1.0})
    bf16 = _workload(DEEPSEEK, deployment=layout, kv_cache_precision="fp8",
                     expert_placement={"load_imbalance": 1.0}, attention_precision="bf16")
    a, b = analyze_inference(H200, fp8, 10.0), analyze_inference(H200, bf16, 10.0)
    context = 4096 + 1024 / 2
    attention_fp8 = 64 * context * 61 * 278_528 / 1978.9e12 / InferenceAssumptions().decode_compute_efficiency
    assert b.decode.compute_s - a.decode.compute_s == pytest.approx(attention_fp8, rel=1e-3)
    assert a.weights_gb_per_gpu == b.weights_gb_per_gpu and a.batch == b.batch
    assert math.isclose(a.decode.memory_s, b.decode.memory_s)


# --- attention data parallelism: the ranks of one EP group step together -------------------------

def test_expected_max_of_poisson_counts_by_hand():
    from core.analysis.serving_load import expected_max_poisson
    assert expected_max_poisson(1, 0.3) == 0.3
    # two ranks at mean m: E[max] = sum_k 1 - F(k)^2; by hand to k = 3 at m = 0.5
    f = [math.exp(-0.5) * sum(0.5 ** i / math.factorial(i) for i in range(k + 1)) for k in range(12)]
    assert expected_max_poisson(2, 0.5) == pytest.approx(sum(1 - x * x for x in f), rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 100_000), st.floats(0.0, 500.0))
@example(3, 5.960464477539063e-08)  # a mean the cache's rounding once moved past 3 x mean
def test_the_busiest_rank_prefills_at_least_the_mean_and_at_most_all_of_it(ranks, mean):
    from core.analysis.serving_load import expected_max_poisson
    value = expected_max_poisson(ranks, mean)
    assert mean - 1e-9 <= value <= ranks * mean + 1e-9
    assert expected_max_poisson(ranks + 1, mean) >= value - 1e-9


def test_unaligned_attention_dp_prefills_hold_every_rank_and_balancing_removes_it():
    layout = {"tp": 1, "dp": 8, "ep": 8, "batch": 128}
    requests = {"input_tokens": 1024, "output_tokens": 2048}
    coupled = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout, requests=requests,
                                                attention_dp_balance=False), 10.0)
    aligned = analyze_inference(H200, _workload(DEEPSEEK, deployment=layout, requests=requests,
                                                attention_dp_balance=True), 10.0)
    assert coupled.decode_step_ms == aligned.decode_step_ms  # the step itself is the same
    d, p = aligned.decode_step_ms, aligned.ttft_unloaded_ms
    m = 128 / 2048  # prompts a rank takes in per step
    assert aligned.tpot_ms == pytest.approx(d + p * m, rel=1e-9)
    from core.analysis.serving_load import expected_max_poisson
    assert coupled.tpot_ms == pytest.approx(d + p * expected_max_poisson(8, m), rel=1e-9)  # 0.41 vs 0.0625
    assert coupled.output_tokens_per_s_per_gpu < 0.6 * aligned.output_tokens_per_s_per_gpu
    # one replica over the EP group (TP 8 x EP 8) steps on its own either way
    tp8 = {"tp": 8, "dp": 1, "ep": 8, "batch": 128}
    a = analyze_inference(H200, _workload(DEEPSEEK, deployment=tp8, requests=requests,
                                          attention_dp_balance=False), 10.0)
    b = analyze_inference(H200, _workload(DEEPSEEK, deployment=tp8, requests=requests,
                                          attention_dp_balance=True), 10.0)
    assert a.tpot_ms == b.tpot_ms
    with pytest.raises(WorkloadError, match=r"workload\.attention_dp_balance"):
        _workload(DEEPSEEK, attention_dp_balance="yes")


def test_mtp_drafts_cost_their_layers_once_whatever_the_pipeline_depth():
    # Llama 3.1 70B on one H200 or two pipeline stages, 8 sequences: memory-bound, so verifying
    # 3 tokens per sequence reads what one does, and the 2 draft modules add 2 layers' worth
    # (2 / 80) of a one-token step to the time between tokens, not 2 layers per stage
    spec = {"draft_tokens": 2, "acceptance": 0.0}  # nothing accepted: the drafts are pure cost
    for pp in (1, 2):
        layout = {"tp": 1, "pp": pp, "dp": 1, "batch": 8}
        fp8 = {"precision": "fp8", "kv_cache_precision": "fp8", "deployment": layout}
        plain = analyze_inference(H200, _workload(LLAMA, **fp8), 10.0)
        mtp = analyze_inference(H200, _workload(LLAMA, **fp8, speculative=spec), 10.0)
        assert plain.decode.compute_s * 3 < plain.decode.memory_s  # still memory-bound verifying
        assert mtp.decode_step_ms == pytest.approx(plain.decode_step_ms * (1 + 2 / 80), rel=1e-9)
