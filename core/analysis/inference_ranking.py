"""How the deployment search (inference_search.py) ranks what it serves, and why each runner-up
loses to the winner (as layout_ranking.py does for the training search).

**Ranking.** Among the deployments meeting both SLOs, the most output tokens per second of the
whole service (per GPU with each request's prefill counted, times the deployment's GPUs: GPUs a
layout leaves idle count against it); among those that miss them, the one that misses them
least (the smallest max(TTFT / target, TPOT / target), ``slo_excess``).

**Why a runner-up loses**, the first that holds: the SLO it misses where the winner meets them,
the GPUs it leaves idle, the pool a disaggregated runner-up idles, the prefills an aggregated one
interleaves against disaggregated pools, or else the part of the GPU time per output token that
grows most (a prompt's prefill, the decode batch, or a part of the decode step: compute, HBM
reads, a KV-cache fetch, TP/EP communication, the fixed per-layer costs), with its numbers.
Every figure is a serve_deployment answer at that very deployment: nothing is extrapolated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from core.analysis.serving import InferenceResult, PhaseTime
from core.analysis.serving_context import ServedFigures, served_figures
from core.inference_workload import Deployment, InferenceWorkload, PhaseLayout, deployment_to_dict

# A disaggregated runner-up whose idle pool is busier than this is explained by its GPU time per
# request, not by the imbalance of its pools.
BALANCED_POOL = 0.95


class BatchPoint(NamedTuple):
    """One deployment at one batch, as the ranking sees it."""

    batch: int
    ttft_ms: float
    tpot_ms: float
    output_per_gpu: float  # output tokens/s per GPU of the deployment, prefill counted
    decode_per_gpu: float
    meets: bool


@dataclass(frozen=True)
class RankedDeployment:
    """A deployment at the batch the search settled on, with its ranking figures."""

    deployment: Deployment
    point: BatchPoint
    excess: float  # slo_excess at that batch

    @property
    def gpus(self) -> int:
        return self.deployment.gpus

    @property
    def service(self) -> float:
        return self.point.output_per_gpu * self.gpus

    def key(self) -> tuple:
        d = self.deployment.decode
        if self.point.meets:
            # equal service (a pool that limits it whatever the decode batch): the faster tokens
            return (0, -self.service, self.point.tpot_ms, self.gpus, d.tp * d.pp, d.ep)
        return (1, self.excess, -self.service, self.gpus, d.tp * d.pp, d.ep)


@dataclass(frozen=True)
class DeploymentCandidate(ServedFigures):
    """One deployment the search evaluated, with why it loses to the winner (empty for the
    winner); ``output_tokens_per_s`` is the ranking figure, ``relative_tokens_per_s`` it against
    the winner's, minus 1."""

    deployment: Deployment = Deployment()
    decode_tokens_per_s_per_gpu: float | None = None
    slo_excess: float | None = None  # max(TTFT / target, TPOT / target): at most 1 meets both
    # "", "slo", "scale", "prefill", "batch", "compute", "memory", "kv_fetch", "communication",
    # "pools" (a disaggregated runner-up), "interleaving" (an aggregated one against disaggregated)
    loses_by: str = ""
    relative_tokens_per_s: float | None = 0.0
    reason: str = ""

    def to_json(self) -> dict:
        return {"deployment": deployment_to_dict(self.deployment), "gpus": self.deployment.gpus,
                **super().to_json(), "decode_tokens_per_s_per_gpu": self.decode_tokens_per_s_per_gpu,
                "slo_excess": self.slo_excess, "loses_by": self.loses_by,
                "relative_tokens_per_s": self.relative_tokens_per_s, "reason": self.reason}


def slo_excess(workload: InferenceWorkload, ttft_ms: float, tpot_ms: float) -> float:
    """How far a deployment is from its SLOs: max(TTFT / target, TPOT / target), at most 1 when
    it meets both (the rule that ranks deployments when none meets them)."""
    return max(ttft_ms / workload.slo.ttft_ms, tpot_ms / workload.slo.tpot_ms)


