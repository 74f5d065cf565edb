"""The pipeline schedule (performance.md §4): how layers split into stages, what a stage holds
in flight, which stage sets the pace, and the bubble of 1F1B and interleaved schedules.

**Stages** need not divide the layers: when layers + 2 divide into p v chunks the embedding and
the loss count as one layer each (the first and last stages get one layer fewer, Llama 3
§3.3.2), otherwise the first ``L mod (p v)`` chunks get one layer more. The last stage also
carries the logits, and the slowest of the first, a middle and the last stage sets the pace.

**Bubble**: (p - 1)/v micro-batch times of the slowest stage (1F1B, interleaved with v model
chunks per stage).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.workload import ModelSpec, Parallelism


def stage_layers(layers: int, pp: int, virtual_stages: int = 1) -> tuple[int, int]:
    """Layers on the first (heaviest) and on the last pipeline stage.

    Uneven splits are allowed: the first ``layers mod (pp v)`` model chunks get one layer more
    (the slowest stage, ceil, sets the pace); the last stage gets the floor.
    """
    first, _, last = stage_layer_counts(layers, pp, virtual_stages, balance_ends=False)
    return first, last


def ends_balanced(layers: int, pp: int, virtual_stages: int = 1, mtp_depth: int = 0) -> bool:
    """True when the split counts the embedding and the loss as one layer each (Llama 3), and
    each multi-token-prediction module as one more on the last stage.

    That is when the layers do not divide into pp x v chunks but layers + 2 (+ MTP) do.
    """
    chunks = pp * max(1, virtual_stages)
    return pp > 1 and layers % chunks != 0 and (layers + 2 + mtp_depth) % chunks == 0


def stage_layer_counts(layers: int, pp: int, virtual_stages: int = 1,
                       balance_ends: bool = False, mtp_depth: int = 0) -> tuple[int, int, int]:
    """Transformer layers on the first, the second (the fullest middle) and the last stage.

    Even splits give every stage L/p. Uneven: with ``balance_ends`` and ``ends_balanced`` the
    embedding and the output layer count as one layer each, so the first and last stages get
    one transformer layer fewer than the middle ones (Llama 3 §3.3.2); otherwise the first
    ``layers mod (pp v)`` model chunks get one layer more (stage i holds chunks i, i + p, ...).
    With pp = 2 the "second" stage is the last one. Multi-token-prediction modules sit on the
    last stage (Megatron-Core places them there; DeepSeek-V3 §2.2 keeps them with the output
    head) and count as layers of it when the ends are balanced.
    """
    if pp <= 1:
        return layers, layers, layers
    v = max(1, virtual_stages)
    chunks = pp * v
    if balance_ends and ends_balanced(layers, pp, v, mtp_depth):
        per_stage = (layers + 2 + mtp_depth) // pp
        last = max(1, per_stage - 1 - mtp_depth)
        return per_stage - 1, per_stage if pp > 2 else last, last
    lo, extra = divmod(layers, chunks)

    def stage(i: int) -> int:
        return sum(lo + (1 if i + k * pp < extra else 0) for k in range(v))

    return max(1, stage(0)), max(1, stage(1)), max(1, stage(pp - 1))


def inflight_microbatches(pp: int, virtual_stages: int, microbatches: int, stage: int,
                          schedule: str = "1f1b", combined_layers: int = 0) -> float:
    """Micro-batches of its layers whose activations pipeline stage ``stage`` holds at peak.

    1F1B: min(m, p - i). Interleaved (Megatron): (2(p - i - 1) + (v - 1) p + 1) chunk forwards
    of 1/v of the stage each, at most m per chunk. DualPipe: p + 1 micro-batches (DeepSeek-V3
    Table 2, P).

    ``combined_layers`` (the stage's layers; 0: off): Megatron-Core's MoE all-to-all overlap
    (``overlap_moe_expert_parallel_comm``) schedules one warm-up forward more
    (``get_pp_rank_microbatches`` in megatron/core/pipeline_parallel/schedules.py), then runs
    each steady-state forward together with another micro-batch's backward, layer by layer:
    the forward of layer k is paired with the backward of the last layer not yet run backward,
    whose state is released right after (``combined_1f1b.py`` and
    ``models/common/model_chunk_schedule_plan.py``, code read, P). What the extra forward adds
    the paired backward frees, so the peak is the conventional one plus one layer, not one
    micro-batch more (the combined step needs a steady state: fewer micro-batches than the
    warm-up run no combined step).
    """
    if pp <= 1:
        combined = combined_layers > 0 and microbatches > 1
        return 1.0 + (1.0 / combined_layers if combined else 0.0)
    i = min(max(0, stage), pp - 1)
    m = max(1, microbatches)
    v = max(1, virtual_stages)
    if schedule == "dualpipe":
        return float(min(m, pp + 1))
    chunk_forwards = float(pp - i) if v == 1 else (2 * (pp - i - 1) + (v - 1) * pp + 1) / v
    if chunk_forwards >= m:  # every micro-batch is in flight before the first backward
        return float(m)
    return chunk_forwards + (1.0 / combined_layers if combined_layers > 0 else 0.0)


def moe_layers_in(model: ModelSpec, first: bool, count: int) -> int:
    """MoE layers among ``count`` layers of the first or the last stage (dense layers lead)."""
    if not model.moe.enabled:
        return 0
    dense = model.moe.dense_layers
    if first:
        return max(0, count - dense)
    return max(0, min(count, model.layers - dense))



def pipeline_bubble(pp: int, microbatches: int, virtual_stages: int = 1) -> tuple[float, float]:
    """(bubble / ideal compute, bubble / step) of 1F1B or interleaved (performance.md §4).

    1F1B: (p - 1)/m and (p - 1)/(m + p - 1); interleaved with v chunks: divide p - 1 by v.
    """
    if pp <= 1:
        return 0.0, 0.0
    v = max(1, virtual_stages)
    m = max(1, microbatches)
    bubble = (pp - 1) / v
    return bubble / m, bubble / (m + bubble)


def bubble_time_s(pp: int, virtual_stages: int, microbatch_s: float,
                  schedule: str = "1f1b") -> float:
    """Idle seconds per step: (p - 1)/v micro-batch times of the pacing stage.

    DualPipe (DeepSeek-V3 Table 2, P): (p/2 - 1)(F&B + B - 3W) against 1F1B's (p - 1)(F + B),
    with F&B a forward and a backward chunk run together and W the weight-gradient half of B
    (B = 2F, W = F): (p/2 - 1)(3F + 2F - 3F) = (p/2 - 1) x 2F, i.e. 2/3 of (p/2 - 1)
    micro-batch times (F + B = 3F).
    """
    if pp <= 1:
        return 0.0
    if schedule == "dualpipe":
        return max(0.0, pp / 2.0 - 1.0) * (2.0 / 3.0) * microbatch_s
    return (pp - 1) / virtual_stages * microbatch_s


@dataclass(slots=True)  # not frozen: one per evaluated layout (a frozen init costs 3x)
class PacingStage:
    """The pipeline stage that sets the pace (the slowest one)."""

    times_s: dict[str, float]  # per micro-batch: the layer parts summed over its layers, "total"
    layers: int                # transformer layers it holds
    first: bool                # holds the first layers (dense layers of an MoE model lead)
    embedding: bool            # holds an embedding matrix (first stage, or last for the logits)


def pacing_stage(model: ModelSpec, par: Parallelism, balance_ends: bool,
                 dense_layer_s: dict[str, float], moe_layer_s: dict[str, float],
                 logits_fwd_s: float, logits_loss_s: float) -> PacingStage:
    """The slowest of the first, a middle and the last stage, from the times of one dense and
    one MoE layer (same keys: "fwd", "bwd", ...) and of the output layer (last stage, or the
    only one)."""
    pp = par.pp
    v = max(1, par.virtual_stages) if pp > 1 else 1
    first_layers, middle_layers, last_layers = stage_layer_counts(model.layers, pp, v, balance_ends,
                                                                  model.mtp_depth)

    def stage(first: bool, layers: int, has_logits: bool) -> dict[str, float]:
        n_moe = moe_layers_in(model, first, layers)
        n_dense = layers - n_moe
        times = {key: n_dense * dense_layer_s[key] + n_moe * moe_layer_s[key]
                 for key in dense_layer_s}
        if has_logits:
            times["fwd"] += logits_fwd_s
            times["bwd"] += 2.0 * logits_fwd_s + logits_loss_s
        times["total"] = sum(times.values())
        return times

    # (times, layers, holds the first layers, holds an embedding matrix) of each stage kind
    candidates = [(stage(True, first_layers, pp == 1), first_layers, True, True)]
    if pp > 2:
        candidates.append((stage(False, middle_layers, False), middle_layers, False, False))
    if pp > 1:
        candidates.append((stage(False, last_layers, True), last_layers, False, True))
    return PacingStage(*max(candidates, key=lambda c: c[0]["total"]))


def gradient_reduction_windows(pp: int, virtual_stages: int, microbatches: int) -> float:
    """Micro-batch backwards of the pacing stage the step-end gradient reduction can hide behind.

    Interleaved schedules (Megatron-Core forward_backward_pipelining_with_interleaving, code
    read): the gradient reduction of a model chunk is launched after that chunk's last
    micro-batch backward, and the parameter all-gather of chunk k + 1 at chunk k's first
    forward. On the first stage (which finishes last) the other v - 1 chunks still run
    p micro-batch backwards each (1/v of the stage's work per micro-batch) after the first
    chunk's gradients are ready, so the whole reduction has ((v - 1) p + 1)/v micro-batch
    backwards to hide behind; the last chunk's share, 1/v of it, only its own backward.
    """
    v = virtual_stages
    return ((v - 1) * min(pp, microbatches) + 1) / v if (pp > 1 and v > 1) else 1.0
