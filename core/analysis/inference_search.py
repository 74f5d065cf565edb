"""Deployment search (``"deployment": "auto"``): every valid way to serve an inference workload on
the GPUs it is given, each one evaluated by the serving roofline (serving.py, a black box here),
the best one under the SLOs chosen and the runners-up explained by inference_ranking.py (as the
training parallelism search, parallelism_search.py, is by layout_ranking.py). What it serves on
and the deployment variants it serves are serving_context.py's.

Candidates:

* **aggregated** (every replica prefills and decodes): tp a divisor of the attention heads (inside
  the scale-up domain or not: the roofline charges the all-reduces where they run), pp a power of
  two or a divisor of the layers, ep (MoE) a divisor of the experts. The replicas fill the GPUs:
  dp = GPUs // (tp x pp), lowered to the nearest multiple that lets ep divide tp x dp (the
  schema's rule), as the training preset fit fills a design. A deeper pipeline of the same
  (tp, ep) is tried only while the shallower one cannot run, misses the SLOs or has its batch
  held by the KV cache: the stages run one after another, so depth buys memory, not speed (the
  Hypothesis test against the unpruned enumeration keeps this honest). The batch ladder of each layout
  (powers of two up to what its KV cache holds) is ONE call: serve_deployment at the largest
  batch returns the layout's throughput-latency curve. Then, for the layouts that could still
  win, the largest batch meeting both SLOs is found by bisection between the last power of two
  that meets them and the next one (branch and bound: a layout is refined only while the next
  step of its ladder, which misses the SLOs but bounds its throughput, beats the best found).
* **disaggregated** (a prefill pool hands each request's KV cache to a decode pool): the best
  few prefill layouts (most prompts per second per GPU, a prompt alone, within the TTFT target;
  prefill batch 1) times the best few decode layouts (most decode tokens/s per GPU at the
  largest ladder batch whose decode step alone, a decode pool's TPOT, is within the target),
  both read off the aggregated sweep; the GPUs are split so that the pools' request rates
  balance, then the split is moved one replica at a time while serve_deployment says it helps.
  For the best few pairs the decode batch is then chosen within the SLOs at that split (TTFT
  waits for the prefill pool) and the split balanced again.

Objective (inference_ranking.py ranks): the most output tokens per second of the whole service
(per GPU with each request's prefill counted, times the deployment's GPUs: GPUs a layout leaves
idle count against it) among the deployments meeting both SLOs. When none meets them the search
returns the one that misses them least (the smallest max(TTFT / target, TPOT / target)) with a
NO_DEPLOYMENT_MEETS_SLO warning: it still runs, only slower than asked. When none runs, NO_DEPLOYMENT_FITS (error) and
the reasons of the largest replica tried.

Assumed of the black box (true of the roofline): latency does not fall and output tokens per GPU
do not fall as the batch grows, so the batches meeting the SLOs are a prefix of the ladder and
the largest of them is the fastest. Every figure reported, the winner's and the runners-up',
comes from a serve_deployment call at that very deployment: nothing is extrapolated.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from core.assumptions.inference import InferenceAssumptions
from core.analysis.inference_ranking import (BatchPoint, DeploymentCandidate, RankedDeployment,
                                             explain_ranking, slo_excess)
from core.analysis.serving import InferenceResult
from core.analysis.serving_context import ServingContext, replace_batch, with_deployment
from core.diagnostics import Diagnostic
from core.fabric import FabricView
from core.inference_workload import MAX_BATCH, Deployment, InferenceWorkload, PhaseLayout
from core.workload import ModelSpec

# Layouts of each phase the disaggregated pairs are drawn from (3 x 3 pairs, each split a
# handful of serve_deployment calls), and the pairs whose decode batch is then refined at their
# split (a dozen calls each): a few tens of calls at ~0.1-0.5 ms each.
DISAGGREGATED_SHORTLIST = 3
DISAGGREGATED_REFINED = 3
# Split moves tried around the balanced split of a disaggregated pair, each way.
MAX_SPLIT_MOVES = 64


@dataclass(frozen=True)
class DeploymentSearch:
    """What the search chose and why. ``result`` is serve_deployment's result for the chosen
    deployment (its ``workload`` carries that deployment; ``workload`` here is the one asked,
    "auto"); when nothing runs it is the largest replica's, with NO_DEPLOYMENT_FITS first among
    its ``cannot_run``."""

    workload: InferenceWorkload
    result: InferenceResult
    candidates: tuple[DeploymentCandidate, ...]  # the winner first, then the runners-up
    diagnostics: tuple[Diagnostic, ...]  # the search's own (also in result.diagnostics)
    available_gpus: int
    considered: int  # deployments enumerated (aggregated layouts, disaggregated pairs)
    evaluated: int  # serve_deployment calls
    rejected: int  # layouts that cannot run (weights or one request's KV cache do not fit...)
    elapsed_s: float = 0.0

    @property
    def deployment(self) -> Deployment | None:
        """The chosen deployment (None when nothing runs)."""
        return self.candidates[0].deployment if self.candidates else None

    @property
    def meets_slo(self) -> bool:
        return bool(self.result.meets_slo)

    def to_json(self) -> dict:
        """The search as JSON (``inference.search``)."""
        return {
            "available_gpus": self.available_gpus, "considered": self.considered,
            "evaluated": self.evaluated, "rejected": self.rejected,
            "meets_slo": self.result.meets_slo if self.result.runs else None,
            "elapsed_s": self.elapsed_s,
            "candidates": [c.to_json() for c in self.candidates],
        }


# ------------------------------------------------------------------------------------------
# enumeration


def fill_replicas(gpus: int, tp: int, pp: int, ep: int) -> int:
    """The most replicas of tp x pp GPUs ``gpus`` hold with ep dividing tp x dp (0: none)."""
    step = ep // math.gcd(ep, tp)
    return gpus // (tp * pp) // step * step


def phase_shapes(model: ModelSpec, gpus: int,
                 expert_slots: int | None = None) -> list[list[tuple[int, int, int, int]]]:
    """(tp, pp, ep, dp) of every replica shape that fits in ``gpus``, grouped by (tp, ep) with
    the pipeline depths ascending: tp divides the heads, pp is a power of two or a divisor of
    the layers, ep (MoE) divides the experts (``expert_slots`` with redundant copies) and
    tp x dp, dp the most replicas that allows."""
    tps = [t for t in range(1, min(model.heads, gpus) + 1) if model.heads % t == 0]
    pps = [p for p in range(1, min(model.layers, gpus) + 1) if model.layers % p == 0 or p & (p - 1) == 0]
    experts = (expert_slots or model.moe.experts) if model.moe.enabled else 1
    eps = [e for e in range(1, min(experts, gpus) + 1) if experts % e == 0]
    groups = []
    for tp in tps:
        for ep in eps:
            group = [(tp, pp, ep, fill_replicas(gpus, tp, pp, ep)) for pp in pps]
            group = [shape for shape in group if shape[3] >= 1]
            if group:
                groups.append(group)
    return groups


# ------------------------------------------------------------------------------------------
# evaluation


@dataclass(frozen=True)
class _Choice(RankedDeployment):
    """A deployment at the batch the search settled on, with what the search goes on from."""

    ladder: tuple[BatchPoint, ...] = ()  # the deployment's ladder (and refinements), by batch
    prefill_rate: float = 0.0  # requests/s one GPU of the layout prefills (a prompt alone)


class _Search:
    """The state of one search: what it serves on, the workload, the serve_deployment calls."""

    def __init__(self, context: ServingContext, workload: InferenceWorkload):
        self.context, self.workload = context, workload
        self.calls = 0

    def serve(self, deployment: Deployment) -> InferenceResult:
        self.calls += 1
        return self.context.serve(with_deployment(self.workload, deployment))

    def probe(self, deployment: Deployment) -> InferenceResult:
        """``serve`` without the curve: for a probe of one batch, read through ``point``."""
        self.calls += 1
        return self.context.serve(with_deployment(self.workload, deployment), curve=False)

    def point(self, result: InferenceResult) -> BatchPoint:
        return BatchPoint(result.batch, result.ttft_ms, result.tpot_ms, result.output_tokens_per_s_per_gpu,
                          result.decode_tokens_per_s_per_gpu, bool(result.meets_slo))

    def choice(self, deployment: Deployment, point: BatchPoint, ladder=(), prefill_rate: float = 0.0) -> _Choice:
        return _Choice(replace_batch(deployment, point.batch), point,
                       slo_excess(self.workload, point.ttft_ms, point.tpot_ms), tuple(ladder),
                       prefill_rate)

    def at_best_batch(self, deployment: Deployment) -> _Choice | InferenceResult:
        """``deployment`` at its best ladder batch (one call: the curve up to what the KV cache
        holds), or serve_deployment's result when it cannot run."""
        result = self.serve(replace_batch(deployment, MAX_BATCH))  # capped to the KV cache
        if not result.runs:
            return result
        ladder = _ladder(result) or [self.point(result)]
        prefill_rate = result.prefill_tokens_per_s_per_gpu / self.workload.requests.mean_input_tokens
        return self.choice(deployment, _best_on_ladder(self, ladder), ladder, prefill_rate)


