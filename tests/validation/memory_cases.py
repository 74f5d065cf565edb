"""Published peak memory per GPU (issue 21 item 3): runs whose peak was measured and published
with their full configuration, gated within ±10%.

The source: Megatron-LM's functional tests (NVIDIA/Megatron-LM@d98e8a6,
tests/functional_tests/test_cases/<family>/<case>/): each case's ``model_config.yaml`` is the
run's complete command line, its ``golden_values_dev_dgx_h100.json`` the per-iteration
``mem-max-allocated-bytes`` measured on one DGX H100 (8 GPUs: tests/test_utils/recipes/h100/
gpt.yaml and moe.yaml, ``nodes: 1, gpus: 8``), P. That is torch's running maximum, so the
run's peak is its value at the last iteration (the first iteration, before the Adam moments
exist, is lower).

``torch.cuda.max_memory_allocated`` counts the tensors the PyTorch allocator hands out: not the
CUDA context, NCCL's own buffers or the allocator's fragmentation, i.e. the engine's total less
its framework term (``framework_overhead_gb``); the comparison is on that.

Each row's stack is the engine's Megatron-Core stack (nemo-2025) with the memory-relevant
flags the config sets or Megatron-LM's defaults imply (megatron/training/arguments.py, P):
* BF16 training keeps FP32 gradient buffers (``accumulate_allreduce_grads_in_fp32`` is set for
  bf16 when main gradients are FP32): ``grad_reduce_bytes`` 4;
* ``--hidden-dropout`` / ``--attention-dropout`` default to 0.1 (the 7B configs set neither):
  ``dropout`` on; the MoE config sets both to 0;
* ``--sequence-parallel`` defaults off (the 7B TP 4 config does not set it);
* ``--attention-backend unfused`` (the MoE config) stores the softmax: ``flash_attention`` off.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cases import _dgx_h100, _preset

_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
_SRC = (f"NVIDIA/Megatron-LM@{_COMMIT[:7]} tests/functional_tests/test_cases/{{case}}/"
        "model_config.yaml (configuration) and golden_values_dev_dgx_h100.json "
        "(mem-max-allocated-bytes)")

# Megatron-LM training defaults for a bf16 run (see the module docstring)
_MEGATRON_LM = {"grad_reduce_bytes": 4.0, "dropout": True}


@dataclass(frozen=True)
class MemoryCase:
    id: str
    title: str
    model: dict
    parallelism: dict
    stack_overrides: dict
    published_gb: float      # peak torch-allocated GB (1e9 bytes) per GPU
    source: str
    tag: str
    hardware: dict = field(default_factory=lambda: _dgx_h100(8))
    hardware_note: str = "8 H100-80GB, one DGX H100 (the tests' nodes: 1, gpus: 8)"
    precision: str = "bf16"
    tolerance: float = 0.10
    policy: str = "gated"
    reason: str = ""

    @property
    def stack(self) -> dict:
        return {**_preset("nemo-2025"), **self.stack_overrides}

    @property
    def stack_name(self) -> str:
        flags = ", ".join(f"{k} {v}" for k, v in self.stack_overrides.items())
        return f"Megatron-LM (Megatron-Core + TE): nemo-2025 with {flags}"


# 7B GPT: 32 layers, h 4096, 32 heads, 8 query groups, GeLU MLP of 4h (ffn-hidden-size not
# set: 4 x hidden), untied embeddings, NullTokenizer vocab 131,073 padded to 131,200 (a
# multiple of 128 x TP), seq 8,192, MBS / GBS from the config, bf16, distributed optimizer.
_GPT_7B = {"layers": 32, "hidden": 4096, "ffn_hidden": 16384, "heads": 32, "kv_heads": 8,
           "vocab": 131200, "seq_len": 8192, "activation": "gelu", "causal": True}

# The MoE test model: DeepSeek-V3's layer shape scaled down (MLA with q-lora 1536, kv-lora 512,
# 128 + 64 head dims; 32 experts of 1024, top 4, one shared expert of 1024, the first layer
# dense with a 4096 MLP; one MTP module), h 1024, 16 layers, GPT-2 BPE vocab 50,257 padded to
# a multiple of 3,232 x TP 2 (51,712), seq 4,096.
_MOE_MLA = {"layers": 16, "hidden": 1024, "ffn_hidden": 4096, "heads": 32, "kv_heads": 32,
            "head_size": 128, "vocab": 51712, "seq_len": 4096, "activation": "swiglu",
            "causal": True,
            "mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128},
            "moe": {"experts": 32, "top_k": 4, "shared_experts": 1, "expert_ffn_hidden": 1024,
                    "dense_layers": 1},
            "mtp_depth": 1}

# The same MLA layer shape without pipeline stages, wider (q-lora 1536, kv-lora 512, 128 + 64 head
# dims), 72 experts of 1536, top 8, a shared expert of 3072 (two of the experts' width), the
# first layer dense with a 12288 MLP, one MTP module, capacity factor 1.0, h 2560, 16 layers;
# NullTokenizer 131,072 + 1 (its end-of-document id) padded to a multiple of 3,232 (132,512).
# The case left Megatron-LM's main branch after July 2025; its files are pinned at the 2026
# snapshot that still carries them (the configuration there, as at the golden's own commit
# 870bbf2, sets no all-to-all overlap; a June 2025 branch added one without re-measuring).
_EP8_COMMIT = "fa48608a3d333b8f011e1128546edf9242a7ce53"
_EP8_CASE = "moe/gpt3_mcore_te_tp1_pp1_ep8_etp1_cp_memory_speed"
_MOE_MLA_EP8 = {**_MOE_MLA, "hidden": 2560, "ffn_hidden": 12288, "vocab": 132512,
                "moe": {"experts": 72, "top_k": 8, "shared_experts": 2, "expert_ffn_hidden": 1536,
                        "dense_layers": 1, "capacity_factor": 1.0}}

MEMORY_CASES: tuple[MemoryCase, ...] = (
    MemoryCase(
        "MEM-7B-TP1-PP4", "GPT 7B, TP 1, PP 4, one-layer virtual stages (v 8), MBS 1, GBS 8",
        _GPT_7B,
        {"tp": 1, "pp": 4, "dp": 2, "virtual_stages": 8, "micro_batch": 1, "global_batch": 8,
         "zero_stage": 1, "recompute": "none"},
        dict(_MEGATRON_LM), 60.72, _SRC.format(case="gpt/gpt3_7b_tp1_pp4_memory_speed"),
        "P (60,720,852,992 bytes; the A100 and GB200 goldens 60.49 / 60.52 GB)"),
    MemoryCase(
        "MEM-7B-TP4-PP1", "GPT 7B, TP 4 without sequence parallelism, MBS 2, GBS 8", _GPT_7B,
        {"tp": 4, "pp": 1, "dp": 2, "micro_batch": 2, "global_batch": 8, "zero_stage": 1,
         "recompute": "none"},
        {**_MEGATRON_LM, "sequence_parallel": False}, 57.14,
        _SRC.format(case="gpt/gpt3_7b_tp4_pp1_memory_speed"),
        "P (57,143,791,616 bytes; the A100 and GB200 goldens 58.19 / 58.22 GB)"),
    MemoryCase(
        "MEM-MOE-MLA-TP2-PP2-EP4",
        "MLA + MoE (32 experts, top 4, shared expert, MTP), TP 2, PP 2 (v 4), EP 4, expert TP "
        "1, MBS 4, GBS 32, unfused attention",
        _MOE_MLA,
        {"tp": 2, "pp": 2, "dp": 2, "ep": 4, "expert_tp": 1, "virtual_stages": 4,
         "micro_batch": 4, "global_batch": 32, "zero_stage": 1, "recompute": "none"},
        {**_MEGATRON_LM, "dropout": False, "flash_attention": False}, 60.11,
        _SRC.format(case="moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_memory_speed"),
        "P (60,111,630,336 bytes after 50 iterations: routing is not force-balanced, so the "
        "peak grows from 57.80 GB at iteration 2 as the busiest expert rank's load varies)"),
    # the same model and layout with FP8 (tensorwise, hybrid E4M3/E5M2) linear layers: the
    # saved inputs of the linear layers in FP8 (precision_recipes.py); no --fp8-param-gather,
    # so TE also caches an FP8 copy of each weight across micro-batches, which the engine does
    # not count (0.6 GB of weights here)
    MemoryCase(
        "MEM-MOE-MLA-TP2-PP2-EP4-FP8",
        "as MEM-MOE-MLA-TP2-PP2-EP4 with FP8 tensorwise linear layers (--fp8-format hybrid "
        "--fp8-recipe tensorwise)",
        _MOE_MLA,
        {"tp": 2, "pp": 2, "dp": 2, "ep": 4, "expert_tp": 1, "virtual_stages": 4,
         "micro_batch": 4, "global_batch": 32, "zero_stage": 1, "recompute": "none"},
        {**_MEGATRON_LM, "dropout": False, "flash_attention": False}, 57.58,
        _SRC.format(case="moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_mtp_resume_torch_dist_fp8"),
        "P (57,578,217,472 bytes after 50 iterations)", precision="fp8"),
    # no pipeline: one micro-batch in flight; EP 8 over the node leaves each expert on one GPU,
    # so its optimizer states are not sharded (the distributed optimizer shards over DP 1)
    MemoryCase(
        "MEM-MOE-MLA-TP1-EP8",
        "MLA + MoE (72 experts, top 8, shared expert, MTP, capacity factor 1), TP 1, PP 1, EP 8, "
        "MBS 1, GBS 128",
        _MOE_MLA_EP8,
        {"tp": 1, "pp": 1, "dp": 8, "ep": 8, "expert_tp": 1, "micro_batch": 1,
         "global_batch": 128, "zero_stage": 1, "recompute": "none"},
        {**_MEGATRON_LM, "dropout": False}, 60.85,
        f"NVIDIA/Megatron-LM@{_EP8_COMMIT[:7]} tests/functional_tests/test_cases/{_EP8_CASE}/"
        "model_config.yaml (configuration) and golden_values_dev_dgx_h100.json "
        "(mem-max-allocated-bytes)",
        "P (60,851,265,536 bytes after 25 iterations; the same golden at 870bbf2, 2025-05-31)"),
)
