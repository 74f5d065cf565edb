"""Inference (serving) workload: model, serving and KV-cache precision, request mix (one shape or
a small distribution), SLOs, deployment (aggregated, disaggregated prefill/decode with a layout
per phase, or "auto" for the layout search), KV-cache placement (HBM, host memory, a remote
prefix cache), and its JSON form (``"kind": "inference"``, DESIGN.md "Workload JSON").

The model block is the training workload's (core/workload.py: dense, GQA through ``kv_heads``,
MoE with shared experts) plus an optional ``mla`` block for multi-head latent attention
(DeepSeek-V2/V3/R1). Unknown keys and bad values are errors naming the JSON path, as for the
training workload.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

from core.design_fields import check_text, show, show_key
from core.errors import WorkloadError
from core.jsonfile import read_json
from core.limits import MAX_ACCELERATORS
# MlaSpec lives with the model (training models carry it too); imported here by its users.
from core.workload import (MlaSpec, ModelSpec, Workload, check_workload,  # noqa: F401
                           model_to_dict, parse_model, presets_of_kind, workload_from_dict,
                           workload_to_dict)

# Bytes per value. int8 is accepted here; whether the accelerator has dense TFLOPs for the
# serving precision is the catalog's to say, and the analysis names the accelerator if not.
PRECISION_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5}
DEPLOYMENT_MODES = ("aggregated", "disaggregated")
AUTO = "auto"  # "deployment": "auto": the layout search under the SLOs chooses
KV_PLACEMENTS = ("hbm", "host", "remote")
MAX_TOKENS = 100_000_000  # per request: the training model's seq_len bound
MAX_BATCH = 1_000_000
MAX_SLO_MS = 1e9
MAX_REQUEST_CLASSES = 16  # a small distribution, not a trace
MAX_HOST_GB_PER_GPU = 100_000.0
MAX_HOST_LINK_GBYTE_S = 100_000.0
SHARE_TOLERANCE = 1e-3  # request shares must sum to 1 within this


@dataclass(frozen=True)
class RequestClass:
    """Requests of one shape: ``share`` of all requests have ``input_tokens`` of prompt and
    ``output_tokens`` of answer."""

    input_tokens: int
    output_tokens: int
    share: float = 1.0

    @property
    def context_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class RequestMix:
    """The request shapes a service sees: one class, or a small distribution of them (shares
    summing to 1). Means are per request, weighted by share."""

    classes: tuple[RequestClass, ...]

    @classmethod
    def single(cls, input_tokens: int, output_tokens: int) -> "RequestMix":
        return cls((RequestClass(input_tokens, output_tokens),))

    @property
    def mean_input_tokens(self) -> float:
        return sum(c.share * c.input_tokens for c in self.classes)

    @property
    def mean_output_tokens(self) -> float:
        return sum(c.share * c.output_tokens for c in self.classes)

    @property
    def max_context_tokens(self) -> int:
        return max(c.context_tokens for c in self.classes)

    def describe(self) -> str:
        """"2,048 in, 256 out tokens", or the classes' count and means."""
        if len(self.classes) == 1:
            only = self.classes[0]
            return f"{only.input_tokens:,} in, {only.output_tokens:,} out tokens"
        return (f"{len(self.classes)} request classes, mean {self.mean_input_tokens:,.0f} in, "
                f"{self.mean_output_tokens:,.0f} out tokens")


@dataclass(frozen=True)
class Slo:
    ttft_ms: float  # time to first token
    tpot_ms: float  # time per output token (after the first)