def slo_misses(result: InferenceResult) -> str:
    """"TTFT 2,400 ms > 2,000 ms, TPOT 61.0 ms > 50.0 ms": the targets a running result misses."""
    slo = result.workload.slo
    misses = []
    if result.ttft_ms > slo.ttft_ms:
        misses.append(f"TTFT {result.ttft_ms:,.0f} ms > {slo.ttft_ms:,.0f} ms")
    if result.tpot_ms > slo.tpot_ms:
        misses.append(f"TPOT {result.tpot_ms:,.1f} ms > {slo.tpot_ms:,.1f} ms")
    return ", ".join(misses)


def phase_parts(step: PhaseTime) -> dict[str, float]:
    """A phase's stage step by part as the roofline binds it: the largest of compute, HBM reads
    and a KV-cache fetch from host memory or storage (they overlap), under its own name
    ("compute", "memory" or "kv_fetch"), the communication added to it, and the layers' fixed
    cost (kernel launches and syncs, "fixed")."""
    overlapped = step.stage_s - step.communication_s - step.fixed_s
    if overlapped > max(step.compute_s, step.memory_s) * (1 + 1e-12):
        name = "kv_fetch"
    else:
        name = "compute" if step.compute_s >= step.memory_s else "memory"
    parts = {name: overlapped, "communication": step.communication_s}
    if step.fixed_s > 0:
        parts["fixed"] = step.fixed_s
    return parts


def request_gpu_seconds(result: InferenceResult) -> tuple[float, float]:
    """GPU-seconds one request takes of each phase on a running result: its prompt's share of a
    prefill stage step (a pipelined replica takes a prompt in at each stage step, so a prompt
    occupies it for one step of its stages; a disaggregated prefill step serves the prefill
    batch's prompts) and its share of the decode steps (its output tokens, each the decode
    replica's pp stage steps shared by the batch). The inverse of their sum is output tokens per
    GPU when nothing idles."""
    dep = result.workload.deployment
    prompts = dep.prefill.batch if dep.disaggregated else 1
    prefill = result.prefill.stage_s * dep.prefill.replica_gpus / prompts
    decode = (result.workload.requests.mean_output_tokens * dep.decode.pp * result.decode.stage_s
              * dep.decode.replica_gpus / result.batch)
    return prefill, decode


def explain_ranking(winner: RankedDeployment, result: InferenceResult, runners: list[RankedDeployment],
                    runner_results: list[InferenceResult], available: int) -> list[DeploymentCandidate]:
    """The winner (``result``: it served) and each runner-up (served: ``runner_results``) as a
    DeploymentCandidate with why it loses, the winner first; ``available`` is the GPUs searched."""
    candidates = [_candidate(winner, result)]
    for other, other_result in zip(runners, runner_results):
        candidates.append(_explain(winner, result, other, other_result, available))
    return candidates


def _candidate(choice: RankedDeployment, result: InferenceResult, loses_by: str = "",
               relative: float | None = 0.0, reason: str = "") -> DeploymentCandidate:
    return DeploymentCandidate(
        **served_figures(result), deployment=choice.deployment,
        decode_tokens_per_s_per_gpu=result.decode_tokens_per_s_per_gpu,
        slo_excess=slo_excess(result.workload, result.ttft_ms, result.tpot_ms) if result.runs else None,
        loses_by=loses_by, relative_tokens_per_s=relative, reason=reason)


