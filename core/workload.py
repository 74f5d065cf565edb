"""Workload description (model, parallelism, precision, tokens) and its JSON form.

The JSON form is the contract in DESIGN.md ("Workload JSON"). Missing optional keys take the
defaults below; unknown keys are an error naming the JSON path.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from core.design_fields import check_text, show, show_key
from core.errors import WorkloadError
from core.jsonfile import read_json
from core.limits import MAX_ACCELERATORS

ACTIVATIONS = ("gelu", "swiglu", "relu", "geglu")
GATED_ACTIVATIONS = ("swiglu", "geglu")
# Activation recompute, coarsest last: "selective" re-runs the attention core (Korthikanti et
# al. 2023); "norms-up-proj" also the LayerNorms, MLA's K/V up-projections and the MLP
# activation functions; "moe-experts" also the routed experts' MLPs (Megatron-Core
# ``--recompute-modules`` core_attn / layernorm / mla_up_proj / moe_act / moe, P: Megatron-Core
# transformer_config.py); "full" re-runs every layer from its input.
RECOMPUTE = ("none", "selective", "norms-up-proj", "moe-experts", "full")
# Precision recipes (which GEMMs, communication and optimizer state run at which precision:
# core/precision_recipes.py).
PRECISIONS = ("bf16", "fp16", "fp8", "fp8-block", "mxfp8", "nvfp4")
# The optimizer of the weight matrices: "adamw" (two moments per parameter) or "muon" (one
# momentum buffer, orthogonalised by Newton-Schulz iterations every step; embeddings and the
# output head stay on AdamW: Jordan et al. 2024, github.com/KellerJordan/Muon; Kimi K2 and
# Moonlight, arXiv 2507.20534 and 2502.16982, P). core/analysis/muon.py.
OPTIMIZERS = ("adamw", "muon")
PRESETS_DIR = Path(__file__).resolve().parent.parent / "resources" / "workloads"

# Allowed range of every integer field: far above any model or job run so far, low enough that
# the analyses' products stay exact in float64 and nothing they loop over runs long.
INTEGER_BOUNDS: dict[str, tuple[int, int]] = {
    # model
    "layers": (1, 10_000), "hidden": (1, 1_000_000), "ffn_hidden": (1, 10_000_000),
    "heads": (1, 100_000), "kv_heads": (0, 100_000), "vocab": (1, 100_000_000),
    "seq_len": (1, 100_000_000),
    # mixture of experts (0 experts: a dense model)
    "experts": (0, 1_000_000), "top_k": (0, 1_000_000), "shared_experts": (0, 100_000),
    "expert_ffn_hidden": (0, 10_000_000), "dense_layers": (0, 10_000),
    "route_nodes": (0, 1_000_000), "mtp_depth": (0, 64), "head_size": (0, 100_000),
    # multi-head latent attention (the inference schema's bounds)
    "kv_lora_rank": (1, 1_000_000), "qk_rope_head_dim": (0, 1_000_000),
    "q_lora_rank": (0, 1_000_000), "qk_nope_head_dim": (1, 1_000_000),
    "v_head_dim": (1, 1_000_000),
    # parallelism: each degree at most the accelerators the engine holds
    "tp": (1, MAX_ACCELERATORS), "pp": (1, MAX_ACCELERATORS), "dp": (1, MAX_ACCELERATORS),
    "cp": (1, MAX_ACCELERATORS), "ep": (1, MAX_ACCELERATORS), "micro_batch": (1, 1_000_000),
    "global_batch": (1, 1_000_000_000), "virtual_stages": (1, 10_000), "zero_stage": (0, 3),
    "expert_tp": (0, MAX_ACCELERATORS),
    # a preset fitted to a design: the design's GPUs
    "design_gpus": (1, MAX_ACCELERATORS),
}
MAX_TRAINING_TOKENS = 1e18
# Allowed range of every number field; 0 means "not set" where the field's comment says so.
FLOAT_BOUNDS: dict[str, tuple[float, float]] = {
    "capacity_factor": (0.0, 1_000.0), "imbalance": (0.0, 1_000.0),
}


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

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    def attention_params(self, hidden: int, heads: int) -> float:
        """Weights of one MLA layer: query (down-)projection(s), the KV down-projection with
        the RoPE key, the K/V up-projections and the output projection."""
        qk_head = self.qk_head_dim
        if self.q_lora_rank:
            query = hidden * self.q_lora_rank + self.q_lora_rank * heads * qk_head
        else:
            query = hidden * heads * qk_head
        kv_down = hidden * (self.kv_lora_rank + self.qk_rope_head_dim)
        kv_up = self.kv_lora_rank * heads * (self.qk_nope_head_dim + self.v_head_dim)
        output = heads * self.v_head_dim * hidden
        return float(query + kv_down + kv_up + output)


@dataclass(frozen=True)
class MoeSpec:
    """Mixture-of-experts layout. ``experts == 0`` means a dense model."""

    experts: int = 0
    top_k: int = 0
    shared_experts: int = 0
    expert_ffn_hidden: int = 0
    dense_layers: int = 0  # leading layers that stay dense (as in DeepSeek-style models)
    # Node-limited routing: a token's experts span at most this many nodes of the EP group
    # (DeepSeek-V3 §2.1.2: M = 4 of its 8-GPU nodes); 0: no limit.
    route_nodes: int = 0
    # Tokens one expert takes per step at most, as a multiple of the balanced share (GShard,
    # Switch Transformer); 0: dropless (every routed token computed, Megatron-Core's default).
    capacity_factor: float = 0.0
    # Tokens of the busiest expert-parallel rank over the mean (routing skew after the
    # load-balancing loss or bias); 0: the software stack's ``ep_imbalance``.
    imbalance: float = 0.0

    @property
    def enabled(self) -> bool:
        return self.experts > 0


@dataclass(frozen=True)
class ModelSpec:
    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int = 0  # 0 means "same as heads" (multi-head attention)
    vocab: int = 51200
    seq_len: int = 2048
    activation: str = "gelu"
    causal: bool = True
    moe: MoeSpec = field(default_factory=MoeSpec)
    mla: MlaSpec | None = None  # multi-head latent attention instead of MHA/GQA projections
    # Attention head size when it is not hidden / heads (Qwen3-235B-A22B: 64 heads of 128 on
    # a hidden size of 4096); 0: hidden / heads.
    head_size: int = 0
    # Multi-token prediction modules (DeepSeek-V3 §2.2): each one more transformer layer (of
    # the last layer's kind) plus a 2h x h projection, sharing the embedding and output head.
    mtp_depth: int = 0

    @property
    def kv_heads_effective(self) -> int:
        return self.kv_heads or self.heads

    @property
    def head_dim(self) -> int:
        return self.head_size or self.hidden // self.heads

    @property
    def gated(self) -> bool:
        return self.activation in GATED_ACTIVATIONS


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    micro_batch: int = 1
    global_batch: int = 1
    virtual_stages: int = 1
    zero_stage: int = 1
    recompute: str = "none"
    # Stored activations go to host memory between their forward and backward (Megatron-Core
    # fine-grained activation offloading, TE cpu_offload), over the accelerator's host link.
    activation_offload: bool = False
    # Tensor parallelism of the expert layers (Megatron-Core expert_tensor_parallel_size); 0:
    # the same as tp, EP carved out of dp x cp. Set, the expert layers fold their own
    # expert_tp x ep grid over the tp x dp x cp GPUs of a stage (MoE parallel folding, Liu et al.
    # 2025, arXiv 2504.14960), so EP may also take GPUs from TP.
    expert_tp: int = 0

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    @property
    def gpus(self) -> int:
        """GPUs the job uses. EP is carved out of DP x CP (Megatron semantics), so it adds none."""
        return self.tp * self.pp * self.dp * self.cp

    @property
    def microbatches(self) -> int:
        return max(1, self.global_batch // (self.dp * self.micro_batch))

    @property
    def expert_tp_effective(self) -> int:
        return self.expert_tp or self.tp

    @property
    def expert_replicas(self) -> int:
        """GPUs of a stage holding the same expert shard: they reduce its gradients."""
        return max(1, self.tp * self.dp * self.cp // (self.expert_tp_effective * max(1, self.ep)))

    @property
    def ep_stride(self) -> int:
        """Distance on the GPU numbering between the ranks of one EP group: after TP and CP
        (EP carved out of dp x cp), or after the expert-TP ranks when the layers fold."""
        return self.expert_tp if self.expert_tp else self.tp * self.cp


@dataclass(frozen=True)
class PresetFit:
    """How a preset chosen by name was fitted to a design (core/preset_fit.py). It travels with
    the workload (project file, evaluation JSON) so every report can say what was changed."""

    preset: str  # preset name (file stem in resources/workloads)
    design_gpus: int  # GPUs of the design it was fitted to
    preset_parallelism: Parallelism  # the layout as the preset writes it
    note: str  # the sentence shown to the user


@dataclass(frozen=True)
class Workload:
    name: str
    model: ModelSpec
    parallelism: Parallelism | str  # "auto" asks the search to choose
    precision: str = "bf16"
    training_tokens: float = 300e9
    preset_fit: PresetFit | None = None  # set when a preset was fitted to the design
    optimizer: str = "adamw"

    @property
    def auto(self) -> bool:
        return isinstance(self.parallelism, str)


def _build(cls, raw: Any, path: str, nested: Mapping[str, Any] | None = None):
    """Build dataclass ``cls`` from ``raw``, checking key names and value types."""
    if not isinstance(raw, dict):
        raise WorkloadError(f"{path}: expected a JSON object")
    nested = nested or {}
    known = {f.name: f for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise WorkloadError(f"{path}.{show_key(key)}: unknown key (expected one of {', '.join(known)})")
        if key in nested:
            kwargs[key] = nested[key](value, f"{path}.{key}")
            continue
        expected = known[key].type  # annotation string: "int", "float", "str" or "bool"
        if expected == "float":
            low, high = FLOAT_BOUNDS[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not low <= value <= high:
                raise WorkloadError(f"{path}.{key}: expected a number from {low:g} to {high:g}, "
                                    f"got {show(value)}")
            value = float(value)
        elif expected == "bool":
            if not isinstance(value, bool):
                raise WorkloadError(f"{path}.{key}: expected true or false, got {show(value)}")
        elif expected == "int":
            if type(value) is not int:  # 96.0 too: a count of layers is written as an integer
                raise WorkloadError(f"{path}.{key}: expected an integer, got {show(value)}")
            low, high = INTEGER_BOUNDS[key]
            if not low <= value <= high:
                raise WorkloadError(f"{path}.{key}: {show(value)} is outside the allowed "
                                    f"{low} to {high:,}")
        elif expected == "str":
            check_text(value, f"{path}.{key}", WorkloadError)
        kwargs[key] = value
    missing = [
        name
        for name, f in known.items()
        if name not in kwargs
        and f.default is f.default_factory  # both MISSING: a required field
    ]
    if missing:
        raise WorkloadError(f"{path}.{missing[0]}: missing")
    return cls(**kwargs)


def _parse_moe(raw: Any, path: str) -> MoeSpec:
    moe = _build(MoeSpec, raw, path)
    if moe.experts and not moe.top_k:
        raise WorkloadError(f"{path}.top_k: must be at least 1 when experts > 0")
    if moe.top_k > moe.experts:
        raise WorkloadError(f"{path}.top_k: {moe.top_k} exceeds experts ({moe.experts})")
    if 0 < moe.imbalance < 1:
        raise WorkloadError(f"{path}.imbalance: {show(moe.imbalance)} is below 1 (the busiest "
                            f"rank takes at least the mean; 0 takes the stack's)")
    return moe


def parse_mla(raw: Any, path: str) -> MlaSpec | None:
    return None if raw is None else _build(MlaSpec, raw, path)  # ranges: INTEGER_BOUNDS


def parse_model(raw: Any, path: str) -> ModelSpec:
    model = _build(ModelSpec, raw, path, {"moe": _parse_moe, "mla": parse_mla})
    if model.activation not in ACTIVATIONS:
        raise WorkloadError(
            f"{path}.activation: {show(model.activation)} is not one of {', '.join(ACTIVATIONS)}"
        )
    if not model.head_size and model.hidden % model.heads:
        raise WorkloadError(f"{path}.heads: hidden {model.hidden} is not divisible by {model.heads}")
    if model.kv_heads and model.heads % model.kv_heads:
        raise WorkloadError(
            f"{path}.kv_heads: heads {model.heads} is not divisible by kv_heads {model.kv_heads}"
        )
    if model.moe.enabled and model.moe.dense_layers > model.layers:
        raise WorkloadError(f"{path}.moe.dense_layers: exceeds layers ({model.layers})")
    if not model.moe.enabled:
        for key in ("route_nodes", "capacity_factor", "imbalance"):
            if getattr(model.moe, key):
                raise WorkloadError(f"{path}.moe.{key}: needs experts (model.moe.experts > 0)")
    return model


def _parse_parallelism(raw: Any, path: str) -> Parallelism | str:
    if raw == "auto":
        return "auto"
    if isinstance(raw, str):
        raise WorkloadError(f"{path}: expected an object or \"auto\", got {show(raw)}")
    par = _build(Parallelism, raw, path)  # ranges (degrees at least 1, ZeRO 0-3): INTEGER_BOUNDS
    if par.recompute not in RECOMPUTE:
        raise WorkloadError(f"{path}.recompute: {show(par.recompute)} is not one of {', '.join(RECOMPUTE)}")
    if par.global_batch % (par.dp * par.micro_batch):
        raise WorkloadError(
            f"{path}.global_batch: {par.global_batch} is not a multiple of "
            f"dp x micro_batch = {par.dp * par.micro_batch}"
        )
    if par.expert_tp:
        stage = par.tp * par.dp * par.cp
        if stage % (par.expert_tp * par.ep):
            raise WorkloadError(f"{path}.expert_tp: expert_tp x ep = {par.expert_tp * par.ep} must "
                                f"divide tp x dp x cp = {stage}")
    elif (par.dp * par.cp) % par.ep:
        raise WorkloadError(f"{path}.ep: {par.ep} must divide dp x cp = {par.dp * par.cp}")
    return par


def _parse_preset_fit(raw: Any, path: str) -> PresetFit:
    fit = _build(PresetFit, raw, path, {"preset_parallelism": _parse_parallelism})
    if isinstance(fit.preset_parallelism, str):
        raise WorkloadError(f"{path}.preset_parallelism: expected an object, got {fit.preset_parallelism!r}")
    return fit


def workload_from_dict(raw: Any, path: str = "workload") -> Workload:
    """Validate a workload JSON object. Errors name the JSON path of the problem."""
    if not isinstance(raw, dict):
        raise WorkloadError(f"{path}: expected a JSON object")
    known = {"name", "model", "parallelism", "precision", "optimizer", "training_tokens",
             "preset_fit"}
    for key in raw:
        if key not in known:
            raise WorkloadError(f"{path}.{show_key(key)}: unknown key (expected one of {', '.join(sorted(known))})")
    for key in ("model", "parallelism"):
        if key not in raw:
            raise WorkloadError(f"{path}.{key}: missing")
    name = check_text(raw.get("name", "workload"), f"{path}.name", WorkloadError)
    precision = raw.get("precision", "bf16")
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise WorkloadError(f"{path}.precision: {show(precision)} is not one of {', '.join(PRECISIONS)}")
    optimizer = raw.get("optimizer", "adamw")
    if not isinstance(optimizer, str) or optimizer not in OPTIMIZERS:
        raise WorkloadError(f"{path}.optimizer: {show(optimizer)} is not one of {', '.join(OPTIMIZERS)}")
    tokens = raw.get("training_tokens", 300e9)
    if isinstance(tokens, bool) or not isinstance(tokens, (int, float)) or not 0 < tokens <= MAX_TRAINING_TOKENS:
        raise WorkloadError(f"{path}.training_tokens: expected a number above 0 and at most "
                            f"{MAX_TRAINING_TOKENS:g}, got {show(tokens)}")
    model = parse_model(raw["model"], f"{path}.model")
    parallelism = _parse_parallelism(raw["parallelism"], f"{path}.parallelism")
    if not isinstance(parallelism, str):
        if model.heads % parallelism.tp:
            raise WorkloadError(
                f"{path}.parallelism.tp: {parallelism.tp} does not divide the {model.heads} attention heads"
            )
        if parallelism.virtual_stages > 1 and parallelism.pp == 1:
            raise WorkloadError(f"{path}.parallelism.virtual_stages: interleaving needs pp > 1")
        # Llama 3 405B runs 126 layers as 16 stages x 8 one-layer chunks, the first and last
        # stage one layer short (arXiv 2407.21783 §3.3.2): allow up to two empty chunks.
        spare_chunks = 2 if parallelism.pp > 1 else 0
        if model.layers + spare_chunks < parallelism.pp * parallelism.virtual_stages:
            raise WorkloadError(
                f"{path}.parallelism.pp: {model.layers} layers cannot fill "
                f"pp x virtual_stages = {parallelism.pp * parallelism.virtual_stages} stages"
            )
        if model.moe.enabled and model.moe.experts % parallelism.ep:
            raise WorkloadError(
                f"{path}.parallelism.ep: {parallelism.ep} does not divide {model.moe.experts} experts"
            )
    fit = _parse_preset_fit(raw["preset_fit"], f"{path}.preset_fit") if raw.get("preset_fit") is not None else None
    return Workload(name, model, parallelism, precision, float(tokens), fit, optimizer)


def check_workload(workload: Any) -> Workload | None:
    """``workload`` (None or a Workload built in code) if a workload file could hold it: the
    same checks as ``workload_from_dict`` (types, integer fields, bounds, divisibility)."""
    if workload is None:
        return None
    if not isinstance(workload, Workload) or not isinstance(workload.model, ModelSpec) \
            or not isinstance(workload.model.moe, MoeSpec) \
            or not isinstance(workload.model.mla, (MlaSpec, type(None))) \
            or not isinstance(workload.parallelism, (Parallelism, str)):
        raise WorkloadError(f"workload: expected a Workload of ModelSpec, MoeSpec and Parallelism, "
                            f"got {show(workload)}")
    workload_from_dict(workload_to_dict(workload))
    return workload


# Model keys added after files were first written: left out of a model's JSON at their
# defaults, so the JSON (and evaluation JSON) of an older workload stays as it was.
_MODEL_KEYS_SINCE = {"mla": None, "mtp_depth": 0, "head_size": 0}
_MOE_KEYS_SINCE = {"route_nodes": 0, "capacity_factor": 0.0, "imbalance": 0.0}
_PARALLELISM_KEYS_SINCE = {"activation_offload": False, "expert_tp": 0}


def _without_defaults(raw: dict[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if not (k in later and v == later[k])}


def model_to_dict(model: ModelSpec) -> dict[str, Any]:
    """The JSON form of a model (the training and the inference schema share it)."""
    out = _without_defaults(asdict(model), _MODEL_KEYS_SINCE)
    out["moe"] = _without_defaults(out["moe"], _MOE_KEYS_SINCE)
    return out


def parallelism_to_dict(par: Parallelism) -> dict[str, Any]:
    """The JSON form of a layout (keys added later left out at their defaults)."""
    return _without_defaults(asdict(par), _PARALLELISM_KEYS_SINCE)


def workload_to_dict(workload: Workload) -> dict[str, Any]:
    model = model_to_dict(workload.model)
    par = workload.parallelism if isinstance(workload.parallelism, str) else \
        parallelism_to_dict(workload.parallelism)
    out = {
        "name": workload.name,
        "model": model,
        "parallelism": par,
        "precision": workload.precision,
        # added after files were first written: left out at its default, so an AdamW
        # workload's JSON stays as it was
        **({"optimizer": workload.optimizer} if workload.optimizer != "adamw" else {}),
        "training_tokens": workload.training_tokens,
    }
    if workload.preset_fit is not None:  # only then, so unfitted workloads keep their JSON
        fit = asdict(workload.preset_fit)
        fit["preset_parallelism"] = _without_defaults(fit["preset_parallelism"],
                                                      _PARALLELISM_KEYS_SINCE)
        out["preset_fit"] = fit
    return out


def load_workload(path: Path) -> Workload:
    raw = read_json(path, WorkloadError, "workload")
    return workload_from_dict(raw, path=f"{Path(path).name}")


def list_presets() -> dict[str, Path]:
    """Training preset name (file stem) -> path, from resources/workloads (the inference
    presets there: core.inference_workload.list_inference_presets)."""
    return presets_of_kind("training")


def presets_of_kind(kind: str) -> dict[str, Path]:
    """Preset name (file stem) -> path of the bundled presets whose kind is ``kind``."""
    return {path.stem: path for path, of_kind in _bundled_preset_kinds() if of_kind == kind}


@functools.cache
def _bundled_preset_kinds() -> tuple[tuple[Path, str], ...]:
    # The bundled presets are package data: their kinds are read once, not on every preset
    # loaded (a sweep loads one per design).
    return tuple((path, preset_kind(path)) for path in sorted(PRESETS_DIR.glob("*.json")))


def preset_kind(path: Path) -> str:
    """The ``kind`` a preset file declares ("training" when absent or unreadable: the training
    loader then names the broken file)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "training"
    kind = raw.get("kind", "training") if isinstance(raw, dict) else "training"
    return kind if isinstance(kind, str) else "training"


def load_preset(name: str) -> Workload:
    presets = list_presets()
    if name not in presets:
        raise WorkloadError(f"unknown workload preset {name!r} (known: {', '.join(presets)})")
    return load_workload(presets[name])


def with_parallelism(workload: Workload, **changes: Any) -> Workload:
    """A copy of ``workload`` with some parallelism fields changed, checked like a loaded one
    (so nothing can save a workload that loading would refuse). A new layout is no longer the
    fitted preset's, so its fit note goes."""
    base = workload.parallelism if isinstance(workload.parallelism, Parallelism) else Parallelism()
    changed = replace(workload, parallelism=replace(base, **changes), preset_fit=None)
    return workload_from_dict(workload_to_dict(changed))
