"""LLM training performance: step time, MFU, memory, training days (performance.md §0-§9).

These tests use hand-built fabrics and loose tolerances; the full validation against
performance.md §9 (real generated clusters, each run's software stack, the CLI path, tight
tolerances) is tests/validation (docs/validation.md). One model with one set of assumptions
serves all rows; the per-row inputs are the published workload and the software generation
(here the pre-Transformer-Engine Megatron of 2021/22: ``flash_attention=False``, no TP
comm-GEMM overlap, dropout; the defaults are the current Megatron-Core + TE stack).
"""

from __future__ import annotations

import dataclasses

import pytest

from core.analysis.performance import (
    BREAKDOWN_PARTS,
    PerformanceAssumptions,
    analyze_performance,
    efficiency_scale,
    gemm_efficiency,
    pipeline_bubble,
)
from core.analysis.parallelism_search import search_parallelism
from core.catalog import default_catalog, parse_entry
from core.fabric import FabricView, NetworkLevel
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.settings import settings_from_dict, settings_to_dict
from core.topology import analyze_topology
from core.workload import ModelSpec, Parallelism, Workload, load_preset, with_parallelism
from tests.validation.cases import COMPOSER_DEFAULT

MEGATRON_2022 = PerformanceAssumptions(flash_attention=False, tp_overlap=0.0, dropout=True,
                                       balance_pipeline_ends=False)
# MosaicML Composer FSDP (2023): its own H100 factor and FlashAttention-2 (validation stack)
COMPOSER_2023 = PerformanceAssumptions(**COMPOSER_DEFAULT)


def accelerator(spec_id: str):
    try:
        return default_catalog().get(spec_id)
    except Exception:  # catalog being edited: a stand-in with the hardware.md numbers
        raw = {
            "A100-SXM4-80GB": dict(tflops_dense={"bf16": 312, "fp16": 312}, hbm_gb=80,
                                   hbm_tbyte_s=2.039, scale_up_gbyte_s_per_dir=300,
                                   scale_up_effective_gbyte_s=240),
            "H100-SXM5-80GB": dict(tflops_dense={"bf16": 989.4, "fp16": 989.4, "fp8": 1978.9},
                                   hbm_gb=80, hbm_tbyte_s=3.35, scale_up_gbyte_s_per_dir=450,
                                   scale_up_effective_gbyte_s=370),
        }[spec_id]
        return parse_entry({"id": spec_id, "kind": "accelerator", "vendor": "NVIDIA",
                            "name": spec_id, "source": "test", "confidence": "P",
                            "tdp_w": 700, **raw}, "test", 0)


def dgx_a100(gpus: int) -> FabricView:
    # Selene-like DGX A100 SuperPOD: NVLink3 300 GB/s, 240 effective (SimAI SM80); 8 x HDR 200G
    # per node (25 GB/s line, 23.5 effective: SimAI CX-6); 20-node scalable units, full fat tree
    return FabricView(gpus, accelerator("A100-SXM4-80GB"), 8, (
        NetworkLevel("scale-up", 8, 300.0, 240.0, 0.7, 1),
        NetworkLevel("leaf", 160, 25.0, 23.5, 2.0, 1),
        NetworkLevel("spine", max(gpus, 160), 25.0, 23.5, 3.0, 3),
    ))


def dgx_h100(gpus: int, spine_gbyte_s: float = 50.0) -> FabricView:
    # DGX H100 SuperPOD-like: NVLink4 450 GB/s line, 370 effective (nccl-tests #212); one
    # 400G NIC per GPU (50 GB/s line, 47 effective, #290); 256-GPU leaf domains, then spine
    return FabricView(gpus, accelerator("H100-SXM5-80GB"), 8, (
        NetworkLevel("scale-up", 8, 450.0, 370.0, 0.5, 1),
        NetworkLevel("leaf", 256, 50.0, 47.0, 2.0, 1),
        NetworkLevel("spine", max(gpus, 256), spine_gbyte_s, spine_gbyte_s * 0.94, 3.0, 3),
    ))


def gpt(layers, hidden, heads, causal=False, seq=2048, vocab=51200):
    """MHA + 4h GeLU MLP as in the Megatron papers; non-causal = the papers' FLOP counting."""
    return ModelSpec(layers=layers, hidden=hidden, ffn_hidden=4 * hidden, heads=heads,
                     vocab=vocab, seq_len=seq, activation="gelu", causal=causal)


def run(model, par, fabric, a=PerformanceAssumptions(), precision="bf16", tokens=1e12, ettr=1.0):
    return analyze_performance(fabric, Workload("test", model, par, precision, tokens), a, ettr)


# ---------------------------------------------------------------------------------------
# §9 rows 5-8: Korthikanti et al. (MLSys'23) Table 5, SP + selective recompute, DP = 1.
# These four rows (with row 15) are the data the A100 GEMM factor was fitted on.

KORTHIKANTI = [
    # name, model, parallelism, selective step s, full-recompute step s, README MFU
    ("22B", gpt(48, 6144, 64), dict(tp=8, pp=1, micro_batch=4, global_batch=4), 1.10, 1.42, 0.415),
    ("175B", gpt(96, 12288, 96), dict(tp=8, pp=8, global_batch=64, virtual_stages=3), 13.75, 18.13, 0.514),
    ("530B", gpt(105, 20480, 128), dict(tp=8, pp=35, global_batch=280, virtual_stages=3), 37.83, 49.05, 0.560),
    ("1T", gpt(128, 25600, 160), dict(tp=8, pp=64, global_batch=512), 71.49, 94.42, 0.563),
]


