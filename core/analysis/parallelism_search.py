"""Parallelism search ("parallelism": "auto"): every valid layout that fits, ranked, explained.

Candidates (Megatron semantics, performance.md §8 "exhaustive parallelism search"):

* tp: powers of two up to the scale-up domain (at most 64) that divide the attention heads and
  the KV heads (Megatron needs query groups divisible by tp);
* cp: 1, and 2/4/8/16 for sequences of 16k tokens or more (cp x tp within the job);
* pp: divisors of the layer count, plus powers of two (uneven splits are allowed: the fullest
  stage sets the pace, as in Meta's Llama 3 layout);
* ep (MoE): every common divisor of the experts and dp x cp, powers of two or not, however
  wide (DeepSeek-V3 trained with EP 64 over 8 nodes; the model, not a cap, decides);
* expert TP (MoE): as tp (Megatron's default), or 1 with MoE parallel folding, where the
  ep x 1 expert grid refolds the stage's tp x cp x dp GPUs and ep runs over every common
  divisor of the experts and tp x cp x dp (Qwen3-235B on H100 ran TP 2 with ETP 1 and EP 32
  over DP 16);
* dp: as many replicas as the design's GPUs allow (those one part of it connects, if its
  fabric falls into parts), no more than the batch can feed;
* micro-batch 1, 2, 4, 8; virtual stages 1, 2, 3, 4, 6, 8 where pp x v divides the layers and
  the micro-batches are a multiple of pp (Megatron's interleaving rule);
* memory: for ZeRO-1 (distributed optimizer) and ZeRO-3 (FSDP, when dp x cp > 1) the cheapest
  recompute that fits (none, selective (only without FlashAttention, where it saves the s^2
  scores), full). Layouts that fit nowhere are rejected for memory (the ones that overflow
  least are kept for the report). When nothing fits, the search says so
  (``SearchResult.failure``) and the job cannot run: no step time is given for a layout that
  does not fit.

The global batch is the workload's (explicit parallelism) or ``auto_global_batch_tokens`` /
seq_len, rounded to a multiple of dp x micro-batch (at most 1.5x the target), so candidates
differ slightly in batch: they are ranked by time per token.

**Why each loses** (layout_ranking.py). Runners-up are the best layout of each other
(tp, cp, pp, ep, expert tp) shape. Their time per token is compared with the winner's by category
(compute, recompute forced by memory, pipeline bubble, communication); the category that grows
most is named with its numbers.

**All cores.** Candidate evaluation is pure and cheap (~0.1 ms); above
``PARALLEL_THRESHOLD`` candidates the search splits them into chunks for the worker processes
of ``core/process_pool.py`` (spawned once, reused across searches), each chunk returning its
best few layouts. Small searches (and tests) run serially.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from core.analysis.compute import dense_peak
from core.analysis.layout_ranking import Candidate, Ranked, explain_ranking
from core.analysis.memory import memory_for
from core.assumptions.performance import PerformanceAssumptions
from core.analysis.pipeline import ends_balanced
from core.analysis.step_time import job_fabric, layout_step_time
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.process_pool import default_workers, map_in_processes
from core.workload import ModelSpec, Parallelism, Workload

MICRO_BATCHES = (1, 2, 4, 8)
VIRTUAL_STAGES = (1, 2, 3, 4, 6, 8)
CP_DEGREES = (2, 4, 8, 16)
# Above this many candidate layouts the search fans out to worker processes (measured on 2
# cores: 2,325 MoE long-context layouts take 0.86 s serial, 0.52 s on 2 warm workers; a few
# hundred dense layouts take ~60 ms, less than the pool's own overhead).
PARALLEL_THRESHOLD = 2000
# Layouts each chunk reports back (the global top and every shape's best must survive).
_KEEP_PER_CHUNK = 48
# The diagnostic of a search that found no layout fitting in memory.
NO_FIT = "NO_CONFIGURATION_FITS"

@dataclass(frozen=True)
class SearchResult:
    best: Parallelism                 # when nothing fits: the layout that overflows least
    step_time_s: float | None         # None when nothing fits
    runners_up: tuple[tuple[Parallelism, float], ...]  # next best shapes, with their step times
    evaluated: int
    diagnostics: tuple[Diagnostic, ...] = ()
    candidates: tuple[Candidate, ...] = ()  # winner first, runners-up, then the best misfit
    considered: int = 0                      # layouts enumerated (before memory checks)
    rejected_for_memory: int = 0
    workers: int = 1
    elapsed_s: float = 0.0

    @property
    def failure(self) -> Diagnostic | None:
        """Why no layout can run (NO_CONFIGURATION_FITS), or None when the best one fits."""
        return next((d for d in self.diagnostics if d.code == NO_FIT), None)

    def to_json(self) -> dict:
        """The search as JSON (``performance.search``): candidates with why each loses."""
        return {
            "considered": self.considered,
            "evaluated": self.evaluated,
            "rejected_for_memory": self.rejected_for_memory,
            "workers": self.workers,
            "elapsed_s": self.elapsed_s,
            "candidates": [c.to_json() for c in self.candidates],
        }


def _powers_of_two(limit: int) -> list[int]:
    out, p = [], 1
    while p <= limit:
        out.append(p)
        p *= 2
    return out


def _divisors(n: int, limit: int) -> list[int]:
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def _expert_parallel_options(experts: int, replicas: int) -> list[int]:
    """EP degrees of a training layout: every common divisor of the experts (each rank holds
    whole experts: Megatron-Core needs num_moe_experts % ep == 0) and of the ``replicas`` of
    the experts' grid EP is carved from, powers of two or not (160 experts on 40: EP 5, 10,
    20, 40)."""
    g = math.gcd(experts, replicas)
    return [d for d in range(1, g + 1) if g % d == 0]


def _expert_layouts(experts: int, tp: int, cp: int, dp: int) -> list[tuple[int, int]]:
    """(ep, expert_tp) pairs of a stage of tp x cp x dp GPUs: expert TP as the attention's
    (expert_tp 0, Megatron's default: EP from the dp x cp replicas) or, when tp > 1, expert TP 1
    with MoE parallel folding (the experts' ep x 1 grid refolds the stage's GPUs, so EP may also
    take TP's: NVIDIA's Qwen3-235B H100 recipe, TP 2, ETP 1, EP 32 over DP 16). Expert TP
    between 1 and tp is left out: no published recipe uses it, and each would add a full set
    of layouts."""
    out = [(ep, 0) for ep in _expert_parallel_options(experts, dp * cp)]
    if tp > 1:
        out += [(ep, 1) for ep in _expert_parallel_options(experts, tp * cp * dp)]
    return out


# ------------------------------------------------------------------------------------------
# enumeration


@dataclass(frozen=True)
class _Context:
    """Everything a worker needs (picklable)."""

    fabric: FabricView
    model: ModelSpec
    precision: str
    assumptions: PerformanceAssumptions
    peak_tflops: float
    hbm_gb: float
    optimizer: str = "adamw"


def _enumerate(fabric: FabricView, model: ModelSpec, a: PerformanceAssumptions,
               target_sequences: int) -> list[tuple]:
    """(tp, cp, pp, dp, ep, etp, mbs, v, gbs) for every valid layout on ``fabric`` (within the GPUs
    one job can span: a fabric in parts holds a job in one part)."""
    gpus = max(1, fabric.connected_gpus)
    kv = model.kv_heads_effective
    tp_limit = min(max(1, fabric.scale_up_domain_gpus), 64, gpus)
    tps = [t for t in _powers_of_two(tp_limit) if model.heads % t == 0 and kv % t == 0] or [1]
    cps = [1] + ([c for c in CP_DEGREES if c <= gpus] if model.seq_len >= 16384 else [])
    pp_options = sorted(set(_divisors(model.layers, model.layers))
                        | {p for p in _powers_of_two(model.layers) if p <= model.layers})
    moe = model.moe
    specs: list[tuple] = []
    for tp in tps:
        for cp in cps:
            if tp * cp > gpus:
                continue
            for pp in pp_options:
                if tp * cp * pp > gpus:
                    break
                dp = min(gpus // (tp * cp * pp), max(1, int(1.5 * target_sequences)))
                if dp < 1:
                    continue
                experts = _expert_layouts(moe.experts, tp, cp, dp) if moe.enabled else [(1, 0)]
                for ep, etp in experts:
                    for mbs in MICRO_BATCHES:
                        unit = dp * mbs
                        m = max(1, round(target_sequences / unit))
                        gbs = m * unit
                        if gbs > 1.5 * target_sequences and (dp > 1 or mbs > 1):
                            continue  # batch would grow well beyond the target
                        for v in VIRTUAL_STAGES if pp > 1 else (1,):
                            uneven = model.layers % (pp * v) and not (
                                a.balance_pipeline_ends and ends_balanced(model.layers, pp, v))
                            if v > 1 and (uneven or m % pp):
                                continue
                            specs.append((tp, cp, pp, dp, ep, etp, mbs, v, gbs))
    return specs


def _memory_options(a: PerformanceAssumptions, dp_cp: int) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per ZeRO family, recompute choices from cheapest to most memory-saving."""
    recomputes = ["none"] + (["selective"] if not a.flash_attention else []) + ["full"]
    families = [tuple((r, 1) for r in recomputes)]
    if dp_cp > 1:
        # ZeRO-2 trades a reduce-scatter per micro-batch for the gradient memory, which can
        # beat recomputing (Llama 3 405B ran without recompute, gradients sharded, §3.3.2)
        families.append(tuple((r, 2) for r in recomputes))
        families.append(tuple((r, 3) for r in ("none", "full")))
    return tuple(families)


def _evaluate_specs(ctx: _Context, specs: list[tuple], keep: int | None) -> tuple[list, list, int, int]:
    """Evaluate layouts: (fitting results, best misfits, evaluated, rejected for memory).

    A result is (time per token, step, Parallelism, memory GB, breakdown, bubble fraction).
    With ``keep`` only the ``keep`` fastest results overall plus each shape's fastest are
    returned (chunks running in worker processes).
    """
    a, model = ctx.assumptions, ctx.model
    fits: list[tuple] = []
    misfits: list[tuple] = []
    evaluated = rejected = 0
    views: dict[int, FabricView] = {}
    for tp, cp, pp, dp, ep, etp, mbs, v, gbs in specs:
        job = tp * cp * pp * dp
        view = views.get(job)
        if view is None:
            view = views[job] = job_fabric(ctx.fabric, job, None)
        any_fit = False
        least: tuple | None = None
        for family in _memory_options(a, dp * cp):
            for recompute, zero in family:
                par = Parallelism(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, expert_tp=etp, micro_batch=mbs,
                                  global_batch=gbs, virtual_stages=v, zero_stage=zero,
                                  recompute=recompute)
                mem = memory_for(model, par, ctx.hbm_gb, a, precision=ctx.precision,
                                 accelerator=ctx.fabric.accelerator, optimizer=ctx.optimizer)
                if mem.fits:
                    core = layout_step_time(view, model, par, ctx.precision, a, ctx.peak_tflops,
                                            job, ctx.optimizer)
                    evaluated += 1
                    per_token = core.step_time_s / (core.global_batch * model.seq_len)
                    fits.append(Ranked(per_token, core.step_time_s, par, mem.total_gb,
                                       core.breakdown_s, core.bubble_fraction))
                    any_fit = True
                    break
                overflow = mem.total_gb - ctx.hbm_gb
                if least is None or overflow < least[0]:
                    least = (overflow, par, mem.total_gb)
        if not any_fit:
            rejected += 1
            if least is not None:
                misfits.append(least)
    misfits.sort(key=lambda r: r[0])
    misfits = misfits[:4]
    if keep is not None and len(fits) > keep:
        fits.sort(key=lambda r: r[0])
        shapes: dict[tuple, tuple] = {}
        for r in fits:
            shapes.setdefault(_shape(r[2]), r)
        kept = {id(r): r for r in fits[:keep]}
        kept.update({id(r): r for r in shapes.values()})
        fits = list(kept.values())
    return fits, misfits, evaluated, rejected


def _chunk_worker(args):
    ctx, specs = args
    return _evaluate_specs(ctx, specs, _KEEP_PER_CHUNK)


def _shape(par: Parallelism) -> tuple:
    return (par.tp, par.cp, par.pp, par.ep, par.expert_tp_effective)


def _fan_out(ctx: _Context, specs: list[tuple], workers: int):
    """Evaluate ``specs`` in chunks on ``workers`` processes; None if processes cannot run here."""
    chunk = max(64, math.ceil(len(specs) / (4 * workers)))
    jobs = [(ctx, specs[i:i + chunk]) for i in range(0, len(specs), chunk)]
    results = map_in_processes(_chunk_worker, jobs, workers)
    if results is None:
        return None
    fits: list = []
    misfits: list = []
    evaluated = rejected = 0
    for f, mf, ev, rj in results:
        fits.extend(f)
        misfits.extend(mf)
        evaluated += ev
        rejected += rj
    misfits.sort(key=lambda r: r[0])
    return fits, misfits[:4], evaluated, rejected


# ------------------------------------------------------------------------------------------


def auto_target_sequences(workload: Workload, gpus: int, a: PerformanceAssumptions) -> int:
    """Global batch (sequences) the search aims at: the workload's own, or for "auto"
    max(auto_global_batch_tokens, auto_tokens_per_gpu x GPUs) / seq_len."""
    if isinstance(workload.parallelism, Parallelism):
        return workload.parallelism.global_batch
    tokens = max(a.auto_global_batch_tokens, a.auto_tokens_per_gpu * gpus)
    return max(1, round(tokens / workload.model.seq_len))


def search_parallelism(
    fabric: FabricView,
    workload: Workload,
    assumptions: PerformanceAssumptions = PerformanceAssumptions(),
    max_runners_up: int = 4,
    workers: int | None = None,
) -> SearchResult:
    """Best layout for ``workload`` on ``fabric`` by time per token, with runners-up explained.

    ``workers``: None chooses (serial below ``PARALLEL_THRESHOLD`` candidates, else every
    available core); 1 forces the serial path.
    """
    start = time.perf_counter()
    a = assumptions
    model = workload.model
    gpus = max(1, fabric.connected_gpus)
    peak_tflops, precision = dense_peak(fabric.accelerator, workload.precision, None)
    hbm_gb = fabric.accelerator.hbm_capacity_gb
    target_sequences = auto_target_sequences(workload, gpus, a)

    specs = _enumerate(fabric, model, a, target_sequences)
    ctx = _Context(fabric, model, precision, a, peak_tflops, hbm_gb, workload.optimizer)
    n_workers = 1
    if workers is None:
        n_workers = default_workers() if len(specs) >= PARALLEL_THRESHOLD else 1
    else:
        n_workers = max(1, workers)
    fanned_out = None
    if n_workers > 1 and len(specs) > 1:
        fanned_out = _fan_out(ctx, specs, n_workers)
        if fanned_out is None:  # no worker processes here: the serial path gives the same answer
            n_workers = 1
    if fanned_out is not None:
        fits, misfits, evaluated, rejected = fanned_out
    else:
        fits, misfits, evaluated, rejected = _evaluate_specs(ctx, specs, None)

    diags: list[Diagnostic] = []
    if not fits and not misfits:
        par = Parallelism(tp=1, pp=1, dp=gpus, micro_batch=1, global_batch=gpus)
        return SearchResult(par, None, (), 0, (
            Diagnostic(NO_FIT, "no parallel configuration could be formed"),
        ), (), len(specs), rejected, n_workers, time.perf_counter() - start)

    if not fits:
        # nothing runs: the layouts that overflow least, in that order, without step times
        ranked = [Ranked(math.nan, math.nan, par, mem_gb, {}, math.nan)
                  for _, par, mem_gb in misfits[: 1 + max_runners_up]]
        diags.append(Diagnostic(
            NO_FIT,
            f"no parallel configuration of the {model.layers}-layer model fits in {hbm_gb:.1f} GB "
            f"per GPU on {gpus:,} GPUs: the job cannot run (the layout that overflows least "
            f"needs {misfits[0][2]:.0f} GB)"))
    else:
        ranked = sorted(fits, key=lambda r: (r[0], r[2].gpus))
    best = ranked[0]
    runners = _runners_up(ranked, max_runners_up)
    candidates = explain_ranking(best, runners, bool(fits), model.seq_len, hbm_gb)
    if fits and misfits:
        # the fastest layouts are often the ones memory forbids: say so once
        overflow, par, mem_gb = misfits[0]
        candidates.append(Candidate(
            par, None, None, mem_gb, False, None, {}, "memory", None,
            f"does not fit: needs {mem_gb:.0f} GB per GPU of {hbm_gb:.1f} GB even with "
            f"{par.recompute} recompute and ZeRO-{par.zero_stage} "
            f"({rejected} of {len(specs)} layouts were rejected for memory)"))

    b = best[2]
    if not fits:
        return SearchResult(b, None, (), evaluated, tuple(diags), tuple(candidates), len(specs),
                            rejected, n_workers, time.perf_counter() - start)
    diags.append(Diagnostic(
        "AUTO_PARALLELISM",
        f"auto parallelism chose tp {b.tp}, pp {b.pp}, dp {b.dp}, cp {b.cp}, ep {b.ep}, "
        + (f"expert tp {b.expert_tp}, " if b.expert_tp else "")
        + f"micro-batch {b.micro_batch}, virtual stages {b.virtual_stages}, recompute "
        f"{b.recompute}, ZeRO {b.zero_stage} ({evaluated} configurations evaluated of "
        f"{len(specs)} layouts, {rejected} rejected for memory)"))
    return SearchResult(
        best=b,
        step_time_s=best[1],
        runners_up=tuple((r[2], r[1]) for r in runners),
        evaluated=evaluated,
        diagnostics=tuple(diags),
        candidates=tuple(candidates),
        considered=len(specs),
        rejected_for_memory=rejected,
        workers=n_workers,
        elapsed_s=time.perf_counter() - start,
    )


def _runners_up(ranked: list[tuple], limit: int) -> list[tuple]:
    """The best layout of each (tp, cp, pp, ep, expert tp) shape other than the winner's, best
    first. A layout whose step and breakdown equal one already listed is one the model cannot
    tell apart from it (its difference changes no part of the step): it would say nothing
    about why it loses, so it is left out."""
    seen = {_shape(ranked[0][2])}
    outcomes = {_outcome(ranked[0])}
    runners: list[tuple] = []
    for r in ranked[1:]:
        key = _shape(r[2])
        if key in seen or _outcome(r) in outcomes:
            continue
        seen.add(key)
        outcomes.add(_outcome(r))
        runners.append(r)
        if len(runners) >= limit:
            break
    return runners


def _outcome(r: tuple) -> tuple:
    """The step a layout is predicted to take, part by part (its memory aside: a runner-up
    that only needs less memory does not lose on time)."""
    return (r[1], r[2].global_batch, tuple(sorted(r[4].items())))
