"""Step time of one parallel layout on a fabric: the performance model for one layout.

The decomposition follows ../shared/reference/performance.md §0:

    t_step = m (t_fwd + t_bwd) / eps  + t_recompute + t_bubble
             + exposed(TP, CP, EP, PP, DP) + t_optimizer + t_straggler

``layout_step_time`` puts it together for one layout from the kernel times of one layer
(compute.py), the communication and its overlap (communication.py) and the pipeline schedule
(pipeline.py); memory per GPU comes from memory.py. It knows nothing of workloads, searches or
warnings: the performance analysis (performance.py), the parallelism search and the bottleneck
what-ifs call it, each for the layouts they need.

A job smaller than the design runs on ``FabricView.restricted_to(job_gpus)`` (``job_fabric``).
A job larger than the design, or than the part of it the fabric connects, has no step time:
the performance analysis says it cannot run and never calls this model for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.analysis.communication import (
    ReductionWindows,
    data_parallel_reduction,
    gradient_replicas,
    layer_communication,
    pipeline_p2p,
)
from core.analysis.compute import Hardware, layer_compute, logits_compute
from core.analysis.memory import MemoryBreakdown, memory_for
from core.analysis.model_stats import parameter_count
from core.analysis.muon import muon_step_s
from core.assumptions.performance import PerformanceAssumptions
from core.analysis.pipeline import (
    PacingStage,
    bubble_time_s,
    gradient_reduction_windows,
    moe_layers_in,
    pacing_stage,
)
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.workload import ModelSpec, Parallelism

# The parts of ``StepTime.breakdown_s`` (seconds per step), in order.
BREAKDOWN_PARTS = (
    "compute",
    "recompute",
    "tp_comm",
    "cp_comm",
    "ep_comm",
    "pp_comm",
    "dp_comm",
    "bubble",
    "optimizer",
    "straggler",
    "other",
)


@dataclass(slots=True)  # not frozen: the parallelism search makes thousands (a frozen init costs 3x)
class StepTime:
    """One layout's training step on one fabric."""

    step_time_s: float
    breakdown_s: dict[str, float]  # BREAKDOWN_PARTS -> seconds per step
    memory: MemoryBreakdown        # per GPU, fullest pipeline stage
    microbatches: int              # per pipeline per step
    global_batch: int              # sequences per step (a multiple of dp x micro-batch)
    bubble_fraction: float         # share of the step spent in the pipeline bubble
    alltoall_s: float = 0.0        # MoE dispatch + combine per step on the pacing stage, hidden
                                   # or not (its exposed part is breakdown "ep_comm")


def job_fabric(fabric: FabricView, job_gpus: int, diags: list[Diagnostic] | None) -> FabricView:
    """The fabric a job of ``job_gpus`` GPUs runs on: ``fabric`` restricted to the job (a note
    appended to ``diags`` when that is part of the design). The job must fit the connected
    fabric (``FabricView.connected_gpus``); a larger one has no fabric to run on."""
    if job_gpus > fabric.connected_gpus:
        raise ValueError(f"a job of {job_gpus} GPUs does not fit the {fabric.connected_gpus} "
                         f"GPUs the fabric connects")
    if job_gpus < fabric.gpus:
        if diags is not None:
            diags.append(
                Diagnostic(
                    "JOB_USES_PART_OF_CLUSTER",
                    f"the job uses {job_gpus:,} of the design's {fabric.gpus:,} GPUs",
                )
            )
        return fabric.restricted_to(job_gpus)
    return fabric