@pytest.mark.parametrize("name, model, par, t_sel, t_full, mfu", KORTHIKANTI, ids=[k[0] for k in KORTHIKANTI])
def test_korthikanti_selective_recompute_rows_5_to_8(name, model, par, t_sel, t_full, mfu):
    # §9.2 tolerance: +-10% step time. MFU is the 72-form (non-causal) of the README.
    p = Parallelism(**par, zero_stage=0, recompute="selective")
    r = run(model, p, dgx_a100(p.gpus), MEGATRON_2022)
    assert r.step_time_s == pytest.approx(t_sel, rel=0.10)
    assert r.mfu == pytest.approx(mfu, rel=0.10)
    assert r.fits_memory
    assert r.breakdown_s["dp_comm"] == 0.0  # DP = 1


@pytest.mark.parametrize("name, model, par, t_sel, t_full, mfu", KORTHIKANTI, ids=[k[0] for k in KORTHIKANTI])
def test_korthikanti_full_recompute_baseline(name, model, par, t_sel, t_full, mfu):
    # Table 5 baseline (full recompute), not fitted: +-10%
    p = Parallelism(**par, zero_stage=0, recompute="full")
    r = run(model, p, dgx_a100(p.gpus), MEGATRON_2022)
    assert r.step_time_s == pytest.approx(t_full, rel=0.10)
    # HFU ~ 4/3 MFU with full recompute (§1.3)
    assert r.hfu / r.mfu == pytest.approx(4 / 3, rel=0.03)


# §9 rows 1-4: Narayanan et al. SC'21 Table 1, full recompute, HFU (96-form). +-15%.
SC21 = [
    ("1T", gpt(128, 25600, 160), dict(tp=8, pp=64, dp=6, global_batch=3072), 102.6, 0.52),
    ("530B", gpt(105, 20480, 128), dict(tp=8, pp=35, dp=9, global_batch=2520, virtual_stages=3), 54.1, 0.52),
    ("310B", gpt(96, 16384, 128), dict(tp=8, pp=16, dp=15, global_batch=2160, virtual_stages=2), 37.6, 0.50),
    ("145.6B", gpt(80, 12288, 96), dict(tp=8, pp=8, dp=24, micro_batch=2, global_batch=2304, virtual_stages=2), 24.8, 0.47),
]


@pytest.mark.parametrize("name, model, par, step, hfu", SC21, ids=[s[0] for s in SC21])
def test_sc21_table1_rows_1_to_4(name, model, par, step, hfu):
    p = Parallelism(**par, zero_stage=0, recompute="full")
    r = run(model, p, dgx_a100(p.gpus), MEGATRON_2022)
    assert r.step_time_s == pytest.approx(step, rel=0.15)
    assert r.hfu == pytest.approx(hfu, rel=0.15)
    assert r.breakdown_s["dp_comm"] > 0


def test_mt_nlg_rows_9_to_11_strong_scaling():
    # MT-NLG 530B, TP 8, PP 35, DP 8/10/12, GBS 1920 (Smith et al. 2022 §2.4): 60.1 / 50.2 /
    # 44.4 s, MFU 30.2 / 29.0 / 27.3%. With default (modern) assumptions our model is ~20%
    # faster than the 2021 DeepSpeed-Megatron stack (with that stack's assumptions, 14-17%:
    # a known miss in docs/validation.md), so we assert the looser bound (-30%, +15%) and
    # the strong-scaling trend the rows exercise.
    model = gpt(105, 20480, 128)
    published = {8: 60.1, 10: 50.2, 12: 44.4}
    results = {}
    for dp, step in published.items():
        p = Parallelism(tp=8, pp=35, dp=dp, global_batch=1920, zero_stage=1, recompute="full")
        r = run(model, p, dgx_a100(p.gpus), MEGATRON_2022)
        assert 0.70 * step <= r.step_time_s <= 1.15 * step
        results[dp] = r
    assert results[8].step_time_s > results[10].step_time_s > results[12].step_time_s
    assert results[8].mfu > results[10].mfu > results[12].mfu          # m 240 -> 160
    assert results[8].bubble_fraction < results[12].bubble_fraction


MPT = [
    # MosaicML llm-foundry benchmarks (§9 rows 14-16), non-causal MFU (Mosaic definition)
    ("MPT-70B H100", ModelSpec(layers=80, hidden=8192, ffn_hidden=32768, heads=64, vocab=50368,
                               seq_len=2048, causal=False),
     dict(dp=64, micro_batch=8, global_batch=2048, zero_stage=3, recompute="full"), "H100", 0.4257),
    ("MPT-70B A100", ModelSpec(layers=80, hidden=8192, ffn_hidden=32768, heads=64, vocab=50368,
                               seq_len=2048, causal=False),
     dict(dp=64, micro_batch=8, global_batch=2048, zero_stage=3, recompute="full"), "A100", 0.5333),
    ("MPT-7B H100", ModelSpec(layers=32, hidden=4096, ffn_hidden=16384, heads=32, vocab=50368,
                              seq_len=2048, causal=False),
     dict(dp=8, micro_batch=6, global_batch=48, zero_stage=3, recompute="none"), "H100", 0.4644),
]


@pytest.mark.parametrize("name, model, par, gpu, mfu", MPT, ids=[m[0] for m in MPT])
def test_mosaic_fsdp_rows_14_to_16(name, model, par, gpu, mfu):
    # +-15% (§9.2). The H100 rows are the data the Composer stack's H100 factor was fitted on;
    # the A100 row is part of the A100 factor's fit (tests/validation/calibrate.py).
    p = Parallelism(**par)
    fabric = dgx_h100(p.gpus) if gpu == "H100" else dgx_a100(p.gpus)
    r = run(model, p, fabric, COMPOSER_2023)
    assert r.mfu == pytest.approx(mfu, rel=0.15)
    if p.recompute == "full":
        assert r.hfu / r.mfu == pytest.approx(4 / 3, rel=0.03)  # Mosaic HFU 56.76 / MFU 42.57


