"""The serving validation rows: published LLM serving results on hardware in the catalog.

Every row is a project: the run's real server or rack (``generate supernode`` / ``fat-tree``),
an inference workload with the run's model, serving and KV-cache precision, request shape and
deployment (layout and batch as published), evaluated through ``python -m designer.cli evaluate
P --format json`` like the training rows. The published numbers, their per-GPU arithmetic (D)
and the row numbers (#1-#56) are those of docs/reference/serving-results.md, which gives the
paths inside each source; tags as there (P primary, S secondary, D derived, E our estimate).

What a row compares (``compare``), always per GPU of the deployment:

* ``offline``: served output tokens/s per GPU (prefill counted: ``output_tokens_per_s_per_gpu``)
  at the published batch, the figure of an MLPerf Offline run (every query at once) and of
  TensorRT-LLM's max-throughput tables (batch: what the KV cache holds).
* ``server``: the same figure at the largest batch (up to the engine's) whose TPOT and TTFT at
  load stay within the benchmark's limits: MLPerf Server and Interactive runs, whose load is set
  by the latency limits. Our latencies are means; MLPerf's limits bind the 99th percentile, so
  the prediction leans high.
* ``concurrency``: served output tokens/s per GPU at batch = the measured concurrency, against
  concurrency x OSL / (TTFT + (OSL - 1) TPOT) / GPUs (D, a closed loop at that concurrency):
  with 1,024 output tokens TTFT is 1-4% of a request's time, so this gates TPOT at load.
  TTFT is shown, not gated: the measured one (256-973 ms, where one prompt alone takes the
  model 26-56 ms) holds prompts queued behind each other, as when the concurrency's requests
  start together (E), which our steady-state Poisson wait does not (aiconfigurator's silicon
  measurements).
* ``prefill`` / ``decode``: one phase alone (``prefill_tokens_per_s_per_gpu`` with a prefill
  pool's step, ``decode_tokens_per_s_per_gpu`` at the batch and context), for the disaggregated
  blogs that measured one pool "assuming unlimited resources for the other".

Policies as for the training rows (cases.py): ``gated`` (tolerance asserted), ``known-miss``
(gated, an xfail with the reason found), ``report-only`` (shown: secondary sources, production
averages, speculative decoding, layouts the schema cannot express), ``not-modelled``.
``calibration`` marks the rows the inference efficiencies are fitted on
(``python -m tests.validation.calibrate_serving``); every other row is a prediction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .inference_reasons import (ADP_BALANCE, AIC_TP8_REASON, DSR1_REASON, HOPPER_MLA,
                                HOPPER_MLA_NOTE, INTERACTIVE_REASON,
                                TRT_BLACKWELL_REASON)

TOLERANCE = 0.25  # issue 15: tokens/s per GPU within 25% on the gated rows

OFFLINE, SERVER, CONCURRENCY, PREFILL, DECODE = "offline", "server", "concurrency", "prefill", "decode"

# --------------------------------------------------------------------------------------
# models (serving-results.md "Model shapes")

_DENSE = {"activation": "swiglu", "causal": True,
          "moe": {"experts": 0, "top_k": 0, "shared_experts": 0, "expert_ffn_hidden": 0,
                  "dense_layers": 0}}
# Llama-2-70b-chat-hf (MLPerf's model): GQA, 4K context (P)
LLAMA2_70B = {"layers": 80, "hidden": 8192, "ffn_hidden": 28672, "heads": 64, "kv_heads": 8,
              "vocab": 32000, "seq_len": 4096, **_DENSE}
# Llama 3.1 / 3.3 70B: the same shape, 128K vocabulary and context (P)
LLAMA3_70B = {**LLAMA2_70B, "vocab": 128256, "seq_len": 131072}
# Llama 3.1 405B (resources/workloads/llama3-405b.json, P), 128K context
LLAMA31_405B = {"layers": 126, "hidden": 16384, "ffn_hidden": 53248, "heads": 128, "kv_heads": 8,
                "vocab": 128256, "seq_len": 131072, **_DENSE}
# Mixtral 8x7B: 8 experts, top-2 (Mistral config.json as reproduced publicly, S)
MIXTRAL_8X7B = {"layers": 32, "hidden": 4096, "ffn_hidden": 14336, "heads": 32, "kv_heads": 8,
                "vocab": 32000, "seq_len": 32768, "activation": "swiglu", "causal": True,
                "moe": {"experts": 8, "top_k": 2, "shared_experts": 0, "expert_ffn_hidden": 14336,
                        "dense_layers": 0}}
# DeepSeek-V3 / R1 (resources/workloads/deepseek-r1-serve.json, P); the MTP module not counted
DEEPSEEK_R1 = {"layers": 61, "hidden": 7168, "ffn_hidden": 18432, "heads": 128, "kv_heads": 128,
               "vocab": 129280, "seq_len": 131072, "activation": "swiglu", "causal": True,
               "moe": {"experts": 256, "top_k": 8, "shared_experts": 1, "expert_ffn_hidden": 2048,
                       "dense_layers": 3},
               "mla": {"kv_lora_rank": 512, "qk_rope_head_dim": 64, "q_lora_rank": 1536,
                       "qk_nope_head_dim": 128, "v_head_dim": 128}}

MODEL_NAMES = {id(LLAMA2_70B): "Llama 2 70B", id(LLAMA3_70B): "Llama 3.x 70B",
               id(LLAMA31_405B): "Llama 3.1 405B", id(MIXTRAL_8X7B): "Mixtral 8x7B",
               id(DEEPSEEK_R1): "DeepSeek-V3 / R1"}

# --------------------------------------------------------------------------------------
# hardware


def server(system: str) -> dict:
    """One server or super-node of the catalog, alone (``generate supernode --count 1``)."""
    return {"template": "supernode", "system": system, "count": 1}


def fat_tree(gpus: int, server_id: str, switch: str = "QM9700") -> dict:
    return {"template": "fat-tree", "gpus": gpus, "server": server_id, "switch": switch}


def aggregated(tp: int = 1, dp: int = 1, batch: int = 1, pp: int = 1, ep: int = 1) -> dict:
    return {"mode": "aggregated", "tp": tp, "pp": pp, "ep": ep, "dp": dp, "batch": batch}


def disaggregated(prefill: dict, decode: dict) -> dict:
    return {"mode": "disaggregated", "prefill": prefill, "decode": decode}


def phase(tp: int = 1, dp: int = 1, batch: int = 1, pp: int = 1, ep: int = 1) -> dict:
    return {"tp": tp, "pp": pp, "ep": ep, "dp": dp, "batch": batch}


# TensorRT-LLM's max-throughput runs publish no batch: the KV cache's maximum (E). Any batch
# above what a GPU's KV cache holds is capped to it by the analysis (KV_CACHE_LIMITS_BATCH).
KV_MAXIMUM = 100_000


@dataclass(frozen=True)
class ServingCase:
    id: str
    group: str
    title: str
    model: dict
    precision: str  # weights (and GEMMs)
    kv_precision: str
    input_tokens: int
    output_tokens: int
    deployment: dict
    hardware: dict
    hardware_note: str
    compare: str
    published: float  # tokens/s per GPU in the compared unit
    published_text: str  # as published, with the per-GPU arithmetic
    source: str
    tag: str
    software: str
    limits_ms: tuple[float, float] = (2000.0, 200.0)  # (TTFT, TPOT): a server run's limits
    published_ttft_ms: float | None = None  # concurrency rows: measured, shown beside
    published_tpot_ms: float | None = None
    tolerance: float = TOLERANCE
    policy: str = "gated"
    reason: str = ""
    calibration: bool = False
    # the run's request lengths as classes (input, output, share) when its dataset's spread
    # matters; input_tokens / output_tokens above are then the classes' means
    request_mix: tuple[tuple[int, int, float], ...] = ()
    # further inference-workload keys the run's engine sets (attention_precision, speculative,
    # expert_placement: core/inference_workload.py), each with its source in ``software``
    options: dict = field(default_factory=dict)

    @property
    def model_name(self) -> str:
        return MODEL_NAMES[id(self.model)]


# --------------------------------------------------------------------------------------
# MLPerf Inference (closed division, the submitters' result logs and configurations)

_MLP41 = ("mlcommons/inference_results_v4.1 @ 198fc467: closed/<submitter>/results/.../"
          "mlperf_log_summary.txt, systems/*.json, NVIDIA configs/, AMD code/ (serving-results.md §A)")
_MLP51 = ("mlcommons/inference_results_v5.1 @ 965182b0: results summaries, NVIDIA configs/<system>/"
          "<scenario>/*.py, AMD harness yaml (serving-results.md §C)")
_MLP_S = ("MLCommons results table as copied in openshift-psap/performance-dashboard "
          "mlperf-data/mlperf-{v}.csv (serving-results.md §{s})")
_OPENORCA = "OpenOrca: mean 222 input tokens (D from the dataset), generated {o} per sample (D)"
_TRT_MLPERF = "TensorRT-LLM (NVIDIA MLPerf harness), FP8 linear layers and KV cache"
_FP4_MLPERF = ("TensorRT-LLM (NVIDIA MLPerf harness): NVFP4 weights, FP8 KV cache and context "
               "FMHA, chunked context, in-flight batching")
_VLLM_AMD = "vLLM {v} (ROCm), FP8 weights (Quark) and FP8 KV cache, TP 1 per GPU"
_MLPERF_SERVER = "MLPerf Server limits: p99 TTFT 2,000 ms, p99 TPOT 200 ms"
# What "tokens/s" means in MLPerf: generated tokens of the whole system; the per-GPU figure is
# the system's / its GPUs (D), the instances being independent.
_MLPERF_405B_IN = 9429  # Llama 3.1 405B set: mean input tokens (D)
# TensorRT-LLM's batch with pipeline parallelism is per micro-batch, one micro-batch per stage
# in flight: a replica holds pp x max_batch_size sequences (P: NVIDIA/TensorRT-LLM
# tensorrt_llm/_torch/pyexecutor/_util.py, max_num_sequences = max_batch_size * pp_size); the
# row's batch per replica is that (the KV cache caps it)
_PP_BATCH = "up to 2 x that in flight per replica (TensorRT-LLM: max_batch_size x pp_size)"
_MLPERF_DSR1_IN = 804  # DeepSeek-R1 set: mean input tokens (D)
# The DeepSeek-R1 set's 4,388 samples as 16 classes of equal count by reference output length
# (input mean, output mean, samples), the outputs capped at NVIDIA's max_output_len 20,000
# (code/deepseek-r1/tensorrt/generation_config.json, P): D from the per-sample lengths of
# mlperf_deepseek_r1_dataset_4388_fp8_eval as copied in openshift-psap/performance-dashboard
# mlperf-data/summaries/deepseek-r1.csv (S; serving-results.md "Dataset request shapes"). The
# outputs are long-tailed (median 2,194, mean 3,886 capped, the last class 16,914) and the long
# answers have the short prompts. Sequences in flight are weighted by their output length
# (Little's law), so the decode batch holds a mean context of 4,800 tokens, not the 2,700 of
# one mean request (serving-model.md section 2).
_MLPERF_DSR1_CLASSES = (
    (922, 431, 274), (953, 609, 274), (1009, 754, 274), (1028, 915, 275), (1022, 1101, 274),
    (1018, 1336, 274), (958, 1628, 274), (834, 1995, 275), (791, 2448, 274), (745, 2980, 274),
    (726, 3652, 274), (687, 4467, 275), (661, 5532, 274), (562, 7254, 274), (478, 10131, 274),
    (468, 16914, 275))


def _mlperf_dsr1_mix(generated_mean: float) -> tuple[tuple[int, int, float], ...]:
    """The set's classes with the outputs scaled to a run's mean generated length (the reference
    answers' lengths are not the run's: E, one factor for every class)."""
    samples = sum(n for _, _, n in _MLPERF_DSR1_CLASSES)
    reference = sum(o * n for _, o, n in _MLPERF_DSR1_CLASSES) / samples
    return tuple((i, max(1, round(o * generated_mean / reference)), n / samples)
                 for i, o, n in _MLPERF_DSR1_CLASSES)


def _mlperf(row: str, title: str, system: str, note: str, model: dict, precision: str,
            kv: str, out: int, deployment: dict, compare: str, published: float, text: str,
            software: str, source: str, inp: int = 222, limits=(2000.0, 200.0), **kw) -> ServingCase:
    group = ("MLPerf Inference v4.1" if row.startswith("MLP41") else
             "MLPerf Inference v5.1" if row.startswith("MLP51") else
             "MLPerf Inference v5.0 / v6.0 (secondary copy)")
    return ServingCase(row, group, title, model, precision, kv, inp, out, deployment, server(system),
                       note, compare, published, text, source, kw.pop("tag", "P (per GPU D)"),
                       software, limits, **kw)


_B200_NOTE = "DGX B200: 8 x B200-SXM-180GB (1,000 W), NVLink5 NVSwitch"
_H100_NOTE = "DGX H100: 8 x H100-SXM-80GB, NVLink4 NVSwitch (900 GB/s)"
_H200_NOTE = "8 x H200-SXM-141GB (700 W), NVLink4 NVSwitch"
_MI300X_NOTE = "8 x MI300X-192GB (750 W), xGMI (catalog MI300X-Platform)"
_MI325X_NOTE = "8 x MI325X-256GB, xGMI (QuantaGrid D74A-7U; catalog MI325X-Platform)"

MLPERF_CASES: tuple[ServingCase, ...] = (
    # --- v4.1: H100, H200, MI300X, Mixtral --------------------------------------------------
    _mlperf("MLP41-L2-70B-H100x8-offline", "Llama 2 70B Offline, DGX H100", "DGX-H100", _H100_NOTE,
            LLAMA2_70B, "fp8", "fp8", 290, aggregated(tp=2, dp=4, batch=896), OFFLINE, 3065.6,
            "24,524.9 tok/s system (290.3 tok/sample) / 8 = 3,065.6", _TRT_MLPERF + "; 4 x TP2, batch 896",
            f"{_MLP41}: row #1", calibration=True),
    _mlperf("MLP41-L2-70B-H100x8-server", "Llama 2 70B Server, DGX H100", "DGX-H100", _H100_NOTE,
            LLAMA2_70B, "fp8", "fp8", 290, aggregated(tp=2, dp=4, batch=1024), SERVER, 2700.7,
            "21,605.79 tok/s / 8 = 2,700.7 (p99 TTFT 461 ms, TPOT 175.4 ms)",
            _TRT_MLPERF + "; 4 x TP2, batch 1,024", f"{_MLP41}: row #2"),
    _mlperf("MLP41-L2-70B-H200x8-offline", "Llama 2 70B Offline, 8 x H200", "DGX-H200", _H200_NOTE,
            LLAMA2_70B, "fp8", "fp8", 291, aggregated(tp=1, dp=8, batch=806), OFFLINE, 3912.8,
            "31,302.7 tok/s / 8 = 3,912.8", _TRT_MLPERF + "; 8 x TP1, batch 806",
            f"{_MLP41}: row #3"),
    _mlperf("MLP41-L2-70B-H200x8-server", "Llama 2 70B Server, 8 x H200", "DGX-H200", _H200_NOTE,
            LLAMA2_70B, "fp8", "fp8", 291, aggregated(tp=1, dp=8, batch=896), SERVER, 3653.5,
            "29,228.22 tok/s / 8 = 3,653.5 (p99 TTFT 453 ms, TPOT 146.0 ms)",
            _TRT_MLPERF + "; 8 x TP1, batch 896", f"{_MLP41}: row #4"),
    _mlperf("MLP41-L2-70B-MI300Xx8-offline", "Llama 2 70B Offline, 8 x MI300X", "MI300X-Platform",
            _MI300X_NOTE, LLAMA2_70B, "fp8", "fp8", 293, aggregated(tp=1, dp=8, batch=KV_MAXIMUM),
            OFFLINE, 2939.3, "23,514.8 tok/s / 8 = 2,939.3",
            _VLLM_AMD.format(v="0.4.3") + ", --enforce-eager; batch not published (the KV maximum, E)",
            f"{_MLP41}: row #5"),
    _mlperf("MLP41-L2-70B-MI300Xx8-server", "Llama 2 70B Server, 8 x MI300X", "MI300X-Platform",
            _MI300X_NOTE, LLAMA2_70B, "fp8", "fp8", 293, aggregated(tp=1, dp=8, batch=KV_MAXIMUM),
            SERVER, 2628.5, "21,028.23 tok/s / 8 = 2,628.5 (p99 TTFT 1,604 ms, TPOT 197.9 ms)",
            _VLLM_AMD.format(v="0.4.3") + ", --enforce-eager", f"{_MLP41}: row #6"),
    _mlperf("MLP41-MX-8x7B-H100x8-offline", "Mixtral 8x7B Offline, DGX H100", "DGX-H100", _H100_NOTE,
            MIXTRAL_8X7B, "fp8", "fp8", 146, aggregated(tp=1, dp=8, batch=896), OFFLINE, 6552.0,
            "52,415.9 tok/s (145.9 tok/sample) / 8 = 6,552.0",
            _TRT_MLPERF + "; 8 x TP1 (every expert on every GPU), batch 896", f"{_MLP41}: row #8",
            inp=427),
    _mlperf("MLP41-MX-8x7B-H100x8-server", "Mixtral 8x7B Server, DGX H100", "DGX-H100", _H100_NOTE,
            MIXTRAL_8X7B, "fp8", "fp8", 146, aggregated(tp=1, dp=8, batch=896), SERVER, 6349.4,
            "50,795.57 tok/s / 8 = 6,349.4 (p99 TTFT 629 ms, TPOT 123.1 ms)",
            _TRT_MLPERF + "; 8 x TP1, batch 896", f"{_MLP41}: row #9", inp=427),
    _mlperf("MLP41-L2-70B-B200x1-offline", "Llama 2 70B Offline, 1 x B200 (preview)", "DGX-B200",
            _B200_NOTE + " (one GPU used)", LLAMA2_70B, "fp4", "fp8", 274,
            aggregated(tp=1, dp=1, batch=KV_MAXIMUM), OFFLINE, 11264.4, "11,264.4 tok/s on one GPU",
            "TensorRT-LLM, private preview build; FP4 for a layer list not published (FP4 assumed)",
            f"{_MLP41}: row #7", policy="report-only",
            reason="a preview system on private code with an unpublished FP4/FP8 layer mix"),
    # --- v5.1: B200, GB200, MI325X, MI300X, DeepSeek-R1, Llama 3.1 405B ---------------------
    _mlperf("MLP51-L2-70B-B200x8-offline", "Llama 2 70B Offline, DGX B200", "DGX-B200", _B200_NOTE,
            LLAMA2_70B, "fp4", "fp8", 273, aggregated(tp=1, dp=8, batch=2048), OFFLINE, 12690.9,
            "101,527 tok/s (273.3 tok/sample) / 8 = 12,690.9", _FP4_MLPERF + "; 8 x TP1, batch 2,048",
            f"{_MLP51}: row #13"),
    _mlperf("MLP51-L2-70B-B200x8-server", "Llama 2 70B Server, DGX B200", "DGX-B200", _B200_NOTE,
            LLAMA2_70B, "fp4", "fp8", 273, aggregated(tp=1, dp=8, batch=2048), SERVER, 12390.4,
            "99,123.04 tok/s / 8 = 12,390.4 (p99 TTFT 436 ms, TPOT 132.4 ms)",
            _FP4_MLPERF + "; 8 x TP1, batch 2,048", f"{_MLP51}: row #14"),
    _mlperf("MLP51-L2-70B-B200x8-interactive", "Llama 2 70B Interactive, DGX B200", "DGX-B200",
            _B200_NOTE, LLAMA2_70B, "fp4", "fp8", 273, aggregated(tp=1, dp=8, batch=768), SERVER,
            7443.2, "59,545.45 tok/s / 8 = 7,443.2 (p99 TTFT 140 ms, TPOT 38.1 ms)",
            _FP4_MLPERF + "; 8 x TP1, batch 768", f"{_MLP51}: row #15", limits=(450.0, 40.0),
            policy="known-miss", reason=INTERACTIVE_REASON),
    _mlperf("MLP51-L2-70B-GB200x4-offline", "Llama 2 70B Offline, one GB200 NVL72 tray",
            "GB200-Compute-Tray", "4 x GB200-186GB (1,200 W), one compute tray of an NVL72",
            LLAMA2_70B, "fp4", "fp8", 276, aggregated(tp=1, dp=4, batch=2048), OFFLINE, 12934.2,
            "51,736.9 tok/s / 4 = 12,934.2", _FP4_MLPERF + "; 4 x TP1, batch 2,048",
            f"{_MLP51}: row #16"),
    _mlperf("MLP51-L2-70B-MI325Xx8-offline", "Llama 2 70B Offline, 8 x MI325X", "MI325X-Platform",
            _MI325X_NOTE, LLAMA2_70B, "fp8", "fp8", 301, aggregated(tp=1, dp=8, batch=2048), OFFLINE,
            4315.1, "34,520.4 tok/s (301.0 tok/sample) / 8 = 4,315.1",
            _VLLM_AMD.format(v="0.9.0") + ", target decode batch 2,048", f"{_MLP51}: row #17"),
    _mlperf("MLP51-L2-70B-MI325Xx8-server", "Llama 2 70B Server, 8 x MI325X", "MI325X-Platform",
            _MI325X_NOTE, LLAMA2_70B, "fp8", "fp8", 301, aggregated(tp=1, dp=8, batch=1024), SERVER,
            4003.4, "32,027.57 tok/s / 8 = 4,003.4 (p99 TTFT 1,755 ms, TPOT 198.3 ms)",
            _VLLM_AMD.format(v="0.9.0") + ", max_num_seqs 1,024", f"{_MLP51}: row #18"),
    _mlperf("MLP51-L2-70B-MI300Xx8-offline", "Llama 2 70B Offline, 8 x MI300X (v5.1)",
            "MI300X-Platform", _MI300X_NOTE + " (Supermicro AS-8125GS-TNMR2)", LLAMA2_70B, "fp8",
            "fp8", 302, aggregated(tp=1, dp=8, batch=1536), OFFLINE, 3475.5,
            "27,803.9 tok/s (301.7 tok/sample) / 8 = 3,475.5",
            _VLLM_AMD.format(v="0.9.0") + ", target decode batch 1,280-1,536", f"{_MLP51}: row #19"),
    _mlperf("MLP51-DSR1-B200x8-offline", "DeepSeek-R1 Offline, DGX B200", "DGX-B200", _B200_NOTE,
            DEEPSEEK_R1, "fp4", "fp8", 3736, aggregated(tp=1, dp=8, ep=8, batch=512), OFFLINE, 4172.4,
            "33,379 tok/s (3,736.0 tok/sample) / 8 = 4,172.4",
            "TensorRT-LLM: NVFP4 experts (MLA projections FP8), FP8 KV, attention DP 8 + EP 8 "
            "(WIDEEP MoE), batch 512 per attention-DP rank (max_batch_size is per rank), no MTP",
            f"{_MLP51}: row #20", inp=_MLPERF_DSR1_IN, request_mix=_mlperf_dsr1_mix(3736.0),
            policy="known-miss", reason=DSR1_REASON, options=ADP_BALANCE),
    _mlperf("MLP51-DSR1-B200x8-server", "DeepSeek-R1 Server, DGX B200", "DGX-B200", _B200_NOTE,
            DEEPSEEK_R1, "fp4", "fp8", 3736, aggregated(tp=1, dp=8, ep=8, batch=512), SERVER, 2324.0,
            "18,592.24 tok/s / 8 = 2,324.0 (p99 TTFT 1,696 ms, TPOT 72.2 ms)",
            "as the Offline row", f"{_MLP51}: row #21", inp=_MLPERF_DSR1_IN, limits=(2000.0, 80.0),
            request_mix=_mlperf_dsr1_mix(3736.0), options=ADP_BALANCE,
            policy="report-only",
            reason="the server point depends on attention-DP balancing under Poisson arrivals and "
                   "on the long-tailed output lengths (serving-results.md: report-only)"),
    _mlperf("MLP51-DSR1-GB200x72-offline", "DeepSeek-R1 Offline, GB200 NVL72", "GB200-NVL72",
            "GB200 NVL72: 72 x GB200-186GB, one NVLink5 domain", DEEPSEEK_R1, "fp4", "fp8", 3715,
            aggregated(tp=1, dp=72, ep=8, batch=512), OFFLINE, 4023.8,
            "289,712 tok/s / 72 = 4,023.8",
            "TensorRT-LLM as the B200 row: 9 instances of attention DP 8 + EP 8, batch 512 per rank "
            "(ADP balancing as on B200, E: the same harness)",
            f"{_MLP51}: row #22", inp=_MLPERF_DSR1_IN, request_mix=_mlperf_dsr1_mix(3714.5),
            policy="known-miss", reason=DSR1_REASON, options=ADP_BALANCE),
    _mlperf("MLP51-DSR1-GB300x72-offline", "DeepSeek-R1 Offline, GB300 NVL72", "GB300-NVL72",
            "GB300 NVL72: 72 x GB300 (1,400 W; catalog HBM 279 GB, MLPerf says 288)", DEEPSEEK_R1,
            "fp4", "fp8", 3657, aggregated(tp=1, dp=72, ep=8, batch=1536), OFFLINE, 5842.5,
            "420,659 tok/s / 72 = 5,842.5",
            "TensorRT-LLM 10.13: 9 x (attention DP 8 + EP 8), CUTLASS MoE, batch 1,536 per rank "
            "(ADP balancing as on B200, E: the same harness)",
            f"{_MLP51}: row #23", inp=_MLPERF_DSR1_IN, request_mix=_mlperf_dsr1_mix(3657.4),
            policy="known-miss", reason=DSR1_REASON, options=ADP_BALANCE),
    _mlperf("MLP51-L31-405B-B200x8-offline", "Llama 3.1 405B Offline, DGX B200", "DGX-B200",
            _B200_NOTE, LLAMA31_405B, "fp4", "fp8", 652, aggregated(tp=2, pp=2, dp=2, batch=256),
            OFFLINE, 203.0, "1,624.11 tok/s (651.6 tok/sample) / 8 = 203.0",
            _FP4_MLPERF + "; 2 x (TP2 x PP2), batch 128 per micro-batch: " + _PP_BATCH,
            f"{_MLP51}: row #24", inp=_MLPERF_405B_IN, limits=(6000.0, 175.0)),
    _mlperf("MLP51-L31-405B-GB200x72-offline", "Llama 3.1 405B Offline, GB200 NVL72", "GB200-NVL72",
            "GB200 NVL72: 72 x GB200-186GB", LLAMA31_405B, "fp4", "fp8", 652,
            aggregated(tp=2, pp=2, dp=18, batch=4096), OFFLINE, 205.2, "14,774.3 tok/s / 72 = 205.2",
            _FP4_MLPERF + "; 18 x (TP2 x PP2), batch 2,048 per micro-batch: " + _PP_BATCH,
            f"{_MLP51}: row #25", inp=_MLPERF_405B_IN, limits=(6000.0, 175.0)),
    # --- secondary copies (v5.0, v6.0): layouts not read --------------------------------------
    _mlperf("MLP50-L2-70B-H100x8-offline", "Llama 2 70B Offline, DGX H100 (v5.0)", "DGX-H100",
            _H100_NOTE, LLAMA2_70B, "fp8", "fp8", 290, aggregated(tp=2, dp=4, batch=1024), OFFLINE,
            3913.3, "31,306.8 tok/s / 8 = 3,913.3",
            "TensorRT 10.8 (S), FP8 weights and KV, batch 1,024 (S); TP 2 as in v4.1 (E)",
            _MLP_S.format(v="5.0", s="B") + ": row #11", tag="S", policy="report-only",
            reason="secondary copy, layout not read; 28% above the same hardware in v4.1 "
                   "(software alone)"),
    _mlperf("MLP50-L2-70B-MI325Xx8-offline", "Llama 2 70B Offline, 8 x MI325X (v5.0)",
            "MI325X-Platform", _MI325X_NOTE, LLAMA2_70B, "fp8", "fp8", 301,
            aggregated(tp=1, dp=8, batch=2048), OFFLINE, 4241.0, "33,928.10 tok/s / 8 = 4,241.0",
            "vLLM (ROCm); configuration not read: the v5.1 layout assumed (E)",
            _MLP_S.format(v="5.0", s="B") + ": row #12", tag="S", policy="report-only",
            reason="secondary copy, configuration not read"),
    _mlperf("MLP60-L2-70B-B300x8-offline", "Llama 2 70B Offline, DGX B300 (v6.0)", "DGX-B300",
            "DGX B300: 8 x B300-SXM-270GB", LLAMA2_70B, "fp4", "fp8", 273,
            aggregated(tp=1, dp=8, batch=2048), OFFLINE, 14119.2, "112,954 tok/s / 8 = 14,119.2",
            "configuration not read: the v5.1 B200 layout assumed (E)",
            _MLP_S.format(v="6.0", s="D") + ": row #26", tag="S", policy="report-only",
            reason="secondary copy, configuration not read"),
    _mlperf("MLP60-DSR1-B300x8-offline", "DeepSeek-R1 Offline, DGX B300 (v6.0)", "DGX-B300",
            "DGX B300: 8 x B300-SXM-270GB", DEEPSEEK_R1, "fp4", "fp8", 3736,
            aggregated(tp=1, dp=8, ep=8, batch=512), OFFLINE, 8790.7, "70,325.7 tok/s / 8 = 8,790.7",
            "configuration not read: the v5.1 B200 layout assumed (E)",
            _MLP_S.format(v="6.0", s="D") + ": row #27", inp=_MLPERF_DSR1_IN, tag="S",
            request_mix=_mlperf_dsr1_mix(3736.0),
            policy="report-only",
            reason="secondary copy, configuration not read; 2.1x B200 v5.1 per GPU (newer "
                   "software, MTP or another layout: unknown)"),
)

# --------------------------------------------------------------------------------------
# TensorRT-LLM performance overview (trtllm-bench throughput: fixed lengths, all requests
# queued at once; output tokens/s per GPU, input tokens not counted)

_TRT_NEW = ("NVIDIA/TensorRT-LLM docs/source/developer-guide/perf-overview.md @ 03e27c7d "
            "(per GPU; serving-results.md §E)")
_TRT_OLD = ("NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @ 00f37686 "
            "(v1.0-era, total output tokens/s; serving-results.md §E)")
_TRT_SW = ("TensorRT-LLM (PyTorch backend), trtllm-bench throughput, ModelOpt {p} checkpoint; "
           "KV cache FP8 (E: not stated for Llama); batch: the KV maximum (not published)")
_TRT_DS_SW = ("TensorRT-LLM (PyTorch backend), trtllm-bench throughput, {p} weights, FP8 KV "
              "cache (kv_cache_config dtype fp8), attention DP + EP with ADP balancing "
              "(attention_dp_config enable_balance), no MTP; batch: the KV maximum")


def _trt(row: str, title: str, system: str, note: str, model: dict, precision: str, inp: int,
         out: int, deployment: dict, published: float, text: str, source: str, number: str,
         software: str, kv: str = "fp8", **kw) -> ServingCase:
    old = source is _TRT_OLD
    return ServingCase(row, "TensorRT-LLM perf overview" + (" (v1.0-era)" if old else ""), title,
                       model, precision, kv, inp, out, deployment, server(system), note, OFFLINE,
                       published, text, f"{source}: row {number}",
                       "P" + (" (per GPU D)" if old else ""), software, **kw)


TRT_CASES: tuple[ServingCase, ...] = (
    _trt("TRT-L33-70B-H100-TP2-1k1k", "Llama 3.3 70B FP8, H100 TP2, 1,000 / 1,000", "DGX-H100",
         _H100_NOTE, LLAMA3_70B, "fp8", 1000, 1000, aggregated(tp=2, dp=4, batch=KV_MAXIMUM), 2209,
         "2,209 output tok/s/GPU", _TRT_NEW, "#28", _TRT_SW.format(p="FP8"), calibration=True),
    _trt("TRT-L33-70B-H200-TP2-1k1k", "Llama 3.3 70B FP8, H200 TP2, 1,000 / 1,000", "DGX-H200",
         _H200_NOTE, LLAMA3_70B, "fp8", 1000, 1000, aggregated(tp=2, dp=4, batch=KV_MAXIMUM), 2587,
         "2,587 output tok/s/GPU", _TRT_NEW, "#29", _TRT_SW.format(p="FP8")),
    _trt("TRT-L33-70B-B200-TP1-1k1k", "Llama 3.3 70B FP4, B200 TP1, 1,000 / 1,000", "DGX-B200",
         _B200_NOTE, LLAMA3_70B, "fp4", 1000, 1000, aggregated(tp=1, dp=8, batch=KV_MAXIMUM), 6920,
         "6,920 output tok/s/GPU", _TRT_NEW, "#30", _TRT_SW.format(p="FP4"),
         policy="known-miss", reason=TRT_BLACKWELL_REASON),
    _trt("TRT-L33-70B-GB200-TP1-1k1k", "Llama 3.3 70B FP4, GB200 TP1, 1,000 / 1,000", "GB200-NVL72",
         "GB200 NVL72: 72 x GB200-186GB", LLAMA3_70B, "fp4", 1000, 1000,
         aggregated(tp=1, dp=72, batch=KV_MAXIMUM), 7769, "7,769 output tok/s/GPU", _TRT_NEW, "#31",
         _TRT_SW.format(p="FP4")),
    _trt("TRT-L33-70B-H100-TP2-8k1k", "Llama 3.3 70B FP8, H100 TP2, 8,192 / 1,024", "DGX-H100",
         _H100_NOTE, LLAMA3_70B, "fp8", 8192, 1024, aggregated(tp=2, dp=4, batch=KV_MAXIMUM), 398,
         "398 output tok/s/GPU", _TRT_NEW, "#32", _TRT_SW.format(p="FP8"), calibration=True),
    _trt("TRT-L33-70B-H200-TP2-8k1k", "Llama 3.3 70B FP8, H200 TP2, 8,192 / 1,024", "DGX-H200",
         _H200_NOTE, LLAMA3_70B, "fp8", 8192, 1024, aggregated(tp=2, dp=4, batch=KV_MAXIMUM), 537,
         "537 output tok/s/GPU", _TRT_NEW, "#32 (H200 column)", _TRT_SW.format(p="FP8")),
    _trt("TRT-DSR1-H200-DEP8-1k1k", "DeepSeek-R1-0528 FP8, H200 DEP8, 1,000 / 1,000", "DGX-H200",
         _H200_NOTE, DEEPSEEK_R1, "fp8", 1000, 1000, aggregated(tp=1, dp=8, ep=8, batch=KV_MAXIMUM),
         1627, "1,627 output tok/s/GPU", _TRT_NEW, "#33", _TRT_DS_SW.format(p="FP8") + HOPPER_MLA_NOTE,
         policy="known-miss", reason=DSR1_REASON, options={**HOPPER_MLA, **ADP_BALANCE}),
    _trt("TRT-DSR1-B200-DEP4-1k1k", "DeepSeek-R1-0528 NVFP4, B200 DEP4, 1,000 / 1,000", "DGX-B200",
         _B200_NOTE + " (4 GPUs used)", DEEPSEEK_R1, "fp4", 1000, 1000,
         aggregated(tp=1, dp=4, ep=4, batch=KV_MAXIMUM), 6463, "6,463 output tok/s/GPU", _TRT_NEW,
         "#34", _TRT_DS_SW.format(p="NVFP4"), options=ADP_BALANCE),
    _trt("TRT-DSR1-GB200-DEP4-1k1k", "DeepSeek-R1-0528 NVFP4, GB200 DEP4, 1,000 / 1,000",
         "GB200-NVL72", "GB200 NVL72 (4 of its GPUs used: a compute tray alone has no NVLink "
         "switch)", DEEPSEEK_R1, "fp4", 1000, 1000, aggregated(tp=1, dp=4, ep=4, batch=KV_MAXIMUM),
         6939, "6,939 output tok/s/GPU", _TRT_NEW, "#34 (GB200 column)", _TRT_DS_SW.format(p="NVFP4"),
         options=ADP_BALANCE),
    _trt("TRT-L31-405B-H100-TP8-1k1k", "Llama 3.1 405B FP8, H100 TP8, 1,000 / 1,000", "DGX-H100",
         _H100_NOTE, LLAMA31_405B, "fp8", 1000, 1000, aggregated(tp=8, batch=KV_MAXIMUM), 364.9,
         "2,919 total output tok/s / 8 = 364.9", _TRT_OLD, "#35", _TRT_SW.format(p="FP8")),
    _trt("TRT-L31-405B-H200-TP8-1k1k", "Llama 3.1 405B FP8, H200 TP8, 1,000 / 1,000", "DGX-H200",
         _H200_NOTE, LLAMA31_405B, "fp8", 1000, 1000, aggregated(tp=8, batch=KV_MAXIMUM), 416.2,
         "3,330 total output tok/s / 8 = 416.2", _TRT_OLD, "#35 (H200 column)",
         _TRT_SW.format(p="FP8")),
    _trt("TRT-L31-405B-B200-TP4-1k1k", "Llama 3.1 405B FP4, B200 TP4, 1,000 / 1,000", "DGX-B200",
         _B200_NOTE, LLAMA31_405B, "fp4", 1000, 1000, aggregated(tp=4, dp=2, batch=KV_MAXIMUM),
         1302.2, "5,209 total output tok/s / 4 = 1,302.2", _TRT_OLD, "#35 (B200 column)",
         _TRT_SW.format(p="FP4")),
)

# TensorRT-LLM's DeepSeek-R1 best-performance guide: max-throughput runs with the batch per
# attention-DP rank stated (trtllm-bench --max_batch_size, "Max batch size in each rank", and a
# concurrency of 8 x that), fixed 1,024 / 2,048 lengths (prepare_dataset token-norm-dist with
# stdev 0; D from the printed throughputs: output / requests = 2,048, (total - output) /
# requests = 1,024), attention DP 8 + EP 8, no MTP. They fix the batch the DeepSeek rows above
# leave to the KV maximum or to the long-tailed MLPerf set.

_BP = ("NVIDIA/TensorRT-LLM docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md "
       "@ 01c4ece9, results at TensorRT-LLM commit b6261862 (serving-results.md §E2)")


def _bp(row: str, title: str, system: str, note: str, precision: str, kv: str, batch: int,
        published: float, text: str, number: str, software: str, **kw) -> ServingCase:
    return ServingCase(row, "TensorRT-LLM DeepSeek-R1 best-performance guide", title, DEEPSEEK_R1,
                       precision, kv, 1024, 2048, aggregated(tp=1, dp=8, ep=8, batch=batch),
                       server(system), note, OFFLINE, published, text, f"{_BP}: row {number}", "P",
                       software + "; no ADP balancing (enable_attention_dp only)", **kw)


BP_CASES: tuple[ServingCase, ...] = (
    _bp("TRT-BP-DSR1-B200-DEP8-b896", "DeepSeek-R1-0528 NVFP4, B200 DEP8, 896 per rank, 1,024 / 2,048",
        "DGX-B200", _B200_NOTE, "fp4", "fp8", 896, 5393.3, "5,393.2755 output tok/s/GPU (43,146 total)",
        "#54", "TensorRT-LLM (PyTorch), trtllm-bench, nvidia/DeepSeek-R1-0528-FP4, FP8 KV, "
               "max_batch_size 896, concurrency 7,168, max_num_tokens 2,048"),
    _bp("TRT-BP-DSR1-B200-DEP8-b384-bf16kv", "DeepSeek-R1 NVFP4, B200 DEP8, 384 per rank, BF16 KV, "
        "1,024 / 2,048", "DGX-B200", _B200_NOTE, "fp4", "bf16", 384, 4548.0,
        "4,548.0105 output tok/s/GPU (36,384 total)", "#55",
        "TensorRT-LLM (PyTorch), trtllm-bench, nvidia/DeepSeek-R1-FP4, BF16 KV (\"FP16 KV cache\"), "
        "max_batch_size 384, concurrency 3,072, max_num_tokens 1,536", policy="gated"),
    _bp("TRT-BP-DSR1-H200-DEP8-b128", "DeepSeek-R1 FP8, H200 DEP8, 128 per rank, 1,024 / 2,048",
        "DGX-H200", _H200_NOTE, "fp8", "bf16", 128, 1436.2, "1,436.1584 output tok/s/GPU (11,489 total)",
        "#56", "TensorRT-LLM (PyTorch), trtllm-bench, deepseek-ai/DeepSeek-R1 FP8, KV cache at the "
               "model's BF16 (no kv dtype set), max_batch_size 128, concurrency 1,024, "
               "max_num_tokens 1,151"),
)

# --------------------------------------------------------------------------------------
# NVIDIA aiconfigurator "silicon" measurements (aggregated, one layout at a fixed concurrency)

_AIC = ("ai-dynamo/aiconfigurator @ 095f58a5 aic-core/src/aiconfigurator_core/systems/"
        "silicon_sample.csv (serving-results.md §F)")


def _aic(row: str, title: str, system: str, note: str, model: dict, deployment: dict,
         ttft: float, tpot: float, number: str, software: str, **kw) -> ServingCase:
    gpus = deployment["tp"] * deployment["dp"]
    concurrency = deployment["batch"] * deployment["dp"]
    per_gpu = concurrency * 1024 / (ttft / 1e3 + 1023 * tpot / 1e3) / gpus
    return ServingCase(
        row, "aiconfigurator silicon measurements", title, model, "fp8", "fp8", 1024, 1024,
        deployment, server(system), note, CONCURRENCY, per_gpu,
        f"TTFT {ttft:g} ms, TPOT {tpot:g} ms at concurrency {concurrency}: "
        f"{concurrency} x 1,024 / (TTFT + 1,023 TPOT) / {gpus} = {per_gpu:,.0f} tok/s/GPU (D)",
        f"{_AIC}: row {number}", "P (throughput D)", software,
        published_ttft_ms=ttft, published_tpot_ms=tpot, **kw)


AIC_CASES: tuple[ServingCase, ...] = (
    _aic("AIC-L31-70B-H100-vLLM-TP4-c64", "Llama 3.1 70B FP8, H100 TP4, concurrency 64", "DGX-H100",
         _H100_NOTE + " (4 GPUs used)", LLAMA3_70B, aggregated(tp=4, batch=64), 256.4, 19.51, "#36",
         "vLLM, FP8 GEMMs; KV cache FP8 (E: not a column)"),
    _aic("AIC-L31-70B-H200-TRT-TP8-c128", "Llama 3.1 70B FP8, H200 TP8, concurrency 128", "DGX-H200",
         _H200_NOTE, LLAMA3_70B, aggregated(tp=8, batch=128), 323.5, 21.64, "#37",
         "TensorRT-LLM, FP8 GEMMs; KV cache FP8 (E)",
         policy="known-miss", reason=AIC_TP8_REASON),
    _aic("AIC-L31-70B-B200-TRT-FP8-TP4-c128", "Llama 3.1 70B FP8, B200 TP4, concurrency 128",
         "DGX-B200", _B200_NOTE + " (4 GPUs used)", LLAMA3_70B, aggregated(tp=4, batch=128), 443.8,
         13.21, "#38", "TensorRT-LLM, FP8 GEMMs; KV cache FP8 (E)"),
    # the same three setups at concurrency 4: the fixed cost per layer is fitted on them
    # (calibrate_serving.py), where it is the largest part of the step beyond the weights' read
    _aic("AIC-L31-70B-H100-vLLM-TP4-c4", "Llama 3.1 70B FP8, H100 TP4, concurrency 4", "DGX-H100",
         _H100_NOTE + " (4 GPUs used)", LLAMA3_70B, aggregated(tp=4, batch=4), 80.5, 11.78, "#51",
         "vLLM, FP8 GEMMs; KV cache FP8 (E: not a column)", calibration=True),
    _aic("AIC-L31-70B-H200-TRT-TP8-c4", "Llama 3.1 70B FP8, H200 TP8, concurrency 4", "DGX-H200",
         _H200_NOTE, LLAMA3_70B, aggregated(tp=8, batch=4), 68.69, 6.259, "#52",
         "TensorRT-LLM, FP8 GEMMs; KV cache FP8 (E)", calibration=True),
    _aic("AIC-L31-70B-B200-TRT-FP8-TP4-c4", "Llama 3.1 70B FP8, B200 TP4, concurrency 4",
         "DGX-B200", _B200_NOTE + " (4 GPUs used)", LLAMA3_70B, aggregated(tp=4, batch=4), 192.2,
         6.617, "#53", "TensorRT-LLM, FP8 GEMMs; KV cache FP8 (E)", calibration=True),
    _aic("AIC-DSR1-H200-TRT-TP8EP8-c64", "DeepSeek-R1 FP8, H200 TP8 + EP8, concurrency 64",
         "DGX-H200", _H200_NOTE, DEEPSEEK_R1, aggregated(tp=8, ep=8, batch=64), 972.8, 23.42, "#39",
         "TensorRT-LLM 1.1.0rc2, FP8 GEMMs and MoE, TP 8 with MoE EP 8, attention DP 1; KV FP8 (E)"
         + HOPPER_MLA_NOTE, options=HOPPER_MLA),
)

# --------------------------------------------------------------------------------------
# Large expert-parallel serving reports (report-only, as serving-results.md recommends)

_SGL = "lm-sys/lm-sys.github.io blog/2025-05-05-large-scale-ep.md @ 2db4e404 (serving-results.md §G)"
_DS = ("deepseek-ai/open-infra-index 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_"
       "inference_system_overview.md; DeepSeek profile-data via SGLang's table (serving-results.md §H)")
_CM = ("Zuo et al. arXiv 2506.12708 abstract (P); conditions from a secondary research note "
       "(S-) (serving-results.md §I)")
# CloudMatrix-Infer's decode: EP320 (256 experts + 64 copies over 160 two-die packages) and MTP
_CM_OPTIONS = {"expert_placement": {"redundant_experts": 64},
               "speculative": {"draft_tokens": 1, "acceptance": 0.7}}
_EP_REPORT = ("a blog measuring one pool with the other 'unlimited'; expert-load balance (EPLB on "
              "in-distribution data) and the network are not modelled as run")

EP_CASES: tuple[ServingCase, ...] = (
    ServingCase(
        "SGL-DSV3-H100x32-prefill-2k", "SGLang large-scale EP (H100)",
        "DeepSeek-V3 prefill, 4 nodes x 8 H100, EP32, 2,000-token prompts", DEEPSEEK_R1, "fp8",
        "fp8", 2000, 100,
        disaggregated(phase(dp=32, ep=32, batch=8), phase(dp=16, ep=16, batch=64)),
        fat_tree(48, "DGX-H100"),
        "6 x DGX H100 on NDR 400G (QM9700): 32 prefill GPUs, 16 for a decode pool not measured "
        "(NIC speed not stated: 8 x 400G CX-7, E)", PREFILL, 54543 / 8,
        "54,543 input tok/s per node / 8 = 6,818 (headline 52.3k)", f"{_SGL}: row #40",
        "P (per GPU D)",
        "SGLang, DeepGEMM block FP8, DeepEP, EPLB (32 redundant experts), two-batch overlap; "
        "16,384 tokens per device = 8 prompts of 2,000",
        policy="report-only", reason=_EP_REPORT,
        options={"expert_placement": {"redundant_experts": 32}}),
    ServingCase(
        "DS-V3-H800x32-prefill-profile", "DeepSeek inference system (H800)",
        "DeepSeek-V3 prefill profile, EP32, 4,096-token prompts", DEEPSEEK_R1, "fp8", "bf16", 4096,
        100, disaggregated(phase(dp=32, ep=32, batch=4), phase(dp=16, ep=16, batch=64)),
        fat_tree(48, "HGX-H800"),
        "6 x HGX H800 (NVLink 200 GB/s per direction; 8 x 400G CX-7) on QM9700: 32 prefill GPUs",
        PREFILL, 62713 / 8, "62,713 tok/s per node / 8 = 7,839 (S: SGLang's reading of profile-data)",
        f"{_DS}: row #46", "S (per GPU D)",
        "DeepSeek's own engine: FP8 GEMMs and dispatch, BF16 MLA and combine, dual-batch "
        "overlap; 16,384 tokens per device = 4 prompts of 4,096",
        policy="report-only", reason="secondary (DeepSeek's profile data read through SGLang's table)"),
    ServingCase(
        "DS-V3-H800x128-decode-profile", "DeepSeek inference system (H800)",
        "DeepSeek-V3 decode profile, 16 nodes, batch 128 per GPU, KV 4,096", DEEPSEEK_R1, "fp8",
        "bf16", 4046, 100, aggregated(dp=128, ep=128, batch=128), fat_tree(128, "HGX-H800"),
        "16 x HGX H800 on QM9700 (8 x 400G CX-7 per node, E)", DECODE, 18598 / 8,
        "18,598 tok/s per node / 8 = 2,325 (S)", f"{_DS}: row #46", "S (per GPU D)",
        "DeepSeek's own engine, decode at a mean context of 4,096 tokens (4,046 in + 100 out / 2)",
        policy="report-only",
        reason="secondary; probably with MTP (speculative decoding is not modelled)"),
    ServingCase(
        "CM384-DSR1-decode-50ms", "Huawei CloudMatrix384 (Ascend 910C)",
        "DeepSeek-R1 INT8 decode, batch 96 per NPU, 4,096 in / 256 out", DEEPSEEK_R1, "int8",
        "int8", 4096, 256, aggregated(dp=160, ep=160, batch=96), server("CloudMatrix384"),
        "CloudMatrix384: 384 Ascend 910C on the UB scale-up fabric; 160 NPUs decode (S-)", DECODE,
        1943, "1,943 output tok/s per NPU at TPOT < 50 ms (P abstract; conditions S-)",
        f"{_CM}: row #48", "P / S-",
        "CloudMatrix-Infer: INT8 W8A8, MTP (1 draft token), EP320 over 160 packages' dies: here EP "
        "160 over 256 + 64 redundant expert copies (as DeepSeek's EP320, whose 64 further GPUs "
        "hold redundant and shared experts, DeepSeek-V3 report §3.4, P; the split is E), MTP "
        "1 draft at the 70% acceptance the secondary note gives (S-; DeepSeek-V3 report "
        "§5.4.3: 85-90%, P)",
        limits_ms=(2000.0, 50.0), policy="report-only",
        reason="evaluation section not read; the conditions are a secondary note's",
        options=_CM_OPTIONS),
    ServingCase(
        "CM384-DSR1-decode-15ms", "Huawei CloudMatrix384 (Ascend 910C)",
        "DeepSeek-R1 INT8 decode, batch 8 per NPU (15 ms TPOT)", DEEPSEEK_R1, "int8", "int8", 4096,
        256, aggregated(dp=160, ep=160, batch=8), server("CloudMatrix384"),
        "CloudMatrix384, as above", DECODE, 538,
        "538 output tok/s per NPU at a 15 ms TPOT limit (P abstract; batch 8 S-)",
        f"{_CM}: row #49", "P / S-", "as above, batch 8", limits_ms=(2000.0, 15.0),
        policy="report-only", reason="evaluation section not read; the conditions are a secondary note's",
        options=_CM_OPTIONS),
)

ALL_SERVING_CASES: tuple[ServingCase, ...] = (*MLPERF_CASES, *TRT_CASES, *BP_CASES, *AIC_CASES,
                                              *EP_CASES)

# Rows of serving-results.md not computed, and why (id, title, hardware, published, source).
SERVING_NOT_MODELLED = (
    ("MLP41-L2-70B-H100x32-offline", "Llama 2 70B Offline, Juniper 4 x DGX H100",
     "82,749.6 tok/s / 32 = 2,585.9", "layout not read (TensorRT 9.3); independent replicas "
     "would give the 8-GPU row's figure", "#10"),
    ("SGL-DSV3-H100x72-decode", "SGLang DeepSeek-V3 decode, 9 nodes x 8 H100, EP72",
     "22,282 output tok/s per node / 8 = 2,785", "EP72 holds 288 experts (256 + 32 redundant): "
     "the schema needs EP to divide the 256 experts", "#41"),
    ("SGL-DSR1-GB200-decode", "SGLang DeepSeek decode on GB200 NVL72 (Parts I and II)",
     "7,583 (I) and 13,386 (II) output tok/s per GPU", "48 decode ranks (EP48 does not divide 256); "
     "batch only in a figure (I) or ambiguous, weights offloaded to Grace (II)", "#42-43"),
    ("DS-V3R1-H800-prod", "DeepSeek production serving (24 hours, H800)",
     "~73.7k input tok/s per node prefill, ~14.8k output tok/s per node decode",
     "production averages over elastic node counts, 56% cache hits, unknown lengths; decode "
     "EP144 (does not divide 256)", "#44-45"),
    ("CM384-DSR1-prefill", "CloudMatrix384 DeepSeek-R1 prefill", "6,688 input tok/s per NPU",
     "the headline is a perfect-EPLB projection; the prefill EP degree is not published", "#47"),
    ("ART002-CM384-2300", "CloudMatrix384 'single-card inference throughput 2,300 tokens/s'",
     "2,300 tok/s per card", "no model, precision, lengths or phase given", "#50"),
)
