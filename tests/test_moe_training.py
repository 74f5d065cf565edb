"""MoE training: expert GEMMs at their grouped shapes, the all-to-all over the levels the EP
group spans, memory of MoE and MLA by recompute mode and recipe, DualPipe, the DeepSeek-V3
H800 layout against its report, the bottleneck's MoE what-ifs, and every published training
run of the validation table fitting in its GPU's memory."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import collectives as coll
from core.analysis.bottleneck import explain_bottleneck
from core.analysis.compute import Hardware
from core.analysis.memory import memory_for
from core.analysis.model_stats import model_flops_per_token, parameter_count
from core.analysis.performance import analyze_performance, cannot_run_reasons
from core.assumptions.performance import PerformanceAssumptions
from core.assumptions import Assumptions
from core.catalog import default_catalog
from core.flatten import flatten
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.stacks import get_preset
from core.topology import analyze_topology
from core.workload import load_preset
from tests.validation import cases as C
from tests.validation.suite import server_of

CATALOG = default_catalog()


def _fabric(gpus: int, server: str = "HGX-H800", switch: str = "QM9700"):
    design = generate_fat_tree(FatTreeOptions(gpus, server, switch), CATALOG)
    return analyze_topology(flatten(design, CATALOG), Assumptions().network).fabric


@pytest.fixture(scope="module")
def h800_2048():
    return _fabric(2048)


def test_deepseek_v3_preset_counts_match_the_report():
    """671B parameters of the main model, 37B active per token (DeepSeek-V3 report, P); the
    MTP module adds one MoE layer and its projection (the report's 14B MTP weights include
    their own embedding and head copies, which the main model shares here)."""
    model = load_preset("deepseek-v3").model
    count = parameter_count(model)
    main = parameter_count(replace(model, mtp_depth=0))
    assert main.total == pytest.approx(671e9, rel=0.01)
    assert main.active == pytest.approx(37.5e9, rel=0.02)
    assert count.total - main.total == count.mtp and 10e9 < count.mtp < 14e9
    qwen = parameter_count(load_preset("qwen3-235b-a22b").model)  # Qwen3 model card: 235B / 22B
    assert qwen.total == pytest.approx(235e9, rel=0.01)
    assert qwen.active == pytest.approx(22e9, rel=0.02)


def test_small_per_expert_batches_run_slower_per_flop():
    """The same routed FLOPs split over more, smaller experts take longer: a grouped GEMM runs
    one expert's tokens at a time, at the efficiency of its size."""
    acc = CATALOG.get("H100-SXM5-80GB")
    hw = Hardware(acc, "bf16", acc.peak_tflops("bf16"), PerformanceAssumptions())
    copies, h, f = 4096 * 8, 7168, 2048  # routed token copies, one expert's FFN
    times = []
    for experts in (4, 32, 256):  # the same copies over more experts: same FLOPs
        per_expert = copies / experts
        times.append(experts * (hw.gemm(per_expert, h, 2 * f) + hw.gemm(per_expert, f, h)))
    assert times[0] < times[1] < times[2]


def test_alltoall_stays_on_nvlink_inside_a_node_and_routing_limits_need_dedup(h800_2048):
    one_node = coll.expert_alltoall_time_s(h800_2048, 4096, 7168, 8, 8, 1)
    eight_nodes = coll.expert_alltoall_time_s(h800_2048, 4096, 7168, 8, 64, 1)
    assert eight_nodes > 3 * one_node  # 164 GB/s NVLink vs 47 GB/s per NIC
    plain_limited = coll.expert_alltoall_time_s(h800_2048, 4096, 7168, 8, 64, 1, route_nodes=4)
    assert plain_limited == pytest.approx(eight_nodes)  # every copy is still its own message
    dedup = coll.expert_alltoall_time_s(h800_2048, 4096, 7168, 8, 64, 1, dedup_per_node=True)
    limited = coll.expert_alltoall_time_s(h800_2048, 4096, 7168, 8, 64, 1, route_nodes=4,
                                          dedup_per_node=True)
    # 8 random experts of 8 nodes reach ~4.6 distinct remote nodes; M = 4 caps them at 3.5
    assert limited < dedup < eight_nodes


