"""The parallelism search over MoE layouts (issue 21 item 7): expert parallelism over every
valid degree, a DeepSeek-V3-class model placed on thousands of H100s, runners-up explained."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings, strategies as st

from core.analysis.parallelism_search import (_expert_layouts, _expert_parallel_options,
                                              search_parallelism)
from core.catalog import default_catalog
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.topology import analyze_topology
from core.workload import WorkloadError, load_preset, workload_from_dict

# DeepSeek-V3 (config.json, resources/workloads/SOURCES.md; arXiv 2412.19437 §2): MLA, 61
# layers, 3 dense, 256 routed experts of FFN 2048, top-8 on at most 4 nodes, one shared expert,
# one MTP module; 671B parameters, 37B active.
DEEPSEEK_V3 = {"layers": 61, "hidden": 7168, "ffn_hidden": 18432, "heads": 128,
               "kv_heads": 128, "vocab": 129280, "seq_len": 4096, "activation": "swiglu",
               "causal": True,
               "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                       "qk_nope_head_dim": 128, "v_head_dim": 128},
               "mtp_depth": 1,
               "moe": {"experts": 256, "top_k": 8, "shared_experts": 1,
                       "expert_ffn_hidden": 2048, "dense_layers": 3, "route_nodes": 4}}


def _h100_fabric(gpus: int):
    catalog = default_catalog()
    design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), catalog)
    return analyze_topology(flatten(design, catalog)).fabric


@given(st.integers(1, 4096), st.integers(1, 100_000))
@settings(max_examples=200, deadline=None)
def test_expert_parallel_degrees_are_every_common_divisor(experts, replicas):
    options = _expert_parallel_options(experts, replicas)
    assert options[0] == 1 and options == sorted(set(options))
    assert all(experts % e == 0 and replicas % e == 0 for e in options)
    assert options[-1] == math.gcd(experts, replicas)


def test_expert_parallelism_need_not_be_a_power_of_two():
    # 160 routed experts (GLM-4.5's count) on 40 replicas: EP 5, 10, 20 and 40 are valid
    assert _expert_parallel_options(160, 40) == [1, 2, 4, 5, 8, 10, 20, 40]


@pytest.mark.parametrize("gpus", [2048, 16384])
def test_deepseek_v3_on_h100_finds_a_fitting_expert_parallel_layout(gpus):
    """Issue 21 item 7: the deepseek-v3 preset (as trained: MLA, MTP, FP8 blocks) with its
    layout left to the search, on 2,048 and 16,384 H100s."""
    wl = dataclasses.replace(load_preset("deepseek-v3"), parallelism="auto")
    assert wl.model.mla is not None and wl.model.moe.experts == 256
    found = search_parallelism(_h100_fabric(gpus), wl, workers=1)
    assert found.failure is None and found.step_time_s is not None
    best = found.candidates[0]
    assert best.fits and best.memory_gb <= 80
    assert found.best.ep > 1 and 256 % found.best.ep == 0
    assert found.best.gpus <= gpus
    # every runner-up says why it loses, with its numbers
    others = [c for c in found.candidates[1:] if c.fits]
    assert others and all("slower per token" in c.reason for c in others)


def test_expert_tp_folds_into_the_stage():
    """ETP 1 under TP 2 lets EP take TP's GPUs too (MoE parallel folding): NVIDIA's Qwen3-235B
    H100 recipe runs TP 2, ETP 1, EP 32 on DP 16 (Megatron-Bridge recipes/qwen/h100)."""
    layouts = set(_expert_layouts(128, tp=2, cp=1, dp=16))
    assert (16, 0) in layouts and (32, 0) not in layouts  # ETP = TP: EP from DP only
    assert (32, 1) in layouts and (64, 1) not in layouts  # ETP 1: EP over tp x dp = 32
    assert all(128 % ep == 0 for ep, _ in layouts)
    assert set(_expert_layouts(128, tp=1, cp=1, dp=16)) == {(e, 0) for e in (1, 2, 4, 8, 16)}


def test_schema_takes_expert_tp_and_the_engine_prices_it():
    """parallelism.expert_tp (0: as tp) is validated as MoE parallel folding, and expert TP 1
    under TP 2 keeps each expert whole on one GPU: more expert weights per GPU than ETP 2 at
    the same EP."""
    raw = {"name": "q", "model": {**DEEPSEEK_V3}, "precision": "fp8",
           "parallelism": {"tp": 2, "pp": 1, "dp": 16, "ep": 32, "expert_tp": 1,
                           "global_batch": 64}}
    assert workload_from_dict(raw).parallelism.expert_tp_effective == 1
    with pytest.raises(WorkloadError, match=r"parallelism\.ep: 32 must divide dp x cp = 16"):
        workload_from_dict({**raw, "parallelism": {**raw["parallelism"], "expert_tp": 0}})
    with pytest.raises(WorkloadError, match=r"parallelism\.expert_tp: expert_tp x ep = 64"):
        workload_from_dict({**raw, "parallelism": {**raw["parallelism"], "ep": 64}})
    from core.analysis.memory import memory_for
    from core.assumptions.performance import PerformanceAssumptions
    wl = workload_from_dict({**raw, "parallelism": {**raw["parallelism"], "ep": 16}})
    folded = wl.parallelism
    plain = dataclasses.replace(folded, expert_tp=0)
    assert plain.expert_tp_effective == 2
    a = PerformanceAssumptions()
    assert memory_for(wl.model, folded, 80.0, a).total_gb > \
        memory_for(wl.model, plain, 80.0, a).total_gb


def test_runners_up_the_model_cannot_tell_apart_are_left_out():
    """Two layouts with the same predicted step, part by part, say nothing about why one
    loses: only the first is listed (the next distinct shape takes the place)."""
    from core.analysis.layout_ranking import Ranked
    from core.analysis.parallelism_search import _runners_up
    from core.workload import Parallelism
    parts = {"compute": 1.0, "ep_comm": 0.5}
    best = Ranked(1e-6, 1.5, Parallelism(tp=2, dp=8, ep=8, global_batch=64), 60.0, parts, 0.0)
    twin = Ranked(1e-6, 1.5, Parallelism(tp=2, dp=8, ep=8, expert_tp=1, global_batch=64), 50.0,
                  dict(parts), 0.0)
    other = Ranked(2e-6, 3.0, Parallelism(tp=1, dp=16, ep=16, global_batch=64), 60.0,
                   {"compute": 2.0, "ep_comm": 1.0}, 0.0)
    assert _runners_up([best, twin, other], 4) == [other]
