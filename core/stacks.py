"""Software-stack presets: named sets of performance assumptions a user chooses among.

The performance model's efficiency assumptions (``PerformanceAssumptions``) describe how a
training framework behaves: which communication it overlaps with compute, which attention
kernel it runs, how it buckets gradients. Its defaults are the calibrated current stack
(Megatron-Core / NeMo + Transformer Engine). Each preset here is the set of overrides of those
defaults that describes one published stack, with the published runs it was checked against
(row ids of tests/validation/cases.py and docs/validation.md; the validation suite takes its
stacks from these presets, so the rows keep checking them).

A project stores the chosen preset's id with its performance assumptions
(``assumptions.performance.stack``, only when it is not the default); values edited after the
choice make the stack "custom (based on X)" (``stack_status``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from core.assumptions.performance import PerformanceAssumptions
from core.assumptions import Assumptions
from core.errors import DesignError
from core.model import Design


class UnknownStackError(DesignError):
    """A software-stack name that is not one of the presets."""


@dataclass(frozen=True)
class StackPreset:
    id: str
    name: str
    year: int
    description: str
    # Fields of PerformanceAssumptions that differ from the engine's defaults.
    overrides: Mapping[str, Any]
    # Validation rows run with exactly these values (plus, where a row says so, its recipe's
    # own settings such as a gradient bucket size).
    checked_against: tuple[str, ...]
    # Rows of runs on other stacks that bound this one's predictions (a stack no published run
    # used exactly): its description says how.
    bracketed_by: tuple[str, ...] = ()

    def assumptions(self) -> PerformanceAssumptions:
        return PerformanceAssumptions(**self.overrides, stack=self.id)

    @property
    def checked_against_text(self) -> str:
        """The validation rows that check it, or the ones that bracket it, in a user's words."""
        return ", ".join(self.checked_against) or "none; bracketed by " + ", ".join(self.bracketed_by)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "year": self.year,
                "description": self.description, "checked_against": list(self.checked_against),
                "bracketed_by": list(self.bracketed_by),
                "overrides": {k: dict(v) if isinstance(v, Mapping) else v
                              for k, v in self.overrides.items()}}


_DEFAULTS = PerformanceAssumptions()

# What stacks before Transformer Engine did differently from the default: TP communication not
# overlapped with the GEMMs (TE userbuffers did not exist), dropout 0.1 (GPT-3-era recipes),
# pipeline layers split evenly (``balance_pipeline_ends=False``).
PRE_TRANSFORMER_ENGINE = {"tp_overlap": 0.0, "dropout": True, "balance_pipeline_ends": False}

# Megatron-LM as used for SC'21 Table 1: no sequence parallelism (added 2022), fused softmax
# instead of FlashAttention, blocking p2p (batch_isend_irecv + wait), the local DDP all-reduces
# the whole contiguous gradient buffer after the last micro-batch (no overlap), scatter/gather
# p2p on (SC'21 §4.1).
_MEGATRON_2021 = {"flash_attention": False, "sequence_parallel": False, "pp_overlap": 0.0,
                  "dp_overlap": False, "dp_bucket_mb": 0.0, **PRE_TRANSFORMER_ENGINE}

# MosaicML Composer's H100 realises less of the GPU than the current NVIDIA stack: its own GEMM
# factor (least squares in MFU points over rows 14 and 16, ``python -m
# tests.validation.calibrate``, residuals -2.2 / +1.9 points).
COMPOSER_2023_H100_FACTOR = 0.572

# FlashAttention-2 on Hopper, measured (Azure/AI-benchmarking-guide FA2 fwd+bwd, relative to
# the best GEMM; see flash_attention_efficiency_by_accelerator): what a stack without
# Hopper-native fused attention (cuDNN / FlashAttention-3) reaches.
_FA2_HOPPER = {"H100-SXM5-80GB": 0.47, "H200-SXM": 0.48}