def test_deepseek_v3_on_2048_h800_fits_and_lands_near_the_report(h800_2048):
    """DeepSeek-V3 report (arXiv 2412.19437, §1 and §3.1, P): 2,048 H800, PP 16, EP 64 over 8
    nodes, ZeRO-1 DP, no TP, DualPipe, FP8, 180K H800 GPU-hours per trillion tokens. The
    layout fits in 80 GB and the model is within 15% of the reported rate (its
    micro-batch, split of layers and kernels' efficiency are not published)."""
    workload = load_preset("deepseek-v3")
    a = get_preset("deepseek-dualpipe-2024").assumptions()
    perf = analyze_performance(h800_2048, workload, a)
    assert perf.runs and perf.memory.total_gb <= 80.0
    gpu_hours_per_trillion = 2048 * 1e12 / perf.tokens_per_s / 3600
    assert gpu_hours_per_trillion == pytest.approx(180e3, rel=0.15)
    assert perf.alltoall_s > perf.breakdown_s["ep_comm"] > 0  # mostly hidden by DualPipe
    moe = perf.memory.to_json()["moe"]
    assert moe["expert_states_gb"] > 0 and moe["expert_activations_gb"] > 0


def test_recompute_modes_and_recipes_trade_memory_as_described():
    wl = load_preset("deepseek-v3")
    a = PerformanceAssumptions()
    par = replace(wl.parallelism, pp=16)

    def total(recompute: str, precision: str = "fp8-block") -> float:
        return memory_for(wl.model, replace(par, recompute=recompute), 80.0, a,
                          precision=precision).total_gb
    modes = [total(m) for m in ("none", "selective", "norms-up-proj", "moe-experts", "full")]
    assert modes[0] >= modes[1] > modes[2] > modes[3] > modes[4]
    # FP8 keeps FP8 copies of GEMM inputs; DeepSeek's recipe also its SwiGLU input and moments
    assert total("none", "bf16") > total("none", "fp8") > total("none", "fp8-block")


def test_activation_offload_frees_memory_and_costs_host_link_time(h800_2048):
    wl = load_preset("deepseek-v3")
    a = get_preset("deepseek-dualpipe-2024").assumptions()
    base = analyze_performance(h800_2048, wl, a)
    offloaded = analyze_performance(
        h800_2048, replace(wl, parallelism=replace(wl.parallelism, activation_offload=True)), a)
    assert offloaded.memory.total_gb < base.memory.total_gb - 20
    assert offloaded.breakdown_s["offload"] >= 0.0
    assert offloaded.memory.offloaded_gb_per_microbatch > 0


def test_dualpipe_halves_the_bubble_and_doubles_the_parameters(h800_2048):
    wl = load_preset("deepseek-v3")
    one_f_one_b = get_preset("megatron-core-moe-2025").assumptions()
    dual = get_preset("deepseek-dualpipe-2024").assumptions()
    a = analyze_performance(h800_2048, wl, one_f_one_b)
    b = analyze_performance(h800_2048, wl, dual)
    assert b.breakdown_s["bubble"] < 0.6 * a.breakdown_s["bubble"]
    assert b.memory.weights_gb > 1.5 * a.memory.weights_gb * (a.memory.params_per_gpu > 0)


def test_bottleneck_names_the_alltoall_and_tries_the_moe_what_ifs(h800_2048):
    wl = load_preset("deepseek-v3")
    result = explain_bottleneck(h800_2048, wl, get_preset("megatron-core-moe-2025").assumptions())
    ep = next(x for x in result.limiters if x.key == "ep_comm")
    assert "all-to-all" in ep.text and "of the step before overlap" in ep.text
    keys = {w.key for w in result.what_ifs}
    assert {"ep32", "ep128", "route_nodes2", "nvl72"} <= keys


