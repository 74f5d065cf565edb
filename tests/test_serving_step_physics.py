"""What a serving step costs beyond 2 x parameters per token, on hand numbers: multi-head latent
attention decodes in the absorbed form; attention runs at the KV cache's precision, not the
weights'; a pipelined replica keeps one micro-batch per stage in flight; every layer of every
step carries a fixed cost; 4-bit weights carry their block scales
(docs/reference/serving-model.md §1)."""

import copy
import json

import pytest

from core.analysis.inference import analyze_inference
from core.assumptions.inference import InferenceAssumptions
from core.analysis.serving import model_shape
from core.analysis.serving_phase import attention_precision
from core.catalog import default_catalog
from core.evaluate import evaluate
from core.generators.supernode import SupernodeOptions, generate_supernode
from core.inference_workload import inference_workload_from_dict, list_inference_presets

CATALOG = default_catalog()
LLAMA = json.loads(list_inference_presets()["llama31-70b-serve"].read_text())
DEEPSEEK = json.loads(list_inference_presets()["deepseek-r1-serve"].read_text())
A = InferenceAssumptions()
PARAMS_70B = 70_552_387_584
KV_FP8 = 2 * 80 * 8 * 128  # Llama 70B: bytes per token of context, fp8
# B200's NVFP4 GEMMs realise 0.722 of their 9,000 TF/s peak's share relative to FP8 (NVIDIA's
# measured TensorRT-LLM kernels, core/assumptions/kernels.py)
H100_FP8, B200_FP8, B200_FP4 = 1978.9e12, 4500e12, 9000e12 * 0.722


def _fabric(system: str):
    return evaluate(generate_supernode(SupernodeOptions(system, 1), CATALOG), CATALOG).topology.fabric


H100, B200 = _fabric("DGX-H100"), _fabric("DGX-B200")


def _workload(base: dict, **changes):
    raw = copy.deepcopy(base)
    raw.update(changes)
    return inference_workload_from_dict(raw)


# --- multi-head latent attention decodes in the absorbed form ----------------------------------

def test_mla_decode_attention_is_the_absorbed_form_and_prefill_the_expanded_one():
    shape = model_shape(_workload(DEEPSEEK))
    # decode: per head, QK^T over the 512-dim latent + the 64-dim RoPE key, AV over the latent
    assert shape.decode_attention_flops_per_context_token == 2 * 128 * (2 * 512 + 64) == 278_528
    # prefill: K and V materialised, QK^T over 128 + 64 dims and AV over 128
    assert shape.attention_flops_per_context_token == 2 * 128 * (128 + 64 + 128) == 81_920
    # a GQA model has one form: 2 x 2 x heads x head_dim
    assert model_shape(_workload(LLAMA)).decode_attention_flops_per_context_token == 4 * 64 * 128


def test_deepseek_fp4_decode_on_b200_counts_absorbed_mla_at_the_fp8_peak():
    workload = _workload(DEEPSEEK, precision="fp4", kv_cache_precision="fp8",
                         requests={"input_tokens": 1000, "output_tokens": 1000},
                         deployment={"tp": 1, "dp": 8, "ep": 8, "batch": 64},
                         expert_placement={"load_imbalance": 1.0})  # balanced: no busiest rank
    result = analyze_inference(B200, workload, 10.0)
    active = model_shape(workload).active_params
    context = 1000 + 1000 / 2
    # per sequence: 2 x active parameters at the FP4 peak, absorbed MLA over 1,500 positions and
    # 61 layers at the FP8 peak (the KV cache's): 74 GFLOP and 25.5 GFLOP
    seconds = 64 * (2 * active / B200_FP4 + context * 61 * 278_528 / B200_FP8) / A.decode_compute_efficiency
    # the routed experts' math is served after the rest of the step's overlap (fine-grained
    # experts: read + math, test_fine_grained_experts_*), and at 64 per rank the rest is HBM-bound
    experts = 64 * 2 * model_shape(workload).routed_active_params / B200_FP4 / A.decode_compute_efficiency
    assert result.decode.bound == "memory"
    assert result.decode.compute_s == pytest.approx(seconds - experts, rel=1e-9)


# --- fine-grained experts: their grouped GEMMs read, then compute ------------------------------

