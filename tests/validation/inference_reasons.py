"""Why each serving known miss misses, and the engine options the rows set (inference_cases.py
uses them): what we found, not fitted; docs/validation.md, "Serving results", shows them."""

from __future__ import annotations


# MLA decode on Hopper attends in BF16 whatever the KV cache's precision: FlashMLA's SM90 kernels
# compute in BF16 (an FP8 cache is dequantised; deepseek-ai/FlashMLA README, P), and TensorRT-
# LLM's MLA generation module on H200 gains 3-6% from an FP8 KV cache at 512 sequences of 2,048-
# 4,096 tokens, where the same module on B200 gains 26-65% (NVIDIA's op database,
# ai-dynamo/aiconfigurator @ 095f58a5 systems/data/h200_sxm, b200_sxm, P): the halved reads,
# not an FP8 product.
HOPPER_MLA = {"attention_precision": "bf16"}
# TensorRT-LLM's ADP balancing aligns the attention-DP ranks' prefills (tech blog 10): on in
# NVIDIA's MLPerf v5.1 DeepSeek-R1 harness (adp_balancing_enable, serving-results.md §C) and in
# the perf overview's DeepSeek R1 options (attention_dp_config: enable_balance: true,
# docs/source/developer-guide/perf-overview.md @ 03e27c7d, P); not set in the best-performance
# guide's runs (enable_attention_dp only, at commit b6261862, P)
ADP_BALANCE = {"attention_dp_balance": True}
HOPPER_MLA_NOTE = "; MLA decode attends in BF16 on Hopper (FlashMLA SM90, TensorRT-LLM's H200 MLA op)"

# Why the known misses miss (docs/validation.md, "Serving results"): what we found, not fitted.
INTERACTIVE_REASON = (
    "the Interactive limits bind the 99th percentile (p99 TPOT 38.1 of 40 ms) and the model "
    "meets them in the mean, filling 396 sequences per GPU before its mean TPOT reaches 40 ms; "
    "a p99 at 40 ms holds a lower mean TPOT, so a smaller batch, than our means (the Server "
    "row of the same system, under 200 ms, lands at -16%)")
_AIC_REMAINS = (
    "Side by side with NVIDIA's per-operation silicon times for the same engine (aiconfigurator "
    "0.12, TensorRT-LLM 1.3.0rc20 op database), one decode step on H200 at 375 per rank: the "
    "model matches its MLA module (31.8 against 32.4 ms) and its MoE op with balanced routing "
    "(39.0 against 37.7 ms); what remains is the all-to-all (17.3 against the model's 9.3 ms: "
    "TensorRT-LLM's MoE communication kernels at about half the NVLink rate, with a 40-90 us "
    "floor per call) and routing skew (the same MoE op under a power-law routing: 55.1 ms). Not "
    "modelled, each for a stated reason: the all-to-all kernels' rate and floor (one engine's "
    "kernels, not the fabric: DeepEP's low-latency kernels agree with the model's EP 128 "
    "figure), routing skew beyond chance (a property of the runs' data, unpublished)")
DSR1_REASON = (
    "DeepSeek-R1 at a large batch per attention-DP rank, with TensorRT-LLM's ADP balancing on "
    "(the ranks' prefills aligned, as modelled). Modelled since (issue 21): the busiest EP rank "
    "by chance, MLA decode at BF16 on Hopper, fine-grained experts whose grouped GEMMs cost "
    "their weights' read plus their math (NVIDIA's MoE op at DeepSeek's shape, FP8 on H200 and "
    "B200: 0.86-1.31x of that sum), FP4 GEMMs at NVIDIA's measured rate and fine-grained FP4 "
    "experts' math at the FP8 rate (the same data): the perf overview's and the guide's FP4 "
    "runs now land within 20%, these rows from +113..+226% to +72..+121% (MLPerf) and +70% "
    "(H200, FP8). " + _AIC_REMAINS + ". The MLPerf rows also carry the set's long-tailed "
    "lengths (16 classes, a mean context in flight of 4,800 tokens, not 2,700); "
    "aiconfigurator misses them too (+57% at the set's mean request)")
TRT_BLACKWELL_REASON = (
    "the same table's H100 and H200 rows land within 8% and its GB200 row, the same chip at "
    "1,200 W, within 25%; on the B200 the model's decode is HBM-bound at the KV maximum (406 "
    "sequences of 1,500 tokens with an FP8 KV cache), so the FP4 GEMMs' measured rate (0.72 of "
    "the FP4 advantage, NVIDIA's kernel data) moves only its prefill. The KV-cache dtype of "
    "the Llama rows is not published (the options leave it to the checkpoint): with a BF16 KV "
    "cache the batch halves, but then the H100 rows land at -32% and -36%")
AIC_TP8_REASON = (
    "the same setup at concurrency 4 is within 9% (a calibration row), but from concurrency 4 "
    "to 128 the measured TPOT grows by 15.4 ms (6.26 to 21.64) and the model's by 7.0 ms (6.9 "
    "to 13.9): at TP 8 each GPU's share of the step's bytes and FLOPs is small, and a cost that "
    "grows with the batch but not with TP is missing (not separated: per-sequence sampling and "
    "scheduling, the measured TTFT of 324 ms against the model's 50 ms, prompts prefilled in "
    "chunks behind each other); the TP 4 rows of the same file on H100 and B200 land within 25%")
