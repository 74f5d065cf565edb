"""Parameter and FLOP counts (performance.md §1)."""

from __future__ import annotations

import pytest

from core.analysis.model_stats import (
    flops_per_token,
    hardware_flops_per_token,
    model_flops_per_step,
    model_flops_per_token,
    parameter_count,
)
from core.workload import ModelSpec, MoeSpec, load_preset


def gpt(layers, hidden, heads, seq=2048, vocab=51200, causal=True):
    """MHA, 4h GeLU MLP: the shape the §1.2 closed forms assume."""
    return ModelSpec(layers=layers, hidden=hidden, ffn_hidden=4 * hidden, heads=heads,
                     vocab=vocab, seq_len=seq, activation="gelu", causal=causal)


def test_gpt3_175b_parameter_count():
    # GPT-3 175B (Brown et al. 2020 Table 2.1): 96 L, h 12288 -> ~175B parameters
    count = parameter_count(load_preset("gpt3-175b").model, tied_embeddings=True)
    assert count.total == pytest.approx(175e9, rel=0.01)
    # 12 h^2 per layer (attention 4h^2 + MLP 8h^2)
    assert count.attention + count.dense_mlp == 12 * 12288**2


def test_llama3_parameter_counts():
    # Llama 3 paper Table 3: 70B and 405B (GQA, SwiGLU, V 128256)
    assert parameter_count(load_preset("llama3-70b").model).total == pytest.approx(70.6e9, rel=0.01)
    assert parameter_count(load_preset("llama3-405b").model).total == pytest.approx(405e9, rel=0.01)


def test_mixtral_total_and_active_parameters():
    # Mistral AI, Mixtral 8x22B announcement: 141B total, 39B active
    count = parameter_count(load_preset("mixtral-8x22b").model)
    assert count.total == pytest.approx(141e9, rel=0.01)
    assert count.active == pytest.approx(39e9, rel=0.02)


@pytest.mark.parametrize(
    "model, batch",
    [
        (gpt(48, 6144, 64), 4),        # Korthikanti 22B (§9 row 5)
        (gpt(96, 12288, 96), 64),      # 175B (row 6)
        (gpt(105, 20480, 128), 280),   # 530B (row 7)
        (gpt(128, 25600, 160), 512),   # 1T (row 8)
    ],
)
def test_korthikanti_72_form_equals_megatron_count_non_causal(model, batch):
    # performance.md §1.2: 72 B s L h^2 (1 + s/6h + V/12Lh) for MHA, 4h MLP, non-causal (a = 2)
    L, h, s, V = model.layers, model.hidden, model.seq_len, model.vocab
    korthikanti = 72 * batch * s * L * h**2 * (1 + s / (6 * h) + V / (12 * L * h))
    ours = model_flops_per_token(model, causal=False) * batch * s
    assert ours == pytest.approx(korthikanti, rel=1e-12)
    assert model_flops_per_step(model, batch, causal=False) == pytest.approx(korthikanti, rel=1e-12)


def test_narayanan_96_form_is_hfu_with_full_recompute():
    # performance.md §1.2: 96 B s L h^2 (1 + s/6h + V/16Lh): one more forward, logits not redone
    model = gpt(105, 20480, 128, causal=False)  # MT-NLG 530B (§9 rows 9-11)
    L, h, s, V, B = model.layers, model.hidden, model.seq_len, model.vocab, 1920
    form = 96 * B * s * L * h**2 * (1 + s / (6 * h) + V / (16 * L * h))
    ours = hardware_flops_per_token(model, "full") * B * s
    assert ours == pytest.approx(form, rel=1e-12)
    # and the MT-NLG TF/s it reproduces: 125.7 TF/s at 60.1 s on 2,240 GPUs (§9 rows 9-11)
    assert ours / 2240 / 60.1 / 1e12 == pytest.approx(125.7, rel=0.005)


def test_selective_recompute_adds_attention_core_forward():
    # performance.md §1.2: MFU numerator + 4 B s^2 h per layer (MHA, non-causal)
    model = gpt(96, 12288, 96, causal=False)
    extra = (hardware_flops_per_token(model, "selective") - model_flops_per_token(model)) * model.seq_len
    assert extra == pytest.approx(model.layers * 4 * model.seq_len**2 * model.hidden, rel=1e-12)


@pytest.mark.parametrize("ratio, expected", [(1 / 6, 0.014), (1.0, 0.077), (8.0, 0.40)])
def test_causal_toggle_ratio(ratio, expected):
    # performance.md §1.3: non-causal / causal = (1 + s/6h)/(1 + s/12h):
    # +1.4% at s = h/6, +7.7% at s = h, +40% at s = 8h (vocabulary negligible here)
    h = 12288
    s = int(ratio * h)
    model = ModelSpec(layers=96, hidden=h, ffn_hidden=4 * h, heads=96, vocab=1, seq_len=s)
    got = model_flops_per_token(model, causal=False) / model_flops_per_token(model, causal=True)
    assert got == pytest.approx((1 + s / (6 * h)) / (1 + s / (12 * h)), rel=1e-4)
    assert got - 1 == pytest.approx(expected, abs=0.002)


def test_causal_default_follows_model():
    causal = gpt(24, 2048, 16)
    assert model_flops_per_token(causal) == model_flops_per_token(causal, causal=True)
    non = gpt(24, 2048, 16, causal=False)
    assert model_flops_per_token(non) == model_flops_per_token(non, causal=False)


def test_gqa_swiglu_llama3_70b_per_token_flops():
    # §1.1 with GQA (h_kv = 8 x 128) and g = 3: 6 x (linear params + logits) + 6 L a h_q s, a = 1
    model = load_preset("llama3-70b").model
    h, f, L, s, V = 8192, 28672, 80, 8192, 128256
    h_kv = 8 * 128
    linear = L * (h * (h + 2 * h_kv) + h * h + 3 * h * f)
    expected = 6 * (linear + h * V) + 6 * L * 1 * h * s
    assert model_flops_per_token(model) == pytest.approx(expected, rel=1e-12)
    # SwiGLU counts three MLP matrices: a 4h-style two-matrix count would be 1/3 lower
    assert flops_per_token(model).dense_mlp == 2 * 3 * h * f


def test_moe_flops_count_routed_and_shared_experts():
    # §1.1: f_mlp = k f_e + n_sh f_sh on MoE layers, f on the leading dense layers
    moe = MoeSpec(experts=64, top_k=6, shared_experts=2, expert_ffn_hidden=1408, dense_layers=1)
    model = ModelSpec(layers=28, hidden=2048, ffn_hidden=10944, heads=16, vocab=102400,
                      seq_len=4096, activation="swiglu", moe=moe)
    h, s, V = 2048, 4096, 102400
    attn = h * (h + 2 * h) + h * h
    dense = 1 * (attn + 3 * h * 10944)
    moe_layers = 27 * (attn + 3 * h * (6 * 1408 + 2 * 1408))
    expected = 6 * (dense + moe_layers) + 6 * 28 * h * s + 6 * h * V
    assert model_flops_per_token(model) == pytest.approx(expected, rel=1e-12)


def test_hardware_flops_rejects_unknown_recompute():
    with pytest.raises(ValueError):
        hardware_flops_per_token(gpt(2, 256, 4), "sometimes")