def _moe_parts(fabric, workload, batch: int) -> tuple[float, float, float, float]:
    """(compute, HBM) of the step without the routed experts, and the experts' math and read
    at ``batch`` per rank (balanced routing)."""
    from core.analysis.serving_phase import KvTiers, phase_model
    model = phase_model(fabric, workload, workload.deployment.decode, A, KvTiers())
    shape, context = model.shape, workload.requests.classes[0].input_tokens + workload.requests.classes[0].output_tokens / 2
    hbm = float(fabric.accelerator.hbm_tbyte_s) * 1e12 * A.hbm_efficiency
    peak = fabric.accelerator.peak_tflops(workload.precision) * 1e12 * A.decode_compute_efficiency
    touched = model.routed_bytes * model._experts_touched(batch)
    experts_compute = batch * 2 * shape.routed_active_params / peak
    rest_compute = batch * 2 * (shape.active_params - shape.routed_active_params) / peak + (
        batch * context * workload.model.layers * shape.decode_attention_flops_per_context_token
        / (fabric.accelerator.peak_tflops(model.attention_precision) * 1e12 * A.decode_compute_efficiency))
    rest_memory = (model.weights_bytes - model.routed_bytes + batch * context * model.kv_bytes_per_token) / hbm
    return rest_compute, rest_memory, experts_compute, touched / hbm


@pytest.mark.parametrize("batch", [16, 256, 700])
def test_fine_grained_experts_add_their_read_and_math_to_the_rest_of_the_step(batch):
    # DeepSeek's experts (FFN 2,048 < hidden 7,168) on B200, attention DP 8 + EP 8: NVIDIA's MoE
    # op measures 0.86-1.00x of read + math at this shape (FP8; aiconfigurator 0.12's op data)
    workload = _workload(DEEPSEEK, precision="fp8", kv_cache_precision="fp8",
                         requests={"input_tokens": 1000, "output_tokens": 1000},
                         deployment={"tp": 1, "dp": 8, "ep": 8, "batch": batch},
                         expert_placement={"load_imbalance": 1.0})
    result = analyze_inference(B200, workload, 10.0)
    step = result.decode
    rest_compute, rest_memory, experts_compute, experts_read = _moe_parts(B200, workload, result.batch)
    overlapped = step.stage_s - step.communication_s - step.fixed_s
    assert overlapped == pytest.approx(max(rest_compute, rest_memory) + experts_compute + experts_read, rel=1e-9)
    # more than the one roofline over the whole step would give
    assert overlapped > max(rest_compute + experts_compute, rest_memory + experts_read) * 1.01


def test_coarse_experts_overlap_their_read_and_math_with_the_step():
    # Mixtral's experts (FFN 14,336 > hidden 4,096) run at 0.5-0.9x of read + math in the same
    # data: one roofline over the step, as for a dense model
    coarse = copy.deepcopy(DEEPSEEK["model"])
    # four times wider than DeepSeek's (wider than the hidden 7,168), a quarter as many: the
    # same weights
    coarse["moe"].update(expert_ffn_hidden=8192, experts=64)
    workload = _workload(DEEPSEEK, model=coarse, precision="fp8", kv_cache_precision="fp8",
                         requests={"input_tokens": 1000, "output_tokens": 1000},
                         deployment={"tp": 1, "dp": 8, "ep": 8, "batch": 256},
                         expert_placement={"load_imbalance": 1.0})
    step = analyze_inference(B200, workload, 10.0).decode
    rest_compute, rest_memory, experts_compute, experts_read = _moe_parts(B200, workload, 256)
    overlapped = step.stage_s - step.communication_s - step.fixed_s
    assert overlapped == pytest.approx(max(rest_compute + experts_compute, rest_memory + experts_read), rel=1e-9)


# --- attention at the KV cache's precision -------------------------------------------------------

def test_attention_runs_at_the_kv_cache_precision_where_the_accelerator_has_a_peak():
    a100 = CATALOG.get("A100-SXM4-80GB")
    b200, h100 = B200.accelerator, H100.accelerator
    assert attention_precision(_workload(LLAMA, precision="fp4", kv_cache_precision="fp8"), b200) == "fp8"
    # an FP4 KV cache is read into FP8 for the products
    assert attention_precision(_workload(LLAMA, precision="fp4", kv_cache_precision="fp4"), b200) == "fp8"
    assert attention_precision(_workload(LLAMA, precision="fp8", kv_cache_precision="bf16"), h100) == "bf16"
    # A100 has no FP8 peak: an FP8 KV cache is attended at BF16
    assert attention_precision(_workload(LLAMA, precision="bf16", kv_cache_precision="fp8"), a100) == "bf16"


