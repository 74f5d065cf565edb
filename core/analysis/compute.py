"""Kernel times on one GPU: the GEMMs, attention core and element-wise work of a transformer layer.

performance.md §2: every GEMM of a layer (QKV, projection, MLP fc1/fc2, experts, router, logits,
the attention core) is timed as max(FLOPs / (peak x efficiency(size)), bytes / HBM), with the
efficiency of ``calibration.py``. Memory-bound kernels (LayerNorm, activation, bias-dropout-add,
MoE permutation and, without FlashAttention, the s^2 softmax/dropout) are timed by the bytes
they move at the achieved HBM bandwidth. Backward is dgrad + wgrad, twice the forward FLOPs.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.calibration import (
    efficiency_basis,
    flash_attention_efficiency,
    gemm_efficiency_prior,
)
from core.analysis.moe_layer import expert_ffn, expert_skew
from core.assumptions.performance import PerformanceAssumptions
from core.catalog import ComponentSpec
from core.diagnostics import Diagnostic
from core.errors import CatalogError
from core.precision_recipes import RECIPES, block_scaled_tensor_cores, recipe
from core.workload import ModelSpec, Parallelism


def dense_peak(accelerator: ComponentSpec, precision: str,
               diags: list[Diagnostic] | None) -> tuple[float, str]:
    """(dense peak TFLOP/s, precision it refers to) of ``accelerator`` for ``precision`` (a
    training precision recipe: its linear GEMMs' peak, core/precision_recipes.py).

    An accelerator without that precision in the catalog falls back to its bf16 peak, with a
    ``PRECISION_NOT_SUPPORTED`` warning appended to ``diags`` (when given); so does a block-
    scaled recipe (MXFP8, NVFP4) on an accelerator without FP4 tensor cores, the generation
    that brought hardware block scaling (Blackwell, CDNA4).
    """
    rec = RECIPES.get(precision)
    gemm = rec.gemm_precision if rec is not None else precision
    reason = f"has no dense {gemm} peak in the catalog"
    if rec is not None and rec.needs_block_scaling and not block_scaled_tensor_cores(accelerator):
        reason = f"has no block-scaled ({precision}) tensor cores"
    else:
        try:
            return accelerator.peak_tflops(gemm), precision
        except (CatalogError, KeyError):
            pass
    fallback = accelerator.peak_tflops("bf16")
    if diags is not None:
        diags.append(
            Diagnostic(
                "PRECISION_NOT_SUPPORTED",
                f"{accelerator.id} {reason}; "
                f"using its bf16 peak ({fallback:g} TFLOP/s) for compute and MFU",
                (accelerator.id,),
            )
        )
    return fallback, "bf16"


class Hardware:
    """The rates one GPU runs kernels at, for one precision (a plain object: it is on the hot
    path of the parallelism search)."""

    __slots__ = ("peak", "peak_attn", "hbm", "a", "gemm_scale", "attn_scale", "acc")

    def __init__(self, accelerator: ComponentSpec, precision: str, peak_tflops: float,
                 a: PerformanceAssumptions):
        peak = peak_tflops * 1e12
        basis = efficiency_basis(a, accelerator.id, accelerator.year)
        scale = basis.scale
        rec = recipe(precision)
        if rec.gemm_precision == "fp4":
            # an NVFP4 GEMM realises a smaller share of its peak than an FP8 one (measured;
            # core/assumptions/kernels.py); the FP8 factor below applies on top
            peak *= a.fp4_over_fp8_gemm_share_by_accelerator.get(accelerator.id, 1.0)
        bf16 = min(peak, accelerator.peak_tflops("bf16") * 1e12)
        # the GEMM curve it runs on: its measured one, or (uncalibrated, conservative) the
        # calibrated family's that caps it, or "" (none: Calculon's table)
        self.acc = basis.curve_id
        # FLOP/s for the linear layers (the recipe's peak); a share kept in BF16 (NVFP4's last
        # layers) runs at the BF16 peak
        share = rec.high_precision_share
        self.peak = peak if share <= 0 else 1.0 / ((1.0 - share) / peak + share / bf16)
        # FLOP/s for the attention core: it stays bf16 under the low-precision recipes
        self.peak_attn = bf16 if rec.low_precision_gemm else peak
        self.hbm = accelerator.hbm_tbyte_s * 1e12 * a.hbm_efficiency  # achieved B/s
        self.a = a
        # calibration (x the fp8 factor) for linear layers; the attention core takes it plain
        self.gemm_scale = scale * (a.fp8_gemm_efficiency_scale if rec.low_precision_gemm else 1.0)
        self.attn_scale = scale

    def gemm(self, m: float, k: float, n: float) -> float:
        """Seconds for one (m x k) @ (k x n) GEMM: roofline of compute and operand traffic."""
        flops = 2.0 * m * k * n
        if flops <= 0:
            return 0.0
        t_c = flops / (self.peak * gemm_efficiency_prior(flops / 1e9, self.a, self.acc)
                       * self.gemm_scale)
        t_m = 2.0 * (m * k + k * n + m * n) / self.hbm
        return t_c if t_c > t_m else t_m

    def stream(self, nbytes: float) -> float:
        """Seconds to move ``nbytes`` through HBM (memory-bound kernels)."""
        return nbytes / self.hbm


# Not frozen: the parallelism search makes thousands (a frozen init costs 3x a slotted one).
@dataclass(slots=True)
class LayerCompute:
    """Compute seconds of one transformer layer for one micro-batch on one GPU."""

    fwd_s: float        # forward
    bwd_s: float        # backward
    recompute_s: float  # recomputation (full: the forward again; selective: the attention core)
    core_fwd_s: float   # attention core forward (the window CP traffic hides behind)
    core_bwd_s: float   # attention core backward


def layer_compute(model: ModelSpec, par: Parallelism, hw: Hardware, a: PerformanceAssumptions,
                  moe_layer: bool) -> LayerCompute:
    """Kernel times of one (dense or MoE) transformer layer for one micro-batch on one GPU."""
    tp, cp, ep = par.tp, par.cp, par.ep
    h = model.hidden
    h_q = model.heads * model.head_dim
    h_kv = model.kv_heads_effective * model.head_dim
    g = 3 if model.gated else 2
    s = model.seq_len
    T = par.micro_batch * s / cp  # tokens this TP group processes

    # GEMMs (forward); backward is dgrad + wgrad = 2x forward FLOPs.
    routed_fwd = 0.0
    mla = model.mla
    if mla is not None:
        # MLA (DeepSeek-V2 §2.1): the down-projections are replicated over TP (Megatron-Core
        # MLA, "duplicated" linear layers), the up-projections and the output split over it
        heads = model.heads / tp
        q_in = h
        gemm_fwd = 0.0
        if mla.q_lora_rank:
            gemm_fwd += hw.gemm(T, h, mla.q_lora_rank)
            q_in = mla.q_lora_rank
        gemm_fwd += (hw.gemm(T, q_in, heads * mla.qk_head_dim)
                     + hw.gemm(T, h, mla.kv_lora_rank + mla.qk_rope_head_dim)
                     + hw.gemm(T, mla.kv_lora_rank, heads * (mla.qk_nope_head_dim + mla.v_head_dim))
                     + hw.gemm(T, heads * mla.v_head_dim, h))
    else:
        gemm_fwd = hw.gemm(T, h, (h_q + 2 * h_kv) / tp) + hw.gemm(T, h_q / tp, h)
    # 2 LayerNorms (4h each), 2 bias-dropout-add (7h each). Sequence parallelism splits them
    # over the TP group; without it every TP rank repeats them on the whole sequence
    # (Korthikanti et al. §4.2.2: the reason SP also saves time).
    sp = a.sequence_parallel or tp == 1
    elem_fwd = 22.0 * h * T / (tp if sp else 1)
    if moe_layer and model.moe.enabled:
        moe = model.moe
        f_e = expert_ffn(model)
        local_experts = max(1, moe.experts // ep)
        # the busiest expert-parallel rank sets the pace (its skew, capped by a capacity factor)
        skew = expert_skew(model, par, a)
        # tokens routed to one local expert (balanced), then the busiest rank x imbalance: the
        # grouped GEMM runs one expert's tokens at a time, so a small per-expert batch runs at
        # the small-GEMM efficiency of the size curve
        # (the expert group's expert_tp x ep GPUs take the T/tp tokens of each; an expert's
        # tokens are split over its expert-TP ranks by FFN columns)
        etp = par.expert_tp_effective
        tok_e = T / tp * moe.top_k * ep * etp / moe.experts * skew  # the busiest rank's experts
        per_expert = hw.gemm(tok_e, h, (g - 1) * f_e / etp) + hw.gemm(tok_e, f_e / etp, h)
        routed_fwd = local_experts * per_expert
        gemm_fwd += routed_fwd
        if moe.shared_experts:
            f_sh = moe.shared_experts * f_e
            gemm_fwd += hw.gemm(T, h, (g - 1) * f_sh / tp) + hw.gemm(T, f_sh / tp, h)
        gemm_fwd += hw.gemm(T, h, moe.experts)  # router
        elem_fwd += T / tp * (
            moe.top_k * (8.0 * h + 2.0 * g * f_e) * skew
            + moe.shared_experts * 2.0 * g * f_e
        )
    else:
        f = model.ffn_hidden
        gemm_fwd += hw.gemm(T, h, (g - 1) * f / tp) + hw.gemm(T, f / tp, h)
        elem_fwd += 2.0 * g * f * T / tp  # activation: read g-1 inputs of f, write f (bf16)

    # Attention core: QK^T and AV. FlashAttention skips the masked half of a causal matrix;
    # the unfused path computes the whole square and streams the scores through HBM.
    causal_work = 0.5 if (a.flash_attention and model.causal) else 1.0
    if mla is not None:  # QK^T over the nope + RoPE head, AV over the value head
        core_flops = 2.0 * T * s * model.heads * (mla.qk_head_dim + mla.v_head_dim) / tp * causal_work
    else:
        core_flops = 4.0 * T * s * h_q / tp * causal_work
    core_eff = gemm_efficiency_prior(core_flops / 1e9, a, hw.acc) * hw.attn_scale
    if a.flash_attention:
        core_eff *= flash_attention_efficiency(a, hw.acc)
        core_fwd = core_flops / (hw.peak_attn * core_eff)
        core_bwd = 2.0 * core_fwd
    else:
        scores = T * model.heads / tp * s  # score elements per micro-batch
        core_fwd = core_flops / (hw.peak_attn * core_eff) + hw.stream(13.0 * scores)
        core_bwd = 2.0 * core_flops / (hw.peak_attn * core_eff) + hw.stream(17.0 * scores)

    fwd = gemm_fwd + hw.stream(elem_fwd) + core_fwd
    recompute = 0.0
    if par.recompute == "full":
        recompute = fwd
    elif par.recompute != "none":
        # the attention core; then the norms and activations (element-wise) and MLA's K/V
        # up-projection; then the routed experts' MLPs
        recompute = core_fwd
        if par.recompute in ("norms-up-proj", "moe-experts"):
            recompute += hw.stream(elem_fwd)
            if mla is not None:
                recompute += hw.gemm(T, mla.kv_lora_rank, model.heads / tp * (
                    mla.qk_nope_head_dim + mla.v_head_dim))
        if par.recompute == "moe-experts" and moe_layer and model.moe.enabled:
            recompute += routed_fwd
    return LayerCompute(fwd, 2.0 * gemm_fwd + hw.stream(2.0 * elem_fwd) + core_bwd, recompute,
                        core_fwd, core_bwd)


def logits_compute(model: ModelSpec, par: Parallelism, hw: Hardware) -> tuple[float, float]:
    """(forward GEMM, fp32 loss) seconds of the output layer for one micro-batch on one GPU;
    the backward of the GEMM is twice its forward. The loss reads and writes the logits
    (~16 B per element)."""
    T = par.micro_batch * model.seq_len / par.cp
    return (hw.gemm(T, model.hidden, model.vocab / par.tp),
            hw.stream(16.0 * T * model.vocab / par.tp))