@dataclass(frozen=True)
class PhaseLayout:
    """The layout of one phase. A replica is tp x pp GPUs holding one copy of the attention and
    dense weights; dp replicas serve side by side (tp x pp x dp GPUs). The routed experts of
    each MoE layer are spread over ep GPUs, which must divide tp x dp (as EP is carved out of
    the data-parallel GPUs in training). ``batch`` is the requests one replica has in flight
    (decode: concurrent sequences; prefill of a disaggregated deployment: prompts per step)."""

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
class Deployment:
    """How the service is laid out. ``aggregated``: every replica does prefill and decode
    (``prefill`` and ``decode`` are the same layout). ``disaggregated``: prefill replicas hand
    each request's KV cache to decode replicas over the fabric; the two pools are apart."""

    mode: str = "aggregated"
    prefill: PhaseLayout = PhaseLayout()
    decode: PhaseLayout = PhaseLayout()

    @classmethod
    def aggregated(cls, tp: int = 1, pp: int = 1, ep: int = 1, dp: int = 1,
                   batch: int = 1) -> "Deployment":
        layout = PhaseLayout(tp, pp, ep, dp, batch)
        return cls("aggregated", layout, layout)

    @property
    def disaggregated(self) -> bool:
        return self.mode == "disaggregated"

    @property
    def gpus(self) -> int:
        return self.prefill.gpus + self.decode.gpus if self.disaggregated else self.decode.gpus

    def describe(self) -> str:
        def one(p: PhaseLayout) -> str:
            return f"TP {p.tp} PP {p.pp} EP {p.ep} DP {p.dp} ({p.gpus:,} GPUs), batch {p.batch:,}"
        if self.disaggregated:
            return f"disaggregated: prefill {one(self.prefill)}; decode {one(self.decode)}"
        return f"aggregated: {one(self.decode)} per replica"


@dataclass(frozen=True)
class KvCacheSpec:
    """Where the KV cache lives. ``hbm``: in the GPUs' memory only. ``host``: it may also take
    ``host_gb_per_gpu`` of host memory per GPU, read back over the host link (``None``: the
    accelerator's, from the catalog). ``remote``: a prefix cache on the storage tier serves
    ``prefix_hit_rate`` of the prompt tokens, read over the storage path instead of computed."""

    placement: str = "hbm"
    host_gb_per_gpu: float = 0.0
    host_link_gbyte_s: float | None = None
    prefix_hit_rate: float = 0.0


@dataclass(frozen=True)
class SpeculativeSpec:
    """Speculative decoding with the model's own multi-token-prediction (MTP) modules
    (DeepSeek-V3 §2.2, §5.4.3): each decode step drafts ``draft_tokens`` further tokens with
    one MTP module each (a transformer block sharing the embedding and output head), and the
    main model verifies them in the same forward pass as the step's own token. A draft is kept
    only if every draft before it was: ``acceptance`` is the chance that one is accepted given
    the previous one was (DeepSeek-V3 reports 85-90% for the second token)."""

    draft_tokens: int = 1
    acceptance: float = 0.85

    @property
    def tokens_per_step(self) -> float:
        """Expected tokens a sequence advances per step: 1 + a + a^2 + ... + a^n."""
        return sum(self.acceptance ** i for i in range(self.draft_tokens + 1))


@dataclass(frozen=True)
class ExpertPlacement:
    """How the routed experts sit on the EP ranks. ``redundant_experts``: extra copies of the
    busiest experts (DeepSeek's EPLB; CloudMatrix-Infer's EP320 over 256 experts), so that EP
    need only divide experts + redundant. ``load_imbalance``: tokens on the busiest EP rank over
    the mean (1.0 perfectly balanced); ``None`` takes the imbalance uniform top-k routing gives
    by chance (balls into bins), what a published EPLB figure would replace."""

    redundant_experts: int = 0
    load_imbalance: float | None = None


@dataclass(frozen=True)
class InferenceWorkload:
    name: str
    model: ModelSpec
    mla: MlaSpec | None
    precision: str
    kv_cache_precision: str
    requests: RequestMix
    slo: Slo
    deployment: Deployment | str  # a Deployment, or AUTO
    kv_cache: KvCacheSpec = KvCacheSpec()
    # the precision attention's products run at; None: the KV cache's (serving_phase.py)
    attention_precision: str | None = None
    speculative: SpeculativeSpec | None = None
    experts: ExpertPlacement = ExpertPlacement()
    # attention-DP ranks' prefills aligned into the same steps by the engine (TensorRT-LLM's
    # attention_dp_config.enable_balance); False: each rank prefills as its prompts come and
    # the ranks sharing an EP group wait for the one prefilling most (serving_load.py)
    attention_dp_balance: bool = False

    @property
    def auto(self) -> bool:
        return self.deployment == AUTO

    @property
    def expert_slots(self) -> int:
        """Routed expert copies spread over the EP ranks (experts + redundant copies)."""
        return self.model.moe.experts + self.experts.redundant_experts


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


def _number(raw: dict, key: str, path: str, low: float, high: float, default: float,
            low_open: bool = False, unit: str = "") -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value > high or value < low or (low_open and value == low):
        above = "above" if low_open else "at least"
        raise WorkloadError(f"{path}.{key}: expected a number{unit} {above} {low:g} and at most "
                            f"{high:g}, got {show(value)}")
    return float(value)


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


