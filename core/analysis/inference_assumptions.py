"""Assumptions of the inference (serving) analysis: the roofline's efficiencies, the HBM reserve
and the efficiencies of the KV-cache moves (prefill->decode hand-over, host memory, a remote
prefix cache). Saved with each project under ``assumptions.inference``. Its own module because
the analysis, the serving layout search and the bottleneck what-ifs all read it.
Tags as in ../shared/reference/README.md (P primary, S secondary, E estimate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

_FRACTION = {"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}


@dataclass(frozen=True)
class InferenceAssumptions:
    # Fraction of the dense peak large prefill GEMMs reach (E: FP8/BF16 prefill on H100 in
    # TensorRT-LLM / vLLM runs at 50-70% of dense peak; the training model's big-GEMM prior
    # of 0.9 less attention and kernel gaps).
    prefill_compute_efficiency: float = field(default=0.6, metadata=_FRACTION)
    # Decode GEMMs are skinny (batch rows): a lower fraction of peak (E).
    decode_compute_efficiency: float = field(default=0.5, metadata=_FRACTION)
    # Fraction of HBM peak that decode's weight and KV reads reach (E: memory-bound GEMV and
    # paged-attention kernels reach 70-90% of peak bandwidth).
    hbm_efficiency: float = field(default=0.8, metadata=_FRACTION)
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