_PRESETS = (
    StackPreset(
        "megatron-lm-2021", "Megatron-LM 2021", 2021,
        "Megatron-LM as used for the SC'21 paper (Narayanan et al., Table 1): tensor, pipeline "
        "and data parallelism with the interleaved schedule, but no sequence parallelism, the "
        "fused softmax instead of FlashAttention, TP communication not overlapped, blocking "
        "pipeline p2p, and one all-reduce of the whole gradient buffer after the last "
        "micro-batch; GPT-3-era dropout 0.1 and evenly split pipeline stages. The same values "
        "reproduce Korthikanti et al.'s tensor-parallel baseline without SP (rows 5f-8f).",
        _MEGATRON_2021, ("1", "2", "3", "4", "5f", "6f", "7f", "8f", "17a", "17b")),
    StackPreset(
        "megatron-lm-2022", "Megatron-LM 2022 (sequence parallelism)", 2022,
        "Megatron-LM of Korthikanti et al. (MLSys'23, 'Reducing activation recomputation'): "
        "Megatron-LM 2021 plus sequence parallelism, used with selective activation "
        "recompute (the recompute itself is the workload's choice). Still no FlashAttention, "
        "no TP overlap and blocking pipeline p2p.",
        {**_MEGATRON_2021, "sequence_parallel": True}, ("5", "6", "7", "8")),
    StackPreset(
        "megatron-deepspeed-2021", "Megatron-DeepSpeed 2021", 2021,
        "Megatron-DeepSpeed as used for MT-NLG 530B and BLOOM 176B: Megatron-LM 2021 kernels "
        "with DeepSpeed's PipelineEngine, which sends the full boundary tensor from every TP "
        "rank with a blocking send then receive (deepspeed/runtime/pipe/p2p.py), and ZeRO-1 "
        "gradient reduction after the pipeline flush in buckets of 5e8 elements.",
        {**_MEGATRON_2021, "pp_scatter_gather": False, "pp_p2p_batched": False,
         "dp_bucket_mb": 1000.0},
        ("9", "10", "11", "12")),
    StackPreset(
        "composer-fsdp-2023", "MosaicML Composer FSDP 2023", 2023,
        "MosaicML Composer with PyTorch FSDP (llm-foundry benchmarks, 2023): "
        "Triton / FlashAttention-2 attention at its measured Hopper efficiency, no Transformer "
        "Engine (no TP overlap), its own fitted H100 GEMM factor (0.572), and Composer's "
        "default mixed precision (amp_bf16 'DEFAULT': unsharded parameters all-gathered in "
        "fp32, gradients reduced in bf16). Row 15 runs the 'PURE' variant "
        "(fsdp_param_gather_bytes 2).",
        {"tp_overlap": 0.0,
         "gemm_efficiency_scale_by_accelerator": {
             **_DEFAULTS.gemm_efficiency_scale_by_accelerator,
             "H100-SXM5-80GB": COMPOSER_2023_H100_FACTOR, "H200-SXM": COMPOSER_2023_H100_FACTOR},
         "flash_attention_efficiency_by_accelerator": {
             **_DEFAULTS.flash_attention_efficiency_by_accelerator, **_FA2_HOPPER},
         "fsdp_param_gather_bytes": 4.0, "grad_reduce_bytes": 2.0},
        ("14", "16")),
    StackPreset(
        "nemo-2024", "NeMo 24.09 (Megatron-Core + TE)", 2024,
        "The engine's defaults, calibrated on NVIDIA's published NeMo 24.09 runs on DGX H100 "
        "(DGX Cloud Benchmarking, GSW 25.01): Megatron-Core with Transformer Engine, "
        "sequence parallelism, TP communication overlapped with the GEMMs (userbuffers), "
        "overlapped pipeline p2p and distributed-optimizer gradient and parameter "
        "collectives, cuDNN / FlashAttention-3-class fused attention, no dropout. The rows "
        "add their recipe's gradient bucket size (and GPT-3's dropout).",
        {}, tuple(f"N-{run}{fp8}" for fp8 in ("", "-fp8") for run in (
            "8B-8", "8B-128", "70B-64", "70B-2048", "405B-576", "405B-2304", "175B-128",
            "175B-2048"))),
    StackPreset(
        "nemo-2025", "NeMo 25.04 / Megatron-Bridge 25.11", 2025,
        "The 2025 releases of the same stack (NeMo 2.0 25.04, Megatron-Bridge 25.11) with "
        "engine-default settings: the same assumption values as nemo-2024, checked against "
        "NVIDIA's GB200 NVL72, DGX B200 and DGX H100 runs of those releases (the GB200 and "
        "B200 calibration factors are fitted on them; the H100 rows are predicted within "
        "-6..+4% with the 24.09 factor, so the stack did not drift).",
        {}, tuple(f"G-{run}{fp8}" for fp8 in ("", "-fp8") for run in (
            "405B-128", "405B-256", "405B-512", "340B-128", "340B-256", "340B-512",
            "340B-128s", "340B-256s", "340B-512s"))
        + tuple(f"H25-{run}{fp8}" for fp8 in ("", "-fp8")
                for run in ("405B-512", "340B-256", "15B-16"))
        + ("BB-8B-8-fp8", "BB-405B-128-fp8", "BG-8B-8-fp8", "BG-405B-256-fp8")),
    StackPreset(
        "megatron-core-moe-2025", "Megatron-Core MoE 2025 (EP overlap, DeepEP)", 2025,
        "The 2025 Megatron-Core / Megatron-Bridge stack as NVIDIA runs its MoE recipes "
        "(DeepSeek-V3, Qwen3, Mixtral): the nemo-2025 values plus the 'flex' token dispatcher "
        "on DeepEP kernels (a token sent once per destination node and forwarded over NVLink, "
        "so node-limited routing caps its network copies) and expert-parallel communication "
        "overlap (overlap_moe_expert_parallel_comm with delay_wgrad_compute: one micro-batch's "
        "dispatch and combine run beside another's expert compute; it schedules one more "
        "warm-up forward, so one more micro-batch of activations is held). Megatron-Bridge "
        "docs/training/communication-overlap.md (P) describe the mechanism but publish no "
        "hidden share: 0.8 of the all-to-all hidden is an estimate (E). Checked against the "
        "Megatron-Bridge MoE rows whose recipes turn the overlap on (experts force-balanced, "
        "as NVIDIA benchmarks them): DeepSeek-V3, Qwen3-235B-A22B and Qwen3-30B-A3B on B200, "
        "GB200 and GB300, 12 rows; the 26.06 Qwen3 rows and DeepSeek-V3 of 26.04.01 land "
        "within ±10%, the others are known misses with their reasons in docs/validation.md "
        "(the 26.04.01 release's host time on Qwen3 in FP8, DeepSeek-V3's own 26.06 gain).",
        {"ep_dispatch": "deepep", "ep_overlap": 0.8},
        ("MoE-DSV3-B200-256", "MoE-DSV3-GB200-256", "MoE-DSV3-GB200-256-2604",
         "MoE-DSV3-GB300-256", "MoE-Q235-B200-256", "MoE-Q235-GB200-256", "MoE-Q235-GB300-256",
         "MoE-Q30-B200-8", "MoE-Q30-GB200-8", "MoE-Q30-GB300-8", "MoE-Q30-GB200-8-2604",
         "MoE-Q30-GB300-8-2604"),
        bracketed_by=("BB-405B-128-fp8", "G-405B-128", "H25-405B-512")),
    StackPreset(
        "deepseek-dualpipe-2024", "DeepSeek-V3 DualPipe (HAI-LLM)", 2024,
        "DeepSeek's own stack for DeepSeek-V3 (technical report, arXiv 2412.19437 §3.2, P): "
        "the DualPipe bidirectional pipeline (bubble (p/2 - 1)(F&B + B - 3W), two copies of "
        "the parameters, p + 1 micro-batches in flight, Table 2), in which a forward and a "
        "backward chunk run together so that 'both all-to-all and PP communication can be "
        "fully hidden' (all-to-all overlap 1.0); cross-node all-to-all kernels that send a "
        "token once per node over InfiniBand and forward it over NVLink (node-limited routing, "
        "M = 4), on 20 of the H800's 132 SMs: hidden communication costs the compute "
        "20/132 = 0.15 of its time whether it crosses NVLink or InfiniBand (D). No tensor "
        "parallelism, ZeRO-1 over data parallelism. Checked against the report's 180K H800 "
        "GPU-hours per trillion tokens with the deepseek-v3 workload preset "
        "(docs/guide/moe-training.md) and the validation row built from the report's layout "
        "(MoE-DSV3-H800-2048, within ±10%).",
        {"pipeline_schedule": "dualpipe", "ep_dispatch": "deepep", "ep_overlap": 1.0,
         "scale_up_comm_compute_cost": 20 / 132, "scale_out_comm_compute_cost": 20 / 132},
        ("MoE-DSV3-H800-2048",),
        bracketed_by=("BB-405B-128-fp8", "H25-405B-512")),
    StackPreset(
        "conservative", "Conservative in-house stack", 2024,
        "For planning without a tuned framework: the current stack's GEMM efficiency, but no "
        "communication overlap at all (TP, pipeline p2p and the data-parallel gradient "
        "reduction are exposed, as in a plain PyTorch/DDP + Megatron-style TP setup without "
        "Transformer Engine's userbuffers or Megatron-Core's overlap options) and "
        "FlashAttention-2-level attention on Hopper (measured 0.47 / 0.48 of the GEMM peak "
        "instead of FlashAttention-3-class 0.705 / 0.72; Blackwell keeps the default). No "
        "published run uses exactly this; published runs bracket it. On the layouts of the "
        "MosaicML Composer FSDP rows 14 and 16 it predicts 42.6% / 49.9% MFU where Composer "
        "reached 42.6% / 46.4% (FA2 attention, no TP overlap, a less efficient H100 GEMM "
        "path); on the layouts of the NeMo 24.09 calibration rows (N-8B-8, N-70B-64, "
        "N-405B-576, N-175B-128) it predicts 5-10 MFU points less than NVIDIA's tuned stack "
        "reached.",
        {"tp_overlap": 0.0, "pp_overlap": 0.0, "dp_overlap": False,
         "flash_attention_efficiency_by_accelerator": {
             **_DEFAULTS.flash_attention_efficiency_by_accelerator, **_FA2_HOPPER}},
        (), bracketed_by=("14", "16", "N-8B-8", "N-70B-64", "N-405B-576", "N-175B-128")),
)