def test_run_length_rows_17():
    # SC'21 §5.1: GPT-3 175B on 1,024 A100, 300B tokens: ~34 days (T = 8 tokens P / (n X));
    # Megatron 1T, 450B tokens, 3,072 A100: ~84 days
    gpt3 = load_preset("gpt3-175b")
    r = analyze_performance(dgx_a100(1024), gpt3, MEGATRON_2022)
    assert r.training_days == pytest.approx(34, rel=0.15)
    one_t = load_preset("megatron-1t")
    r = analyze_performance(dgx_a100(3072), one_t, MEGATRON_2022)
    assert r.training_days == pytest.approx(84, rel=0.15)


# ---------------------------------------------------------------------------------------
# §4 pipeline bubble


def test_bubble_formulas():
    # p 8, m 16: 43.8% of ideal (30.4% of the step); v = 4: 10.9%; Megatron 1T p 64 m 512: 12.3%
    assert pipeline_bubble(8, 16)[0] == pytest.approx(0.4375)
    assert pipeline_bubble(8, 16)[1] == pytest.approx(0.304, abs=0.001)
    assert pipeline_bubble(8, 16, 4)[0] == pytest.approx(0.109, abs=0.001)
    assert pipeline_bubble(64, 512)[0] == pytest.approx(0.123, abs=0.001)
    assert pipeline_bubble(1, 16) == (0.0, 0.0)


@pytest.mark.parametrize("v, ratio", [(1, 7 / 16), (4, 7 / 64)])
def test_bubble_in_step_time(v, ratio):
    model = gpt(96, 12288, 96)
    p = Parallelism(tp=8, pp=8, dp=1, global_batch=16, virtual_stages=v, recompute="selective")
    r = run(model, p, dgx_h100(64))
    b = r.breakdown_s
    per_mb_work = b["compute"] + b["recompute"] + b["tp_comm"] + b["cp_comm"] + b["ep_comm"]
    assert b["bubble"] / per_mb_work == pytest.approx(ratio, rel=1e-9)


# ---------------------------------------------------------------------------------------
# communication on the actual fabric


def test_dp_crossing_oversubscribed_level_slows_the_step():
    # Two fabrics that differ only in the outer level's per-GPU bandwidth (4:1 oversubscribed).
    # 16-GPU leaf domains force the DP group (stride tp = 8) across the spine.
    def fabric(spine):
        return FabricView(256, accelerator("H100-SXM5-80GB"), 8, (
            NetworkLevel("scale-up", 8, 450.0, 370.0, 0.5, 1),
            NetworkLevel("leaf", 16, 50.0, 47.0, 2.0, 1),
            NetworkLevel("spine", 256, spine, spine * 0.94, 3.0, 3),
        ))
    model = load_preset("llama3-70b").model
    p = Parallelism(tp=8, pp=1, dp=32, global_batch=32, zero_stage=1, recompute="full")
    full = run(model, p, fabric(50.0))
    oversub = run(model, p, fabric(12.5))
    assert oversub.breakdown_s["dp_comm"] > 2 * full.breakdown_s["dp_comm"]
    assert oversub.step_time_s > full.step_time_s
    assert oversub.breakdown_s["tp_comm"] == pytest.approx(full.breakdown_s["tp_comm"])


def test_tp_beyond_scale_up_crosses_the_nics():
    # TP 16 on 8-GPU A100 servers with 4 x HDR 200G per node (topologies.md §7: ~94 GB/s
    # per server): the TP collectives now cross the NICs, so each layer's TP traffic is slower.
    fabric = FabricView(64, accelerator("A100-SXM4-80GB"), 8, (
        NetworkLevel("scale-up", 8, 300.0, 240.0, 0.7, 1),
        NetworkLevel("leaf", 64, 12.5, 11.75, 2.0, 1),
    ))
    model = load_preset("llama3-70b").model
    exposed = PerformanceAssumptions(tp_overlap=0.0)
    inside = run(model, Parallelism(tp=8, pp=2, dp=4, global_batch=64, recompute="full"), fabric,
                 exposed)
    beyond = run(model, Parallelism(tp=16, pp=1, dp=4, global_batch=64, recompute="full"), fabric,
                 exposed)
    assert "TP_EXCEEDS_SCALE_UP" in {d.code for d in beyond.diagnostics}
    assert "TP_EXCEEDS_SCALE_UP" not in {d.code for d in inside.diagnostics}
    per_layer_inside = inside.breakdown_s["tp_comm"] / 40   # 80 layers on pp 2
    per_layer_beyond = beyond.breakdown_s["tp_comm"] / 80
    assert per_layer_beyond > 1.2 * per_layer_inside


def test_tp_share_of_step_on_h100():
    # §3 worked example: GPT-3 175B, TP 8 on H100 -> TP share 16-33% if exposed
    p = Parallelism(tp=8, pp=8, dp=1, global_batch=64, virtual_stages=3, recompute="selective")
    r = run(gpt(96, 12288, 96), p, dgx_h100(64), PerformanceAssumptions(tp_overlap=0.0))
    share = r.breakdown_s["tp_comm"] / (r.breakdown_s["compute"] + r.breakdown_s["tp_comm"])
    assert 0.10 <= share <= 0.33


def test_moe_expert_parallel_all_to_all():
    w = load_preset("mixtral-8x22b")
    r = analyze_performance(dgx_h100(512), w)
    assert r.breakdown_s["ep_comm"] > 0
    assert r.fits_memory
    # EP over the NICs (ep 8 at stride tp = 2 spans 16 GPUs) costs more than EP 4 in one server
    ep4 = with_parallelism(w, ep=4)
    r4 = analyze_performance(dgx_h100(512), ep4)
    assert r.breakdown_s["ep_comm"] > r4.breakdown_s["ep_comm"]
    # routing skew slows the step
    skewed = analyze_performance(dgx_h100(512), w, PerformanceAssumptions(ep_imbalance=1.3))
    assert skewed.step_time_s > r.step_time_s
    # MFU counts only the top-2 experts a token visits
    assert r.model_flops_per_step < 6 * 141e9 * 1024 * 4096


