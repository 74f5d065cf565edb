"""Fitting a preset to a design: the split is kept, DP fills the GPUs, the batch stays close."""

from __future__ import annotations

import dataclasses
from math import gcd

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.errors import WorkloadError
from core.preset_fit import fit_to_design
from core.workload import list_presets, load_preset, with_parallelism, workload_from_dict, workload_to_dict

PRESETS = sorted(list_presets())
KEPT = ("tp", "pp", "cp", "ep", "micro_batch", "virtual_stages", "zero_stage", "recompute")


@st.composite
def layouts(draw):
    """A preset's model with any layout the workload rules accept (CP and EP included)."""
    preset = load_preset(draw(st.sampled_from(PRESETS)))
    model = preset.model
    tp = draw(st.sampled_from([d for d in (1, 2, 4, 8, 16) if model.heads % d == 0]))
    pp = draw(st.sampled_from([1, 2, 4, 8, 16]))
    cp = draw(st.sampled_from([1, 2, 4]))
    ep = draw(st.sampled_from([d for d in (1, 2, 4, 8) if not model.moe.enabled or model.moe.experts % d == 0]
                              if model.moe.enabled else [1]))
    micro = draw(st.sampled_from([1, 2, 4]))
    stages = draw(st.sampled_from([1, 2, 4])) if pp > 1 else 1
    dp = draw(st.integers(1, 64)) * (ep // gcd(ep, cp))
    global_batch = dp * micro * draw(st.integers(1, 64))
    try:
        return with_parallelism(preset, tp=tp, pp=pp, cp=cp, ep=ep, dp=dp, micro_batch=micro,
                                virtual_stages=stages, global_batch=global_batch)
    except WorkloadError:
        assume(False)  # e.g. more pipeline chunks than layers
        raise


@given(layouts(), st.one_of(st.integers(0, 4096), st.integers(0, 2_000_000)))
def test_fitted_layout_fits_keeps_the_split_and_is_valid(workload, gpus):
    par = workload.parallelism
    fitted, note = fit_to_design(workload, gpus, "p")
    new = fitted.parallelism
    dp_step = par.ep // gcd(par.ep, par.cp)
    if gpus < par.tp * par.pp * par.cp * dp_step:
        assert fitted == workload and "does not fit" in note  # said plainly, no invented layout
        return
    assert new.gpus <= gpus
    assert (new.dp + dp_step) * par.model_parallel > gpus  # the largest DP the design allows
    for key in KEPT:
        assert getattr(new, key) == getattr(par, key), key
    assert fitted.model == workload.model and fitted.precision == workload.precision
    assert workload_from_dict(workload_to_dict(fitted)) == fitted  # the workload rules accept it
    # Megatron: whole micro-batches per replica; interleaving needs a multiple of PP of them.
    step = new.dp * new.micro_batch * (new.pp if new.virtual_stages > 1 else 1)
    assert new.global_batch % step == 0
    # The batch fills the design: each replica keeps the preset's micro-batches per step
    # (rounded up to a multiple of PP when interleaved).
    per_replica = max(1, par.global_batch // (par.dp * par.micro_batch))
    assert per_replica <= new.global_batch // (new.dp * new.micro_batch) < per_replica + par.pp
    if fitted != workload:
        assert fitted.preset_fit.preset_parallelism == par and fitted.preset_fit.design_gpus == gpus
        assert fitted.preset_fit.note == note and f"DP {par.dp:,} -> {new.dp:,}" in note


@pytest.mark.parametrize("name", PRESETS)
def test_a_preset_on_its_own_cluster_is_unchanged(name):
    preset = load_preset(name)
    same, note = fit_to_design(preset, preset.parallelism.gpus, name)
    assert same == preset and same.preset_fit is None and "already fills" in note


def test_llama3_405b_on_twice_its_cluster():
    preset = load_preset("llama3-405b")  # TP 8, PP 16 x 4 interleaved, DP 128, 2,048 sequences
    fitted, note = fit_to_design(preset, 32_768, "llama3-405b")
    assert fitted.parallelism.dp == 256 and fitted.parallelism.gpus == 32_768
    # Twice the replicas, each with the preset's 16 micro-batches: twice the batch.
    assert fitted.parallelism.global_batch == 4096
    assert note == ("Preset Llama 3 405B fitted to 32,768 GPUs: DP 128 -> 256, global batch 2,048 -> 4,096 "
                    "sequences (16 micro-batches of 1 per replica, as in the preset); TP 8, PP 16 kept")
    assert fitted.preset_fit.preset == "llama3-405b"


def test_batch_follows_dp_and_the_note_says_what_is_idle():
    preset = load_preset("gpt3-175b")  # TP 8, PP 8, DP 16, 1,536 sequences: 96 per replica
    fitted, note = fit_to_design(preset, 580, "gpt3-175b")
    assert fitted.parallelism.dp == 9 and fitted.parallelism.global_batch == 864  # 96 x 9
    assert "1,536 -> 864 sequences (96 micro-batches of 1 per replica, as in the preset)" in note
    assert "4 GPUs stay idle" in note
    fitted, _ = fit_to_design(preset, 16_384, "gpt3-175b")
    assert fitted.parallelism.dp == 256 and fitted.parallelism.global_batch == 24_576


def test_too_few_micro_batches_for_the_pipeline_are_called_out():
    preset = with_parallelism(load_preset("gpt3-175b"), global_batch=96)  # 6 per replica, PP 8
    fitted, note = fit_to_design(preset, 16_384, "gpt3-175b")
    assert fitted.parallelism.dp == 256 and fitted.parallelism.global_batch == 1536
    assert "only 6 micro-batches per replica for 8 pipeline stages" in note
    assert "a global batch of 2,048 gives one per stage" in note


def test_expert_parallelism_keeps_dp_times_cp_a_multiple_of_ep():
    mixtral = load_preset("mixtral-8x22b")  # TP 2, PP 4, EP 8
    fitted, _ = fit_to_design(mixtral, 8 * 60, "mixtral-8x22b")  # 60 replicas would not divide by EP 8
    assert fitted.parallelism.dp == 56 and fitted.parallelism.ep == 8
    with_cp = with_parallelism(mixtral, cp=2, dp=4, global_batch=1024)
    fitted, _ = fit_to_design(with_cp, 16 * 10, "x")  # DP x CP 2 needs a multiple of 8: DP multiple of 4
    assert fitted.parallelism.dp == 8 and (fitted.parallelism.dp * 2) % 8 == 0


def test_a_design_smaller_than_one_replica_keeps_the_preset_and_says_so():
    preset = load_preset("megatron-1t")  # TP 8 x PP 64 = 512 GPUs per replica
    same, note = fit_to_design(preset, 256, "megatron-1t")
    assert same == preset
    assert note == ("Preset Megatron 1T (SC'21 Table 1) needs at least 512 GPUs (TP 8 x PP 64 x CP 1) and the "
                    "design has 256: kept as written, the job does not fit")
    mixtral = load_preset("mixtral-8x22b")
    _, note = fit_to_design(mixtral, 32, "mixtral-8x22b")
    assert "needs at least 64 GPUs (TP 2 x PP 4 x CP 1 x DP 8 for EP 8)" in note


def test_auto_layouts_are_left_to_the_search():
    auto = dataclasses.replace(load_preset("llama3-70b"), parallelism="auto")
    same, note = fit_to_design(auto, 4096)
    assert same == auto and "searches its layout" in note


def test_fit_record_round_trips_and_a_new_layout_drops_it():
    fitted, _ = fit_to_design(load_preset("llama3-70b"), 2048, "llama3-70b")
    raw = workload_to_dict(fitted)
    assert raw["preset_fit"]["preset_parallelism"]["dp"] == 32 and raw["preset_fit"]["design_gpus"] == 2048
    assert workload_from_dict(raw) == fitted
    assert with_parallelism(fitted, recompute="full").preset_fit is None  # no longer the fitted layout
    assert "preset_fit" not in workload_to_dict(load_preset("llama3-70b"))  # unfitted JSON unchanged


@pytest.mark.parametrize("change, message", [
    ({"design_gpus": 0}, "preset_fit.design_gpus: 0 is outside the allowed 1 to 10,000,000"),
    ({"preset_parallelism": "auto"}, "preset_fit.preset_parallelism: expected an object"),
    ({"preset_parallelism": {"tp": 0}}, "preset_fit.preset_parallelism.tp"),
    ({"note": 3}, "preset_fit.note: expected a string"),
    ({"extra": 1}, "preset_fit.extra: unknown key"),
])
def test_bad_fit_records_name_their_path(change, message):
    fitted, _ = fit_to_design(load_preset("llama3-70b"), 2048, "llama3-70b")
    raw = workload_to_dict(fitted)
    raw["preset_fit"].update(change)
    with pytest.raises(WorkloadError, match=message):
        workload_from_dict(raw)
