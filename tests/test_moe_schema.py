"""The training schema describes today's MoE: MLA, MTP, routing limits, capacity, imbalance,
precision recipes, module recompute and activation offload; errors name the JSON path and old
files keep their JSON."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.memory import memory_for
from core.analysis.model_stats import hardware_flops_per_token
from core.assumptions.performance import PerformanceAssumptions
from core.errors import WorkloadError
from core.precision_recipes import RECIPES
from core.workload import (PRECISIONS, PRESETS_DIR, RECOMPUTE, load_workload, workload_from_dict,
                           workload_to_dict)

_DSV3_MODEL = {
    "layers": 61, "hidden": 7168, "ffn_hidden": 18432, "heads": 128, "vocab": 129280,
    "seq_len": 4096, "activation": "swiglu", "mtp_depth": 1,
    "mla": {"kv_lora_rank": 512, "qk_rope_head_dim": 64, "q_lora_rank": 1536},
    "moe": {"experts": 256, "top_k": 8, "shared_experts": 1, "expert_ffn_hidden": 2048,
            "dense_layers": 3, "route_nodes": 4, "imbalance": 1.2},
}


def _workload(model=None, **par):
    layout = {"tp": 1, "pp": 1, "dp": 64, "ep": 64, "micro_batch": 1, "global_batch": 64, **par}
    return {"model": model or _DSV3_MODEL, "parallelism": layout, "precision": "fp8-block"}


def test_a_deepseek_v3_class_training_workload_loads_and_round_trips():
    wl = workload_from_dict(_workload(recompute="norms-up-proj", activation_offload=True))
    assert wl.model.mla.kv_lora_rank == 512 and wl.model.mtp_depth == 1
    assert wl.model.moe.route_nodes == 4 and wl.model.moe.imbalance == 1.2
    assert wl.parallelism.activation_offload and wl.parallelism.recompute == "norms-up-proj"
    assert workload_from_dict(workload_to_dict(wl)) == wl


@pytest.mark.parametrize("path, value, where", [
    (("model", "mla", "kv_lora_rank"), 0, "workload.model.mla.kv_lora_rank"),
    (("model", "mla", "rank"), 1, "workload.model.mla.rank"),
    (("model", "moe", "capacity_factor"), "big", "workload.model.moe.capacity_factor"),
    (("model", "moe", "imbalance"), 0.5, "workload.model.moe.imbalance"),
    (("model", "mtp_depth"), -1, "workload.model.mtp_depth"),
    (("parallelism", "recompute"), "half", "workload.parallelism.recompute"),
    (("precision",), "fp6", "workload.precision"),
])
def test_bad_values_name_their_json_path(path, value, where):
    raw = json.loads(json.dumps(_workload()))
    node = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(WorkloadError) as err:
        workload_from_dict(raw)
    assert str(err.value).startswith(where)


def test_routing_fields_need_experts():
    dense = {"layers": 4, "hidden": 64, "ffn_hidden": 256, "heads": 4, "moe": {"route_nodes": 2}}
    with pytest.raises(WorkloadError, match=r"model\.moe\.route_nodes: needs experts"):
        workload_from_dict({"model": dense, "parallelism": {"tp": 1}})


def test_old_files_keep_their_json():
    """Every bundled training preset writes back a key added with this schema only when the
    file has it (so older files keep their JSON and evaluation JSON)."""
    added = {"model": {"mla", "mtp_depth", "head_size"},
             "moe": {"route_nodes", "capacity_factor", "imbalance"},
             "parallelism": {"activation_offload"}}
    for path in sorted(PRESETS_DIR.glob("*.json")):
        raw = json.loads(path.read_text())
        if raw.get("kind", "training") != "training":
            continue
        out = workload_to_dict(load_workload(path))
        sections = {"model": (raw["model"], out["model"]),
                    "moe": (raw["model"].get("moe", {}), out["model"]["moe"]),
                    "parallelism": (raw["parallelism"], out["parallelism"])}
        for name, (written, read_back) in sections.items():
            assert added[name] & set(read_back) <= set(written), (path.name, name)


def test_every_precision_has_a_recipe_and_every_recompute_mode_is_listed():
    assert set(PRECISIONS) == set(RECIPES)
    assert RECOMPUTE[0] == "none" and RECOMPUTE[-1] == "full"
    # DeepSeek-V3 §3.3: dispatch in FP8, combine in BF16, BF16 moments, FP32 gradients
    block = RECIPES["fp8-block"]
    assert block.dispatch_bytes < 1.1 and block.combine_bytes == 2.0
    assert block.moment_bytes == 4.0 and block.grad_bytes == 4.0


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-5, 10_000), st.floats(-5, 1e4),
                 st.text(max_size=5))


@settings(max_examples=150, deadline=None)
@given(route=_ANY, capacity=_ANY, imbalance=_ANY, mtp=_ANY, head=_ANY, rank=_ANY,
       recompute=st.sampled_from([*RECOMPUTE, "half"]), precision=st.sampled_from([*PRECISIONS, "fp6"]),
       offload=_ANY)
def test_any_moe_field_value_loads_or_names_its_path(route, capacity, imbalance, mtp, head, rank,
                                                     recompute, precision, offload):
    raw = json.loads(json.dumps(_workload()))
    model = raw["model"]
    model["moe"].update(route_nodes=route, capacity_factor=capacity, imbalance=imbalance)
    model.update(mtp_depth=mtp, head_size=head)
    model["mla"]["kv_lora_rank"] = rank
    raw["parallelism"].update(recompute=recompute, activation_offload=offload, pp=4, dp=16,
                              ep=16, global_batch=64)
    raw["precision"] = precision
    try:
        wl = workload_from_dict(raw)
    except WorkloadError as err:
        assert str(err).startswith("workload.")
        return
    memory = memory_for(wl.model, wl.parallelism, 80.0, PerformanceAssumptions(),
                        precision=wl.precision)
    assert memory.total_gb > 0
    assert hardware_flops_per_token(wl.model, wl.parallelism.recompute) > 0
