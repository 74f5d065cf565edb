"""Communication of a training step, and how much of it hides behind compute.

performance.md §3, §5, §7. Every parallel dimension's traffic is timed with the hierarchical
collectives of ``collectives.py`` on the group's actual placement in the fabric, so the levels
and oversubscription a group crosses decide its bandwidth. Placement follows Megatron's rank
order tp-cp-ep-dp-pp on the fabric's GPU numbering: TP groups are consecutive GPUs (stride 1),
CP at stride tp, EP at stride tp x cp (carved out of dp x cp), DP at stride tp x cp, PP stages
tp x cp x dp apart.

* **TP** (sequence parallel): all-gather + reduce-scatter, two of each per layer per pass;
* **CP**: ring exchange of K/V, hidden behind the attention core;
* **EP**: dispatch + combine all-to-all, forward and backward (4 per MoE layer), over the
  levels the EP group spans (``collectives.expert_alltoall_time_s``: NVLink inside a node or
  rack, the NIC beyond; per-node deduplication and node-limited routing with DeepEP-style
  kernels); the forward dispatch at the precision recipe's dispatch precision (FP8 in
  DeepSeek-V3's), the combine and both backward transfers in BF16 (§3.3.4 of its report);
* **PP**: point-to-point of the boundary activation (fill and drain exposed);
* **DP**: gradients reduced over the data-parallel group *with* CP (dp x cp ranks at stride
  tp), as Megatron does; expert gradients over the dp x cp / ep expert replicas; all-reduce,
  reduce-scatter + all-gather (ZeRO-1/2) or per-layer FSDP (ZeRO-3), in buckets.

**Overlap** (§5): exposed = (1 - f) t; DP hides behind the backward except for one bucket;
hidden communication still steals a little compute (Calculon's ``processor_usage``,
``hidden_comm_cost``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.analysis import collectives as coll
from core.analysis.moe_layer import expert_skew
from core.assumptions.performance import PerformanceAssumptions
from core.fabric import FabricView
from core.precision_recipes import RECIPES
from core.workload import ModelSpec, Parallelism


def split_exposed(t_comm: float, hidden_fraction: float) -> tuple[float, float]:
    """(exposed, hidden) parts of a communication time; an infinite time stays exposed."""
    if not math.isfinite(t_comm) or hidden_fraction <= 0.0:
        return t_comm, 0.0
    hidden = t_comm * min(1.0, hidden_fraction)
    return t_comm - hidden, hidden


def hidden_comm_cost(fabric: FabricView, n: int, stride: int, a: PerformanceAssumptions) -> float:
    """Compute slowdown per second of hidden communication for a group of ``n`` ranks at
    ``stride`` (§5): more inside the scale-up domain (NVLink copies use SMs) than outside."""
    span = (n - 1) * stride + 1
    return a.scale_up_comm_compute_cost if span <= fabric.scale_up_domain_gpus else (
        a.scale_out_comm_compute_cost
    )


# Not frozen: the parallelism search makes thousands (a frozen init costs 3x a slotted one).
@dataclass(slots=True)
class LayerCommunication:
    """Communication seconds of one transformer layer for one micro-batch on one GPU: the
    exposed part of each dimension, and the compute its hidden part steals."""

    tp_s: float = 0.0
    cp_s: float = 0.0
    ep_s: float = 0.0
    hidden_penalty_tp_s: float = 0.0
    hidden_penalty_cp_s: float = 0.0
    hidden_penalty_ep_s: float = 0.0
    ep_total_s: float = 0.0  # the dispatch and combine all-to-all, exposed and hidden


def layer_communication(model: ModelSpec, par: Parallelism, fabric: FabricView,
                        a: PerformanceAssumptions, moe_layer: bool, core_fwd_s: float,
                        core_bwd_s: float, precision: str = "bf16") -> LayerCommunication:
    """TP, CP and EP traffic of one layer; ``core_fwd_s`` / ``core_bwd_s`` are the attention
    core's compute times, the window the CP exchange hides behind."""
    tp, cp, ep = par.tp, par.cp, par.ep
    h = model.hidden
    s = model.seq_len
    T = par.micro_batch * s / cp  # tokens this TP group processes
    passes = 3.0 if par.recompute == "full" else 2.0  # fwd, bwd (+ fwd again)
    eff = a.collective_efficiency
    sized = a.collective_size_efficiency
    tp_s = cp_s = ep_s = penalty_tp = penalty_cp = penalty_ep = ep_total = 0.0

    # TP: per pass two (all-gather + reduce-scatter) pairs with SP, or two all-reduces.
    if tp > 1:
        msg = T * h * 2.0
        if a.sequence_parallel:
            one = 2.0 * coll.reduce_scatter_time_s(fabric, msg, tp, 1, eff, size_aware=sized)
        else:
            one = coll.allreduce_time_s(fabric, msg, tp, 1, eff, size_aware=sized)
        # TE's comm-GEMM overlap (userbuffers) needs the TP group inside one NVLink domain
        # (CUDA multicast handles; TransformerEngine issue #1071, maintainers, 2024): TP that
        # crosses the scale-out network stays exposed
        overlap = a.tp_overlap if tp <= fabric.scale_up_domain_gpus else 0.0
        tp_s, hidden = split_exposed(passes * 2.0 * one, overlap)
        penalty_tp = hidden * hidden_comm_cost(fabric, tp, 1, a)

    # CP: ring exchange of K and V (forward), K/V and their gradients (backward).
    if cp > 1:
        h_kv = model.kv_heads_effective * model.head_dim
        kv = 2.0 * par.micro_batch * s * h_kv / tp * 2.0
        t_f = coll.allgather_time_s(fabric, kv, cp, tp, eff, size_aware=sized)
        windows = (core_fwd_s, core_bwd_s) + ((core_fwd_s,) if par.recompute == "full" else ())
        volumes = (t_f, 2.0 * t_f) + ((t_f,) if par.recompute == "full" else ())
        hidden = 0.0
        for t_c, w in zip(volumes, windows):
            e = max(0.0, t_c - a.cp_overlap * w)
            cp_s += e
            hidden += t_c - e if math.isfinite(t_c) else 0.0
        penalty_cp = hidden * hidden_comm_cost(fabric, cp, tp, a)

    # EP: dispatch + combine all-to-all, forward and backward (4 per MoE layer); the busiest
    # rank receives its skew times the mean.
    if moe_layer and model.moe.enabled and ep > 1:
        moe = model.moe
        rec = RECIPES.get(precision, RECIPES["bf16"])
        skew = expert_skew(model, par, a)
        dedup = a.ep_dispatch == "deepep"

        def one(bytes_per_value: float) -> float:
            return skew * coll.expert_alltoall_time_s(
                fabric, T / tp, h * bytes_per_value, moe.top_k, ep, par.ep_stride,
                moe.route_nodes, dedup, eff, size_aware=sized and not dedup)

        forward = one(rec.dispatch_bytes) + one(rec.combine_bytes)
        backward = 2.0 * one(2.0)
        ep_total = forward + backward + (forward if par.recompute == "full" else 0.0)
        ep_s, hidden = split_exposed(ep_total, a.ep_overlap)
        penalty_ep = hidden * hidden_comm_cost(fabric, ep, par.ep_stride, a)
    return LayerCommunication(tp_s, cp_s, ep_s, penalty_tp, penalty_cp, penalty_ep, ep_total)