def _explain(winner: RankedDeployment, best: InferenceResult, other: RankedDeployment,
             result: InferenceResult, available: int) -> DeploymentCandidate:
    """The runner-up with why it loses: the SLO it misses, the GPUs it leaves idle, or the part
    of the GPU time per output token (prefill, decode batch, decode step) that grows most."""
    relative = other.service / winner.service - 1.0 if winner.service > 0 else None
    if relative is None:
        fewer = "fewer tokens/s"
    elif relative > -5e-4:
        fewer = "as many tokens/s (ties go to fewer GPUs, then smaller replicas)"
    else:
        fewer = f"{-100 * relative:.1f}% fewer tokens/s"
    if winner.point.meets and not other.point.meets:
        return _candidate(other, result, "slo", relative,
                          f"misses the SLO even at batch {result.batch:,}: {slo_misses(result)}")
    if other.gpus < 0.95 * winner.gpus:
        d = other.deployment.decode
        return _candidate(other, result, "scale", relative, (
            f"{fewer}; scale: {d.dp:,} replicas of {d.replica_gpus:,} GPUs use {other.gpus:,} of "
            f"the {available:,} GPUs (the winner {winner.gpus:,})"))
    dis = result.disaggregated
    idle = None if dis is None else dis.decode if dis.limited_by == "prefill" else dis.prefill
    if idle is not None and idle.utilisation < BALANCED_POOL:
        return _candidate(other, result, "pools", relative, (
            f"{fewer}; pools: the {dis.limited_by} pool limits it to "
            f"{min(dis.prefill.requests_per_s, dis.decode.requests_per_s):,.1f} requests/s while the "
            f"other is {idle.utilisation:.0%} busy; the KV hand-over takes {dis.kv_transfer_ms:,.2f} ms "
            f"over the {dis.kv_transfer_level} level"))
    if best.workload.deployment.disaggregated and not other.deployment.disaggregated:
        return _candidate(other, result, "interleaving", relative, (
            f"{fewer}; interleaving: prefills take {result.prefill_time_fraction:.0%} of each "
            f"replica's time, so TPOT at load is {result.tpot_ms:,.1f} ms on a "
            f"{result.decode_step_ms:,.1f} ms decode step at batch {result.batch:,}"))
    category, detail = _gpu_time_part(best, result)
    return _candidate(other, result, category, relative, f"{fewer}; {category}: {detail}")


def _gpu_time_part(best: InferenceResult, other: InferenceResult) -> tuple[str, str]:
    """The part of the GPU time per output token that grows most from ``best`` to ``other``:
    prefill (a prompt's prefill step on its (prefill) replica, over the request's output
    tokens), the decode batch, or a part of the decode step (per stage, times the stages, on
    the (decode) replica's GPUs, over the batch)."""
    out = best.workload.requests.mean_output_tokens

    def parts(r: InferenceResult) -> dict[str, float]:
        prefill_s, decode_s = request_gpu_seconds(r)
        per_stage = decode_s / r.decode.stage_s / out * 1e3  # GPU-ms per output token per stage-s
        return {"prefill": prefill_s / out * 1e3,
                **{k: v * per_stage for k, v in phase_parts(r.decode).items()}}

    b, o = parts(best), parts(other)
    # the parts in a fixed order (prefill, the binding part, communication, fixed), so a tie
    # names the same part in every run (a set's order follows the string hash seed)
    category = max(dict.fromkeys([*b, *o]), key=lambda k: o.get(k, 0.0) - b.get(k, 0.0))
    d_b, d_o = best.workload.deployment.decode, other.workload.deployment.decode
    cost = f"{o.get(category, 0.0):.2f} GPU-ms per output token against {b.get(category, 0.0):.2f}"
    if category == "prefill":
        p_b, p_o = best.workload.deployment.prefill, other.workload.deployment.prefill
        return category, (f"{cost} (a prompt's prefill: {p_o.pp * other.prefill.stage_s * 1e3:,.0f} ms on "
                          f"{p_o.replica_gpus:,} GPUs against {p_b.pp * best.prefill.stage_s * 1e3:,.0f} ms "
                          f"on {p_b.replica_gpus:,}, for {out:,.0f} output tokens)")
    if other.batch < best.batch and category != "communication":
        held = ("the KV cache" if other.batch >= (other.max_concurrency_per_replica or 0)
                else f"the SLOs (the KV cache would hold {other.max_concurrency_per_replica:,})")
        return "batch", (f"decode batch {other.batch:,} per replica of {d_o.replica_gpus:,} GPUs, "
                         f"held by {held}, against {best.batch:,} per {d_b.replica_gpus:,}: "
                         f"decode {_PART_TITLES[category]} cost {cost}")

    def step(r: InferenceResult, layout: PhaseLayout) -> str:
        seconds = phase_parts(r.decode).get(category, 0.0)
        return (f"{seconds * 1e3:.2f} ms per stage x {layout.pp} on {layout.replica_gpus:,} GPUs "
                f"for {r.batch:,} sequences")

    return category, (f"decode {_PART_TITLES[category]} cost {cost} ({step(other, d_o)}, against "
                      f"{step(best, d_b)})")


_PART_TITLES = {"compute": "compute", "memory": "HBM reads", "kv_fetch": "KV-cache fetch",
                "communication": "TP/EP communication", "fixed": "fixed per-layer costs"}