def layout_step_time(
    fabric: FabricView,
    model: ModelSpec,
    par: Parallelism,
    precision: str,
    a: PerformanceAssumptions,
    peak_tflops: float,
    job_gpus: int,
    optimizer: str = "adamw",
) -> StepTime:
    """Step time, its breakdown and memory per GPU of layout ``par`` on ``fabric`` (pure).

    ``fabric`` is the job's own (``job_fabric``); ``peak_tflops`` is the accelerator's dense
    peak for ``precision`` (``compute.dense_peak``); ``optimizer`` the workload's ("muon"
    adds its Newton-Schulz iterations to the optimizer step). Never raises for a layout the
    fabric cannot carry: a level without bandwidth gives an infinite step.
    """
    dp, pp = par.dp, par.pp
    v = max(1, par.virtual_stages) if pp > 1 else 1
    m = max(1, par.global_batch // (dp * par.micro_batch))
    gbs = m * dp * par.micro_batch

    hw = Hardware(fabric.accelerator, precision, peak_tflops, a)
    dense_layer, _ = _layer_times_s(model, par, fabric, hw, a, False, precision)
    moe_layer, alltoall_layer = (_layer_times_s(model, par, fabric, hw, a, True, precision)
                                 if model.moe.enabled else (dense_layer, 0.0))
    logits_fwd, logits_loss = logits_compute(model, par, hw)
    if model.mtp_depth:
        # multi-token prediction on the last stage: per module a layer of the last kind, its
        # 2h x h projection and the shared output head again (its backward, 2x, by the stage)
        last = moe_layer if model.moe.enabled and model.moe.dense_layers < model.layers \
            else dense_layer
        T = par.micro_batch * model.seq_len / par.cp
        logits_fwd += model.mtp_depth * (last["fwd"] + hw.gemm(T, 2 * model.hidden / par.tp,
                                                               model.hidden) + logits_fwd)
        logits_loss *= 1 + model.mtp_depth
    pace = pacing_stage(model, par, a.balance_pipeline_ends, dense_layer, moe_layer,
                        logits_fwd, logits_loss)
    times = pace.times_s

    bubble = bubble_time_s(pp, v, times["total"], a.pipeline_schedule)
    pp_comm, pp_penalty = pipeline_p2p(model, par, fabric, a, m, v)
    dense_params, expert_params = _stage_parameters(model, par, pace)
    windows = ReductionWindows(times["fwd"], times["bwd"] + times["recompute"],
                               gradient_reduction_windows(pp, v, m), pace.layers)
    dp_comm, dp_penalty = data_parallel_reduction(fabric, par, a, dense_params, expert_params,
                                                  m, v, windows)

    # optimizer step: memory-bound elementwise update over this GPU's shard of the parameters
    n_d, n_e = gradient_replicas(par) if par.zero_stage >= 1 else (1, 1)
    opt_params = dense_params / n_d + expert_params / n_e
    optimizer_s = opt_params * a.optimizer_bytes_per_param / hw.hbm
    if optimizer == "muon":  # + the Newton-Schulz GEMMs of its weight matrices, in BF16
        hw_bf16 = Hardware(fabric.accelerator, "bf16", fabric.accelerator.peak_tflops("bf16"), a)
        optimizer_s += muon_step_s(model, par, pace.first, pace.layers, hw_bf16, n_d, n_e)

    parts = {
        "compute": m * (times["fwd"] + times["bwd"]),
        "recompute": m * times["recompute"],
        "tp_comm": m * (times["tp"] + times["hidden_penalty_tp"]),
        "cp_comm": m * (times["cp"] + times["hidden_penalty_cp"]),
        "ep_comm": m * (times["ep"] + times["hidden_penalty_ep"]),
        "pp_comm": pp_comm + pp_penalty,
        "dp_comm": dp_comm + dp_penalty,
        "bubble": bubble,
        "optimizer": optimizer_s,
    }
    subtotal = sum(parts.values())
    straggler = _straggler_fraction(job_gpus, fabric, a)
    parts["straggler"] = subtotal * straggler if straggler > 0 else 0.0
    parts["other"] = a.step_overhead_s

    memory = memory_for(model, par, fabric.accelerator.hbm_capacity_gb, a, m, precision,
                        fabric.accelerator, optimizer)
    if par.activation_offload:
        parts["offload"] = _offload_exposed_s(fabric, memory, m, parts["compute"])
    step = sum(parts.values())
    bubble_fraction = bubble / step if 0 < step < math.inf else 0.0
    n_moe = moe_layers_in(model, pace.first, pace.layers)
    return StepTime(step, parts, memory, m, gbs, bubble_fraction, m * n_moe * alltoall_layer)


def _offload_exposed_s(fabric: FabricView, memory: MemoryBreakdown, microbatches: int,
                       compute_s: float) -> float:
    """Exposed seconds of activation offloading per step: every micro-batch's stored
    activations go to host memory after their forward and come back before their backward,
    over the accelerator's host link (PCIe, NVLink-C2C), hidden behind the compute but for
    what exceeds it."""
    link = fabric.accelerator.host_link_gbyte_s
    if not link:  # no host link in the catalog: nothing to offload over
        return math.inf
    moved = 2.0 * microbatches * memory.offloaded_gb_per_microbatch * 1e9
    return max(0.0, moved / (float(link) * 1e9) - compute_s)


def _layer_times_s(model: ModelSpec, par: Parallelism, fabric: FabricView, hw: Hardware,
                   a: PerformanceAssumptions, moe_layer: bool, precision: str
                   ) -> tuple[dict[str, float], float]:
    """Seconds of one transformer layer for one micro-batch on one GPU, by part (the order in
    which a stage adds them up), and its all-to-all seconds, hidden or not."""
    c = layer_compute(model, par, hw, a, moe_layer)
    comm = layer_communication(model, par, fabric, a, moe_layer, c.core_fwd_s, c.core_bwd_s,
                               precision)
    return {
        "fwd": c.fwd_s, "bwd": c.bwd_s, "recompute": c.recompute_s,
        "tp": comm.tp_s, "cp": comm.cp_s, "ep": comm.ep_s,
        "hidden_penalty_tp": comm.hidden_penalty_tp_s,
        "hidden_penalty_cp": comm.hidden_penalty_cp_s,
        "hidden_penalty_ep": comm.hidden_penalty_ep_s,
    }, comm.ep_total_s


def _stage_parameters(model: ModelSpec, par: Parallelism, pace: PacingStage) -> tuple[float, float]:
    """(dense, expert) parameters one GPU of the pacing stage holds (sharded over TP, experts
    over expert-TP and EP); the stage's embedding matrices count with the dense ones."""
    counts = parameter_count(model)
    g = 3 if model.gated else 2
    expert_layer = 0.0
    if model.moe.enabled:
        expert_layer = model.moe.experts * g * model.hidden * (
            model.moe.expert_ffn_hidden or model.ffn_hidden
        )
    n_moe = moe_layers_in(model, pace.first, pace.layers)
    dense_params = (
        pace.layers * counts.attention
        + (pace.layers - n_moe) * counts.dense_mlp
        + n_moe * (counts.moe_mlp_total - expert_layer)
        + counts.embedding * (2 if par.pp == 1 else (1 if pace.embedding else 0))
    ) / par.tp
    expert_params = n_moe * expert_layer / (par.expert_tp_effective * max(1, par.ep))
    return dense_params, expert_params


def _straggler_fraction(job_gpus: int, fabric: FabricView, a: PerformanceAssumptions) -> float:
    """Share of the step lost to slow ranks: the full ``straggler_fraction`` at
    ``straggler_full_gpus``, growing with log2(job servers) from one scale-up domain."""
    domain = max(1, fabric.scale_up_domain_gpus)
    servers = job_gpus / domain
    full = max(2.0, a.straggler_full_gpus / domain)
    if servers <= 1.0:
        return 0.0
    return a.straggler_fraction * min(1.0, math.log2(servers) / math.log2(full))
