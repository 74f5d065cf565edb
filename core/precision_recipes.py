"""Training precision recipes: which GEMMs, which communication and which optimizer state run at
which precision (the workload's ``precision``).

One row per recipe. ``None`` in a byte field means "the software stack's choice"
(``PerformanceAssumptions``), so the recipes that existed before this table (bf16, fp16, fp8)
evaluate exactly as they did, except where a row says otherwise and why.

Sources (tags as in ../shared/reference/README.md):

* **fp8** (tensor-wise scaling, Transformer Engine delayed or current scaling): the linear
  layers' three GEMMs (forward E4M3, data and weight gradients E5M2 "hybrid") in FP8; attention
  core, embedding, output layer, router and norms in BF16; master weights and Adam moments FP32
  (Micikevicius et al. 2022, "FP8 Formats for Deep Learning", arXiv 2209.05433, P; TE
  ``DelayedScaling`` / ``Float8CurrentScaling`` docs, P). The input a linear layer keeps for its
  weight-gradient GEMM is the FP8 copy (TransformerEngine ``pytorch/module/linear.py``: with fp8
  the saved ``inputmat`` is the quantized tensor; code read, P).
* **fp8-block** (DeepSeek-V3, arXiv 2412.19437 §3.3, P): 1x128 tiles for activations, 128x128
  blocks for weights; Fprop, Dgrad and Wgrad of every linear layer in FP8; embedding, output
  head, MoE gating, norms and attention in BF16/FP32; linear inputs cached in FP8 (§3.3.3); the
  attention output, kept once for both the attention backward and the output projection, in
  a 12-bit E5M6 format (1.5 bytes); the MoE SwiGLU input cached in FP8 and its output
  recomputed (§3.3.3); the dispatch sent in FP8 with its scales, the combine in BF16 (§3.3.4);
  master weights and weight gradients in FP32, AdamW moments in BF16 (§3.3.3).
* **mxfp8** (OCP Microscaling v1.0; TE ``MXFP8BlockScaling``, Blackwell tensor cores, P): every
  linear GEMM in E4M3 with one E8M0 scale per 32 values; the rest as fp8. A 32-value block's
  scale adds 1/32 byte per value.
* **nvfp4** (NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv 2509.25660, P):
  linear GEMMs in NVFP4 (E2M1, one E4M3 scale per 16 values and a tensor-wide FP32 scale), with
  random Hadamard transforms on the weight-gradient inputs and stochastic rounding of
  gradients; a few linear layers, about 15% (the last blocks of their 12B model), stay BF16;
  attention, embedding and output head BF16; optimizer FP32.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class PrecisionRecipe:
    id: str
    gemm_precision: str          # catalog peak the linear-layer GEMMs run at (bf16, fp8, fp4)
    low_precision_gemm: bool     # the GEMMs take the stack's FP8 efficiency factor
    high_precision_share: float  # share of the linear-layer GEMM work kept in BF16
    attention_precision: str     # attention core (QK^T, AV)
    saved_input_bytes: float     # bytes per value a linear layer keeps for its weight gradient
    dispatch_bytes: float        # bytes per value of the MoE dispatch all-to-all
    combine_bytes: float         # bytes per value of the MoE combine all-to-all
    grad_bytes: float | None     # gradient buffer and DP reduction (None: the stack's)
    master_bytes: float          # master weights per parameter (optimizer state)
    moment_bytes: float          # Adam m + v per parameter
    needs_block_scaling: bool    # MX / NVFP4 block scaling: Blackwell-class tensor cores
    summary: str                 # one line for reports: what runs at which precision
    # the attention output kept once for the attention backward and the output projection
    # (None: BF16 for the attention, plus the projection's own saved copy)
    attention_out_bytes: float | None = None
    # the routed experts' SwiGLU input, and whether its output is recomputed (below 2 bytes)
    expert_act_input_bytes: float = 2.0

    @property
    def optimizer_bytes(self) -> float:
        return self.master_bytes + self.moment_bytes


_BF16_REST = "attention, embedding, output head, router and norms BF16"

RECIPES: Mapping[str, PrecisionRecipe] = MappingProxyType({r.id: r for r in (
    PrecisionRecipe("bf16", "bf16", False, 0.0, "bf16", 2.0, 2.0, 2.0, None, 4.0, 8.0, False,
                    "all GEMMs BF16; gradients per stack; FP32 master weights and Adam moments"),
    PrecisionRecipe("fp16", "fp16", False, 0.0, "fp16", 2.0, 2.0, 2.0, None, 4.0, 8.0, False,
                    "all GEMMs FP16; gradients per stack; FP32 master weights and Adam moments"),
    PrecisionRecipe("fp8", "fp8", True, 0.0, "bf16", 1.0, 2.0, 2.0, None, 4.0, 8.0, False,
                    "linear GEMMs FP8 with one scale per tensor, their saved inputs FP8; "
                    f"{_BF16_REST}; all-to-all BF16; FP32 master weights and moments"),
    PrecisionRecipe("fp8-block", "fp8", True, 0.0, "bf16", 1.0 + 4.0 / 128, 1.0 + 4.0 / 128,
                    2.0, 4.0, 4.0, 4.0, False,
                    "linear GEMMs FP8 with 1x128 / 128x128 block scales, their saved inputs "
                    f"FP8; {_BF16_REST}; dispatch FP8, combine BF16; FP32 master weights and "
                    "gradients, BF16 Adam moments (DeepSeek-V3)", 1.5 + 4.0 / 128,
                    1.0 + 4.0 / 128),
    PrecisionRecipe("mxfp8", "fp8", True, 0.0, "bf16", 1.0 + 1.0 / 32, 2.0, 2.0, None, 4.0,
                    8.0, True,
                    "linear GEMMs MXFP8 (one E8M0 scale per 32 values), their saved inputs "
                    f"MXFP8; {_BF16_REST}; all-to-all BF16; FP32 master weights and moments"),
    PrecisionRecipe("nvfp4", "fp4", True, 0.15, "bf16", 0.5 + 1.0 / 16, 2.0, 2.0, None, 4.0,
                    8.0, True,
                    "linear GEMMs NVFP4 (one E4M3 scale per 16 values) except ~15% kept BF16, "
                    f"their saved inputs NVFP4; {_BF16_REST}; all-to-all BF16; FP32 master "
                    "weights and moments"),
)})


def muon_optimizer_bytes(rec: PrecisionRecipe) -> float:
    """Optimizer state per parameter of a weight matrix under Muon: the master weights and one
    momentum buffer at the recipe's moment precision (Adam keeps two: ``moment_bytes`` counts
    both; Jordan et al. 2024, Moonshot arXiv 2502.16982 §2, P)."""
    return rec.master_bytes + rec.moment_bytes / 2.0


def block_scaled_tensor_cores(accelerator) -> bool:
    """Whether ``accelerator`` (its catalog spec) has the generation of tensor cores that brought
    hardware block scaling (MXFP8, NVFP4) and FP4: Blackwell, CDNA4. The catalog says it by an
    FP4 peak. The same generation takes FP8 operands in any layout (Transformer Engine's
    non_tn_fp8_gemm_supported: compute capability 10.0 and later)."""
    return "fp4" in accelerator.tflops_dense


def recipe(precision: str) -> PrecisionRecipe:
    """The recipe of a workload's ``precision`` (a name core.workload.PRECISIONS accepts)."""
    return RECIPES[precision]