def _parse_request_class(raw: Any, path: str, with_share: bool) -> RequestClass:
    keys = ("input_tokens", "output_tokens", "share") if with_share else ("input_tokens", "output_tokens")
    raw = _check_keys(raw, path, keys, keys)
    share = _number(raw, "share", path, 0.0, 1.0, 1.0, low_open=True) if with_share else 1.0
    return RequestClass(_integer(raw, "input_tokens", path, 1, MAX_TOKENS),
                        _integer(raw, "output_tokens", path, 1, MAX_TOKENS), share)


def _parse_requests(raw: Any, path: str, model: ModelSpec) -> RequestMix:
    mixed = isinstance(raw, dict) and "mix" in raw
    if mixed:
        raw = _check_keys(raw, path, ("mix",), ("mix",))
        mix = raw["mix"]
        if not isinstance(mix, list) or not 1 <= len(mix) <= MAX_REQUEST_CLASSES:
            raise WorkloadError(f"{path}.mix: expected a list of 1 to {MAX_REQUEST_CLASSES} request "
                                f"classes, got {show(mix)}")
        classes = tuple(_parse_request_class(item, f"{path}.mix[{i}]", True) for i, item in enumerate(mix))
        total = math.fsum(c.share for c in classes)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise WorkloadError(f"{path}.mix: the shares sum to {total:g}, expected 1")
    else:
        classes = (_parse_request_class(raw, path, False),)
    requests = RequestMix(classes)
    for i, one in enumerate(classes):
        if one.context_tokens > model.seq_len:
            where = f"{path}.mix[{i}]" if mixed else path
            raise WorkloadError(f"{where}: input + output = {one.context_tokens:,} tokens exceed the "
                                f"model's context (model.seq_len {model.seq_len:,})")
    return requests


def _parse_phase(raw: Any, path: str, model: ModelSpec, extra: tuple[str, ...] = (),
                 redundant: int = 0) -> PhaseLayout:
    raw = _check_keys(raw, path, (*extra, "tp", "pp", "ep", "dp", "batch"), ())
    layout = PhaseLayout(*(_integer(raw, key, path, 1, MAX_ACCELERATORS, 1)
                           for key in ("tp", "pp", "ep", "dp")),
                         _integer(raw, "batch", path, 1, MAX_BATCH, 1))
    if model.heads % layout.tp:
        raise WorkloadError(f"{path}.tp: {layout.tp} does not divide the {model.heads} attention heads")
    if layout.pp > model.layers:
        raise WorkloadError(f"{path}.pp: {layout.pp} stages exceed the {model.layers} layers")
    if layout.ep > 1 and not model.moe.enabled:
        raise WorkloadError(f"{path}.ep: {layout.ep} needs a mixture-of-experts model (model.moe.experts > 0)")
    slots = model.moe.experts + redundant
    if model.moe.enabled and slots % layout.ep:
        copies = f" + {redundant} redundant" if redundant else ""
        raise WorkloadError(f"{path}.ep: {layout.ep} does not divide {model.moe.experts}{copies} experts")
    if (layout.tp * layout.dp) % layout.ep:
        raise WorkloadError(f"{path}.ep: {layout.ep} must divide tp x dp = {layout.tp * layout.dp}")
    if layout.gpus > MAX_ACCELERATORS:
        raise WorkloadError(f"{path}: tp x pp x dp = {layout.gpus:,} exceeds {MAX_ACCELERATORS:,} GPUs")
    return layout


def _parse_deployment(raw: Any, path: str, model: ModelSpec, redundant: int = 0) -> Deployment | str:
    if raw == AUTO:
        return AUTO
    if not isinstance(raw, dict):
        raise WorkloadError(f"{path}: expected a JSON object or \"auto\", got {show(raw)}")
    mode = raw.get("mode", "aggregated")
    if not isinstance(mode, str) or mode not in DEPLOYMENT_MODES:
        raise WorkloadError(f"{path}.mode: {show(mode)} is not one of {', '.join(DEPLOYMENT_MODES)}")
    if mode == "aggregated":
        layout = _parse_phase(raw, path, model, ("mode",), redundant)
        return Deployment(mode, layout, layout)
    raw = _check_keys(raw, path, ("mode", "prefill", "decode"), ("prefill", "decode"))
    deployment = Deployment(mode, _parse_phase(raw["prefill"], f"{path}.prefill", model, (), redundant),
                            _parse_phase(raw["decode"], f"{path}.decode", model, (), redundant))
    if deployment.gpus > MAX_ACCELERATORS:
        raise WorkloadError(f"{path}: prefill + decode = {deployment.gpus:,} GPUs exceed "
                            f"{MAX_ACCELERATORS:,}")
    return deployment