def test_mla_and_mtp_flops_are_counted():
    model = load_preset("deepseek-v3").model
    without = replace(model, mtp_depth=0)
    # forward ~ 2 x active parameters (37.6B) + attention core; MTP adds about a layer + head
    assert 3 * 2 * 37e9 < model_flops_per_token(without) < 3 * 2 * 37e9 * 1.25
    assert model_flops_per_token(model) > model_flops_per_token(without) * 1.01


# Published training runs our memory model does not fit in their GPU, and why (each a known
# miss, never fitted away; a fix that makes one fit should remove it here).
KNOWN_MEMORY_MISSES = {
    "L3-8k": "Meta's flexible-N pipeline schedule (§3.3.2) is not published: with ZeRO-2 as "
             "§3.3.2 states it and Megatron-Core's depth-first interleaved warm-up (141 "
             "one-layer chunk forwards on the second stage) the count is 85.78 GB of the "
             "H100's 85.52 (81,559 MiB): 0.3% over, less than the 2 GB framework estimate (E: "
             "CUDA context, NCCL buffers, fragmentation, which NCCL alone can exceed, "
             "NVIDIA/nccl#964, #1685), but over. Meta needed proactive deallocation and "
             "TORCH_NCCL_AVOID_RECORD_STREAMS to fit it (§3.3.2): it ran at the edge",
}


def _published_runs():
    from tests.validation import moe_cases as M
    return [*C.ALL_PERF_CASES, *(c for c in M.MOE_CASES if M.schema_gap(c) is None)]


@pytest.mark.parametrize("case", _published_runs(), ids=lambda c: c.id)
def test_every_published_training_run_fits_its_gpu(case):
    """Issue 21 item 3: a run that ran fits in its GPU's memory with its published settings
    (with the stack's memory terms: the all-to-all overlap's schedule, dropout, gradient
    precision, pipeline split)."""
    from core.workload import workload_from_dict
    wl = workload_from_dict({"model": case.model, "parallelism": case.parallelism,
                             "precision": case.precision, "optimizer": case.optimizer})
    acc = CATALOG.get(CATALOG.get(server_of(case.hardware)).accelerator)
    memory = memory_for(wl.model, wl.parallelism, acc.hbm_capacity_gb,
                        PerformanceAssumptions(**case.stack), precision=case.precision,
                        accelerator=acc, optimizer=case.optimizer)
    if case.id in KNOWN_MEMORY_MISSES:
        assert not memory.fits, f"{case.id} fits now: remove it from KNOWN_MEMORY_MISSES"
        # ... and over by less than the framework estimate, which the reason says
        assert -memory.headroom_gb < memory.framework_gb
    else:
        assert memory.fits, f"{case.id}: {memory.total_gb:.1f} GB > {memory.hbm_gb:.2f} GB"


@settings(max_examples=60, deadline=None)
@given(over_gb=st.floats(-5.0, 5.0), framework_gb=st.floats(0.0, 3.0))
def test_a_layout_over_by_less_than_the_framework_estimate_says_so(h800_2048, over_gb,
                                                                  framework_gb):
    """A run that ran elsewhere and comes out a little over is not dismissed: the reason says
    the overage is smaller than the framework estimate the count includes; the verdict stands."""
    wl = load_preset("deepseek-v3")
    base = analyze_performance(h800_2048, wl, get_preset("megatron-core-moe-2025").assumptions())
    hbm = base.memory.hbm_gb
    memory = replace(base.memory, framework_gb=framework_gb, total_gb=hbm + over_gb,
                     fits=over_gb <= 0)
    reasons = cannot_run_reasons(h800_2048, wl.parallelism, memory, 1.0)
    memory_reasons = [r for r in reasons if r.code == "DOES_NOT_FIT_MEMORY"]
    if over_gb <= 0:
        assert not memory_reasons
        return
    (reason,) = memory_reasons
    assert ("framework overhead it includes" in reason.message) == \
        (-memory.headroom_gb < framework_gb)
    assert "\n" not in reason.message


