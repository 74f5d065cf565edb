"""Workload JSON validation: every bad input is a WorkloadError naming the JSON path."""

from __future__ import annotations

import copy
import json

import pytest

from core.errors import WorkloadError
from core.workload import (
    Parallelism,
    list_presets,
    load_preset,
    load_workload,
    with_parallelism,
    workload_from_dict,
    workload_to_dict,
)

GOOD = {
    "name": "GPT-3 175B",
    "model": {"layers": 96, "hidden": 12288, "ffn_hidden": 49152, "heads": 96, "kv_heads": 96,
              "vocab": 51200, "seq_len": 2048, "activation": "gelu",
              "moe": {"experts": 0, "top_k": 0, "shared_experts": 0, "expert_ffn_hidden": 0,
                      "dense_layers": 0}},
    "parallelism": {"tp": 8, "pp": 8, "dp": 16, "cp": 1, "ep": 1, "micro_batch": 1,
                    "global_batch": 1536, "virtual_stages": 1, "zero_stage": 1,
                    "recompute": "none"},
    "precision": "bf16",
    "training_tokens": 300e9,
}


def mutate(path: str, value, delete: bool = False) -> dict:
    raw = copy.deepcopy(GOOD)
    node = raw
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[key]
    if delete:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return raw


def test_design_md_example_is_valid():
    w = workload_from_dict(GOOD)
    assert w.parallelism.gpus == 1024
    assert w.parallelism.microbatches == 96
    assert w.model.causal is True  # default: causal attention
    assert workload_from_dict(workload_to_dict(w)) == w


def test_auto_parallelism_and_defaults():
    raw = {"model": {"layers": 2, "hidden": 64, "ffn_hidden": 256, "heads": 4},
           "parallelism": "auto"}
    w = workload_from_dict(raw)
    assert w.auto and w.precision == "bf16" and w.training_tokens == 300e9
    assert w.model.kv_heads_effective == 4 and w.model.vocab == 51200


@pytest.mark.parametrize("name", sorted(list_presets()))
def test_presets_load_and_round_trip(name):
    w = load_preset(name)
    assert workload_from_dict(workload_to_dict(w)) == w
    assert w.parallelism.gpus >= 512


@pytest.mark.parametrize(
    "path, value, where",
    [
        ("extra", 1, "workload.extra"),
        ("model.depth", 1, "workload.model.depth"),
        ("model.moe.routers", 1, "workload.model.moe.routers"),
        ("parallelism.sp", 2, "workload.parallelism.sp"),
        ("model.hidden", "big", "workload.model.hidden"),
        ("model.layers", 2.5, "workload.model.layers"),
        ("model.layers", 0, "workload.model.layers"),
        ("model.layers", -4, "workload.model.layers"),
        ("model.heads", 100, "workload.model.heads"),
        ("model.kv_heads", 7, "workload.model.kv_heads"),
        ("model.activation", "tanh", "workload.model.activation"),
        ("model.causal", "yes", "workload.model.causal"),
        ("model.moe", [], "workload.model.moe"),
        ("model.moe.experts", 8, "workload.model.moe.top_k"),
        ("model", "gpt", "workload.model"),
        ("parallelism.tp", True, "workload.parallelism.tp"),
        ("parallelism.tp", 0, "workload.parallelism.tp"),
        ("parallelism.micro_batch", 0, "workload.parallelism.micro_batch"),
        ("parallelism.zero_stage", 4, "workload.parallelism.zero_stage"),
        ("parallelism.recompute", "some", "workload.parallelism.recompute"),
        ("parallelism.global_batch", 1000, "workload.parallelism.global_batch"),
        ("parallelism.ep", 3, "workload.parallelism.ep"),
        ("parallelism.pp", 128, "workload.parallelism.pp"),
        ("parallelism.tp", 7, "workload.parallelism.tp"),  # must divide the attention heads
        ("parallelism", "manual", "workload.parallelism"),
        ("precision", "int4", "workload.precision"),
        ("training_tokens", -1, "workload.training_tokens"),
        ("training_tokens", "many", "workload.training_tokens"),
        ("name", 7, "workload.name"),
    ],
)
def test_bad_values_name_their_path(path, value, where):
    with pytest.raises(WorkloadError) as err:
        workload_from_dict(mutate(path, value))
    assert where in str(err.value)


@pytest.mark.parametrize(
    "path, where",
    [("model", "workload.model"), ("parallelism", "workload.parallelism"),
     ("model.layers", "workload.model.layers"), ("model.heads", "workload.model.heads")],
)
def test_missing_required_keys_name_their_path(path, where):
    with pytest.raises(WorkloadError) as err:
        workload_from_dict(mutate(path, None, delete=True))
    assert where in str(err.value)


