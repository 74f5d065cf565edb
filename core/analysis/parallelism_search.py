"""A small search for a good parallel configuration ("parallelism": "auto").

Candidates (Megatron-style, performance.md §8 "exhaustive parallelism search", kept small):

* tp: powers of two up to min(scale-up domain, 8) that divide the attention heads and the KV
  heads (Megatron needs query groups divisible by tp);
* cp: 1, and 2/4/8 for sequences of 16k tokens or more;
* pp: divisors of the layer count (the job fills whole stages);
* ep (MoE): powers of two dividing the experts and dp x cp, up to 64;
* dp: as many replicas as the design's GPUs allow (a job may leave GPUs idle);
* micro-batch 1, 2, 4; virtual stages 1, 2, 4 where the layers divide;
* recompute and ZeRO: the first of none/ZeRO-1, selective/ZeRO-1 (only without FlashAttention,
  where it saves memory), full/ZeRO-1, none/ZeRO-3, full/ZeRO-3 that fits in memory.

The global batch is the workload's (explicit parallelism) or ``auto_global_batch_tokens`` /
seq_len, rounded to a multiple of dp x micro-batch (at most 1.5x the target, so dp is capped
by the batch), so candidates differ slightly in batch; they are ranked by time per token
(= step time at equal batch). Configurations that do not
fit are kept only if nothing fits (with a diagnostic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.analysis.memory import memory_per_gpu
from core.analysis.performance import (
    PerformanceAssumptions,
    _evaluate,
    _job_fabric,
    _peak,
)
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.workload import Parallelism, Workload

MICRO_BATCHES = (1, 2, 4)
VIRTUAL_STAGES = (1, 2, 4)


@dataclass(frozen=True)
class SearchResult:
    best: Parallelism
    step_time_s: float
    runners_up: tuple[tuple[Parallelism, float], ...]  # next best, with their step times
    evaluated: int
    diagnostics: tuple[Diagnostic, ...] = ()


def _powers_of_two(limit: int) -> list[int]:
    out, p = [], 1
    while p <= limit:
        out.append(p)
        p *= 2
    return out


def _divisors(n: int, limit: int) -> list[int]:
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def search_parallelism(
    fabric: FabricView,
    workload: Workload,
    assumptions: PerformanceAssumptions = PerformanceAssumptions(),
    max_runners_up: int = 4,
) -> SearchResult:
    """Best configuration for ``workload`` on ``fabric`` by time per token."""
    a = assumptions
    model = workload.model
    gpus = max(1, fabric.gpus)
    peak_tflops, precision = _peak(fabric, workload.precision, None)
    hbm_gb = float(fabric.accelerator.get("hbm_gb", 80.0))
    if isinstance(workload.parallelism, Parallelism):
        target_sequences = workload.parallelism.global_batch
    else:
        target_sequences = max(1, round(a.auto_global_batch_tokens / model.seq_len))

    kv = model.kv_heads_effective
    tps = [
        t for t in _powers_of_two(min(fabric.scale_up_domain_gpus, 8, gpus))
        if model.heads % t == 0 and kv % t == 0
    ] or [1]
    cps = [1] + ([c for c in (2, 4, 8) if c <= gpus] if model.seq_len >= 16384 else [])
    moe = model.moe
    options = [("none", 1)]
    if not a.flash_attention:
        options.append(("selective", 1))
    options += [("full", 1), ("none", 3), ("full", 3)]

    results: list[tuple[float, float, Parallelism]] = []  # (time per token, step, par)
    misfits: list[tuple[float, float, Parallelism]] = []  # (overflow GB, step, par)
    evaluated = 0
    fabrics: dict[int, FabricView] = {}
    for tp in tps:
        for cp in cps:
            for pp in _divisors(model.layers, gpus // (tp * cp)):
                # as many replicas as GPUs allow, but no more than the batch can feed
                dp = min(gpus // (tp * cp * pp), max(1, int(1.5 * target_sequences)))
                if dp < 1:
                    continue
                if moe.enabled:
                    eps = [
                        e for e in _powers_of_two(min(64, moe.experts))
                        if moe.experts % e == 0 and (dp * cp) % e == 0
                    ] or [1]
                else:
                    eps = [1]
                job = tp * cp * pp * dp
                view = fabrics.get(job)
                if view is None:
                    view = fabrics[job] = _job_fabric(fabric, job, None)
                for ep in eps:
                    for mbs in MICRO_BATCHES:
                        unit = dp * mbs
                        m = max(1, round(target_sequences / unit))
                        gbs = m * unit
                        if gbs > 1.5 * target_sequences and (dp > 1 or mbs > 1):
                            continue  # batch would grow well beyond the target
                        for v in VIRTUAL_STAGES if pp > 1 else (1,):
                            if v > 1 and (model.layers % (pp * v) or m % pp):
                                continue
                            par = None
                            memory = None
                            for recompute, zero in options:
                                if zero >= 2 and dp * cp == 1:
                                    continue
                                cand = Parallelism(
                                    tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, micro_batch=mbs,
                                    global_batch=gbs, virtual_stages=v, zero_stage=zero,
                                    recompute=recompute,
                                )
                                memory = memory_per_gpu(
                                    model, cand, hbm_gb,
                                    sequence_parallel=a.sequence_parallel,
                                    flash_attention=a.flash_attention,
                                    logits_bytes_per_element=a.logits_bytes_per_element,
                                    workspace_gb=a.workspace_gb,
                                    framework_gb=a.framework_overhead_gb,
                                )
                                par = cand
                                if memory.fits:
                                    break
                            core = _evaluate(view, model, par, precision, a, peak_tflops, job)
                            evaluated += 1
                            per_token = core.step_time_s / (gbs * model.seq_len)
                            if memory is not None and memory.fits:
                                results.append((per_token, core.step_time_s, par))
                            else:
                                overflow = (memory.total_gb - hbm_gb) if memory else math.inf
                                misfits.append((overflow, core.step_time_s, par))
    diags: list[Diagnostic] = []
    if results:
        results.sort(key=lambda r: r[0])
        ranked = [(p, t) for _, t, p in results]
    elif misfits:
        misfits.sort(key=lambda r: (r[0], r[1]))
        ranked = [(p, t) for _, t, p in misfits]
        diags.append(
            Diagnostic(
                "NO_CONFIGURATION_FITS",
                f"no parallel configuration of {model.layers}-layer model fits in "
                f"{hbm_gb:g} GB per GPU on {gpus} GPUs; showing the one that overflows least",
            )
        )
    else:
        par = Parallelism(tp=1, pp=1, dp=gpus, micro_batch=1, global_batch=gpus)
        return SearchResult(par, math.inf, (), 0, (
            Diagnostic("NO_CONFIGURATION_FITS", "no parallel configuration could be formed"),
        ))
    best, best_time = ranked[0]
    diags.append(
        Diagnostic(
            "AUTO_PARALLELISM",
            f"auto parallelism chose tp {best.tp}, pp {best.pp}, dp {best.dp}, cp {best.cp}, "
            f"ep {best.ep}, micro-batch {best.micro_batch}, virtual stages "
            f"{best.virtual_stages}, recompute {best.recompute}, ZeRO {best.zero_stage} "
            f"({evaluated} configurations evaluated)",
        )
    )
    return SearchResult(
        best=best,
        step_time_s=best_time,
        runners_up=tuple(ranked[1 : 1 + max_runners_up]),
        evaluated=evaluated,
        diagnostics=tuple(diags),
    )
