"""Assumptions of the inference (serving) analysis: the roofline's efficiencies and the HBM
reserve. Saved with each project under ``assumptions.inference``. Its own module because the
analysis, the serving layout search and the bottleneck what-ifs all read it.
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
