"""Memory per GPU (performance.md §6)."""

from __future__ import annotations

import pytest

from core.analysis.memory import (
    activation_bytes_per_token,
    ends_balanced,
    inflight_microbatches,
    memory_per_gpu,
    model_state_bytes_per_param,
    stage_layer_counts,
    stage_layers,
)
from core.workload import ModelSpec, Parallelism, load_preset

GIB = 2**30


def gpt(layers, hidden, heads, seq=2048, vocab=51200):
    return ModelSpec(layers=layers, hidden=hidden, ffn_hidden=4 * hidden, heads=heads,
                     vocab=vocab, seq_len=seq, activation="gelu")


@pytest.mark.parametrize(
    "stage, expected",
    [(0, 16.0), (1, 4 + 12 / 64), (2, 2 + 14 / 64), (3, 16 / 64)],
)
def test_zero_table_bytes_per_param(stage, expected):
    # performance.md §6 table (ZeRO, SC'20): 16 | 4 + 12/N_d | 2 + 14/N_d | 16/N_d
    assert sum(model_state_bytes_per_param(stage, 64)) == pytest.approx(expected)


@pytest.mark.parametrize("stage, gb", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_7_5b_on_64_gpus(stage, gb):
    # ZeRO paper (Rajbhandari et al., SC'20) Figure 1: 7.5B parameters, N_d = 64
    per_param = sum(model_state_bytes_per_param(stage, 64))
    assert 7.5e9 * per_param / 1e9 == pytest.approx(gb, abs=0.05)


def test_zero_stage_shrinks_model_states_in_memory_per_gpu():
    model = load_preset("llama3-70b").model
    base = dict(tp=8, pp=4, dp=32, global_batch=512, virtual_stages=5)
    states = [
        memory_per_gpu(model, Parallelism(**base, zero_stage=z), 80.0).model_states_gb
        for z in (0, 1, 2, 3)
    ]
    assert states[0] > states[1] > states[2] > states[3]
    params = memory_per_gpu(model, Parallelism(**base, zero_stage=0), 80.0).params_per_gpu
    assert states[0] == pytest.approx(16 * params / 1e9)
    assert states[1] == pytest.approx((4 + 12 / 32) * params / 1e9)


def test_korthikanti_activation_coefficients_mha():
    # Korthikanti et al. §4: s b h (34 + 5 a s / h) per layer, no recompute; 34 with selective
    # recompute (or FlashAttention); 2 s b h with full recompute
    model = gpt(96, 12288, 96)
    h, a, s = 12288, 96, 2048
    assert activation_bytes_per_token(model, "none", flash_attention=False) == 34 * h + 5 * a * s
    assert activation_bytes_per_token(model, "selective", flash_attention=False) == 34 * h
    assert activation_bytes_per_token(model, "none", flash_attention=True) == 34 * h
    assert activation_bytes_per_token(model, "full") == 2 * h


def test_gqa_and_swiglu_rederive_the_34():
    # GQA stores smaller K/V; SwiGLU stores the two fc1 outputs (gate and up) and the product
    llama = load_preset("llama3-70b").model
    h, f, h_kv = 8192, 28672, 1024
    expected = 4 * h + (3 * h + 4 * h + 4 * h_kv) + (3 * h + 4 * f + 2 * f)
    assert activation_bytes_per_token(llama, "selective") == expected


@pytest.mark.parametrize(
    "model, par, gib",
    [
        # Korthikanti et al. Figure 1 (SP + selective), as tabulated in Calculon validation.py
        (gpt(48, 6144, 64), Parallelism(tp=8, micro_batch=4, global_batch=4), 9.5625),
        (gpt(96, 12288, 96), Parallelism(tp=8, pp=8, global_batch=64, virtual_stages=3), 12.3515625),
        (gpt(105, 20480, 128), Parallelism(tp=8, pp=35, global_batch=280, virtual_stages=3), 23.076171875),
        (gpt(128, 25600, 160), Parallelism(tp=8, pp=64, global_batch=512), 26.5625),
    ],
)
def test_korthikanti_figure1_activation_memory(model, par, gib):
    from dataclasses import replace

    par = replace(par, recompute="selective", zero_stage=0)
    mem = memory_per_gpu(model, par, 80.0, flash_attention=False)
    assert mem.stage == "first" or par.pp == 1
    # 1F1B first stage holds L layers' worth, x (1 + (p-1)/(p v)) when interleaved
    assert mem.activations_gb * 1e9 / GIB == pytest.approx(gib, rel=0.02)


def test_korthikanti_175b_weights_and_optimizer_close_to_profile():
    # Figure 1 profile: 45.56 GiB parameters + optimizer. Megatron keeps fp32 main grads
    # (18 B/param); the ZeRO table's 16 B/param is ~10% lower (Calculon is 8.5% off too, §6).
    par = Parallelism(tp=8, pp=8, global_batch=64, virtual_stages=3, zero_stage=0,
                      recompute="selective")
    mem = memory_per_gpu(gpt(96, 12288, 96), par, 80.0, flash_attention=False)
    assert mem.model_states_gb * 1e9 / GIB == pytest.approx(45.5625, rel=0.12)
    assert mem.model_states_gb * 1e9 / GIB < 45.5625


def test_full_recompute_keeps_layer_inputs_only():
    model = gpt(96, 12288, 96)
    sel = memory_per_gpu(model, Parallelism(tp=8, pp=8, global_batch=64, recompute="selective"), 80.0)
    full = memory_per_gpu(model, Parallelism(tp=8, pp=8, global_batch=64, recompute="full"), 80.0)
    assert full.activations_gb < sel.activations_gb / 10


def test_interleaving_factor_and_inflight_microbatches():
    model = gpt(96, 12288, 96)
    plain = memory_per_gpu(model, Parallelism(tp=8, pp=8, global_batch=64), 80.0)
    inter = memory_per_gpu(model, Parallelism(tp=8, pp=8, global_batch=64, virtual_stages=4), 80.0)
    assert plain.inflight_microbatches == 8
    assert inter.activations_gb / plain.activations_gb == pytest.approx(1 + 7 / 32)
    few = memory_per_gpu(model, Parallelism(tp=8, pp=8, global_batch=2), 80.0)
    assert few.inflight_microbatches == 2  # fewer micro-batches than stages


def test_logits_buffer_on_last_stage_fp32():
    # s b V / t elements, fp32 (performance.md §6)
    model = load_preset("llama3-70b").model
    mem = memory_per_gpu(model, Parallelism(tp=8, global_batch=8), 1000.0)
    assert mem.logits_gb == pytest.approx(8192 * 128256 / 8 * 4 / 1e9)


def test_does_not_fit_and_overheads():
    model = load_preset("llama3-405b").model
    mem = memory_per_gpu(model, Parallelism(tp=8, pp=16, dp=128, global_batch=2048,
                                            virtual_stages=4, recompute="none"), 80.0)
    assert not mem.fits and mem.total_gb > 80
    ok = memory_per_gpu(model, Parallelism(tp=8, pp=16, dp=128, global_batch=2048,
                                          virtual_stages=4, recompute="full"), 80.0)
    assert ok.fits and ok.headroom_gb > 0
    assert ok.workspace_gb + ok.framework_gb == pytest.approx(3.5)
    parts = (ok.weights_gb + ok.gradients_gb + ok.optimizer_gb + ok.activations_gb
             + ok.logits_gb + ok.workspace_gb + ok.framework_gb)
    assert ok.total_gb == pytest.approx(parts)


def test_expert_parallel_shards_expert_states():
    model = load_preset("mixtral-8x22b").model
    base = dict(tp=2, pp=4, dp=64, global_batch=1024)
    ep1 = memory_per_gpu(model, Parallelism(**base, ep=1), 80.0)
    ep8 = memory_per_gpu(model, Parallelism(**base, ep=8), 80.0)
    assert ep8.params_per_gpu < ep1.params_per_gpu / 4
    # ZeRO-1 optimizer of experts is sharded over dp*cp/ep, dense parts over dp*cp
    assert ep8.weights_gb < ep1.weights_gb


def test_uneven_stage_layers():
    # the first L mod (p v) chunks get one more layer: the slowest stage (ceil) sets the pace;
    # stage i holds chunks i, i + p, ... (the last stage of 126 / (16 x 4): 2 + 2 + 2 + 1)
    assert stage_layers(126, 16, 1) == (8, 7)
    assert stage_layers(126, 16, 4) == (8, 7)
    assert stage_layers(96, 8, 3) == (12, 12)
    assert stage_layers(48, 1, 1) == (48, 48)


def test_no_dropout_drops_the_masks():
    # Korthikanti's 34 s b h holds two 1-byte dropout masks (h each); without dropout: 32 h,
    # and the attention-dropout part of the score term goes (5 -> 2 a s)
    model = gpt(96, 12288, 96)
    h, a, s = 12288, 96, 2048
    assert activation_bytes_per_token(model, "none", flash_attention=True, dropout=False) == 32 * h
    assert activation_bytes_per_token(model, "none", flash_attention=False,
                                      dropout=False) == 32 * h + 2 * a * s
    assert activation_bytes_per_token(model, "full", dropout=False) == 2 * h


def test_balanced_pipeline_ends_llama3():
    # Llama 3 §3.3.2: 126 layers + embedding + loss = 128 slots on 16 stages -> 7 / 8 / 7
    assert ends_balanced(126, 16, 1) and ends_balanced(126, 16, 4)
    assert stage_layer_counts(126, 16, 4, balance_ends=True) == (7, 8, 7)
    assert stage_layer_counts(126, 16, 4, balance_ends=False) == (8, 8, 7)
    # even splits and splits that +2 does not fix are unchanged
    assert not ends_balanced(96, 8, 3)
    assert stage_layer_counts(96, 8, 3, balance_ends=True) == (12, 12, 12)
    assert stage_layer_counts(127, 16, 4, balance_ends=True) == (8, 8, 7)


def test_inflight_microbatches_per_stage():
    # 1F1B: stage i holds min(m, p - i); interleaved (Megatron): 2(p - i - 1) + (v - 1) p + 1
    # chunk forwards of 1/v of the stage, i.e. p (1 + (p - 1)/(p v)) on the first stage
    assert inflight_microbatches(8, 1, 64, 0) == 8
    assert inflight_microbatches(8, 1, 64, 7) == 1
    assert inflight_microbatches(8, 1, 2, 0) == 2
    assert inflight_microbatches(8, 4, 64, 0) == pytest.approx(8 * (1 + 7 / 32))
    assert inflight_microbatches(8, 4, 64, 7) == pytest.approx((3 * 8 + 1) / 4)
    assert inflight_microbatches(1, 1, 64, 0) == 1


def test_llama3_stage_split_puts_the_peak_on_a_middle_stage():
    # with balanced ends the second stage (8 layers, p - 1 + ... in flight) is the fullest
    model = load_preset("llama3-405b").model
    par = Parallelism(tp=8, pp=16, dp=128, global_batch=2048, virtual_stages=4,
                      recompute="none")
    balanced = memory_per_gpu(model, par, 80.0, dropout=False, balance_ends=True)
    front = memory_per_gpu(model, par, 80.0, dropout=False, balance_ends=False)
    assert balanced.stage == "middle"
    assert balanced.total_gb < front.total_gb


def test_gradient_buffer_precision():
    # fp32 gradient accumulation (Llama 3 §3.3.2; Megatron-LM's bf16 default) doubles the
    # gradient bytes of the ZeRO table
    model = load_preset("llama3-70b").model
    par = Parallelism(tp=8, pp=4, dp=32, global_batch=512, virtual_stages=5)
    bf16 = memory_per_gpu(model, par, 80.0)
    fp32 = memory_per_gpu(model, par, 80.0, grad_bytes=4.0)
    assert fp32.gradients_gb == pytest.approx(2 * bf16.gradients_gb)
    assert fp32.weights_gb == pytest.approx(bf16.weights_gb)


def test_all_to_all_overlap_holds_one_layer_more_not_one_micro_batch():
    # Megatron-Core's combined 1F1B (overlap_moe_expert_parallel_comm): one warm-up forward
    # more, then each forward runs with another micro-batch's backward, layer k paired with the
    # last layer still to run backward, released after it (combined_1f1b.py,
    # model_chunk_schedule_plan.py): the peak grows by one layer of the stage, not one
    # micro-batch
    assert inflight_microbatches(1, 1, 64, 0, combined_layers=48) == pytest.approx(1 + 1 / 48)
    assert inflight_microbatches(1, 1, 1, 0, combined_layers=48) == 1  # no combined step
    assert inflight_microbatches(8, 4, 64, 0, combined_layers=12) == pytest.approx(
        8 * (1 + 7 / 32) + 1 / 12)
    # every micro-batch already in flight before the first backward: nothing is combined
    assert inflight_microbatches(8, 4, 4, 0, combined_layers=12) == 4
    model = load_preset("mixtral-8x22b").model
    par = Parallelism(tp=1, ep=8, dp=8, micro_batch=1, global_batch=64)
    plain = memory_per_gpu(model, par, 1000.0)
    overlapped = memory_per_gpu(model, par, 1000.0, extra_warmup=1)
    per_layer = plain.activations_gb / model.layers
    assert overlapped.activations_gb == pytest.approx(plain.activations_gb + per_layer)


def test_module_recompute_keeps_the_attention_scores_of_unfused_attention():
    # Megatron-Core's recompute modules layernorm / mla_up_proj / mlp / moe_act do not re-run
    # core attention ("core_attn" is its own module, the schema's "selective"): without
    # FlashAttention the softmax (2 a s bytes per token without dropout) stays stored
    model = gpt(24, 2048, 16)
    scores = 2 * model.heads * model.seq_len
    for mode in ("norms-up-proj", "moe-experts"):
        unfused = activation_bytes_per_token(model, mode, flash_attention=False, dropout=False)
        fused = activation_bytes_per_token(model, mode, flash_attention=True, dropout=False)
        assert unfused - fused == scores
    assert activation_bytes_per_token(model, "selective", flash_attention=False) == \
        activation_bytes_per_token(model, "selective", flash_attention=True)