def pipeline_p2p(model: ModelSpec, par: Parallelism, fabric: FabricView,
                 a: PerformanceAssumptions, microbatches: int, virtual_stages: int
                 ) -> tuple[float, float]:
    """(exposed seconds, compute stolen by the hidden part) of the pipeline's point-to-point
    traffic per step: fill and drain hops are exposed, the steady state hides by ``pp_overlap``."""
    tp, cp, dp, pp = par.tp, par.cp, par.dp, par.pp
    if pp <= 1:
        return 0.0, 0.0
    act = par.micro_batch * model.seq_len / cp * model.hidden * 2.0
    split_send = a.sequence_parallel or a.pp_scatter_gather
    t_p2p = coll.p2p_time_s(fabric, act / tp if split_send else act, tp * cp * dp,
                            a.collective_efficiency)
    if a.pp_scatter_gather and not a.sequence_parallel and tp > 1:
        # the receiver re-assembles the boundary activation over the TP group (SC'21 §4.1)
        t_p2p += coll.allgather_time_s(fabric, act, tp, 1, a.collective_efficiency,
                                       size_aware=a.collective_size_efficiency)
    transfers = 2.0 if a.pp_p2p_batched else 4.0  # per micro-batch and model chunk
    exposed, hidden = split_exposed(microbatches * virtual_stages * transfers * t_p2p,
                                    a.pp_overlap)
    penalty = hidden * (
        a.scale_up_comm_compute_cost if tp * cp * dp < fabric.scale_up_domain_gpus
        else a.scale_out_comm_compute_cost
    )
    return 2.0 * (pp - 1) * t_p2p + exposed, penalty


def gradient_replicas(par: Parallelism) -> tuple[int, int]:
    """(ranks that reduce a dense gradient, ranks that reduce an expert gradient): the
    data-parallel group with CP (dp x cp, Megatron), and its dp x cp / ep expert replicas."""
    return par.dp * par.cp, par.expert_replicas