def test_context_parallel_long_sequence():
    model = dataclasses.replace(load_preset("llama3-70b").model, seq_len=131072)
    p = Parallelism(tp=8, cp=16, pp=1, dp=1, global_batch=1, recompute="full")
    r = run(model, p, dgx_h100(128))
    # K/V ring exchange hides behind the (long) attention core: little exposed CP time
    assert r.breakdown_s["cp_comm"] < 0.1 * r.step_time_s
    no_overlap = run(model, p, dgx_h100(128), PerformanceAssumptions(cp_overlap=0.0))
    assert no_overlap.breakdown_s["cp_comm"] > r.breakdown_s["cp_comm"]


# ---------------------------------------------------------------------------------------
# diagnostics instead of exceptions


def test_partial_job_uses_part_of_the_cluster():
    w = load_preset("gpt3-175b")  # 1,024 GPUs
    r = analyze_performance(dgx_a100(2048), w)
    assert r.job_gpus == 1024
    info = [d for d in r.diagnostics if d.code == "JOB_USES_PART_OF_CLUSTER"]
    assert info and "1,024" in info[0].message and "2,048" in info[0].message
    exact = analyze_performance(dgx_a100(2048).restricted_to(1024), w)
    assert r.step_time_s == pytest.approx(exact.step_time_s)


def test_oversized_job_cannot_run_and_has_no_numbers():
    w = load_preset("gpt3-175b")  # 1,024 GPUs
    r = analyze_performance(dgx_a100(512), w)
    assert [d.code for d in r.cannot_run] == ["PARALLELISM_EXCEEDS_GPUS"] and not r.runs
    assert "1,024" in r.cannot_run[0].message and "512" in r.cannot_run[0].message
    assert r.cannot_run[0].severity == "error" and r.cannot_run[0] in r.diagnostics
    assert r.mfu is r.hfu is r.step_time_s is r.tokens_per_s is r.training_days is None
    assert r.tflops_per_gpu is r.breakdown_s is r.bubble_fraction is None
    # what is still real: the layout, its GPUs and its memory
    assert r.job_gpus == 1024 and r.parallelism == w.parallelism
    assert r.memory_per_gpu_gb == analyze_performance(dgx_a100(1024), w).memory_per_gpu_gb


def test_fabric_without_bandwidth_cannot_run_not_an_exception():
    fabric = FabricView(1024, accelerator("H100-SXM5-80GB"), 8, (
        NetworkLevel("scale-up", 8, 450.0, 370.0, 0.5, 1),
        NetworkLevel("leaf", 1024, 0.0, 0.0, 2.0, 1),
    ))
    r = analyze_performance(fabric, load_preset("gpt3-175b"))
    assert [d.code for d in r.cannot_run] == ["NO_NETWORK_BANDWIDTH"]
    assert r.step_time_s is None and r.mfu is None and r.training_days is None
    assert r.breakdown_s is None and r.fits_memory


def test_job_larger_than_a_part_of_a_partitioned_fabric_cannot_run():
    # two 512-GPU parts no switch joins (topology adds an "unconnected" level without bandwidth)
    fabric = FabricView(1024, accelerator("H100-SXM5-80GB"), 8, (
        NetworkLevel("scale-up", 8, 450.0, 370.0, 0.5, 1),
        NetworkLevel("leaf", 512, 50.0, 47.0, 2.0, 1),
        NetworkLevel("unconnected", 1024, 0.0, 0.0, 2.0, 0),
    ))
    assert fabric.connected_gpus == 512
    whole = analyze_performance(fabric, load_preset("llama3-70b"))  # 1,024 GPUs
    assert [d.code for d in whole.cannot_run] == ["JOB_NOT_CONNECTED"]
    assert "1,024" in whole.cannot_run[0].message and "512" in whole.cannot_run[0].message
    assert whole.mfu is None and whole.step_time_s is None
    half = analyze_performance(fabric, with_parallelism(load_preset("llama3-70b"), dp=16))
    assert half.runs and 0 < half.mfu < 1
    # "auto" keeps the job inside one part
    auto = analyze_performance(fabric, dataclasses.replace(load_preset("llama3-70b"),
                                                           parallelism="auto"))
    assert auto.runs and auto.job_gpus <= 512


def test_precision_not_supported_falls_back_to_bf16():
    w = dataclasses.replace(load_preset("gpt3-175b"), precision="fp8")
    r = analyze_performance(dgx_a100(1024), w)
    assert "PRECISION_NOT_SUPPORTED" in {d.code for d in r.diagnostics}
    assert r.peak_tflops == 312 and r.precision == "bf16"


def test_fp8_on_h100_is_faster_but_mfu_uses_fp8_peak():
    w = load_preset("llama3-70b")
    bf16 = analyze_performance(dgx_h100(1024), w)
    fp8 = analyze_performance(dgx_h100(1024), dataclasses.replace(w, precision="fp8"))
    assert fp8.step_time_s < bf16.step_time_s
    assert fp8.peak_tflops == pytest.approx(1978.9)
    assert fp8.mfu < bf16.mfu  # against twice the peak (§1.3 "Peak")


def test_uneven_pipeline_slowest_stage_sets_the_pace():
    w = load_preset("llama3-405b")  # 126 layers on pp 16 x v 4 = 64 chunks
    r = analyze_performance(dgx_h100(16384), w)
    assert "UNEVEN_PIPELINE" in {d.code for d in r.diagnostics}
    # balanced ends (Llama 3 §3.3.2): 126 + embedding + loss = 128 = 16 x 8 slots
    message = next(d.message for d in r.diagnostics if d.code == "UNEVEN_PIPELINE")
    assert "first and last stages get 7 layers and the others 8" in message
    # 127 layers: the same fullest (middle) stage, 2 layers x 4 chunks, sets the same pace,
    # so the extra layer is free and MFU rises
    r127 = analyze_performance(dgx_h100(16384), dataclasses.replace(
        w, model=dataclasses.replace(w.model, layers=127)))
    assert r.step_time_s == pytest.approx(r127.step_time_s, rel=0.01)
    assert r.mfu < r127.mfu
    # 128 layers: even, but the last stage now carries 8 layers *and* the logits (why Meta
    # removed a layer from the first and last stages, Llama 3 paper §3.3.2)
    r128 = analyze_performance(dgx_h100(16384), dataclasses.replace(
        w, model=dataclasses.replace(w.model, layers=128)))
    assert "UNEVEN_PIPELINE" not in {d.code for d in r128.diagnostics}
    assert r128.step_time_s > r.step_time_s