def test_fp4_prefill_on_b200_runs_its_attention_at_the_fp8_peak():
    workload = _workload(LLAMA, precision="fp4", kv_cache_precision="fp8",
                         requests={"input_tokens": 8192, "output_tokens": 64},
                         deployment={"tp": 1, "batch": 1})
    result = analyze_inference(B200, workload, 10.0)
    linear = 8192 * 2 * PARAMS_70B  # 1.16 PFLOP at 9,000 x 0.722 TF/s
    attention = 0.5 * 8192**2 * 80 * 4 * 64 * 128  # 0.88 PFLOP at 4,500 TF/s, not 9,000
    seconds = (linear / B200_FP4 + attention / B200_FP8) / A.prefill_compute_efficiency
    assert result.prefill.compute_s == pytest.approx(seconds, rel=1e-9)
    assert result.prefill.bound == "compute"


# --- pipeline stages with micro-batches in flight ------------------------------------------------

def _pp2(batch: int):
    return _workload(LLAMA, precision="fp8", kv_cache_precision="fp8",
                     requests={"input_tokens": 2048, "output_tokens": 256},
                     deployment={"tp": 1, "pp": 2, "batch": batch})


def test_a_pp2_replica_decodes_two_micro_batches_of_half_the_batch():
    result = analyze_inference(H100, _pp2(8), 10.0)
    # a stage step: one micro-batch of 4 sequences on 40 layers of one H100: half the weights
    # and the micro-batch's half of the stage's KV cache read from HBM, plus 40 x 30.9 us
    kv = 4 * (2048 + 128) * KV_FP8 / 2
    stage = (PARAMS_70B / 2 + kv) / (3.35e12 * A.hbm_efficiency) + 40 * A.fixed_us_per_layer * 1e-6
    assert result.decode.bound == "memory" and result.decode.communication_s == 0.0
    assert result.decode.stage_s == pytest.approx(stage, rel=1e-9)  # ~14.0 ms
    # a sequence's next token: its micro-batch crosses both stages
    assert result.decode_step_ms == pytest.approx(2 * stage * 1e3, rel=1e-9)
    # the replica's 8 sequences each get a token per 2 stage steps, over its 2 GPUs
    assert result.decode_tokens_per_s_per_gpu == pytest.approx(8 / (2 * stage) / 2, rel=1e-9)


def test_a_pipelined_prompt_occupies_the_replica_for_one_stage_step_and_waits_for_all():
    result = analyze_inference(H100, _pp2(8), 10.0)
    p = result.ttft_unloaded_ms / 1e3  # through both stages
    d = result.decode_step_ms / 1e3
    assert p == pytest.approx(2 * result.prefill.stage_s, rel=1e-9)
    # TPOT at load: d + B x (p / 2) / o; the prefill rate counts one stage step per prompt
    assert result.tpot_ms == pytest.approx((d + 8 * (p / 2) / 256) * 1e3, rel=1e-9)
    assert result.prefill_tokens_per_s_per_gpu == pytest.approx(2048 / (p / 2) / 2, rel=1e-9)


def test_fewer_sequences_than_stages_leave_stages_idle():
    one = analyze_inference(H100, _pp2(1), 10.0)
    # one micro-batch of the one sequence: its token crosses both stages, nothing overlaps
    assert one.decode_step_ms == pytest.approx(2 * one.decode.stage_s * 1e3, rel=1e-9)
    stage = ((PARAMS_70B / 2 + (2048 + 128) * KV_FP8 / 2) / (3.35e12 * A.hbm_efficiency)
             + 40 * A.fixed_us_per_layer * 1e-6)
    assert one.decode.stage_s == pytest.approx(stage, rel=1e-9)


# --- the fixed cost of every layer, and 4-bit block scales ----------------------------------------

def test_every_stage_step_carries_its_layers_fixed_cost():
    result = analyze_inference(H100, _pp2(8), 10.0)
    assert result.decode.fixed_s == pytest.approx(40 * 30.9e-6, rel=1e-9)  # 1.24 ms per stage
    assert result.prefill.fixed_s == result.decode.fixed_s
    assert result.to_json()["decode"]["fixed_s"] == result.decode.fixed_s
    none = analyze_inference(H100, _pp2(8), 10.0, InferenceAssumptions(fixed_us_per_layer=0.0))
    assert result.decode.stage_s - none.decode.stage_s == pytest.approx(40 * 30.9e-6, rel=1e-9)


def test_fp4_weights_take_their_e4m3_scale_per_16_values():
    workload = _workload(LLAMA, precision="fp4", kv_cache_precision="fp8", deployment={"tp": 1, "batch": 1})
    result = analyze_inference(B200, workload, 10.0)
    assert result.weights_gb_per_gpu == pytest.approx(PARAMS_70B * (0.5 + 1 / 16) / 1e9, rel=1e-9)  # 39.7 GB


