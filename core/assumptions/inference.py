"""Assumptions of the inference (serving) analysis: the roofline's efficiencies, the HBM reserve
and the efficiencies of the KV-cache moves (prefill->decode hand-over, host memory, a remote
prefix cache). Saved with each project under ``assumptions.inference``. Below the analyses
(core/assumptions): the analysis, the serving layout search and the bottleneck what-ifs read it.
Tags as in ../shared/reference/README.md (P primary, S secondary, E estimate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.assumptions.kernels import FP4_OVER_FP8_GEMM_SHARE

_FRACTION = {"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}
# The accelerator whose runs set the compute efficiencies below.
CALIBRATION_ACCELERATOR = "H100-SXM5-80GB"


@dataclass(frozen=True)
class InferenceAssumptions:
    # Fraction of the dense peak that prefill (prefill_compute_efficiency) and decode
    # (decode_compute_efficiency) realise over a whole step, kernels, attention and gaps
    # included: the linear layers' FLOPs at the peak of the weights' precision, attention's at
    # the peak of the KV cache's. Fitted together with fixed_us_per_layer below (D,
    # ``python -m tests.validation.calibrate_serving``): least squares in log output tokens/s per
    # GPU over six runs: three H100 runs at large batches, which set the efficiencies (P: MLPerf
    # Inference v4.1 Llama 2 70B Offline on a DGX H100, FP8, 4 x TP2, batch 896, 3,065.6
    # tok/s/GPU, mlcommons/inference_results_v4.1; TensorRT-LLM perf overview, Llama 3.3 70B FP8
    # on H100 TP2, 2,209 tok/s/GPU at 1,000 / 1,000 and 398 at 8,192 / 1,024 tokens, NVIDIA/
    # TensorRT-LLM docs/source/developer-guide/perf-overview.md), and three of NVIDIA's
    # aiconfigurator silicon runs of Llama 3.1 70B FP8 at concurrency 4, which set the fixed cost
    # (P: ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/systems/silicon_sample.csv:
    # H100 vLLM TP4 TPOT 11.78 ms, H200 TensorRT-LLM TP8 6.26 ms, B200 TensorRT-LLM TP4 6.62 ms);
    # docs/validation.md rows MLP41-L2-70B-H100x8-offline, TRT-L33-70B-H100-TP2-1k1k, -8k1k,
    # AIC-L31-70B-*-c4: 0.437 and 0.467 (residuals -0.0 / +8.0 / -5.7 / +10.8 / -8.7 / +1.8%),
    # with the KV cache's room in the bytes the GPU holds (AcceleratorSpec.hbm_capacity_gb; 0.473
    # and 0.439 when it counted the spec sheet's GB as 10^9 bytes, 7% short).
    # Every other serving row of docs/validation.md (H200, B200, GB200, MI300X, MI325X, MoE,
    # other lengths, layouts and batches) is a prediction with them. Before the fixed cost, MLA's
    # absorbed decode and attention at the KV cache's precision they were fitted at 0.423 and
    # 0.415 on the three H100 runs alone; before any data, estimates of 0.6 and 0.5 (E).
    prefill_compute_efficiency: float = field(default=0.437, metadata=_FRACTION)
    decode_compute_efficiency: float = field(default=0.467, metadata=_FRACTION)
    # Max-achievable dense GEMM throughput as a fraction of the dense peak, where measured: the
    # efficiencies above were fitted on H100 runs, so an accelerator listed here realises them x
    # its share / the H100's (a part whose largest GEMMs hold a lower clock under load realises
    # less of every kernel). H100 0.698 (P: Azure/AI-benchmarking-guide, H100 cuBLASLt FP8
    # sweep, 1,382.2 of 1,978.9 TF/s, the training model's source). MI300X 0.487 and MI325X 0.581
    # (P: AMD, ROCm/rocm-blogs software-tools-optimization/measuring-max-achievable-flops-part2,
    # "AMD MAF Results", hipBLASLt FP8 at M=4096 N=3648 K=32896: 1,273 TF/s at a 1,230 MHz
    # median clock on the 750 W MI300X, 1,519 TF/s at 1,464 MHz on the 1,000 W MI325X, of
    # 2,614.9 TF/s at the 2,100 MHz boost): the same die, 19% apart in clock under a dense GEMM.
    # The two vendors' figures come from different benches (E for the ratio to the H100; the
    # MI300X / MI325X ratio is one bench's). Not listed (H200, Blackwell...): the H100's share.
    gemm_ceiling_by_accelerator: dict[str, float] = field(
        metadata=_FRACTION,
        default_factory=lambda: {"H100-SXM5-80GB": 0.698, "MI300X": 0.487, "MI325X": 0.581})
    # FP4 weights: the best NVFP4 GEMM's share of the FP4 peak over the best FP8 GEMM's share
    # of the FP8 peak, per accelerator (P: NVIDIA's measurements of TensorRT-LLM's kernels;
    # core/assumptions/kernels.py): B200 0.722, GB200 0.744, B300 0.570, GB300 0.571. The
    # efficiencies above were fitted on FP8 runs; FP4 linear layers run at the FP4 peak x this.
    fp4_over_fp8_gemm_share_by_accelerator: dict[str, float] = field(
        metadata=_FRACTION, default_factory=lambda: dict(FP4_OVER_FP8_GEMM_SHARE))
    # Fraction of HBM peak that decode's weight and KV reads reach (E: memory-bound GEMV and
    # paged-attention kernels reach 70-90% of peak bandwidth). Not fitted; the calibration's
    # check (the fit above with this free too, over those rows and the memory-bound MLPerf
    # Mixtral 8x7B Offline row) gives 0.795, so the estimate stands.
    hbm_efficiency: float = field(default=0.8, metadata=_FRACTION)
    # Fixed cost of every layer in every step (prefill and decode, per micro-batch and stage):
    # kernel launches and tails, synchronisation, the small kernels around the GEMMs (norms,
    # RoPE, activation, quantisation), which the roofline's bytes and FLOPs do not see and CUDA
    # graphs do not remove. FITTED (D), with the efficiencies above: the aiconfigurator silicon
    # runs at concurrency 4 measure TPOTs 0.8-3.6 ms (10-45 us per layer) above the weights' read
    # and the all-reduces at 0.8 of HBM bandwidth; the fit gives 30.9 us (2.5 ms per step for an
    # 80-layer model). One number for every engine and accelerator: vLLM's runs sit above it,
    # TensorRT-LLM's below.
    fixed_us_per_layer: float = field(default=30.9, metadata={"min": 0.0, "max": 10_000.0,
                                                              "unit": "us"})
    # HBM kept for activations, CUDA graphs and fragmentation (P: vLLM's default
    # gpu_memory_utilization = 0.9 leaves 10%).
    activation_reserve_fraction: float = field(default=0.10, metadata={"min": 0.0, "max": 0.9,
                                                                        "unit": "fraction"})
    # Activations on the wire: BF16 for TP all-reduce and EP combine (P: DeepSeek-V3 §3.2
    # combines in BF16); EP dispatch at the serving precision when that is narrower (DeepSeek
    # dispatches in FP8).
    activation_bytes: float = field(default=2.0, metadata={"min": 0.5, "max": 4.0, "unit": "bytes"})
    # Fraction of the fabric level's effective per-GPU bandwidth (the NCCL-effective figure of
    # core/fabric.py) a prefill->decode KV-cache hand-over reaches in a disaggregated
    # deployment (P: Mooncake's vLLM 1P1D benchmark, kvcache-ai.github.io/Mooncake/performance/
    # vllm-v1-support-benchmark.html, measured 56% of line rate for 2,048-token prompts, 64% at
    # 8,192 and 71% at 32,768, 18% at 128; E: 0.6 for the few-thousand-token prompts of the
    # presets, paged KV blocks being many small RDMA writes).
    kv_transfer_efficiency: float = field(default=0.6, metadata=_FRACTION)
    # Fraction of the host link's rate (PCIe or NVLink-C2C, per direction) that KV-cache copies
    # between host memory and HBM reach (S: NVIDIA/nvbandwidth issue #24, H100 device-to-host
    # 52.8 GB/s over PCIe Gen5 x16's 64 GB/s, 0.82; E: 0.8 for both directions).
    host_link_efficiency: float = field(default=0.8, metadata=_FRACTION)
    # Fraction of the storage path's rated read bandwidth (core/analysis/storage.py gives rated
    # figures) a remote prefix cache's KV reads reach (E: the reliability analysis's
    # storage_read_efficiency, 0.8, for the same path and the same multi-MB reads).
    prefix_cache_read_efficiency: float = field(default=0.8, metadata=_FRACTION)
