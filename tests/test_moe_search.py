"""The parallelism search over MoE layouts (issue 21 item 7): expert parallelism over every
valid degree, a DeepSeek-V3-class model placed on thousands of H100s, runners-up explained."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from core.analysis.parallelism_search import _expert_parallel_options, search_parallelism
from core.catalog import default_catalog
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.topology import analyze_topology
from core.workload import workload_from_dict

# DeepSeek-V3's shape (config.json, resources/workloads/SOURCES.md): 61 layers, 3 dense, 256
# routed experts of FFN 2048, top-8, one shared expert; 671B parameters, 37B active.
DEEPSEEK_V3 = {"layers": 61, "hidden": 7168, "ffn_hidden": 18432, "heads": 128,
               "kv_heads": 128, "vocab": 129280, "seq_len": 4096, "activation": "swiglu",
               "causal": True,
               "moe": {"experts": 256, "top_k": 8, "shared_experts": 1,
                       "expert_ffn_hidden": 2048, "dense_layers": 3}}


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


def test_deepseek_v3_on_2048_h100_finds_a_fitting_expert_parallel_layout():
    wl = workload_from_dict({"name": "DeepSeek-V3", "model": DEEPSEEK_V3,
                             "parallelism": "auto", "precision": "fp8"})
    found = search_parallelism(_h100_fabric(2048), wl, workers=1)
    assert found.failure is None and found.step_time_s is not None
    best = found.candidates[0]
    assert best.fits and best.memory_gb <= 80
    assert found.best.ep > 1 and 256 % found.best.ep == 0
    assert found.best.gpus <= 2048
    # every runner-up says why it loses, with its numbers
    others = [c for c in found.candidates[1:] if c.fits]
    assert others and all("slower per token" in c.reason for c in others)
