"""LLM training performance of a workload on a drawn fabric: step time, MFU, memory and
training days (pure, Qt-free).

``analyze_performance`` is the analysis the evaluation runs: a workload with a fixed layout is
evaluated as it stands; one that asks for ``"parallelism": "auto"`` first gets its layout from
the parallelism search (parallelism_search.py). ``layout_performance`` does the same for a
given layout. Both rest on the performance model below them, each part in its own module:

* ``step_time.py``: the step of one layout, put together from ``compute.py`` (kernel times of
  a layer), ``communication.py`` (TP/CP/EP/PP/DP traffic on the group's placement, and its
  overlap) and ``pipeline.py`` (stages, the pacing stage, the bubble);
* ``memory.py``: memory per GPU; ``model_stats.py``: parameters and FLOPs (Megatron counting);
* ``calibration.py``: how much of the peak the kernels reach (fitted per accelerator);
* ``core/assumptions/performance.py``: ``PerformanceAssumptions``, the software stack and its
  calibration, each default with its source.

MFU = model FLOPs / (GPUs x dense peak of the workload's precision x step time), model FLOPs per
Megatron (causal unless the model says otherwise, no recomputation); HFU adds recomputation.

**Validation** (``python -m tests.validation.report`` -> docs/validation.md; one model and one
set of defaults; each run's software stack is given as assumptions, e.g. ``flash_attention=False``,
``tp_overlap=0`` and blocking p2p for the 2021/22 Megatron runs): Korthikanti rows 5-8 step time
-2.8 / +1.1 / +0.7 / +5.0% (SP + selective; calibration data) and +3.2 / +5.3 / +5.4 / +6.6%
(full recompute, not fitted); SC'21 rows 1-4 HFU +0.4 / +1.6 / +1.7 / +0.7 points; MosaicML
rows 14-16 -2.1 / +2.3 / +1.9 MFU points (Composer 2023 stack); NVIDIA NeMo 24.09 on DGX H100
(the default stack), 8 BF16 rows from 8 to 2,304 GPUs within -1.4..+1.0% step (four of them
calibration data) and 8 FP8 rows within -6.8..+6.5%; MT-NLG rows 9-11 +6.5 / +6.8 / +7.6 HFU
points (known miss: the 2021 DeepSpeed pipeline engine is slower per micro-batch than anything
this model can attribute; the strong-scaling trend is reproduced); Llama 3 405B at 8-16k GPUs
report-only (+6 / +3 points over Meta's MFU; Meta's no-recompute layout does not fit 80 GB
here). Blackwell: NVIDIA's NeMo 25.04 runs on GB200 NVL72 (Llama 3.1 405B, Nemotron-4 340B,
128-512 GPUs, weak and strong scaling) within -5.6..+4.2% step in BF16 (two of them calibration
data) and -7.3..+9.0% in FP8; the same release's H100 runs within -5.5..+3.5% with the 24.09
H100 calibration; Megatron-Bridge 25.11 FP8 on DGX B200 (the B200 calibration) within ±0.3%.

**Beyond Calculon's decomposition** (each constant names its data next to it): SimAI
message-size efficiency for every collective (read at the group's ring length); DP buckets as
separate collectives; FSDP exposure per layer (forward all-gather vs forward compute, backward
all-gather + reduce-scatter vs backward); DP reduction per model chunk under interleaving;
replicated LayerNorm/dropout work without sequence parallelism; pipeline p2p without
scatter/gather and with serialized send/recv (DeepSpeed); measured GEMM-efficiency curves by
size and FlashAttention-2 efficiency per GPU (Azure cuBLASLt / FA2 sweeps); the default stack is
Megatron-Core / NeMo + Transformer Engine (FlashAttention-3-class attention, TP comm-GEMM
overlap), its H100 and FP8 factors fitted on NVIDIA's NeMo runs
(``python -m tests.validation.calibrate``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from core.analysis.calibration import efficiency_scale, gemm_efficiency, uncalibrated_diagnostic
from core.analysis.compute import dense_peak
from core.analysis.memory import MemoryBreakdown, memory_for
from core.analysis.model_stats import hardware_flops_per_token, model_flops_per_token
from core.analysis.parallelism_search import SearchResult, search_parallelism
from core.assumptions.performance import PerformanceAssumptions
from core.analysis.pipeline import ends_balanced, pipeline_bubble, stage_layer_counts
from core.analysis.step_time import BREAKDOWN_PARTS, job_fabric, layout_step_time
from core.analysis.uncalibrated import bracket_step
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.workload import RECOMPUTE, ModelSpec, Parallelism, Workload

# The analysis, and the performance model's names that tests, scripts and the validation suite
# import from this one module (their home is the model's own modules).
__all__ = [
    "BREAKDOWN_PARTS",
    "PerformanceAssumptions",
    "PerformanceResult",
    "analyze_performance",
    "cannot_run_reasons",
    "efficiency_scale",
    "gemm_efficiency",
    "layout_performance",
    "pipeline_bubble",
]


@dataclass(frozen=True)
class PerformanceResult:
    """The performance of one layout of the workload on the design.

    When the job cannot run there (``cannot_run`` says why, one error each: more GPUs than the
    design has, GPUs the fabric does not connect, memory, a level without bandwidth, no layout
    that fits), the numbers of the run are None: ``mfu``, ``hfu``, ``tflops_per_gpu``,
    ``step_time_s``, ``tokens_per_s``, ``training_days``, ``breakdown_s`` and
    ``bubble_fraction``, never numbers computed as if it ran. What stays real: the layout and
    its GPUs, memory per GPU and its breakdown (why it does not fit), FLOPs per step, the peak.
    """

    job_gpus: int
    parallelism: Parallelism
    memory_per_gpu_gb: float
    fits_memory: bool
    memory: MemoryBreakdown
    microbatches: int
    model_flops_per_step: float
    hardware_flops_per_step: float
    peak_tflops: float              # dense peak per GPU used for MFU (after any fallback)
    precision: str                  # precision the peak refers to
    # the run (None when the job cannot run)
    mfu: float | None               # fraction of dense peak (model FLOPs)
    hfu: float | None               # fraction of dense peak (hardware FLOPs, with recompute)
    tflops_per_gpu: float | None    # achieved model TFLOP/s per GPU
    step_time_s: float | None
    tokens_per_s: float | None
    training_days: float | None
    breakdown_s: dict[str, float] | None
    bubble_fraction: float | None   # share of the step spent in the pipeline bubble
    cannot_run: tuple[Diagnostic, ...] = ()  # why the job cannot run (empty: it runs)
    alternatives: tuple[tuple[Parallelism, float], ...] = ()  # auto: runners-up, step time
    diagnostics: tuple[Diagnostic, ...] = ()  # everything to know, cannot_run included
    # auto: the whole search (winner, runners-up with why each loses, memory rejections)
    search: SearchResult | None = None
    # An accelerator without a fitted run: the MFU (and training days) of the same layout at
    # both ends of its efficiency bracket, conservative first (calibration.py); None otherwise.
    mfu_range: tuple[float, float] | None = None
    training_days_range: tuple[float, float] | None = None
    # MoE: dispatch + combine all-to-all seconds per step on the pacing stage, hidden or not
    # (its exposed part is breakdown "ep_comm"); None for a dense model or a job that cannot run
    alltoall_s: float | None = None
    moe: bool = False
    # memory per GPU of this layout under each recompute mode (RECOMPUTE order), all else equal:
    # what choosing another mode would need (the Workload tab shows it beside the modes)
    memory_by_recompute_gb: dict[str, float] = field(default_factory=dict)

    @property
    def runs(self) -> bool:
        return not self.cannot_run

    def to_json(self) -> dict:
        """The ``performance`` object of the evaluation JSON (DESIGN.md), plus extras."""
        par = self.parallelism
        return {
            "runs": self.runs,
            "cannot_run": [d.to_json() for d in self.cannot_run],
            "mfu": self.mfu,
            "hfu": self.hfu,
            "tflops_per_gpu": self.tflops_per_gpu,
            "step_time_s": self.step_time_s,
            "tokens_per_s": self.tokens_per_s,
            "training_days": self.training_days,
            "memory_per_gpu_gb": self.memory_per_gpu_gb,
            "fits_memory": self.fits_memory,
            "breakdown_s": dict(self.breakdown_s) if self.breakdown_s is not None else None,
            "memory_gb": self.memory.to_json(),
            "job_gpus": self.job_gpus,
            "microbatches": self.microbatches,
            "bubble_fraction": self.bubble_fraction,
            "peak_tflops": self.peak_tflops,
            "precision": self.precision,
            # uncalibrated accelerators: the bracket of the estimate (null when calibrated)
            "mfu_range": (None if self.mfu_range is None else
                          {"conservative": self.mfu_range[0], "optimistic": self.mfu_range[1]}),
            "training_days_range": (None if self.training_days_range is None else
                                    {"conservative": self.training_days_range[0],
                                     "optimistic": self.training_days_range[1]}),
            "parallelism": {
                "tp": par.tp, "pp": par.pp, "dp": par.dp, "cp": par.cp, "ep": par.ep,
                "micro_batch": par.micro_batch, "global_batch": par.global_batch,
                "virtual_stages": par.virtual_stages, "zero_stage": par.zero_stage,
                "recompute": par.recompute,
            },
            **({"search": self.search.to_json()} if self.search is not None else {}),
            **({"alltoall_s": self.alltoall_s} if self.moe else {}),
            "memory_by_recompute_gb": dict(self.memory_by_recompute_gb),
        }


def cannot_run_reasons(fabric: FabricView, par: Parallelism, memory: MemoryBreakdown,
                       step_time_s: float | None) -> list[Diagnostic]:
    """Why layout ``par`` cannot run on ``fabric`` (empty when it can): the one definition of
    "can run" that the analysis, the bottleneck what-ifs and the scaling chart share.

    ``step_time_s`` is the model's step on the job's fabric, None when the job could not be
    placed to compute one (more GPUs than the design has or than its fabric connects).
    """
    job = par.gpus
    reasons = []
    if job > fabric.gpus:
        reasons.append(Diagnostic(
            "PARALLELISM_EXCEEDS_GPUS",
            f"the parallelism needs {job:,} GPUs (tp {par.tp} x pp {par.pp} x dp {par.dp} x "
            f"cp {par.cp}) but the design has {fabric.gpus:,}"))
    elif job > fabric.connected_gpus:
        reasons.append(Diagnostic(
            "JOB_NOT_CONNECTED",
            f"the job needs {job:,} GPUs but the fabric joins at most {fabric.connected_gpus:,} "
            f"of the design's {fabric.gpus:,}: its traffic would cross parts no switch "
            f"connects"))
    if not memory.fits:
        reasons.append(Diagnostic(
            "DOES_NOT_FIT_MEMORY",
            f"needs {memory.total_gb:.1f} GB per GPU ({memory.stage} pipeline stage) but "
            f"{fabric.accelerator.id} holds {memory.hbm_gb:.1f} GB (its spec sheet's "
            f"{fabric.accelerator.hbm_gb:g} GB count GiB){_within_framework_estimate(memory)}",
            (fabric.accelerator.id,)))
    no_host_link = par.activation_offload and not fabric.accelerator.host_link_gbyte_s
    if no_host_link:
        reasons.append(Diagnostic(
            "NO_HOST_LINK",
            f"activation offload moves every micro-batch's activations over the host link, "
            f"which the catalog does not give for {fabric.accelerator.id} (host_link_gbyte_s)",
            (fabric.accelerator.id,)))
    elif step_time_s is not None and not (0 < step_time_s < math.inf):
        reasons.append(Diagnostic(
            "NO_NETWORK_BANDWIDTH",
            "a network level the job's collectives cross has no bandwidth: the step cannot "
            "complete"))
    return reasons


def _within_framework_estimate(memory) -> str:
    """A layout over by less than the framework overhead the count includes (CUDA context,
    NCCL buffers, allocator fragmentation: an estimate no published peak checks) is over by
    less than what is least known: say so, so that a run that ran elsewhere is not dismissed.
    The verdict stands; nothing is subtracted."""
    over_gb = -memory.headroom_gb
    if over_gb >= memory.framework_gb:
        return ""
    return (f"; {over_gb:.2f} GB over, less than the {memory.framework_gb:g} GB framework "
            f"overhead it includes (an estimate: CUDA context, NCCL buffers, fragmentation): "
            f"whether it runs depends on the real stack")


def analyze_performance(
    fabric: FabricView,
    workload: Workload,
    assumptions: PerformanceAssumptions = PerformanceAssumptions(),
    ettr: float = 1.0,
) -> PerformanceResult:
    """Step time, MFU, memory and training days of ``workload`` on ``fabric``.

    A workload with ``"parallelism": "auto"`` first gets its layout from the parallelism search
    (kept in ``search``, its runners-up in ``alternatives``). Never raises for a mismatch
    between the parallelism and the design: a job that cannot run gets a result that says why
    (``cannot_run``) and has no run numbers. ``ettr`` (effective training time ratio, 0-1]
    stretches training_days.
    """
    if not workload.auto:
        return layout_performance(fabric, workload, workload.parallelism, assumptions, ettr)
    found = search_parallelism(fabric, workload, assumptions)
    return layout_performance(fabric, workload, found.best, assumptions, ettr, found)


def layout_performance(
    fabric: FabricView,
    workload: Workload,
    par: Parallelism,
    assumptions: PerformanceAssumptions = PerformanceAssumptions(),
    ettr: float = 1.0,
    search: SearchResult | None = None,
) -> PerformanceResult:
    """``analyze_performance`` of ``workload``'s model with the layout ``par`` (whatever the
    workload's own parallelism says); ``search`` is the search that chose ``par``, if any,
    reported with the result."""
    a = assumptions
    model = workload.model
    diags: list[Diagnostic] = list(search.diagnostics) if search is not None else []
    peak_tflops, precision = dense_peak(fabric.accelerator, workload.precision, diags)
    job_gpus = par.gpus
    core = bracket = None
    if job_gpus <= fabric.connected_gpus:
        view = job_fabric(fabric, job_gpus, diags)
        core = layout_step_time(view, model, par, precision, a, peak_tflops, job_gpus,
                                workload.optimizer)
        # an uncalibrated accelerator: the end of its bracket the assumptions name, both ends
        bracket = bracket_step(view, model, par, precision, a, peak_tflops, job_gpus, core,
                               workload.optimizer)
        if bracket is not None:
            core = bracket.step
        memory = core.memory
    else:  # no fabric to run on: only what does not depend on one
        memory = memory_for(model, par, fabric.accelerator.hbm_capacity_gb, a, par.microbatches,
                            precision, fabric.accelerator, workload.optimizer)
    diags.extend(_layout_diagnostics(fabric, model, par, a))
    by_recompute = _memory_by_recompute(model, par, a, precision, fabric.accelerator,
                                        workload.optimizer, memory)
    reasons = cannot_run_reasons(fabric, par, memory, core.step_time_s if core else None)
    if not memory.fits:
        remedy = _recompute_that_fits(par, by_recompute, memory.hbm_gb)
        reasons = [replace(r, message=r.message + remedy) if r.code == "DOES_NOT_FIT_MEMORY"
                   else r for r in reasons]
    failure = search.failure if search is not None else None
    if failure is not None:  # the search's reason says it for every layout, this one included
        reasons = [failure] + [r for r in reasons if r.code != "DOES_NOT_FIT_MEMORY"]
    diags.extend(r for r in reasons if r is not failure)

    tokens = par.microbatches * par.dp * par.micro_batch * model.seq_len
    model_flops = model_flops_per_token(model) * tokens
    hw_flops = hardware_flops_per_token(model, par.recompute) * tokens
    run = core if core is not None and not reasons else None
    step = run.step_time_s if run is not None else None
    tokens_per_s = tokens / step if step is not None else None
    days = None
    if tokens_per_s is not None:
        days = (workload.training_tokens / tokens_per_s / 86400.0 / min(1.0, ettr)
                if ettr > 0 else math.inf)
    peak_flops = job_gpus * peak_tflops * 1e12
    mfu_range = days_range = None
    if bracket is not None and step is not None:
        steps = (bracket.conservative_s, bracket.optimistic_s)
        mfu_range = tuple(model_flops / (peak_flops * s) for s in steps)
        days_range = tuple(days * s / step for s in steps) if days is not None else None
    return PerformanceResult(
        job_gpus=job_gpus,
        parallelism=par,
        memory_per_gpu_gb=memory.total_gb,
        fits_memory=memory.fits,
        memory=memory,
        microbatches=par.microbatches,
        model_flops_per_step=model_flops,
        hardware_flops_per_step=hw_flops,
        peak_tflops=peak_tflops,
        precision=precision,
        mfu=model_flops / (peak_flops * step) if step is not None else None,
        hfu=hw_flops / (peak_flops * step) if step is not None else None,
        tflops_per_gpu=model_flops / job_gpus / step / 1e12 if step is not None else None,
        step_time_s=step,
        tokens_per_s=tokens_per_s,
        training_days=days,
        breakdown_s=dict(run.breakdown_s) if run is not None else None,
        bubble_fraction=run.bubble_fraction if run is not None else None,
        cannot_run=tuple(reasons),
        alternatives=search.runners_up if search is not None else (),
        diagnostics=tuple(diags),
        search=search,
        mfu_range=mfu_range,
        training_days_range=days_range,
        alltoall_s=run.alltoall_s if run is not None and model.moe.enabled else None,
        moe=model.moe.enabled,
        memory_by_recompute_gb=by_recompute,
    )


def _memory_by_recompute(model: ModelSpec, par: Parallelism, a: PerformanceAssumptions,
                         precision: str, accelerator, optimizer: str,
                         memory: MemoryBreakdown) -> dict[str, float]:
    """Memory per GPU of ``par`` under every recompute mode (``memory`` is its own mode's, the
    figure the step model computed). Memory only: well under a millisecond per mode."""
    return {mode: memory.total_gb if mode == par.recompute else
            memory_for(model, replace(par, recompute=mode), accelerator.hbm_capacity_gb, a,
                       par.microbatches, precision, accelerator, optimizer).total_gb
            for mode in RECOMPUTE}


def _recompute_that_fits(par: Parallelism, by_recompute: dict[str, float], hbm_gb: float) -> str:
    """For a layout over its GPU's memory: the lightest activation recompute coarser than its
    own that fits, as a clause of the reason, or that none does (the user chooses what to give
    up; its step is not computed here)."""
    coarser = RECOMPUTE[RECOMPUTE.index(par.recompute) + 1:]
    for mode in coarser:
        if by_recompute[mode] <= hbm_gb:
            return f"; with recompute {mode!r} it needs {by_recompute[mode]:.1f} GB and fits"
    if not coarser:
        return ""
    return f"; recompute alone does not make it fit ({by_recompute['full']:.1f} GB with 'full')"


def _layout_diagnostics(fabric: FabricView, model: ModelSpec, par: Parallelism,
                        a: PerformanceAssumptions) -> list[Diagnostic]:
    """What the user should know about this layout on this fabric, besides its numbers."""
    diags: list[Diagnostic] = []
    uncalibrated = uncalibrated_diagnostic(a, fabric.accelerator.id, fabric.accelerator.year)
    if uncalibrated is not None:
        diags.append(uncalibrated)
    if par.tp * par.cp > fabric.scale_up_domain_gpus:
        diags.append(
            Diagnostic(
                "TP_EXCEEDS_SCALE_UP",
                f"tp x cp = {par.tp * par.cp} exceeds the scale-up domain of "
                f"{fabric.scale_up_domain_gpus} GPUs: tensor-parallel traffic crosses the "
                f"scale-out network",
            )
        )
    chunks = par.pp * (max(1, par.virtual_stages) if par.pp > 1 else 1)
    if par.pp > 1 and model.layers % chunks:
        first, middle, last = stage_layer_counts(model.layers, par.pp, par.virtual_stages,
                                                 a.balance_pipeline_ends, model.mtp_depth)
        if a.balance_pipeline_ends and ends_balanced(model.layers, par.pp, par.virtual_stages,
                                                     model.mtp_depth):
            mtp = (f" and each of the {model.mtp_depth} multi-token-prediction modules as one "
                   f"more on the last stage" if model.mtp_depth else "")
            ends = (f"the first and last stages get {first} layers" if first == last else
                    f"the first stage gets {first} layers, the last {last}")
            text = (f"{model.layers} layers do not divide into pp x virtual_stages = {chunks} "
                    f"chunks; counting the embedding and the loss as one layer each (as "
                    f"Llama 3 does){mtp}, {ends} and the others {middle}")
        else:
            text = (f"{model.layers} layers do not divide into pp x virtual_stages = {chunks} "
                    f"chunks; the fullest stage has {max(first, middle)} layers and sets "
                    f"the pace")
        diags.append(Diagnostic("UNEVEN_PIPELINE", text))
    m = max(1, par.global_batch // (par.dp * par.micro_batch))
    if par.pp > 1 and m < par.pp:
        diags.append(
            Diagnostic(
                "FEW_MICROBATCHES",
                f"{m} micro-batches per step cannot fill {par.pp} pipeline stages; "
                f"the bubble dominates",
            )
        )
    return diags