def test_precision_recipes_pick_their_peak_and_refuse_block_scaling_without_hardware():
    from core.analysis.compute import dense_peak
    h100, b200 = CATALOG.get("H100-SXM5-80GB"), CATALOG.get("B200")
    assert dense_peak(h100, "fp8-block", None) == (1978.9, "fp8-block")
    diags = []
    assert dense_peak(h100, "mxfp8", diags) == (989.4, "bf16")  # Hopper: no MX tensor cores
    assert diags[0].code == "PRECISION_NOT_SUPPORTED" and "block-scaled" in diags[0].message
    assert dense_peak(b200, "nvfp4", None) == (9000.0, "nvfp4")
    # NVFP4 keeps ~15% of the linear-layer work in BF16 (arXiv 2509.25660): the blended rate,
    # its NVFP4 part at the measured share of the FP4 peak (0.722 on B200: NVIDIA's measured
    # TensorRT-LLM GEMMs, core/assumptions/kernels.py)
    hw = Hardware(b200, "nvfp4", 9000.0, PerformanceAssumptions())
    assert hw.peak == pytest.approx(1e12 / (0.85 / (9000 * 0.722) + 0.15 / 2250))
    assert hw.peak_attn == pytest.approx(2250e12)


def test_expert_tensor_parallelism_folds_over_the_stage(h800_2048):
    """Expert TP 1 under TP 2 (Megatron-Core parallel folding): each GPU holds whole experts,
    EP 32 may take GPUs from TP, the expert GEMMs are twice as wide per GPU."""
    from core.errors import WorkloadError
    from core.workload import workload_from_dict, workload_to_dict
    raw = workload_to_dict(load_preset("qwen3-235b-a22b"))
    raw["parallelism"].update(tp=2, dp=16, ep=32)  # dp x cp = 16: EP 32 needs folding
    with pytest.raises(WorkloadError, match=r"parallelism\.ep: 32 must divide dp x cp"):
        workload_from_dict(raw)
    raw["parallelism"]["expert_tp"] = 1
    folded = workload_from_dict(raw)
    assert folded.parallelism.expert_replicas == 1
    same = replace(folded, parallelism=replace(folded.parallelism, ep=16, dp=16, expert_tp=0))
    a = PerformanceAssumptions()
    m_folded = memory_for(folded.model, folded.parallelism, 80.0, a)
    m_tp = memory_for(same.model, same.parallelism, 80.0, a)
    # EP 32 x expert-TP 1 shards the experts as EP 16 x TP 2 does
    assert m_folded.expert_states_gb == pytest.approx(m_tp.expert_states_gb)
    raw["parallelism"]["expert_tp"] = 3
    with pytest.raises(WorkloadError, match=r"parallelism\.expert_tp"):
        workload_from_dict(raw)


def test_fp8_primary_weights_take_one_byte_only_where_no_transposed_copy_is_kept():
    """Megatron's fp8_param_gather keeps the model's weights in FP8: Blackwell's tensor cores
    take FP8 in any layout (1 byte), Hopper keeps a transposed copy (2, as BF16), MXFP8 keeps
    row- and column-wise copies (2); without the option the BF16 copy stays."""
    from core.analysis.memory import fp8_weight_bytes
    fp8_weights = PerformanceAssumptions(fp8_primary_weights=True)
    b200, h100 = CATALOG.get("B200"), CATALOG.get("H100-SXM5-80GB")
    assert fp8_weight_bytes(fp8_weights, "fp8", b200) == 1.0
    assert fp8_weight_bytes(fp8_weights, "fp8", h100) == 2.0
    assert fp8_weight_bytes(fp8_weights, "mxfp8", b200) == 2.0
    assert fp8_weight_bytes(PerformanceAssumptions(), "fp8", b200) == 2.0