@dataclass(slots=True)  # not frozen, for speed (as LayerCommunication)
class ReductionWindows:
    """The compute the data-parallel traffic of one step can hide behind (one GPU)."""

    fwd_s: float        # the pacing stage's forward of one micro-batch
    bwd_s: float        # its backward (with recompute) of one micro-batch
    chunk_windows: float  # backward windows the step-end reduction spans (pipeline.py)
    layers: int         # transformer layers of the pacing stage (FSDP units)


def data_parallel_reduction(fabric: FabricView, par: Parallelism, a: PerformanceAssumptions,
                            dense_params: float, expert_params: float, microbatches: int,
                            virtual_stages: int, windows: ReductionWindows
                            ) -> tuple[float, float]:
    """(exposed seconds, compute stolen by the hidden part) of the gradient reduction (and ZeRO
    parameter gathering) per step, for the dense and the expert parameters one GPU holds."""
    m, v = microbatches, virtual_stages
    tp, cp = par.tp, par.cp
    n_d, n_e = gradient_replicas(par)
    eff = a.collective_efficiency
    sized = a.collective_size_efficiency
    exposed_s = penalty_s = 0.0
    for params, n, stride in (
        (dense_params, n_d, tp),
        # expert replicas: every ep-th rank of the dp-cp block (approximated at stride tp
        # when CP is also used)
        (expert_params, n_e, par.expert_tp_effective * par.ep if cp == 1 or par.expert_tp else tp),
    ):
        if n <= 1 or params <= 0:
            continue
        grad_bytes = params * a.grad_reduce_bytes
        cost = hidden_comm_cost(fabric, n, stride, a)
        if par.zero_stage >= 3:
            # FSDP / ZeRO-3, one unit per layer: the forward all-gathers each layer's
            # parameters while the previous layer computes (the first is exposed); the backward
            # all-gathers them again and reduce-scatters the gradients while the next layer's
            # backward (and recompute) runs (the last reduce-scatter is exposed).
            units = max(1, windows.layers)
            p_unit = params / units
            ag = coll.allgather_time_s(fabric, p_unit * a.fsdp_param_gather_bytes, n, stride,
                                       eff, size_aware=sized)
            rs = coll.reduce_scatter_time_s(fabric, p_unit * a.grad_reduce_bytes, n, stride,
                                            eff, size_aware=sized)
            total = m * units * (2.0 * ag + rs)
            if not math.isfinite(total):
                exposed_s = math.inf
                continue
            if a.dp_overlap:
                fwd_unit = windows.fwd_s / units
                bwd_unit = windows.bwd_s / units
                exposed = m * (
                    ag + (units - 1) * max(0.0, ag - fwd_unit)
                    + rs + units * max(0.0, ag + rs - bwd_unit)
                )
                exposed = min(total, exposed)
            else:
                exposed = total
            exposed_s += exposed
            penalty_s += (total - exposed) * cost
            continue
        # Gradient buckets: each bucket is its own collective (size-dependent efficiency and
        # latency); the reduction overlaps the backward except for the last bucket.
        bucket_bytes = min(grad_bytes, a.dp_bucket_mb * 1e6) if a.dp_bucket_mb > 0 else grad_bytes
        buckets = grad_bytes / bucket_bytes
        # (time of one reduction, compute it can hide behind, last bucket, times per step)
        if par.zero_stage >= 1:
            rs = buckets * coll.reduce_scatter_time_s(fabric, bucket_bytes, n, stride, eff,
                                                      size_aware=sized)
            ag = buckets * coll.allgather_time_s(fabric, bucket_bytes / a.grad_reduce_bytes * 2.0,
                                                 n, stride, eff, size_aware=sized)
            # ZeRO-2 keeps only this rank's gradient shard (memory.py), so each micro-batch's
            # gradients are reduce-scattered during its own backward rather than once per step
            # (DeepSpeed ZeRO-2 reduce during backward; FSDP SHARD_GRAD_OP cannot skip the sync).
            rs_times = m if par.zero_stage == 2 else 1
            phases = ((rs, windows.bwd_s, rs / buckets, rs_times),
                      (ag, windows.fwd_s, ag / buckets, 1))
        else:
            ar = buckets * coll.allreduce_time_s(fabric, bucket_bytes, n, stride, eff,
                                                 size_aware=sized)
            phases = ((ar, windows.bwd_s, ar / buckets, 1),)
        for t_c, window, one_bucket, times in phases:
            if a.dp_overlap:
                spans = windows.chunk_windows if times == 1 else 1.0
                exposed = max(one_bucket, t_c - spans * window, (t_c - window) / v)
            else:
                exposed = t_c
            exposed_s += times * exposed
            if math.isfinite(t_c):
                penalty_s += times * (t_c - exposed) * cost
    return exposed_s, penalty_s