def test_does_not_fit_memory_names_the_numbers():
    # without ZeRO every GPU holds the FP32 master weights and Adam moments of its 3.2B
    # parameters (38 GB) on top of the activations
    w = with_parallelism(load_preset("llama3-405b"), recompute="none", zero_stage=0)
    r = analyze_performance(dgx_h100(16384), w)
    d = [d for d in r.diagnostics if d.code == "DOES_NOT_FIT_MEMORY"]
    # what the H100 holds in bytes (81,559 MiB as the driver reports), beside its "80 GB"
    assert d and "H100-SXM5-80GB holds 85.5 GB (its spec sheet's 80 GB count GiB)" in d[0].message
    # ... and what recompute would make it fit: Meta's run used full recompute beyond 8K
    assert d[0].message.endswith("with recompute 'full' it needs 59.3 GB and fits")
    assert f"needs {r.memory_per_gpu_gb:.1f} GB" in d[0].message
    assert not r.fits_memory and r.memory_per_gpu_gb > 85.52


# ---------------------------------------------------------------------------------------
# definitions and contracts


def test_mfu_definition_and_derived_numbers():
    w = load_preset("llama3-70b")
    r = analyze_performance(dgx_h100(1024), w, ettr=0.9)
    assert r.mfu == pytest.approx(r.model_flops_per_step / (1024 * 989.4e12 * r.step_time_s))
    assert r.tflops_per_gpu == pytest.approx(r.mfu * 989.4)
    assert r.tokens_per_s == pytest.approx(512 * 8192 / r.step_time_s)
    assert r.training_days == pytest.approx(15e12 / r.tokens_per_s / 86400 / 0.9)
    assert r.hfu == pytest.approx(r.mfu)  # no recompute
    assert 0.25 < r.mfu < 0.55
    assert r.microbatches == 16


def test_breakdown_parts_sum_to_step_time():
    r = analyze_performance(dgx_h100(16384), load_preset("llama3-405b"))
    assert set(BREAKDOWN_PARTS) <= set(r.breakdown_s)
    for part in ("compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble",
                 "optimizer", "other"):
        assert part in r.breakdown_s
    assert sum(r.breakdown_s.values()) == pytest.approx(r.step_time_s)
    assert all(v >= 0 for v in r.breakdown_s.values())


def test_to_json_has_the_evaluation_contract_keys():
    out = analyze_performance(dgx_h100(1024), load_preset("llama3-70b")).to_json()
    for key in ("mfu", "tflops_per_gpu", "step_time_s", "tokens_per_s", "training_days",
                "memory_per_gpu_gb", "fits_memory", "breakdown_s"):
        assert key in out
    assert 0 < out["mfu"] < 1 and isinstance(out["breakdown_s"], dict)


def test_assumptions_round_trip_through_settings():
    a = PerformanceAssumptions(tp_overlap=0.5, gemm_efficiency_scale_by_accelerator={"B200": 0.5})
    raw = settings_to_dict(a, only_changed=True)
    assert raw == {"tp_overlap": 0.5, "gemm_efficiency_scale_by_accelerator": {"B200": 0.5}}
    assert settings_from_dict(PerformanceAssumptions, raw, "assumptions.performance") == a
    full = settings_to_dict(PerformanceAssumptions())
    assert settings_from_dict(PerformanceAssumptions, full, "x") == PerformanceAssumptions()


def test_gemm_efficiency_prior_depends_on_size():
    # Calculon thresholds (§2): >=128 GFLOP 0.95, 16 -> 0.90, 1 -> 0.60, times the calibration
    a = PerformanceAssumptions(gemm_efficiency_scale=1.0)
    assert gemm_efficiency(500, a) == pytest.approx(0.95)
    assert gemm_efficiency(16, a) == pytest.approx(0.90)
    assert gemm_efficiency(1, a) == pytest.approx(0.60)
    assert gemm_efficiency(4, a) < gemm_efficiency(64, a)
    default = PerformanceAssumptions()
    assert gemm_efficiency(500, default, "H100-SXM5-80GB") < gemm_efficiency(500, default, "A100-SXM4-80GB")


def test_tp_overlap_and_dp_overlap_assumptions():
    w = load_preset("llama3-70b")
    base = analyze_performance(dgx_h100(1024), w)  # default: TE comm-GEMM overlap (1.0)
    exposed = analyze_performance(dgx_h100(1024), w, PerformanceAssumptions(tp_overlap=0.0))
    partial = analyze_performance(dgx_h100(1024), w, PerformanceAssumptions(tp_overlap=0.8))
    assert base.breakdown_s["tp_comm"] < partial.breakdown_s["tp_comm"] < exposed.breakdown_s["tp_comm"]
    # hidden communication still costs compute (Calculon's processor_usage, 0.15 on NVLink)
    assert base.breakdown_s["tp_comm"] == pytest.approx(0.15 * exposed.breakdown_s["tp_comm"],
                                                        rel=0.02)
    serial = analyze_performance(dgx_h100(1024), w, PerformanceAssumptions(dp_overlap=False))
    assert serial.breakdown_s["dp_comm"] > base.breakdown_s["dp_comm"]


def test_straggler_grows_with_scale():
    model = load_preset("llama3-70b").model
    # one server: an 8-layer cut of the model (the whole 70B does not fit in 8 GPUs)
    one = run(dataclasses.replace(model, layers=8), Parallelism(tp=8, global_batch=8), dgx_h100(8))
    big = run(model, Parallelism(tp=8, pp=4, dp=256, global_batch=2048), dgx_h100(8192))
    assert one.breakdown_s["straggler"] == 0.0
    assert big.breakdown_s["straggler"] == pytest.approx(
        0.03 * (big.step_time_s - big.breakdown_s["straggler"] - big.breakdown_s["other"]))


