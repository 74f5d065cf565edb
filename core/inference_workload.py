"""Inference (serving) workload: model, serving and KV-cache precision, request mix, SLOs and one
aggregated deployment, and its JSON form (``"kind": "inference"``, DESIGN.md "Workload JSON").

The model block is the training workload's (core/workload.py: dense, GQA through ``kv_heads``,
MoE with shared experts) plus an optional ``mla`` block for multi-head latent attention
(DeepSeek-V2/V3/R1). Unknown keys and bad values are errors naming the JSON path, as for the
training workload.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

from core.design_fields import check_text, show, show_key
from core.errors import WorkloadError
from core.jsonfile import read_json
from core.limits import MAX_ACCELERATORS
from core.workload import (ModelSpec, Workload, parse_model, presets_of_kind,
                           workload_from_dict)

# Bytes per value. int8 is accepted here; whether the accelerator has dense TFLOPs for the
# serving precision is the catalog's to say, and the analysis names the accelerator if not.
PRECISION_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5}
DEPLOYMENT_MODES = ("aggregated",)  # disaggregated prefill/decode is a later slice of issue 15
MAX_TOKENS = 100_000_000  # per request: the training model's seq_len bound
MAX_BATCH = 1_000_000
MAX_SLO_MS = 1e9


@dataclass(frozen=True)
class MlaSpec:
    """Multi-head latent attention (DeepSeek-V2 §2.1): the KV cache holds one compressed latent
    of ``kv_lora_rank`` plus one decoupled RoPE key of ``qk_rope_head_dim`` per token and layer,
    shared by all heads. ``q_lora_rank`` 0 means queries are not compressed."""

    kv_lora_rank: int
    qk_rope_head_dim: int
    q_lora_rank: int = 0
    qk_nope_head_dim: int = 128
    v_head_dim: int = 128

    def attention_params(self, hidden: int, heads: int) -> float:
        """Weights of one MLA layer: query (down-)projection(s), the KV down-projection with
        the RoPE key, the K/V up-projections and the output projection."""
        qk_head = self.qk_nope_head_dim + self.qk_rope_head_dim
        if self.q_lora_rank:
            query = hidden * self.q_lora_rank + self.q_lora_rank * heads * qk_head
        else:
            query = hidden * heads * qk_head
        kv_down = hidden * (self.kv_lora_rank + self.qk_rope_head_dim)
        kv_up = self.kv_lora_rank * heads * (self.qk_nope_head_dim + self.v_head_dim)
        output = heads * self.v_head_dim * hidden
        return float(query + kv_down + kv_up + output)


@dataclass(frozen=True)
class RequestMix:
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class Slo:
    ttft_ms: float  # time to first token
    tpot_ms: float  # time per output token (after the first)


@dataclass(frozen=True)
class Deployment:
    """One aggregated layout. A replica is tp x pp GPUs holding one copy of the attention and
    dense weights; dp replicas serve side by side (tp x pp x dp GPUs). The routed experts of
    each MoE layer are spread over ep GPUs, which must divide tp x dp (as EP is carved out of
    the data-parallel GPUs in training). ``batch`` is the concurrent requests per replica."""

    mode: str = "aggregated"
    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    batch: int = 1

    @property
    def replica_gpus(self) -> int:
        return self.tp * self.pp

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp


@dataclass(frozen=True)
class InferenceWorkload:
    name: str
    model: ModelSpec
    mla: MlaSpec | None
    precision: str
    kv_cache_precision: str
    requests: RequestMix
    slo: Slo
    deployment: Deployment


def _check_keys(raw: Any, path: str, known: tuple[str, ...], required: tuple[str, ...]) -> dict:
    if not isinstance(raw, dict):
        raise WorkloadError(f"{path}: expected a JSON object")
    for key in raw:
        if key not in known:
            raise WorkloadError(f"{path}.{show_key(key)}: unknown key (expected one of {', '.join(known)})")
    for key in required:
        if key not in raw:
            raise WorkloadError(f"{path}.{key}: missing")
    return raw


def _integer(raw: dict, key: str, path: str, low: int, high: int, default: int | None = None) -> int:
    value = raw.get(key, default)
    if type(value) is not int:
        raise WorkloadError(f"{path}.{key}: expected an integer, got {show(value)}")
    if not low <= value <= high:
        raise WorkloadError(f"{path}.{key}: {show(value)} is outside the allowed {low} to {high:,}")
    return value


def _milliseconds(raw: dict, key: str, path: str) -> float:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_SLO_MS:
        raise WorkloadError(f"{path}.{key}: expected a number of milliseconds above 0 and at most "
                            f"{MAX_SLO_MS:g}, got {show(value)}")
    return float(value)


def _precision(raw: dict, key: str, path: str, default: str) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or value not in PRECISION_BYTES:
        raise WorkloadError(f"{path}.{key}: {show(value)} is not one of {', '.join(PRECISION_BYTES)}")
    return value


def _parse_mla(raw: Any, path: str) -> MlaSpec:
    names = tuple(f.name for f in fields(MlaSpec))
    raw = _check_keys(raw, path, names, ("kv_lora_rank", "qk_rope_head_dim"))
    defaults = {f.name: f.default for f in fields(MlaSpec) if f.default is not MISSING}
    # a RoPE key and a query compression are optional (0); the ranks and head sizes are not
    lowest = {"qk_rope_head_dim": 0, "q_lora_rank": 0}
    return MlaSpec(**{name: _integer(raw, name, path, lowest.get(name, 1), 1_000_000, defaults.get(name))
                      for name in names})


def _parse_deployment(raw: Any, path: str, model: ModelSpec) -> Deployment:
    raw = _check_keys(raw, path, ("mode", "tp", "pp", "ep", "dp", "batch"), ())
    mode = raw.get("mode", "aggregated")
    if not isinstance(mode, str) or mode not in DEPLOYMENT_MODES:
        raise WorkloadError(f"{path}.mode: {show(mode)} is not one of {', '.join(DEPLOYMENT_MODES)} "
                            "(disaggregated prefill/decode is not modelled yet)")
    dep = Deployment(mode, *(_integer(raw, key, path, 1, MAX_ACCELERATORS, 1)
                             for key in ("tp", "pp", "ep", "dp")),
                     _integer(raw, "batch", path, 1, MAX_BATCH, 1))
    if model.heads % dep.tp:
        raise WorkloadError(f"{path}.tp: {dep.tp} does not divide the {model.heads} attention heads")
    if dep.pp > model.layers:
        raise WorkloadError(f"{path}.pp: {dep.pp} stages exceed the {model.layers} layers")
    if dep.ep > 1 and not model.moe.enabled:
        raise WorkloadError(f"{path}.ep: {dep.ep} needs a mixture-of-experts model (model.moe.experts > 0)")
    if model.moe.enabled and model.moe.experts % dep.ep:
        raise WorkloadError(f"{path}.ep: {dep.ep} does not divide {model.moe.experts} experts")
    if (dep.tp * dep.dp) % dep.ep:
        raise WorkloadError(f"{path}.ep: {dep.ep} must divide tp x dp = {dep.tp * dep.dp}")
    if dep.gpus > MAX_ACCELERATORS:
        raise WorkloadError(f"{path}: tp x pp x dp = {dep.gpus:,} exceeds {MAX_ACCELERATORS:,} GPUs")
    return dep


def inference_workload_from_dict(raw: Any, path: str = "workload") -> InferenceWorkload:
    """Validate an inference workload JSON object. Errors name the JSON path of the problem."""
    raw = _check_keys(raw, path, ("kind", "name", "model", "precision", "kv_cache_precision",
                                  "requests", "slo", "deployment"),
                      ("model", "requests", "slo", "deployment"))
    if raw.get("kind", "inference") != "inference":
        raise WorkloadError(f"{path}.kind: expected \"inference\", got {show(raw.get('kind'))}")
    name = check_text(raw.get("name", "inference"), f"{path}.name", WorkloadError)
    model_raw = raw["model"]
    mla = None
    if isinstance(model_raw, dict) and "mla" in model_raw:
        mla = _parse_mla(model_raw["mla"], f"{path}.model.mla")
        model_raw = {k: v for k, v in model_raw.items() if k != "mla"}
    model = parse_model(model_raw, f"{path}.model")
    precision = _precision(raw, "precision", path, "bf16")
    kv_precision = _precision(raw, "kv_cache_precision", path, precision)
    req_raw = _check_keys(raw["requests"], f"{path}.requests", ("input_tokens", "output_tokens"),
                          ("input_tokens", "output_tokens"))
    requests = RequestMix(_integer(req_raw, "input_tokens", f"{path}.requests", 1, MAX_TOKENS),
                          _integer(req_raw, "output_tokens", f"{path}.requests", 1, MAX_TOKENS))
    if requests.input_tokens + requests.output_tokens > model.seq_len:
        raise WorkloadError(f"{path}.requests: input + output = "
                            f"{requests.input_tokens + requests.output_tokens:,} tokens exceed the "
                            f"model's context (model.seq_len {model.seq_len:,})")
    slo_raw = _check_keys(raw["slo"], f"{path}.slo", ("ttft_ms", "tpot_ms"), ("ttft_ms", "tpot_ms"))
    slo = Slo(_milliseconds(slo_raw, "ttft_ms", f"{path}.slo"),
              _milliseconds(slo_raw, "tpot_ms", f"{path}.slo"))
    deployment = _parse_deployment(raw["deployment"], f"{path}.deployment", model)
    return InferenceWorkload(name, model, mla, precision, kv_precision, requests, slo, deployment)


def inference_workload_to_dict(workload: InferenceWorkload) -> dict[str, Any]:
    model = asdict(workload.model)
    if workload.mla is not None:
        model["mla"] = asdict(workload.mla)
    return {"kind": "inference", "name": workload.name, "model": model,
            "precision": workload.precision, "kv_cache_precision": workload.kv_cache_precision,
            "requests": asdict(workload.requests), "slo": asdict(workload.slo),
            "deployment": asdict(workload.deployment)}


def any_workload_from_dict(raw: Any, path: str = "workload") -> Workload | InferenceWorkload:
    """A training or an inference workload, by its ``kind`` (training when absent)."""
    if isinstance(raw, dict) and raw.get("kind", "training") != "training":
        return inference_workload_from_dict(raw, path)
    if isinstance(raw, dict) and "kind" in raw:
        raw = {k: v for k, v in raw.items() if k != "kind"}
    return workload_from_dict(raw, path)


def load_any_workload(path: Path) -> Workload | InferenceWorkload:
    raw = read_json(path, WorkloadError, "workload")
    return any_workload_from_dict(raw, path=f"{Path(path).name}")


def list_inference_presets() -> dict[str, Path]:
    """Inference preset name (file stem) -> path: the files of resources/workloads whose kind is
    inference (core.workload.list_presets lists the training ones)."""
    return presets_of_kind("inference")


def load_inference_preset(name: str) -> InferenceWorkload:
    presets = list_inference_presets()
    if name not in presets:
        raise WorkloadError(f"unknown inference preset {name!r} (known: {', '.join(presets)})")
    raw = read_json(presets[name], WorkloadError, "workload")
    return inference_workload_from_dict(raw, path=presets[name].name)