PRESETS: Mapping[str, StackPreset] = MappingProxyType({p.id: p for p in _PRESETS})


def get_preset(name: str) -> StackPreset:
    """The preset called ``name`` (its id); an unknown name lists the valid ones."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownStackError(f"unknown software stack {name!r}; valid stacks: "
                                f"{', '.join(PRESETS)}") from None


def with_stack(assumptions: Assumptions | None, name: str) -> Assumptions:
    """``assumptions`` with the performance section replaced by preset ``name`` (every
    performance value the preset's, including those it leaves at the engine default)."""
    return dataclasses.replace(assumptions or Assumptions(),
                               performance=get_preset(name).assumptions())


def apply_stack(design: Design, name: str) -> Design:
    """A snapshot of ``design`` evaluated under preset ``name``; the design is not changed
    (evaluate the same design under two stacks: ``evaluate(apply_stack(d, a))``, ``... b``)."""
    copy = design.snapshot()
    copy.assumptions = with_stack(design.assumptions, name)
    return copy


@dataclass(frozen=True)
class StackStatus:
    preset: StackPreset   # the preset the assumptions started from
    custom: bool          # values changed since

    @property
    def label(self) -> str:
        return f"custom (based on {self.preset.name})" if self.custom else self.preset.name

    def to_json(self) -> dict[str, Any]:
        return {"id": self.preset.id, "name": self.preset.name, "custom": self.custom,
                "label": self.label}


def stack_status(performance: PerformanceAssumptions | None) -> StackStatus:
    """Which preset ``performance`` holds, and whether its values were changed since."""
    performance = performance or PerformanceAssumptions()
    preset = get_preset(performance.stack)
    return StackStatus(preset, performance != preset.assumptions())