def test_auto_parallelism_search():
    w = dataclasses.replace(load_preset("llama3-70b"), parallelism="auto")
    found = search_parallelism(dgx_h100(1024), w)
    best = found.best
    assert best.gpus <= 1024 and best.tp <= 8 and 80 % best.pp == 0
    assert found.runners_up and all(t >= found.step_time_s * 0.5 for _, t in found.runners_up)
    r = analyze_performance(dgx_h100(1024), w)
    assert r.parallelism == best and r.fits_memory
    assert "AUTO_PARALLELISM" in {d.code for d in r.diagnostics}
    assert r.alternatives == found.runners_up
    # the chosen layout is at least as good as the hand-written preset (time per token)
    preset = analyze_performance(dgx_h100(1024), load_preset("llama3-70b"))
    assert r.step_time_s / r.parallelism.global_batch <= preset.step_time_s / 512 * 1.001


def test_auto_search_moe_splits_the_experts_evenly():
    w = dataclasses.replace(load_preset("mixtral-8x22b"), parallelism="auto")
    found = search_parallelism(dgx_h100(512), w)
    assert 8 % found.best.ep == 0



# ---------------------------------------------------------------------------------------
# auto search: every valid layout that fits, ranked, runners-up explained


def test_auto_search_explains_why_runners_up_lose():
    w = dataclasses.replace(load_preset("llama3-70b"), parallelism="auto")
    found = search_parallelism(dgx_h100(1024), w, workers=1)
    assert found.considered >= found.evaluated // 3 and found.workers == 1
    winner, *others = found.candidates
    assert winner.parallelism == found.best and winner.loses_by == "" and winner.fits
    fitting = [c for c in others if c.fits]
    assert fitting, "runners-up expected"
    for cand in fitting:
        assert cand.loses_by in ("compute", "memory", "bubble", "communication", "scale")
        assert cand.slower_fraction >= 0.0
        assert cand.reason and "slower per token" in cand.reason
        assert (cand.parallelism.tp, cand.parallelism.cp, cand.parallelism.pp,
                cand.parallelism.ep) != (winner.parallelism.tp, winner.parallelism.cp,
                                         winner.parallelism.pp, winner.parallelism.ep)
    # runners_up (the old contract) lists the same layouts with their step times
    assert [p for p, _ in found.runners_up] == [c.parallelism for c in fitting]


def test_auto_search_parallel_path_matches_serial():
    w = dataclasses.replace(load_preset("mixtral-8x22b"), parallelism="auto")
    serial = search_parallelism(dgx_h100(512), w, workers=1)
    fanned = search_parallelism(dgx_h100(512), w, workers=2)
    assert fanned.best == serial.best
    assert fanned.step_time_s == pytest.approx(serial.step_time_s)
    assert fanned.evaluated == serial.evaluated and fanned.considered == serial.considered
    assert [p for p, _ in fanned.runners_up] == [p for p, _ in serial.runners_up]


def test_auto_search_reports_memory_rejections_and_scales_the_batch():
    # 405B on 16k GPUs: the auto batch grows with the cluster (~1k tokens per GPU, Llama 3
    # Table 4 used 16M tokens on 16k GPUs); its speed is measured by bench/bench_performance.py
    w = dataclasses.replace(load_preset("llama3-405b"), parallelism="auto")
    found = search_parallelism(dgx_h100(16384), w)
    assert found.best.global_batch * 8192 >= 15e6
    r = analyze_performance(dgx_h100(16384), w)
    assert r.search is not None and r.to_json()["search"]["candidates"][0]["loses_by"] == ""


def test_auto_search_nothing_fits_keeps_least_overflow():
    big = ModelSpec(layers=8, hidden=65536, ffn_hidden=262144, heads=64, seq_len=4096)
    w = Workload("huge", big, "auto")
    found = search_parallelism(dgx_h100(8), w, workers=1)
    assert "NO_CONFIGURATION_FITS" in {d.code for d in found.diagnostics}
    assert found.candidates and not found.candidates[0].fits
    assert found.candidates[0].loses_by == "memory"


# ---------------------------------------------------------------------------------------
# bottleneck: what limits MFU, and re-evaluated what-ifs


def test_bottleneck_limiters_and_what_ifs_are_re_evaluated():
    from core.analysis.bottleneck import explain_bottleneck

    w = load_preset("gpt3-175b")  # full recompute on H100, where selective/none fits
    perf = analyze_performance(dgx_h100(1024), w)
    bn = explain_bottleneck(dgx_h100(1024), w, PerformanceAssumptions(), perf)
    assert bn.mfu == pytest.approx(perf.mfu, rel=1e-9)
    assert bn.step_time_s == pytest.approx(perf.step_time_s, rel=1e-9)
    # limiters: ideal compute + limiters = the step
    assert bn.ideal_compute_s + sum(x.seconds for x in bn.limiters) == pytest.approx(
        perf.step_time_s, rel=1e-6)
    assert {x.key for x in bn.limiters} >= {"compute", "recompute", "tp_comm", "bubble"}
    # the best what-if fits memory, helps, and its number is a real re-evaluation
    assert bn.best is not None and bn.best.fits_memory and bn.best.mfu_gain > 0.005
    assert bn.best.key.startswith("recompute_") or "no_recompute" in bn.best.key
    redo = analyze_performance(dgx_h100(1024), with_parallelism(w, **bn.best.changes))
    assert bn.best.mfu == pytest.approx(redo.mfu, rel=1e-6)
    assert f"{100 * bn.mfu:.1f}%" in bn.best.text and f"{100 * bn.best.mfu:.1f}%" in bn.best.text
    assert bn.summary.startswith("MFU ")
    assert all(x.fits_memory for x in bn.what_ifs[: len([y for y in bn.what_ifs if y.fits_memory])])


