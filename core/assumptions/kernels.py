"""Measured kernel rates that training and serving share (one definition of each figure).

NVFP4 GEMMs: the best measured NVFP4 GEMM's share of the accelerator's dense FP4 peak over the
best FP8 GEMM's share of its FP8 peak, on the same accelerator and bench (P: NVIDIA's own
silicon measurements of TensorRT-LLM 1.3.0rc20's GEMM kernels, ai-dynamo/aiconfigurator 0.12.0
aic-core systems/data/<system>/gemm/trtllm/1.3.0rc20/gemm_perf.parquet, best over the file's
shapes with m >= 4,096):

* B200: FP8 3,151 of 4,500 TF/s (0.700), NVFP4 4,547 of 9,000 (0.505): 0.722;
* GB200: FP8 3,493 of 5,000 (0.699), NVFP4 5,196 of 10,000 (0.520): 0.744;
* B300: FP8 3,376 of 4,500 (0.750), NVFP4 5,983 of 14,000 (0.427): 0.570;
* GB300: FP8 3,749 of 5,000 (0.750), NVFP4 6,426 of 15,000 (0.428): 0.571.

The 4-bit tensor cores do twice (three times on Blackwell Ultra) the FP8 math per clock, but a
GEMM that streams half the operand bytes per FLOP reaches 1.4-1.5x (1.7x) the FP8 rate: the
block scales, the epilogue and the power limit take the rest. An FP4 GEMM is therefore modelled
at its peak x this share x whatever the FP8 path realises. Accelerators without a measurement
(none other in the catalog has FP4 tensor cores) take 1.
"""

from __future__ import annotations

FP4_OVER_FP8_GEMM_SHARE: dict[str, float] = {
    "B200": 0.722, "GB200": 0.744, "B300": 0.570, "GB300": 0.571,
}