# --- an accelerator's measured GEMM ceiling: the clock it holds under a dense GEMM ------------

def test_mi300x_computes_at_its_measured_clock_share_of_the_mi325x():
    # Same die and peak (2,615 TF/s FP8); AMD measures its max-achievable FP8 GEMM at 1,273 TF/s
    # (1,230 MHz, 750 W) and 1,519 TF/s (1,464 MHz, 1,000 W) (ROCm blog "Measuring
    # Max-Achievable FLOPs, Part 2", P): a compute-bound step takes 1,519 / 1,273 as long on the
    # MI300X. MLPerf v5.1 Llama 2 70B Offline: MI325X 4,315, MI300X 3,476 tok/s/GPU (1.24x).
    mi300x, mi325x = _fabric("MI300X-Platform"), _fabric("MI325X-Platform")
    workload = _workload(LLAMA, precision="fp8", kv_cache_precision="fp8",
                         requests={"input_tokens": 1000, "output_tokens": 300},
                         deployment={"tp": 1, "dp": 8, "batch": 256})
    results = [analyze_inference(f, workload, 10.0) for f in (mi300x, mi325x)]
    assert [r.batch for r in results] == [256, 256]
    slow, fast = (r.decode for r in results)
    assert slow.bound == fast.bound == "compute"
    assert slow.compute_s / fast.compute_s == pytest.approx(0.581 / 0.487, rel=1e-9)


def test_an_accelerator_without_a_measured_ceiling_computes_as_the_calibration_h100():
    from core.analysis.serving_phase import KvTiers, phase_model
    workload = _workload(LLAMA, precision="fp8", kv_cache_precision="fp8",
                         deployment={"tp": 1, "dp": 8, "batch": 256})

    def share(fabric, assumptions):
        return phase_model(fabric, workload, workload.deployment.decode, assumptions,
                           KvTiers())._gemm_ceiling_share

    # B200 has no same-bench measurement: the H100's efficiencies as fitted
    assert share(H100, A) == share(B200, A) == 1.0
    # a user who empties the table gets every accelerator at the H100's share
    assert share(_fabric("MI300X-Platform"), InferenceAssumptions(gemm_ceiling_by_accelerator={})) == 1.0
    assert share(_fabric("MI300X-Platform"), A) == pytest.approx(0.487 / 0.698)


def test_training_and_serving_share_one_measured_fp4_gemm_rate():
    # one definition (core/assumptions/kernels.py): NVIDIA's measured NVFP4 GEMMs reach 1.44x
    # the FP8 rate on B200 (4,547 against 3,151 TF/s), not the 2x of the peaks
    from core.assumptions.performance import PerformanceAssumptions
    serving = InferenceAssumptions().fp4_over_fp8_gemm_share_by_accelerator
    assert serving == PerformanceAssumptions().fp4_over_fp8_gemm_share_by_accelerator
    assert 2 * serving["B200"] == pytest.approx(4547 / 3151, rel=0.01)


def test_fine_grained_fp4_experts_do_their_math_at_the_fp8_rate():
    # NVIDIA's measured MoE op (aiconfigurator 0.12 op data, B200 and GB200): at fine-grained
    # shapes NVFP4 takes 0.96-1.03x the FP8 op's time from 64 tokens per expert on, while dense
    # NVFP4 GEMMs run 1.44x FP8. The experts' math is charged at the FP8 rate, their read at
    # FP4 bytes; the rest of the step (MLA, shared expert, dense layers) keeps FP4's rate.
    from core.analysis.serving_phase import KvTiers, phase_model

    def step(precision):
        workload = _workload(DEEPSEEK, precision=precision, kv_cache_precision="fp8",
                             requests={"input_tokens": 1000, "output_tokens": 1000},
                             deployment={"tp": 1, "dp": 8, "ep": 8, "batch": 512},
                             expert_placement={"load_imbalance": 1.0})
        model = phase_model(B200, workload, workload.deployment.decode, A, KvTiers())
        return model, analyze_inference(B200, workload, 10.0).decode

    (fp8_model, fp8), (fp4_model, fp4) = step("fp8"), step("fp4")
    assert fp8_model._fine_grained_fp4_math == 1.0
    assert fp4_model._fine_grained_fp4_math == pytest.approx(9000 * 0.722 / 4500)
    assert fp8.bound == fp4.bound == "compute"
    # FP4 still helps (the rest of the step), but less than a dense GEMM's 1.44x
    assert 1.0 < fp8.stage_s / fp4.stage_s < 1.35