def test_moe_top_k_above_experts_and_ep_not_dividing_experts():
    raw = mutate("model.moe", {"experts": 8, "top_k": 9})
    with pytest.raises(WorkloadError, match=r"workload\.model\.moe\.top_k"):
        workload_from_dict(raw)
    raw = mutate("model.moe", {"experts": 6, "top_k": 2})
    raw["parallelism"]["ep"] = 4
    with pytest.raises(WorkloadError, match=r"workload\.parallelism\.ep"):
        workload_from_dict(raw)


def test_uneven_layers_are_allowed():
    # 126 layers on pp 16 (Llama 3 405B): the slowest stage sets the pace; not an error
    raw = mutate("model.layers", 126)
    raw["parallelism"]["pp"] = 16
    raw["parallelism"]["dp"] = 8
    raw["parallelism"]["global_batch"] = 64
    assert workload_from_dict(raw).model.layers == 126


def test_not_an_object():
    with pytest.raises(WorkloadError, match="^workload: expected a JSON object"):
        workload_from_dict([1, 2])


def test_load_workload_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text("{\"model\": ", encoding="utf-8")
    with pytest.raises(WorkloadError, match=r"w\.json: invalid JSON at line 1"):
        load_workload(bad)
    with pytest.raises(WorkloadError, match="cannot read"):
        load_workload(tmp_path / "missing.json")
    bad.write_text(json.dumps(mutate("model.hidden", -1)), encoding="utf-8")
    with pytest.raises(WorkloadError, match=r"w\.json\.model\.hidden"):
        load_workload(bad)


def test_unknown_preset():
    with pytest.raises(WorkloadError, match="unknown workload preset"):
        load_preset("gpt-5")


def test_with_parallelism():
    w = with_parallelism(workload_from_dict(GOOD), tp=4, dp=32)
    assert isinstance(w.parallelism, Parallelism) and w.parallelism.gpus == 1024


def test_interleaving_needs_a_pipeline():
    raw = mutate("parallelism.virtual_stages", 2)
    raw["parallelism"]["pp"] = 1
    with pytest.raises(WorkloadError, match="interleaving needs pp > 1"):
        workload_from_dict(raw)


def test_llama3_405b_one_layer_chunks_are_allowed():
    # arXiv 2407.21783 §3.3.2: 126 layers on 16 stages x 8 chunks, first and last stage one short.
    raw = workload_to_dict(load_preset("llama3-405b"))
    raw["parallelism"].update(pp=16, virtual_stages=8)
    assert workload_from_dict(raw).parallelism.virtual_stages == 8
    raw["parallelism"].update(virtual_stages=9)
    with pytest.raises(WorkloadError, match="cannot fill"):
        workload_from_dict(raw)


@pytest.mark.parametrize("path, value, message", [
    # integer fields take integers only, within a range the message states
    ("model.layers", 96.0, r"workload\.model\.layers: expected an integer, got 96\.0$"),
    ("model.layers", 10**30, r"workload\.model\.layers: 1000000000000000000000000000000 is outside the allowed 1 to 10,000$"),
    ("parallelism.global_batch", 0, r"workload\.parallelism\.global_batch: 0 is outside the allowed 1 to 1,000,000,000$"),
    ("parallelism.zero_stage", 4, r"workload\.parallelism\.zero_stage: 4 is outside the allowed 0 to 3$"),
    ("model.seq_len", float("nan"), r"workload\.model\.seq_len: expected an integer, got nan$"),
    # the token count is a finite number (10**400 used to overflow float())
    ("training_tokens", float("inf"), r"workload\.training_tokens: expected a number above 0 and at most 1e\+18, got inf$"),
    ("training_tokens", 10**400, r"workload\.training_tokens: expected a number above 0 and at most 1e\+18"),
])
def test_integer_fields_and_the_token_count_are_bounded(path, value, message):
    with pytest.raises(WorkloadError, match=message):
        workload_from_dict(mutate(path, value))


def test_a_workload_built_in_code_is_checked_when_a_design_takes_it():
    from core.model import Block, Design  # noqa: PLC0415
    from core.workload import ModelSpec, Workload  # noqa: PLC0415

    good = workload_from_dict(GOOD)
    assert Design("d", Block("root"), workload=good).workload is good
    odd_heads = Workload("w", ModelSpec(4, 512, 2048, 7), Parallelism())  # 512 % 7 != 0
    with pytest.raises(WorkloadError, match=r"^workload\.model\.heads: hidden 512 is not divisible by 7"):
        Design("d", Block("root"), workload=odd_heads)