def _parse_kv_cache(raw: Any, path: str) -> KvCacheSpec:
    raw = _check_keys(raw, path, ("placement", "host_gb_per_gpu", "host_link_gbyte_s",
                                  "prefix_hit_rate"), ())
    placement = raw.get("placement", "hbm")
    if not isinstance(placement, str) or placement not in KV_PLACEMENTS:
        raise WorkloadError(f"{path}.placement: {show(placement)} is not one of {', '.join(KV_PLACEMENTS)}")
    allowed = {"hbm": (), "host": ("host_gb_per_gpu", "host_link_gbyte_s"), "remote": ("prefix_hit_rate",)}
    for key in raw:
        if key != "placement" and key not in allowed[placement]:
            raise WorkloadError(f"{path}.{key}: does not apply to placement {placement!r}")
    if placement == "host" and "host_gb_per_gpu" not in raw:
        raise WorkloadError(f"{path}.host_gb_per_gpu: missing (host memory per GPU the KV cache may use)")
    if placement == "remote" and "prefix_hit_rate" not in raw:
        raise WorkloadError(f"{path}.prefix_hit_rate: missing (share of prompt tokens the remote "
                            "prefix cache serves)")
    link = None
    if raw.get("host_link_gbyte_s") is not None:
        link = _number(raw, "host_link_gbyte_s", path, 0.0, MAX_HOST_LINK_GBYTE_S, 0.0, low_open=True,
                       unit=" of GB/s")
    return KvCacheSpec(placement,
                       _number(raw, "host_gb_per_gpu", path, 0.0, MAX_HOST_GB_PER_GPU, 0.0, low_open=True,
                               unit=" of GB") if placement == "host" else 0.0,
                       link,
                       _number(raw, "prefix_hit_rate", path, 0.0, 1.0, 0.0)
                       if placement == "remote" else 0.0)


MAX_DRAFT_TOKENS = 8
MAX_LOAD_IMBALANCE = 64.0


def _parse_speculative(raw: Any, path: str) -> SpeculativeSpec:
    raw = _check_keys(raw, path, ("draft_tokens", "acceptance"), ("draft_tokens", "acceptance"))
    return SpeculativeSpec(_integer(raw, "draft_tokens", path, 1, MAX_DRAFT_TOKENS),
                           _number(raw, "acceptance", path, 0.0, 1.0, 0.0))


def _parse_experts(raw: Any, path: str, model: ModelSpec) -> ExpertPlacement:
    raw = _check_keys(raw, path, ("redundant_experts", "load_imbalance"), ())
    if raw and not model.moe.enabled:
        raise WorkloadError(f"{path}: needs a mixture-of-experts model (model.moe.experts > 0)")
    redundant = _integer(raw, "redundant_experts", path, 0, max(0, model.moe.experts) * 4, 0)
    imbalance = None
    if raw.get("load_imbalance") is not None:
        imbalance = _number(raw, "load_imbalance", path, 1.0, MAX_LOAD_IMBALANCE, 1.0)
    return ExpertPlacement(redundant, imbalance)


