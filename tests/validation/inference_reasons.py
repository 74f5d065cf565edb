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
MI300X_REASON = (
    "the catalog gives MI300X and MI325X the same dense peak (2,615 TF/s FP8) and the model the "
    "same decode step, but on the same die and vLLM 0.9.0 (MLPerf v5.1) the MI300X (750 W) "
    "serves 20% less per GPU than the MI325X (1,000 W), which we read as power-limited clocks "
    "(E); the v4.1 rows ran vLLM 0.4.3 in eager mode, 15% below v5.1 on the same GPUs")
INTERACTIVE_REASON = (
    "the Interactive limits bind the 99th percentile (p99 TPOT 38.1 of 40 ms) and the model "
    "meets them in the mean, filling 528 sequences per GPU before its mean TPOT reaches 40 ms; "
    "a p99 at 40 ms holds a lower mean TPOT, so a smaller batch, than our means (the Server "
    "row of the same system, under 200 ms, lands at +11%)")
DSR1_REASON = (
    "DeepSeek-R1 at a large batch per attention-DP rank, with TensorRT-LLM's ADP balancing on "
    "(the ranks' prefills aligned, as modelled). At 16-32 sequences per rank NVIDIA's "
    "silicon runs of the same engine (aiconfigurator, H200 DEP8) measure TPOTs 0-15% above the "
    "model's, but the measured time per token grows about ten times faster with the batch: 66 "
    "ms at 155 sequences per rank (MLPerf B200 Server, Little's law on its log: 18,592 tok/s x "
    "66.5 ms mean TPOT / 8 ranks) against the model's 17 ms, and 2.1-3.3x the model at the 128-"
    "940 per rank of these rows (stated in TensorRT-LLM's guide and by MLPerf's per-rank "
    "max_batch_size; the perf overview's, the KV maximum). Modelled since (issue 21), moving "
    "these rows by 1-12%: the busiest EP rank's share by chance, MLA decode at BF16 on Hopper "
    "(the H200 row, +143% to +113%). Checked, not the cause: the batch held; attention-DP "
    "imbalance (ADP balancing on: 0.88 of balance, TensorRT-LLM tech blog 10); the experts read "
    "(all, as modelled); MLA's kernel (FlashMLA reaches 0.67 of peak, above the model's 0.44). "
    "Found, not modelled (no one law fits): NVIDIA's isolated-kernel times for this engine "
    "(aiconfigurator's op database) are 1.7-4.4x the model's MoE at ~128 tokens per expert, 2x "
    "its all-to-all and 1.4-1.6x its MLA module, and their sum still leaves 1.5-1.9x to the runs "
    "(serving-model.md section 9). The MLPerf rows carry the set's long-tailed lengths (16 "
    "classes, a mean context in flight of 4,800 tokens, not 2,700)")
BP_REASON = (
    "DeepSeek-R1 at a large batch per attention-DP rank, without ADP balancing: the ranks' "
    "unaligned prefills are modelled (each step waits for the rank prefilling most: 0.90 "
    "prompts per step at 384 per rank, 1.51 at 896, where a rank's mean is 0.19 and 0.44), "
    "which took these rows from +155% / +187% to +49% / +81% and the H200 run at 128 per rank "
    "from +107% to within 8%. What is left is the Blackwell large-batch gap of the rows with "
    "ADP balancing: " + DSR1_REASON[DSR1_REASON.index("NVIDIA's isolated-kernel"):
                                     DSR1_REASON.index(" The MLPerf rows")])
TRT_BLACKWELL_REASON = (
    "the same table's H100 and H200 rows land within 8%; on Blackwell the model's decode is "
    "HBM-bound at the KV maximum (373 sequences of 1,500 tokens per B200 with an FP8 KV cache). "
    "The KV-cache dtype of the Llama rows is not published (the options leave it to the "
    "checkpoint): with a BF16 KV cache the batch halves and these rows land at -10% (B200) and "
    "-17% (GB200), but the H100 rows at -32% and -36%")
TRT_405B_B200_REASON = (
    "FP4 on B200 at the KV maximum (813 sequences per TP-4 replica), compute-bound in the model; "
    "the same table's H100 and H200 rows land within 6%. TensorRT-LLM's B200 FP4 rows are "
    "over-predicted (Llama 3.3 70B +48%, this row +30%) while MLPerf's B200 FP4 rows land "
    "within 14%, by amounts one FP4 factor cannot reconcile")
AIC_TP8_REASON = (
    "the same setup at concurrency 4 is within 9% (a calibration row), but from concurrency 4 "
    "to 128 the measured TPOT grows by 15.4 ms (6.26 to 21.64) and the model's by 7.0 ms (6.9 "
    "to 13.9): at TP 8 each GPU's share of the step's bytes and FLOPs is small, and a cost that "
    "grows with the batch but not with TP is missing (not separated: per-sequence sampling and "
    "scheduling, the measured TTFT of 324 ms against the model's 50 ms, prompts prefilled in "
    "chunks behind each other); the TP 4 rows of the same file on H100 and B200 land within 25%")
