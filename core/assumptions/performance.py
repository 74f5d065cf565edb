"""Assumptions of the performance model: the software stack a training step runs on, and its
calibration on published runs.

One frozen dataclass, ``PerformanceAssumptions``, saved with each project under
``assumptions.performance`` (only changed values) and shown in every report. Each default names
its source and tag (P primary, D derived, S secondary, E estimate; ../shared/reference/README.md);
the field metadata holds the bounds the project loader and the GUI enforce (core/settings.py).

It lives in core/assumptions, below every analysis, because every part of the model reads it
(compute, communication, pipeline, memory, the parallelism search), as do the project file and
the stacks. It is long because every default carries its source and fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.assumptions.kernels import FP4_OVER_FP8_GEMM_SHARE


# Ranges the project loader and the GUI enforce (core/settings.py).
_EFFICIENCY = {"min": 0.0, "min_exclusive": True, "max": 1.0}
_SHARE = {"min": 0.0, "max": 1.0}
_COST = {"min": 0.0, "max": 1.0, "max_exclusive": True}
_POSITIVE_GFLOP = {"min": 0.0, "min_exclusive": True, "unit": "GFLOP"}
_ELEMENT_BYTES = {"min": 1.0, "max": 4.0, "unit": "bytes"}

# Ids of the software-stack presets (core/stacks.py holds them; it builds on this class, so
# the ids live here for the ``stack`` field's check and tests/test_stacks.py keeps both equal).
STACK_IDS = ("megatron-lm-2021", "megatron-lm-2022", "megatron-deepspeed-2021",
             "composer-fsdp-2023", "nemo-2024", "nemo-2025", "megatron-core-moe-2025",
             "deepseek-dualpipe-2024", "conservative")
PIPELINE_SCHEDULES = ("1f1b", "dualpipe")
EP_DISPATCHERS = ("alltoall", "deepep")
DEFAULT_STACK = "nemo-2024"


@dataclass(frozen=True)
class PerformanceAssumptions:
    """Editable assumptions of the performance model; each default names its source.

    Tags as in ../shared/reference/README.md: P primary, D derived, S secondary, E estimate.

    **The defaults describe a current (2024) Megatron-Core / NeMo + Transformer Engine stack**,
    the one new designs are assumed to run: FlashAttention-3-class fused attention on Hopper,
    sequence parallelism, TP communication overlapped with the GEMMs (TE userbuffers), PP p2p
    overlapped, the distributed optimizer with gradient reduce-scatter and parameter
    all-gather overlapped per model chunk, no dropout, Llama-3-style balanced pipeline ends.
    Its H100/H200 calibration is fitted on NVIDIA's published NeMo 24.09 BF16 runs of that
    stack (DGX Cloud Benchmarking recipes; docs/validation.md rows N-*), which it reproduces
    within a few percent from 8 to 2,304 H100; GB200 on NVIDIA's NeMo 25.04 BF16 runs on NVL72
    (rows G-*), B200 on Megatron-Bridge 25.11 FP8 runs (rows BB-*). Older stacks are assumption sets: the
    validation rows of Megatron-LM 2021/22, Megatron-DeepSpeed and MosaicML Composer (2023)
    override what differed (the presets of core/stacks.py), e.g. ``tp_overlap=0``,
    ``flash_attention=False`` and Composer's own H100 factor (0.572).
    """

    # --- compute -----------------------------------------------------------------------
    # GEMM efficiency prior by GEMM size (GFLOP -> fraction of peak): Calculon's H100/A100
    # system files, >=128 GFLOP 0.95, >=16 0.90, >=1 0.60, else 0.10 (P, performance.md §2).
    # We interpolate linearly in log(size) between the points instead of stepping.
    gemm_efficiency_gflop: tuple[float, ...] = field(default=(0.01, 1.0, 16.0, 128.0),
                                                     metadata={**_POSITIVE_GFLOP, "min_items": 1})
    gemm_efficiency: tuple[float, ...] = field(default=(0.10, 0.60, 0.90, 0.95),
                                               metadata={**_EFFICIENCY, "same_length_as": "gemm_efficiency_gflop"})
    # Measured cuBLASLt square-GEMM sweeps (m = n = k = 1024 ... 16384/32768), as a fraction of
    # the sweep's best, for accelerators where one is public (P: Azure/AI-benchmarking-guide,
    # Azure_Results/ND_A100_v4_results.md FP16: 119.4 / 221.8 / 228.0 / 253.7 / 256.5 TF/s;
    # "Azure Results/NDv5 Results.md" H100 and H200 FP8 columns: 274.1 / 1011.3 / 1216.9 /
    # 1290.1 / 1377.3 / 1382.2 and 290.8 / 1013.4 / 1249.1 / 1300.6 / 1366.3 / 1349.5 TF/s; the
    # only Hopper sweep there is FP8, used as the shape for BF16 too). Blackwell: the same
    # guide's ND GB200 v6 FP8 sweep (P: Azure/AI-benchmarking-guide,
    # Azure_Results/ND_GB200_v6_results.md: 489.2 / 2243.6 / 2834.6 / 2876.6 / 2906.9 /
    # 2825.6 TF/s at m = n = k = 1024 ... 32768); B200 is the same die and takes the GB200
    # shape (E: no public B200 sweep). Its best, 2,907 TF/s, is 0.58 of the catalog's dense
    # FP8 peak (H100: 1,382 / 1,979 = 0.70): Blackwell GEMMs reach a smaller fraction of the
    # nominal peak, which is part of why its calibration factor below is lower. Unlike
    # Calculon's table,
    # these keep rising from ~0.1 to ~1-10 TFLOP per GEMM (A100 +11%, H100 +13%), which is why
    # small models reach a lower fraction of peak than large ones on the same GPU. The
    # calibration factor below multiplies the curve (whose top is 1.0).
    gemm_curve_gflop_by_accelerator: dict[str, list[float]] = field(metadata=_POSITIVE_GFLOP,
        default_factory=lambda: {
            "A100-SXM4-80GB": [2.147, 17.18, 137.4, 1099.5, 8796.1],
            "H100-SXM5-80GB": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "H200-SXM": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "H800-SXM": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "GB200": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "B200": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "GB300": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "B300": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "MI300X": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
            "MI325X": [2.147, 17.18, 137.4, 1099.5, 8796.1, 70368.7],
        }
    )
    gemm_curve_efficiency_by_accelerator: dict[str, list[float]] = field(metadata=_EFFICIENCY,
        default_factory=lambda: {
            "A100-SXM4-80GB": [0.4655, 0.8647, 0.8889, 0.9891, 1.0],
            "H100-SXM5-80GB": [0.1983, 0.7317, 0.8804, 0.9334, 0.9965, 1.0],
            "H200-SXM": [0.2128, 0.7417, 0.9142, 0.9519, 1.0, 0.9877],
            # H800: the H100 SXM5 die with its NVLink cut to 400 GB/s (catalog H800-SXM, S):
            # the H100's sweep, its factor and attention efficiency below (E)
            "H800-SXM": [0.1983, 0.7317, 0.8804, 0.9334, 0.9965, 1.0],
            "GB200": [0.1683, 0.7718, 0.9751, 0.9896, 1.0, 0.9720],
            "B200": [0.1683, 0.7718, 0.9751, 0.9896, 1.0, 0.9720],
            "GB300": [0.1683, 0.7718, 0.9751, 0.9896, 1.0, 0.9720],
            "B300": [0.1683, 0.7718, 0.9751, 0.9896, 1.0, 0.9720],
            "MI300X": [0.0458, 0.3690, 0.8240, 1.0, 0.8757, 0.8878],
            "MI325X": [0.0458, 0.3690, 0.8240, 1.0, 0.8757, 0.8878],
        }
    )
    # Fraction of the kernel-level efficiency above that a full training step realises
    # (launch gaps, synchronisation, SM contention, clocks under load, kernels not modelled).
    # Per accelerator below; this default serves accelerators without an entry and is the A100
    # factor re-expressed on Calculon's prior (0.7588 / 0.95), i.e. "behaves like an A100".
    gemm_efficiency_scale: float = field(default=0.799, metadata=_EFFICIENCY)
    # Per-accelerator calibration (catalog id -> scale), each fitted (D) by
    # ``python -m tests.validation.calibrate`` on named published runs:
    # * A100: least squares in log step time over the A100 rows with primary measurements:
    #   Korthikanti et al. (MLSys'23) Table 5 SP + selective-recompute step times (22B, 175B,
    #   530B, 1T on A100-80GB; performance.md §9 rows 5-8; Megatron-LM 2022 stack: no
    #   FlashAttention, blocking p2p) and MosaicML MPT-70B on 64 A100 (row 15, MFU 53.33%,
    #   Composer FSDP "PURE"): 0.759 (residuals -2.8 / +1.1 / +0.7 / +5.0 / -4.0% step).
    # * H100 and H200 (same compute die), current Megatron-Core / NeMo + Transformer Engine
    #   stack (the defaults of this class): least squares in log step time over NVIDIA's
    #   published NeMo 24.09 BF16 step times on DGX H100 at the smallest scale of each recipe
    #   (P: NVIDIA/dgxc-benchmarking, GSW 25.01, llama3.1/README_8b.md, README_70b.md,
    #   README_405b.md, nemo_megatron/README_175b.md: Llama 3.1 8B on 8 GPUs 12.91 s, 70B on
    #   64 GPUs 14.72 s, 405B on 576 GPUs 17.20 s, GPT-3 175B on 128 GPUs 8.309 s;
    #   docs/validation.md rows N-8B-8, N-70B-64, N-405B-576, N-175B-128): 0.644 (residuals
    #   +1.0 / -0.7 / +0.4 / -0.6% step; fitted alone, the four rows give 0.64-0.65 each with
    #   full TP overlap and FlashAttention-3-class attention, but 0.65-0.71 with
    #   FlashAttention-2). The larger-scale rows of the same recipes (128-2,304 GPUs) are
    #   predictions.
    # * MosaicML Composer FSDP (2023, PyTorch FSDP + Triton/FA2 attention) realises less of the
    #   H100: 0.572 from rows 14 and 16 (MPT-70B 42.57%, MPT-7B 46.44% MFU), kept as that
    #   stack's assumption (core/stacks.py, preset composer-fsdp-2023), not as a default.
    # * GB200 (NVL72), current stack: least squares in log step time over NVIDIA's published
    #   NeMo 25.04 BF16 step times on GB200 NVL72 at the smallest scale of each recipe (P:
    #   NVIDIA/dgxc-benchmarking GSW 25.04, llama3.1/README.md and nemotron/README.md "GB200
    #   Performance" tables: Llama 3.1 405B on 128 GPUs, TP 4 PP 8 CP 2 VP 8, 9.347 s;
    #   Nemotron-4 340B on 128 GPUs, TP 8 PP 4 VP 12, 2.189 s; docs/validation.md rows
    #   G-405B-128, G-340B-128), on the measured GB200 GEMM curve above: 0.466 (residuals
    #   +4.2 / -4.1% step: the two recipes disagree by 8% on one factor, which this model does
    #   not attribute). The same release's H100 runs (rows H25-*) are predicted within -6..+4%
    #   with the 24.09-fitted H100 factor, so the low GB200 factor is the accelerator, not a
    #   stack drift; GB200 realises 0.81 of its measured GEMM peak in a step vs 0.92 on H100.
    #   Larger scales (256-512 GPUs), strong scaling and FP8 (with the H100-fitted FP8 factor)
    #   are predictions.
    # * B200 (DGX B200): no BF16 run with a layout is published; fitted the same way on the
    #   Megatron-Bridge 25.11 FP8 (current scaling) runs through the FP8 factor below (P:
    #   NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, 25.11, DGX-B200 table:
    #   Llama 3 8B on 8 GPUs 30,624 tokens/s/GPU, Llama 3.1 405B on 128 GPUs TP 4 PP 8 CP 2
    #   VP 8 661 tokens/s/GPU; rows BB-8B-8-fp8, BB-405B-128-fp8): 0.570 (residuals
    #   +0.3 / -0.3% step). Higher than GB200's because it is a later release (NVIDIA's own
    #   GB200 rows of that table run 13-30% faster than the 25.04 calibration predicts: rows
    #   BG-*, report-only) and because the same release ran the same 405B layout faster
    #   per GPU on B200 than on GB200 (25.09 table, FP8-MX: 622 vs 578 tokens/s/GPU).
    # * GB300 (Blackwell Ultra NVL72): every published GB300 run is a later release than the
    #   GB200 calibration, so it is fitted on what cancels the release: NVIDIA's same-release,
    #   same-layout GB300 / GB200 pairs (P: NVIDIA-NeMo/Megatron-Bridge
    #   docs/performance-summary-archive.md @067f987df, every dense pair: Llama 3 8B on 8 GPUs,
    #   25.11, and Llama 3 70B on 64 GPUs, FSDP, in five releases 25.11-26.04.01; GB300 runs
    #   1.05-1.27x GB200 per GPU at the same BF16/FP8 peaks, geometric mean 1.20, E: its
    #   1,400 W against 1,200 W holds the clocks). Least squares in the log of the step-time
    #   ratio with the GB200 factor above (tests/validation/ultra_pairs.py): 0.565 (residuals
    #   -12.4..+5.8%; the 25.11 70B pair, 1.05x, is the outlier). The GB300 MoE rows are
    #   predictions. B300 has no pair with B200 outside MoE runs and takes B200's factor (E,
    #   as H200 takes H100's).
    # Every other row of docs/validation.md is a prediction with these numbers. MI300X,
    # MI325X, Ascend 910C and Gaudi 3 have no public training run with a full layout that we
    # could fit: they carry UNCALIBRATED_ACCELERATOR and take the factor below.
    gemm_efficiency_scale_by_accelerator: dict[str, float] = field(metadata=_EFFICIENCY,
        default_factory=lambda: {"A100-SXM4-80GB": 0.759, "H100-SXM5-80GB": 0.644,
                                 "H200-SXM": 0.644, "H800-SXM": 0.644, "GB200": 0.466, "B200": 0.570,
                                 "GB300": 0.565, "B300": 0.570}
    )
    # Accelerators with a measured GEMM sweep but no training run to fit: the sweep's best as a
    # fraction of the dense peak. MI300X: 1,159.2 of 2,614.9 TF/s FP8 (P: Azure/AI-benchmarking
    # -guide, Azure_Results/ND_MI300X_v5_results.md, hipBLASLt, m = n = k = 1024 ... 32768:
    # 53.1 / 427.7 / 955.2 / 1,159.2 / 1,015.1 / 1,029.1 TF/s, the curve above); MI325X has
    # the same compute die (E). Only an FP8 sweep is published, so BF16 is assumed to reach the
    # same fraction of its peak (E), as the Hopper curve takes its FP8 sweep's shape.
    measured_gemm_ceiling_by_accelerator: dict[str, float] = field(metadata=_EFFICIENCY,
        default_factory=lambda: {"MI300X": 0.443, "MI325X": 0.443}
    )
    # Share of its measured GEMM ceiling a calibrated accelerator realises in a full step: H100
    # 0.644 / (1,382.2 / 1,978.9) = 0.92 (D, from the fitted factor and the Azure H100 sweep).
    # An accelerator with a measured ceiling but no fitted run gets ceiling x this (E: "runs its
    # own kernels as well as an H100 runs its"); one with neither gets the default below.
    step_realisation: float = field(default=0.92, metadata=_EFFICIENCY)
    # Which end of the bracket an accelerator without a fitted run is evaluated at (issue 22:
    # "uncalibrated is never flattering"). "conservative" (default): no better than the least
    # efficient calibrated family of its generation, that family's GEMM curve and factor
    # (core/analysis/calibration.py); "optimistic": its own estimate above (measured ceiling x
    # step realisation, else the A100-derived default). The other end is reported beside it
    # (performance.mfu_range).
    uncalibrated_efficiency: str = field(default="conservative",
                                         metadata={"choices": ("conservative", "optimistic")})
    # FlashAttention-style fused attention (no s^2 memory traffic or storage). True for current
    # stacks (Megatron-Core, TorchTitan); Megatron 2021/22 (SC'21, MLSys'23) used the fused
    # softmax kernel instead, set False to reproduce those runs.
    flash_attention: bool = True
    # Fused attention kernel efficiency relative to a GEMM of the same size: FlashAttention-2
    # reaches ~50-73% of A100 peak forward+backward vs ~80-90% for large cuBLAS GEMMs (Dao,
    # 2023, Fig. 5-6; S) -> ~0.75.
    flash_attention_efficiency: float = field(default=0.75, metadata=_EFFICIENCY)
    # Per accelerator, relative to the GEMM curve's top. A100: FlashAttention-2, measured (P:
    # Azure/AI-benchmarking-guide FA2 fwd+bwd, batch 2, seq 8192: 179.5 TF/s at head dim 64 =
    # 0.575 of peak vs its best cuBLAS GEMM 0.822 -> 0.70). Hopper: FA2 measures 327.9 TF/s
    # on H100 at head dim 128 (same source; 0.331 of peak vs the best GEMM ~0.70 -> 0.47; H200
    # 329.3 -> 0.48), but current stacks run Hopper-native fused attention (cuDNN fused
    # attention in Transformer Engine, FlashAttention-3), 1.5-2.0x FA2 on H100 (Shah et al.
    # 2024, FlashAttention-3, arXiv 2407.08608, S; 740 TF/s BF16 forward): the defaults take
    # the low end, 1.5 x the FA2 measurement (H100 0.705, H200 0.72). The MosaicML rows (FA2
    # era) keep 0.47 / 0.48 as their stack. Blackwell (B200, GB200) uses the default 0.75 (E):
    # FA2 is not Blackwell-native (373.9 TF/s on GB200 at head dim 128, Azure ND GB200 v6, P)
    # and no measurement of the cuDNN / TE fused attention that current stacks run on it was
    # found; the GB200 / B200 factors are fitted with this value.
    # MI300X: FA2 328.6 TF/s fwd+bwd at head dim 64, batch 2, seq 8192 (P: Azure ND MI300X v5,
    # same guide) against its GEMM ceiling in BF16 terms (0.443 x 1,307.4 = 579 TF/s) -> 0.57;
    # MI325X the same die (E).
    flash_attention_efficiency_by_accelerator: dict[str, float] = field(metadata=_EFFICIENCY,
        default_factory=lambda: {"A100-SXM4-80GB": 0.70, "H100-SXM5-80GB": 0.705,
                                 "H200-SXM": 0.72, "H800-SXM": 0.705, "MI300X": 0.57, "MI325X": 0.57}
    )
    # Achieved fraction of HBM bandwidth for streaming kernels: Calculon mem1 efficiency for
    # >=100 MB transfers (P).
    hbm_efficiency: float = field(default=0.90, metadata=_EFFICIENCY)
    # FP8 GEMMs: fraction of the 2x FP8 peak realised relative to BF16 GEMM efficiency (the
    # attention core stays BF16). Fitted (D, ``python -m tests.validation.calibrate``) on the
    # FP8 versions of the same NeMo 24.09 runs (P: dgxc-benchmarking READMEs: Llama 3.1 8B on
    # 8 H100 9.67 s, 70B on 64 11.01 s, 405B on 576 11.24 s, GPT-3 175B on 128 5.626 s; rows
    # N-*-fp8): 0.76 (residuals -0.7 / -5.9 / +6.5 / -0.1% step; TE FP8 with delayed scaling,
    # FP8 weights). Before that data it was an estimate of 0.75 from TE's ~1.3-1.5x.
    fp8_gemm_efficiency_scale: float = field(default=0.76, metadata=_EFFICIENCY)
    # NVFP4 GEMMs: the best NVFP4 GEMM's share of the FP4 peak over the best FP8 GEMM's share
    # of the FP8 peak (P: NVIDIA's measurements of TensorRT-LLM's kernels; the figures and their
    # source in core/assumptions/kernels.py, which serving shares): the NVFP4 recipe's linear
    # layers run at the FP4 peak x this x the FP8 factor above.
    fp4_over_fp8_gemm_share_by_accelerator: dict[str, float] = field(
        metadata=_EFFICIENCY, default_factory=lambda: dict(FP4_OVER_FP8_GEMM_SHARE))
    # Optimizer step, bytes moved per parameter on this GPU's optimizer shard: Adam reads fp32
    # grad, master, m, v (16 B), writes master, m, v and the bf16 copy (14 B), plus grad-norm
    # and zeroing (~6 B) (D).
    optimizer_bytes_per_param: float = field(default=36.0, metadata={"min": 0.0, "unit": "bytes"})

    # --- communication -----------------------------------------------------------------
    # Multiplier on each level's NCCL-effective bandwidth (FabricView.effective_gbyte_s is
    # already NCCL-effective, so 1.0).
    collective_efficiency: float = field(default=1.0, metadata=_EFFICIENCY)
    # Message-size efficiency of every collective by buffer size and nodes spanned: SimAI's
    # measured ratio tables (P: aliyun/SimAI inputs/ratio/*.csv; topologies.md §8), see
    # core/analysis/collectives.py. A 50 MB TP all-reduce on NVLink runs at ~74% of the
    # large-message bus bandwidth; DP buckets of 80 MB across 128 rail-aligned nodes at ~0.9.
    collective_size_efficiency: bool = True
    # Use sequence parallelism with TP (Megatron default with TP, Korthikanti et al.).
    sequence_parallel: bool = True
    # Overlap fractions (performance.md §5). TP: Transformer Engine comm-GEMM overlap
    # (userbuffers: ring-exchange / pipelined all-gather and reduce-scatter inside the GEMMs;
    # NeMo ``ub_tp_comm_overlap: true`` in every NVIDIA H100 recipe, P: NeMo-Framework-Launcher
    # conf/training/llama/llama3_1_*.yaml, dgxc-benchmarking gpt3_175b_hydra.yaml) hides it;
    # the hidden time still costs scale_up_comm_compute_cost. 1.0 is what the NeMo H100 rows
    # support (their per-row GEMM factors agree within +-1% with 1.0, +-2% with 0.8; TP 1, 4
    # and 8 rows); other accelerators inherit it (E). Only inside the scale-up domain: TE's
    # userbuffers need CUDA multicast over NVLink (TransformerEngine issue #1071, 2024), so a
    # TP group that crosses the network stays exposed. Stacks without it (Megatron-LM
    # 2021/22, DeepSpeed, Composer): 0. PP about
    # full in steady state (fill/drain hops stay exposed; Megatron-Core overlap_p2p_comm);
    # EP about none. Megatron-LM 2021/22 and DeepSpeed's pipeline engine used blocking p2p
    # (batch_isend_irecv + wait, p2p.py send/recv): pp_overlap 0 for those stacks.
    tp_overlap: float = field(default=1.0, metadata=_SHARE)
    pp_overlap: float = field(default=1.0, metadata=_SHARE)
    ep_overlap: float = field(default=0.0, metadata=_SHARE)
    # Pipeline p2p "scatter/gather" (Narayanan et al. SC'21 §4.1, P): each TP rank sends 1/t of
    # the boundary activation over its own NIC and the receiver all-gathers it over NVLink
    # (native with sequence parallelism). False: every TP rank sends the full tensor
    # (DeepSpeed PipelineEngine, Megatron-DeepSpeed 2021: MT-NLG, BLOOM).
    pp_scatter_gather: bool = True
    # The send and the receive of a 1F1B step run concurrently (Megatron batch_isend_irecv: 2
    # transfers per micro-batch on the critical path). False: blocking send then receive, one
    # after the other (DeepSpeed pipe/p2p.py, 2021): 4 transfers per micro-batch.
    pp_p2p_batched: bool = True
    # CP K/V ring exchange hides behind this fraction of the attention-core compute (R: "mostly
    # hidden").
    cp_overlap: float = field(default=1.0, metadata=_SHARE)
    # DP gradient reduction overlaps with the backward of the last micro-batch (and the ZeRO
    # parameter all-gather with the first forward), except for one bucket (performance.md §5);
    # with an interleaved pipeline, per model chunk: a chunk's reduce-scatter starts after its
    # last micro-batch backward and hides behind the other chunks' (Megatron-Core
    # overlap_grad_reduce / overlap_param_gather in the interleaved schedule, code read).
    dp_overlap: bool = True
    # Gradient bucket size: Megatron-Core DDP default 40M parameters (x 2 B) (P: code default).
    # Each bucket is one collective (its size sets its efficiency, and each pays the latency);
    # 0 means one collective over all gradients (Megatron-LM 2021 local DDP's contiguous
    # buffer). DeepSpeed's default reduce_bucket_size is 5e8 elements (1,000 MB in bf16).
    dp_bucket_mb: float = field(default=80.0, metadata={"min": 0.0, "unit": "MB"})
    # Bytes per gradient element in the DP reduction and in the gradient buffer that feeds it
    # (memory.py): bf16 (performance.md §3 worked example; NeMo grad_sync_dtype bf16); 4 for
    # fp32 accumulation and reduction (Llama 3 §3.3.2; Megatron-LM's bf16 default).
    grad_reduce_bytes: float = field(default=2.0, metadata=_ELEMENT_BYTES)
    # Bytes per parameter element FSDP / ZeRO-3 all-gathers: 2 (bf16 params, "PURE"); 4 when
    # the unsharded parameters stay fp32 and autocast casts them (Composer FSDP
    # mixed_precision "DEFAULT" of 2023: param_dtype fp32, reduce_dtype bf16; code read, S).
    fsdp_param_gather_bytes: float = field(default=2.0, metadata=_ELEMENT_BYTES)
    # Compute slowed by hidden communication, as a fraction of the hidden time: Calculon
    # ``processor_usage`` 0.15 for NVLink and 0.02 for InfiniBand (P, performance.md §5).
    scale_up_comm_compute_cost: float = field(default=0.15, metadata=_COST)
    scale_out_comm_compute_cost: float = field(default=0.02, metadata=_COST)

    # --- MoE ---------------------------------------------------------------------------
    # Routing skew: the busiest expert rank sets the pace (E; 1.0-1.3, performance.md §7). A
    # workload's ``model.moe.imbalance`` replaces it.
    ep_imbalance: float = field(default=1.1, metadata={"min": 1.0})
    # How the dispatch and combine move tokens. "alltoall": every routed copy is its own
    # message (NCCL all-to-all, Megatron-Core's alltoall token dispatcher). "deepep": a token is
    # sent once per destination node and forwarded inside it over NVLink, so node-limited
    # routing caps its network copies (DeepEP; DeepSeek-V3 §3.2.2, P; Megatron-Core's "flex"
    # dispatcher runs it).
    ep_dispatch: str = field(default="alltoall", metadata={"choices": EP_DISPATCHERS})
    # Pipeline schedule. "1f1b": one-forward-one-backward, interleaved with virtual stages
    # (Megatron). "dualpipe": DeepSeek's bidirectional schedule (DeepSeek-V3 §3.2.1, Table 2, P):
    # bubble (p/2 - 1)(F&B + B - 3W) instead of (p - 1)(F + B), two copies of the parameters,
    # p + 1 micro-batches of activations in flight; each forward chunk runs beside a backward
    # one, so the all-to-all and pipeline traffic hide behind compute (``ep_overlap``).
    pipeline_schedule: str = field(default="1f1b", metadata={"choices": PIPELINE_SCHEDULES})

    # --- memory ------------------------------------------------------------------------
    # Logits kept in fp32 for the loss (performance.md §6).
    logits_bytes_per_element: float = field(default=4.0, metadata=_ELEMENT_BYTES)
    # Dropout in the transformer layers (1-byte masks stored for the backward). Current
    # pre-training recipes use none (Llama 3, NeMo llama3_1_*.yaml hidden_dropout 0.0 and
    # attention_dropout 0.0, P); GPT-3-era Megatron recipes used 0.1 (SC'21, MLSys'23, NeMo
    # gpt3_175b).
    dropout: bool = False
    # When the layers do not divide into pp x virtual_stages chunks but layers + 2 do, count
    # the embedding and the output layer + loss as one layer each: the first and last stages
    # get one transformer layer fewer (Llama 3, Dubey et al. 2024 §3.3.2, P; Megatron-Core
    # --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split).
    # False: the first layers mod (pp v) chunks get one layer more.
    balance_pipeline_ends: bool = True
    # The model's weights kept in FP8 (Megatron fp8_param_gather: the FP32 master copy lives in
    # the optimizer states, the BF16 copy goes). Megatron-Bridge's FP8 current-scaling and
    # MXFP8 precision configs set it (P: NVIDIA-NeMo/Megatron-Bridge v0.2.0
    # src/megatron/bridge/training/mixed_precision.py bf16_with_fp8_current_scaling_mixed,
    # bf16_with_mxfp8_mixed: fp8_param_gather = True; scripts/performance/utils/helpers.py picks
    # them for fp8_cs / fp8_mx). A per-tensor FP8 weight then takes 1 byte where the tensor
    # cores take FP8 operands in any layout (Blackwell: Transformer Engine's
    # non_tn_fp8_gemm_supported), but 2 on Hopper, which keeps a transposed FP8 copy for the
    # backward GEMMs, and MXFP8 keeps row- and column-wise copies everywhere: no saving there.
    fp8_primary_weights: bool = False
    # Communication buffers and library workspace, and framework overhead (CUDA context,
    # NCCL's own buffers, allocator fragmentation): each ~1-3 GB (E, performance.md §6). The
    # workspace sits inside what torch allocates, which the published peaks check
    # (tests/validation/memory_cases.py); the framework term is outside it and unchecked. NCCL
    # alone reaches it: 544-688 MB per process group on 4 A100 (NVIDIA/nccl#964), 1.06 -> 4.34
    # GB on 8 H100 after a first all-to-all (NVIDIA/nccl#1685), so 2 GB is not generous.
    workspace_gb: float = field(default=1.5, metadata={"min": 0.0, "unit": "GB"})
    framework_overhead_gb: float = field(default=2.0, metadata={"min": 0.0, "unit": "GB"})

    # --- step-level --------------------------------------------------------------------
    # Stragglers at scale: "add a few %" (performance.md §5, reliability-power.md §1 ByteDance
    # OSDI'25: 10.4% of GPU-hours lost over all jobs). Full value at ``straggler_full_gpus``,
    # growing with log2(job servers) from one scale-up domain (E).
    straggler_fraction: float = field(default=0.03, metadata=_COST)
    straggler_full_gpus: int = field(default=8192, metadata={"min": 1, "unit": "GPUs"})
    # Fixed per-step overhead (data loading, logging, host synchronisation) (E).
    step_overhead_s: float = field(default=0.0, metadata={"min": 0.0, "unit": "s"})
    # Global batch (tokens) used when the workload asks for "auto" parallelism (E: Llama 3 used
    # 4M-16M tokens, GPT-3 3.2M).
    auto_global_batch_tokens: float = field(default=4194304.0, metadata={"min": 0.0, "min_exclusive": True, "unit": "tokens"})
    # ... or this many tokens per GPU of the design when that is more (E: Llama 3 405B used
    # 16M tokens on 16,384 H100, ~1,000 per GPU, Dubey et al. Table 4; a 4M-token batch on
    # 16k GPUs leaves one sequence per replica and a pipeline that is mostly bubble).
    auto_tokens_per_gpu: float = field(default=1024.0, metadata={"min": 0.0, "min_exclusive": True, "unit": "tokens"})

    # --- software stack ----------------------------------------------------------------
    # The preset (core/stacks.py) these values started from; a project without it ran on the
    # default. Values edited after choosing a preset make the stack "custom (based on X)".
    stack: str = field(default=DEFAULT_STACK, metadata={"choices": STACK_IDS})