def _ladder(result: InferenceResult) -> list[BatchPoint]:
    return [BatchPoint(p.batch, p.ttft_ms, p.tpot_ms, p.output_tokens_per_s_per_gpu,
                       p.decode_tokens_per_s_per_gpu, p.meets_slo) for p in result.curve]


def _best_on_ladder(search: _Search, ladder: list[BatchPoint]) -> BatchPoint:
    meeting = [p for p in ladder if p.meets]
    if meeting:
        return max(meeting, key=lambda p: (p.output_per_gpu, -p.batch))
    return min(ladder, key=lambda p: (slo_excess(search.workload, p.ttft_ms, p.tpot_ms), -p.output_per_gpu))


def _refine(search: _Search, choice: _Choice) -> _Choice:
    """The largest batch meeting both SLOs between the choice's ladder step and the next one
    (which misses them), by bisection with serve_deployment."""
    above = [p for p in choice.ladder if p.batch > choice.point.batch]
    if not choice.point.meets or not above:
        return choice
    low, high = choice.point, min(above, key=lambda p: p.batch)
    ladder = list(choice.ladder)
    while high.batch - low.batch > 1:
        mid = search.point(search.probe(replace_batch(choice.deployment, (low.batch + high.batch) // 2)))
        ladder.append(mid)
        if mid.meets:
            low = mid
        else:
            high = mid
    ladder.sort(key=lambda p: p.batch)
    return search.choice(choice.deployment, low, ladder, choice.prefill_rate)


def _upper_bound(choice: _Choice) -> float:
    """The most service throughput refining the choice's batch could reach: its next ladder
    step's (which misses the SLOs), as throughput does not fall with the batch."""
    above = [p for p in choice.ladder if p.batch > choice.point.batch]
    if not choice.point.meets or not above:
        return choice.service
    return min(above, key=lambda p: p.batch).output_per_gpu * choice.gpus


def _aggregated(search: _Search, gpus: int) -> tuple[list[_Choice], list[tuple[Deployment, InferenceResult]], int]:
    """Each aggregated layout at its best batch: (running choices, the layouts that cannot run
    with their results, layouts enumerated). A deeper pipeline of the same (tp, ep) is tried
    only while the shallower one cannot run, misses the SLOs or has its batch held by the KV
    cache: stages run one after another (serving.py), so depth buys memory, not speed."""
    running: list[_Choice] = []
    blocked: list[tuple[Deployment, InferenceResult]] = []
    groups = phase_shapes(search.workload.model, gpus, search.workload.expert_slots)
    considered = sum(len(group) for group in groups)
    for group in groups:
        for tp, pp, ep, dp in group:
            deployment = Deployment.aggregated(tp, pp, ep, dp)
            found = search.at_best_batch(deployment)
            if isinstance(found, InferenceResult):
                blocked.append((deployment, found))
                continue
            running.append(found)
            if found.point.meets and found.point.batch < max(p.batch for p in found.ladder):
                break
    # branch and bound over the batch refinement
    best = max((c.service for c in running if c.point.meets), default=0.0)
    order = sorted(range(len(running)), key=lambda i: -_upper_bound(running[i]))
    for i in order:
        if _upper_bound(running[i]) <= best:
            break
        running[i] = _refine(search, running[i])
        if running[i].point.meets:
            best = max(best, running[i].service)
    return running, blocked, considered


def _disaggregated(search: _Search, gpus: int, aggregated: list[_Choice]) -> tuple[list[_Choice], int]:
    """The best of each shortlisted (prefill layout, decode layout) pair: (choices, pairs
    considered)."""
    w = search.workload
    decodes = sorted(((c, p) for c in aggregated if (p := _decode_alone(w, c)) is not None),
                     key=lambda cp: (-cp[1].decode_per_gpu, cp[0].deployment.decode.replica_gpus))
    if not decodes or gpus < 2:
        return [], 0
    prefills = sorted(aggregated, key=lambda c: (1e3 / c.prefill_rate / c.deployment.decode.replica_gpus
                                                 > w.slo.ttft_ms, -c.prefill_rate))
    pairs = [(p, d) for p in prefills[:DISAGGREGATED_SHORTLIST] for d in decodes[:DISAGGREGATED_SHORTLIST]]
    out_tokens = w.requests.mean_output_tokens
    split: list[tuple[_Choice, _Choice, _Choice]] = []  # (the pair split, its prefill layout, its decode)
    for prefill, (decode, point) in pairs:
        found = _split(search, gpus, prefill.deployment.decode,
                       replace(decode.deployment.decode, batch=point.batch), prefill.prefill_rate,
                       point.decode_per_gpu / out_tokens)
        if found is not None:
            split.append((found, prefill, decode))
    split.sort(key=lambda f: f[0].key())
    choices = [_rebatch(search, gpus, *f) for f in split[:DISAGGREGATED_REFINED]]
    return choices + [f[0] for f in split[DISAGGREGATED_REFINED:]], len(pairs)


def _decode_alone(workload: InferenceWorkload, c: _Choice) -> BatchPoint | None:
    """The point of an aggregated layout's ladder with the most decode tokens/s per GPU whose
    decode step alone (the TPOT of a decode pool: no prefill interleaved) meets the TPOT
    target, or None; the step is batch / (decode tokens/s per GPU x the replica's GPUs)."""
    gpus = c.deployment.decode.replica_gpus
    fits = [p for p in c.ladder if p.batch / (p.decode_per_gpu * gpus) * 1e3 <= workload.slo.tpot_ms]
    return max(fits, key=lambda p: p.decode_per_gpu) if fits else None


def _rebatch(search: _Search, gpus: int, found: _Choice, prefill: _Choice, decode: _Choice) -> _Choice:
    """A split pair with its decode batch the largest within the SLOs at that split (TTFT
    waits for the prefill pool), then split again for that batch; the best of the three."""
    at_best = search.at_best_batch(found.deployment)
    if isinstance(at_best, InferenceResult):
        return found
    refined = _refine(search, at_best)
    again = None
    if refined.point.batch != found.point.batch:
        again = _split(search, gpus, prefill.deployment.decode,
                       replace(decode.deployment.decode, batch=refined.point.batch), prefill.prefill_rate,
                       refined.point.decode_per_gpu / search.workload.requests.mean_output_tokens)
    return min((c for c in (found, refined, again) if c is not None), key=_Choice.key)


def _split(search: _Search, gpus: int, prefill: PhaseLayout, decode: PhaseLayout,
           prefill_rate: float, decode_rate: float) -> _Choice | None:
    """``prefill`` and ``decode`` (its batch kept) as two pools with the GPUs split so that
    their request rates (per GPU) balance, then moved a replica at a time while it helps; None
    when no split runs."""
    p_step = prefill.ep // math.gcd(prefill.ep, prefill.tp)  # replicas letting ep divide tp x dp
    seen: dict[int, _Choice | None] = {}

    def at(p_dp: int) -> _Choice | None:
        if p_dp not in seen:
            d_dp = fill_replicas(gpus - p_dp * prefill.replica_gpus, decode.tp, decode.pp, decode.ep)
            seen[p_dp] = None
            if p_dp >= 1 and d_dp >= 1:
                deployment = Deployment("disaggregated", replace(prefill, dp=p_dp, batch=1),
                                        replace(decode, dp=d_dp))
                result = search.probe(deployment)
                if result.runs:
                    seen[p_dp] = search.choice(deployment, search.point(result))
        return seen[p_dp]

    # the prefill replicas that leave the decode pool at least its smallest step of replicas
    most = (gpus - decode.replica_gpus * (decode.ep // math.gcd(decode.ep, decode.tp))) // prefill.replica_gpus
    if most < p_step:
        return None
    balanced = gpus * decode_rate / (prefill_rate + decode_rate) / prefill.replica_gpus
    start = min(max(p_step, round(balanced)), most) // p_step * p_step
    best = at(start)
    for direction in (p_step, -p_step):
        p_dp = start
        for _ in range(MAX_SPLIT_MOVES):
            p_dp += direction
            found = at(p_dp)
            if found is None or (best is not None and found.key() >= best.key()):
                break
            best = found
    return best


def split_into_pools(context: ServingContext, workload: InferenceWorkload,
                     gpus: int | None = None) -> InferenceResult | None:
    """``workload``'s aggregated deployment made disaggregated: its layout for both pools,
    ``gpus`` (None: the deployment's) split where the pools' request rates balance, the decode
    batch the largest within the SLOs. None when no split runs."""
    search = _Search(context, workload)
    layout = search.at_best_batch(workload.deployment)
    if isinstance(layout, InferenceResult):
        return None
    point = _decode_alone(workload, layout) or layout.point
    gpus = gpus or workload.deployment.gpus
    found = _split(search, gpus, layout.deployment.decode, replace(layout.deployment.decode, batch=point.batch),
                   layout.prefill_rate, point.decode_per_gpu / workload.requests.mean_output_tokens)
    if found is None:
        return None
    return search.serve(_rebatch(search, gpus, found, layout, layout).deployment)


# ------------------------------------------------------------------------------------------


def search_deployment(fabric: FabricView, workload: InferenceWorkload, facility_kw: float,
                      assumptions: InferenceAssumptions | None = None,
                      usd_per_gpu_hour: float | None = None, *,
                      storage_read_gbyte_s_per_gpu: float | None = None, gpus: int | None = None,
                      max_runners_up: int = 4) -> DeploymentSearch:
    """The best deployment of ``workload`` (its own deployment is ignored: "auto") on ``gpus``
    GPUs of ``fabric`` (None: all of the design's), by output tokens per second of the service
    under both SLOs, with the runners-up (the best of each other shape) and why each loses.
    ``facility_kw``, ``usd_per_gpu_hour`` and ``storage_read_gbyte_s_per_gpu`` are
    serve_deployment's (ServingContext). Pure; no state is kept between calls (a GUI may run it
    in a worker thread)."""
    start = time.perf_counter()
    available = fabric.gpus if gpus is None else gpus
    if available < 1:
        raise ValueError(f"search_deployment: gpus must be at least 1, got {available}")
    search = _Search(ServingContext(fabric, facility_kw, assumptions or InferenceAssumptions(),
                                    usd_per_gpu_hour, storage_read_gbyte_s_per_gpu), workload)
    aggregated, blocked, considered = _aggregated(search, available)
    disaggregated, pairs = _disaggregated(search, available, aggregated)
    considered += pairs

    if not aggregated and not disaggregated:
        return _nothing_runs(search, blocked, available, considered, start)
    ranked = sorted([*aggregated, *disaggregated], key=_Choice.key)
    # the runners-up at their largest batch within the SLOs too (none can overtake the winner:
    # the refinement's bound said so)
    runners = sorted((_refine(search, r) for r in _runners_up(ranked, max_runners_up)), key=_Choice.key)
    winner = ranked[0]
    result = search.serve(winner.deployment)
    runner_results = [search.serve(other.deployment) for other in runners]
    diagnostics = [_chosen(winner, search.calls, considered, len(blocked))]
    if not winner.point.meets:
        diagnostics.insert(0, Diagnostic("NO_DEPLOYMENT_MEETS_SLO", (
            f"inference.slo: no deployment of the {available:,} GPUs meets TTFT "
            f"{workload.slo.ttft_ms:,.0f} ms and TPOT {workload.slo.tpot_ms:,.1f} ms; the search "
            f"chose the one that misses them least ({winner.excess:.2f}x the tighter target): "
            f"{winner.deployment.describe()}")))
    result = replace(result, diagnostics=(*result.diagnostics, *diagnostics))
    candidates = explain_ranking(winner, result, runners, runner_results, available)
    return DeploymentSearch(workload, result, tuple(candidates), tuple(diagnostics), available,
                            considered, search.calls, len(blocked), time.perf_counter() - start)


def serve_at_best_batch(context: ServingContext, workload: InferenceWorkload) -> InferenceResult:
    """``workload``'s own deployment (not "auto") served at the batch the search would give
    it: the largest meeting both SLOs (its ladder, then bisection), or, when none does, the
    one that misses them least."""
    search = _Search(context, workload)
    found = search.at_best_batch(workload.deployment)
    if isinstance(found, InferenceResult):
        return found
    return search.serve(_refine(search, found).deployment)


def _shape(deployment: Deployment) -> tuple:
    def one(p: PhaseLayout) -> tuple:
        return (p.tp, p.pp, p.ep)
    if deployment.disaggregated:
        return ("disaggregated", one(deployment.prefill), one(deployment.decode))
    return ("aggregated", one(deployment.decode))


def _runners_up(ranked: list[_Choice], limit: int) -> list[_Choice]:
    """The best deployment of each shape other than the winner's, best first."""
    seen = {_shape(ranked[0].deployment)}
    runners = []
    for choice in ranked[1:]:
        shape = _shape(choice.deployment)
        if shape not in seen:
            seen.add(shape)
            runners.append(choice)
            if len(runners) >= limit:
                break
    return runners


def _nothing_runs(search: _Search, blocked: list, available: int, considered: int,
                  start: float) -> DeploymentSearch:
    """No deployment runs: the largest replica's result (the one closest to fitting), with why."""
    deployment, result = max(blocked, key=lambda b: (b[0].decode.replica_gpus, b[0].decode.ep))
    reasons = "; ".join(d.message for d in result.cannot_run)
    failure = Diagnostic("NO_DEPLOYMENT_FITS", (
        f"inference.deployment: no deployment of {search.workload.name} runs on "
        f"{available:,} GPUs of {search.context.fabric.accelerator.id} ({considered:,} layouts tried; "
        f"the largest replica, {deployment.decode.replica_gpus:,} GPUs: {reasons})"))
    result = replace(result, cannot_run=(failure, *result.cannot_run))
    return DeploymentSearch(search.workload, result, (), tuple(result.cannot_run[:1]), available,
                            considered, search.calls, len(blocked), time.perf_counter() - start)


def _chosen(winner: _Choice, calls: int, considered: int, rejected: int) -> Diagnostic:
    return Diagnostic("AUTO_DEPLOYMENT", (
        f"auto deployment chose {winner.deployment.describe()} ({considered:,} deployments "
        f"considered, {rejected:,} of them cannot run; {calls:,} serving evaluations)"))