def test_bottleneck_names_oversubscribed_tier_and_the_1to1_what_if():
    from core.analysis.bottleneck import explain_bottleneck

    def fabric(spine):
        return FabricView(256, accelerator("H100-SXM5-80GB"), 8, (
            NetworkLevel("scale-up", 8, 450.0, 370.0, 0.5, 1),
            NetworkLevel("leaf", 16, 50.0, 47.0, 2.0, 1),
            NetworkLevel("spine", 256, spine, spine * 0.94, 3.0, 3),
        ))
    w = Workload("70b", load_preset("llama3-70b").model,
                 Parallelism(tp=8, pp=1, dp=32, global_batch=32, zero_stage=1, recompute="full"))
    a = PerformanceAssumptions(dp_overlap=False)
    bn = explain_bottleneck(fabric(50.0 / 8), w, a)
    dp = next(x for x in bn.limiters if x.key == "dp_comm")
    assert "spine" in dp.text and "8:1" in dp.text
    flat = next(x for x in bn.what_ifs if x.key == "nonblocking")
    assert "1:1 spine" in flat.text and flat.mfu_gain > 0
    same = analyze_performance(fabric(50.0), w, a)
    assert flat.mfu == pytest.approx(same.mfu, rel=1e-6)


def test_evaluation_json_and_report_have_the_bottleneck():
    from core.catalog import default_catalog
    from core.evaluate import evaluate, evaluation_to_json
    from core.generators import FatTreeOptions, generate_fat_tree
    from core.report import render_report

    cat = default_catalog()
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), cat)
    ev = evaluate(design, cat, load_preset("gpt3-175b"))
    out = evaluation_to_json(ev)
    assert "performance" in out and "bottleneck" in out
    bn = out["bottleneck"]
    assert bn["primary"] and bn["summary"] and bn["limiters"] and bn["what_ifs"]
    assert bn["best"]["mfu"] > out["performance"]["mfu"]
    md = render_report(ev, "md")
    assert "## Bottleneck" in md and "Most help" in md
    assert "bottleneck.primary" in render_report(ev, "csv")
    assert evaluation_to_json(evaluate(design, cat, None))["bottleneck"] is None


def test_default_stack_reproduces_nvidia_nemo_h100_runs():
    # The defaults are the Megatron-Core / NeMo + TE stack whose H100 factor was fitted on
    # NVIDIA's NeMo 24.09 step times (dgxc-benchmarking READMEs; docs/validation.md rows N-*):
    # Llama 3.1 70B on 64 H100 (TP 4, PP 4, CP 2, VP 5, GBS 128) 14.72 s; GPT-3 175B on 128
    # (TP 4, PP 8, VP 12, GBS 256) 8.309 s. Hand-built fabric here: +-5%.
    llama70 = load_preset("llama3-70b").model
    p = Parallelism(tp=4, pp=4, cp=2, dp=2, micro_batch=1, global_batch=128, virtual_stages=5,
                    recompute="none")
    r = run(llama70, p, dgx_h100(64))
    assert r.fits_memory
    assert r.step_time_s == pytest.approx(14.72, rel=0.05)
    gpt3 = gpt(96, 12288, 96, causal=True, vocab=50688)
    p = Parallelism(tp=4, pp=8, dp=4, micro_batch=1, global_batch=256, virtual_stages=12,
                    recompute="none")
    r = run(gpt3, p, dgx_h100(128), PerformanceAssumptions(dropout=True))
    assert r.fits_memory
    assert r.step_time_s == pytest.approx(8.309, rel=0.05)


def test_default_stack_is_faster_than_the_2023_composer_stack_on_h100():
    # same workload, same fabric: the FSDP rows' stack (own H100 factor, FlashAttention-2)
    # realises less of the H100 than the default Megatron-Core + TE stack
    model = ModelSpec(layers=32, hidden=4096, ffn_hidden=16384, heads=32, vocab=50368,
                      seq_len=2048, causal=False)
    p = Parallelism(dp=8, micro_batch=6, global_batch=48, zero_stage=3, recompute="none")
    assert run(model, p, dgx_h100(8)).mfu > 1.1 * run(model, p, dgx_h100(8), COMPOSER_2023).mfu


def test_interleaving_hides_the_dp_reduction_per_model_chunk():
    # Megatron-Core reduces a model chunk's gradients after its last micro-batch backward, so
    # with v chunks the reduction hides behind the other chunks' backward
    w = load_preset("llama3-70b")  # TP 8, PP 4, DP 32 on 1,024 GPUs
    fabric = dgx_h100(1024, spine_gbyte_s=12.5)  # a slow spine makes the reduction visible
    plain = analyze_performance(fabric, with_parallelism(w, virtual_stages=1))
    chunked = analyze_performance(fabric, with_parallelism(w, virtual_stages=5))
    assert chunked.breakdown_s["dp_comm"] < 0.5 * plain.breakdown_s["dp_comm"]
    serial = analyze_performance(fabric, with_parallelism(w, virtual_stages=5),
                                 PerformanceAssumptions(dp_overlap=False))
    assert serial.breakdown_s["dp_comm"] > chunked.breakdown_s["dp_comm"]


def test_zero2_reduce_scatters_every_micro_batch():
    # ZeRO-2 keeps only a gradient shard, so it cannot accumulate m micro-batches before the
    # reduction: m reduce-scatters per step against one for ZeRO-1 (same all-gather), in
    # exchange for the gradient memory (ZeRO table, performance.md §6).
    w = load_preset("llama3-70b")
    fabric = dgx_h100(1024)
    serial = PerformanceAssumptions(dp_overlap=False)
    z1 = analyze_performance(fabric, with_parallelism(w, zero_stage=1), serial)
    z2 = analyze_performance(fabric, with_parallelism(w, zero_stage=2), serial)
    m = z1.microbatches
    assert m > 1
    # DP traffic: ZeRO-1 = rs + ag with rs == ag in time (same bytes), ZeRO-2 = m rs + ag
    assert z2.breakdown_s["dp_comm"] == pytest.approx(z1.breakdown_s["dp_comm"] * (m + 1) / 2,
                                                      rel=0.05)
    assert z2.memory.gradients_gb < z1.memory.gradients_gb / 10