def inference_workload_from_dict(raw: Any, path: str = "workload") -> InferenceWorkload:
    """Validate an inference workload JSON object. Errors name the JSON path of the problem."""
    raw = _check_keys(raw, path, ("kind", "name", "model", "precision", "kv_cache_precision",
                                  "requests", "slo", "deployment", "kv_cache", "attention_precision",
                                  "speculative", "expert_placement", "attention_dp_balance"),
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
    requests = _parse_requests(raw["requests"], f"{path}.requests", model)
    slo_raw = _check_keys(raw["slo"], f"{path}.slo", ("ttft_ms", "tpot_ms"), ("ttft_ms", "tpot_ms"))
    slo = Slo(_milliseconds(slo_raw, "ttft_ms", f"{path}.slo"),
              _milliseconds(slo_raw, "tpot_ms", f"{path}.slo"))
    experts = _parse_experts(raw.get("expert_placement", {}), f"{path}.expert_placement", model)
    deployment = _parse_deployment(raw["deployment"], f"{path}.deployment", model,
                                   experts.redundant_experts)
    kv_cache = _parse_kv_cache(raw.get("kv_cache", {}), f"{path}.kv_cache")
    attention = (_precision(raw, "attention_precision", path, "bf16")
                 if raw.get("attention_precision") is not None else None)
    speculative = (_parse_speculative(raw["speculative"], f"{path}.speculative")
                   if raw.get("speculative") is not None else None)
    balance = raw.get("attention_dp_balance", False)
    if not isinstance(balance, bool):
        raise WorkloadError(f"{path}.attention_dp_balance: expected true or false, got {show(balance)}")
    return InferenceWorkload(name, model, mla, precision, kv_precision, requests, slo, deployment,
                             kv_cache, attention, speculative, experts, balance)


def deployment_to_dict(deployment: Deployment | str) -> dict[str, Any] | str:
    if deployment == AUTO:
        return AUTO
    if deployment.disaggregated:
        return {"mode": deployment.mode, "prefill": asdict(deployment.prefill),
                "decode": asdict(deployment.decode)}
    return {"mode": deployment.mode, **asdict(deployment.decode)}


def _requests_to_dict(requests: RequestMix) -> dict[str, Any]:
    if len(requests.classes) == 1 and requests.classes[0].share == 1.0:
        only = requests.classes[0]
        return {"input_tokens": only.input_tokens, "output_tokens": only.output_tokens}
    return {"mix": [asdict(c) for c in requests.classes]}


def _kv_cache_to_dict(kv: KvCacheSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"placement": kv.placement}
    if kv.placement == "host":
        out["host_gb_per_gpu"] = kv.host_gb_per_gpu
        if kv.host_link_gbyte_s is not None:
            out["host_link_gbyte_s"] = kv.host_link_gbyte_s
    elif kv.placement == "remote":
        out["prefix_hit_rate"] = kv.prefix_hit_rate
    return out


def inference_workload_to_dict(workload: InferenceWorkload) -> dict[str, Any]:
    model = model_to_dict(workload.model)
    if workload.mla is not None:
        model["mla"] = asdict(workload.mla)
    out = {"kind": "inference", "name": workload.name, "model": model,
           "precision": workload.precision, "kv_cache_precision": workload.kv_cache_precision,
           "requests": _requests_to_dict(workload.requests), "slo": asdict(workload.slo),
           "deployment": deployment_to_dict(workload.deployment)}
    if workload.kv_cache != KvCacheSpec():  # only then, so HBM-only workloads keep their JSON
        out["kv_cache"] = _kv_cache_to_dict(workload.kv_cache)
    # the serving options below likewise only when set, so older files keep their JSON
    if workload.attention_precision is not None:
        out["attention_precision"] = workload.attention_precision
    if workload.speculative is not None:
        out["speculative"] = asdict(workload.speculative)
    if workload.attention_dp_balance:
        out["attention_dp_balance"] = True
    if workload.experts != ExpertPlacement():
        experts = asdict(workload.experts)
        out["expert_placement"] = {k: v for k, v in experts.items() if v is not None}
    return out


def any_workload_from_dict(raw: Any, path: str = "workload") -> Workload | InferenceWorkload:
    """A training or an inference workload, by its ``kind`` (training when absent)."""
    if isinstance(raw, dict) and raw.get("kind", "training") != "training":
        return inference_workload_from_dict(raw, path)
    if isinstance(raw, dict) and "kind" in raw:
        raw = {k: v for k, v in raw.items() if k != "kind"}
    return workload_from_dict(raw, path)


def any_workload_to_dict(workload: Workload | InferenceWorkload) -> dict[str, Any]:
    if isinstance(workload, InferenceWorkload):
        return inference_workload_to_dict(workload)
    return workload_to_dict(workload)


def check_any_workload(workload: Any) -> Workload | InferenceWorkload | None:
    """``workload`` (None, a training Workload or an InferenceWorkload built in code) if a
    workload file could hold it: the same checks as loading its JSON form."""
    if not isinstance(workload, InferenceWorkload):
        return check_workload(workload)
    try:
        again = inference_workload_from_dict(inference_workload_to_dict(workload))
    except (TypeError, ValueError, AttributeError) as exc:
        raise WorkloadError(f"workload: not a valid inference workload ({exc})") from None
    if again != workload:
        raise WorkloadError("workload: the inference workload does not survive its own JSON form "
                            "(a field of the wrong type)")
    return workload


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