def test_tp_overlap_only_inside_the_scale_up_domain():
    # TE comm-GEMM overlap needs the TP group on one NVLink domain (TransformerEngine #1071):
    # TP 16 on 8-GPU servers stays exposed with the default (overlapping) stack
    model = load_preset("llama3-70b").model
    p = Parallelism(tp=16, pp=1, dp=4, global_batch=64, recompute="full")
    default = run(model, p, dgx_h100(64))
    exposed = run(model, p, dgx_h100(64), PerformanceAssumptions(tp_overlap=0.0))
    assert default.breakdown_s["tp_comm"] == pytest.approx(exposed.breakdown_s["tp_comm"])
    inside = Parallelism(tp=8, pp=2, dp=4, global_batch=64, recompute="full")
    assert run(model, inside, dgx_h100(64)).breakdown_s["tp_comm"] < 0.2 * run(
        model, inside, dgx_h100(64), PerformanceAssumptions(tp_overlap=0.0)).breakdown_s["tp_comm"]


def test_blackwell_is_calibrated_and_amd_is_not():
    # GB200 fitted on NVIDIA's NeMo 25.04 NVL72 BF16 runs, B200 on Megatron-Bridge 25.11 FP8
    # runs (docs/validation.md rows G-*, BB-*); both on the measured GB200 GEMM curve. The
    # fitted GB200 factor is below H100's: Blackwell realises a smaller share of its nominal
    # peak (GB200 405B at 46% BF16 MFU vs H100 55% in the same release).
    a = PerformanceAssumptions()
    for acc in ("GB200", "B200"):
        assert acc in a.gemm_efficiency_scale_by_accelerator
        assert acc in a.gemm_curve_efficiency_by_accelerator
    assert (a.gemm_efficiency_scale_by_accelerator["GB200"]
            < a.gemm_efficiency_scale_by_accelerator["H100-SXM5-80GB"])
    assert "MI300X" not in a.gemm_efficiency_scale_by_accelerator
    catalog = default_catalog()
    model = load_preset("llama3-70b")

    def warnings(acc_id: str) -> set[str]:
        acc = catalog.get(acc_id)
        fabric = FabricView(1024, acc, 8, (
            NetworkLevel("scale-up", 8, 900.0, 738.0, 1.0, 1),
            NetworkLevel("leaf", 1024, 50.0, 47.0, 2.0, 1),
        ))
        return {d.code for d in analyze_performance(fabric, model).diagnostics}

    assert "UNCALIBRATED_ACCELERATOR" not in warnings("GB200")
    assert "UNCALIBRATED_ACCELERATOR" not in warnings("B200")
    assert "UNCALIBRATED_ACCELERATOR" in warnings("MI300X")


def test_mi300x_compute_rests_on_its_measured_gemm_ceiling():
    # No MI300X training run with a layout is public; its hipBLASLt sweep is (Azure ND MI300X
    # v5: best 1,159.2 of 2,614.9 TF/s FP8). The factor is that ceiling x the H100's step
    # realisation instead of "behaves like an A100", and the warning says so.
    a = PerformanceAssumptions()
    assert efficiency_scale(a, "MI300X") == pytest.approx(1159.2 / 2614.9 * 0.92, rel=0.01)
    # nothing measured: the A100-derived default at the optimistic end of its bracket
    assert efficiency_scale(a, "Ascend-910C", optimistic=True) == a.gemm_efficiency_scale
    model = load_preset("llama3-70b")
    catalog = default_catalog()

    def run(acc_id: str, scale_up: float, effective: float):
        fabric = FabricView(1024, catalog.get(acc_id), 8, (
            NetworkLevel("scale-up", 8, scale_up, effective, 1.0, 1),
            NetworkLevel("leaf", 1024, 50.0, 47.0, 2.0, 1),
        ))
        return analyze_performance(fabric, model)

    mi300x, h100 = run("MI300X", 448.0, 316.8), run("H100-SXM5-80GB", 450.0, 370.0)
    # 1.32x the H100's dense BF16 peak, but a GEMM ceiling of 0.44 against the H100's 0.70:
    # about 0.84x the H100's tokens/s, not 1.3x
    assert 0.7 < mi300x.tokens_per_s / h100.tokens_per_s < 1.0
    warning = next(d for d in mi300x.diagnostics if d.code == "UNCALIBRATED_ACCELERATOR")
    assert "measured GEMM ceiling" in warning.message


def test_auto_search_finds_metas_llama3_405b_layout():
    # Dubey et al. 2024 (Llama 3), Table 4 and §3.3.2: 405B on 16,384 H100 with TP 8, PP 16,
    # DP 128, 16M-token batches, no activation recompute and gradients sharded over DP. Given
    # only the model and the cluster, the search lands on the same layout. It keeps the
    # gradients whole (ZeRO-1): "no recompute" fits the 85.5 GB an H100 holds that way too, and
    # sharding them costs a reduce-scatter per micro-batch.
    catalog = default_catalog()
    design = generate_fat_tree(FatTreeOptions(16384, "DGX-H100", "QM9700"), catalog)
    fabric = analyze_topology(flatten(design, catalog)).fabric
    found = search_parallelism(fabric, dataclasses.replace(load_preset("llama3-405b"),
                                                           parallelism="auto"))
    best = found.best
    assert (best.tp, best.pp, best.dp, best.cp) == (8, 16, 128, 1)
    assert best.global_batch * 8192 == 2048 * 8192  # 16M tokens
    assert (best.recompute, best.zero_stage) == ("none", 1)
