"""Latency and throughput of an inference deployment at its load ("TTFT and TPOT at the chosen
load", issue 15): continuous batching in an aggregated replica, the two pools of a disaggregated
deployment, and the request mix's shape. Pure arithmetic on the step times that
``core/analysis/serving_phase.py`` gives; ``core/analysis/serving.py`` assembles the result.
docs/reference/serving-model.md derives every formula and gives its sources.

**The load** is the decode batch B: the requests a decode replica has in flight (the workload's
``batch``, capped by the KV cache). A request is o decode steps (o the mix's mean output; the
first token is counted as a step, o - 1 would be exact, so that a 1-token answer keeps one).

**Aggregated** (continuous batching, as vLLM and SGLang schedule it): the replica runs decode
steps of d seconds for its B sequences and, between them, the prefills of arriving requests
(p seconds on average per request, p_c for class c). By Little's law the replica serves
lambda = B / (o d + B p) requests/s; the fraction of its time spent in prefill is
f = lambda p = k / (1 + k) with k = B p / (o d); a sequence waits d / (1 - f) = d + B p / o
between its tokens (TPOT at load). A prefill waits in an M/G/1 queue with vacations
(Bertsekas & Gallager, Data Networks §3.5.1): the prefills are served first, the decode steps
are the vacations the replica takes when none waits, so
W = lambda E[p^2] / (2 (1 - f)) + d / 2, and TTFT_c = W + p_c.

**Pipeline stages** (pp > 1, micro-batches in flight): d is pp stage steps of one micro-batch
(``serving_phase.py``); a prompt crosses the pp stages in p_c but occupies the replica for one
stage step, q_c = p_c / pp, as each stage works on other micro-batches meanwhile. The
occupancy q replaces p in lambda, f, TPOT and the wait (whose vacation is one stage step,
d / pp); TTFT_c = W + p_c.

**Attention data parallelism** (g > 1 replicas share one EP group, e.g. TP 1 x DP 8 with EP 8):
the g ranks run every MoE layer's dispatch and combine together, so their steps are one step,
as long as its slowest rank's. A rank that prefills holds the others at the first MoE layer:
each step every rank waits for the rank that prefills most. Per step (one TPOT) a rank takes in
m = B / o new prompts on average (its sequences finishing), N_r ~ Poisson(m) of them, and the
step's prefill stall is q x E[max of g such counts] = q M_g(m), not q m: TPOT = d + q M_g(m)
(M_1(m) = m, the single replica above). An engine that aligns the ranks' prefills into the same
steps with even counts (TensorRT-LLM's ``attention_dp_config.enable_balance``: ADP balancing,
its tech blog 10) is back at q m (``attention_dp_balance``). A disaggregated decode pool has no
prefills to wait for.

**Disaggregated**: the prefill pool (dp_p replicas, P prompts a step of s seconds) serves
R_p = dp_p P / s requests/s (s / pp with pp pipeline stages: a step enters each stage step),
the decode pool R_d = dp_d B / (o d); the deployment serves
lambda = min(R_p, R_d), and the smaller names the pool that limits. A prompt waits for the
prefill step in progress (busy with probability rho = lambda / R_p, half a step left on average)
and is served in the next one: TTFT_c = rho s / 2 + s_c + the hand-over of its KV cache; TPOT is
the decode pool's step d (no prefill interferes). Queueing beyond one step (more than P arrivals
in a step) is not modelled; the pool that does not limit runs below its batch, so its step, and
the latency it adds, is an upper bound.

**A request mix**: arrivals follow the shares; the requests in flight in a decode batch follow
share x output tokens (a class stays o_c steps: Little's law), so the decode step reads the KV
cache at the occupancy-weighted mean context (input + half the output) and the KV capacity holds
requests at the occupancy-weighted mean full context (input + output: room to finish).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from scipy.special import gammaincc

from core.inference_workload import RequestMix


@dataclass(frozen=True)
class MixShape:
    """The request mix as the load model uses it: per class (in the mix's order) and means."""

    shares: tuple[float, ...]
    input_tokens: tuple[int, ...]
    output_tokens: tuple[int, ...]
    mean_input_tokens: float  # per arriving request (share-weighted)
    mean_output_tokens: float  # per arriving request: o
    decode_context_tokens: float  # mean KV length a decode step reads per sequence in flight
    held_context_tokens: float  # mean full context (input + output) of a sequence in flight

    def mean(self, per_class: tuple[float, ...]) -> float:
        """Share-weighted mean over the classes (per arriving request)."""
        return sum(w * v for w, v in zip(self.shares, per_class))


def mix_shape(requests: RequestMix) -> MixShape:
    classes = requests.classes
    shares = tuple(c.share for c in classes)
    inputs = tuple(c.input_tokens for c in classes)
    outputs = tuple(c.output_tokens for c in classes)
    mean_out = sum(w * o for w, o in zip(shares, outputs))
    occupancy = tuple(w * o / mean_out for w, o in zip(shares, outputs))
    return MixShape(
        shares, inputs, outputs, sum(w * i for w, i in zip(shares, inputs)), mean_out,
        sum(u * (i + o / 2.0) for u, i, o in zip(occupancy, inputs, outputs)),
        sum(u * (i + o) for u, i, o in zip(occupancy, inputs, outputs)))


@dataclass(frozen=True)
class LoadPoint:
    """The deployment at decode batch ``batch``: latencies and the deployment's throughput."""

    batch: int
    decode_step_s: float  # d: one decode step, no prefill interleaved
    tpot_s: float
    ttft_s_by_class: tuple[float, ...]
    ttft_s: float  # share-weighted mean over the classes
    requests_per_s: float  # the whole deployment's
    output_tokens_per_s: float  # the whole deployment's
    prefill_time_fraction: float | None = None  # aggregated: f
    prefill_requests_per_s: float | None = None  # disaggregated: R_p, R_d
    decode_requests_per_s: float | None = None

    @property
    def limited_by(self) -> str | None:
        """The pool that limits a disaggregated deployment ("prefill" or "decode")."""
        if self.prefill_requests_per_s is None or self.decode_requests_per_s is None:
            return None
        return "prefill" if self.prefill_requests_per_s < self.decode_requests_per_s else "decode"


def aggregated_load(mix: MixShape, batch: int, decode_step_s: float,
                    prefill_s_by_class: tuple[float, ...], replicas: int,
                    stages: int = 1, coupled_ranks: int = 1) -> LoadPoint:
    """``replicas`` aggregated replicas at decode batch ``batch`` (module docstring). A replica
    of ``stages`` pipeline stages with micro-batches in flight takes a prompt in at each stage
    step: a prefill of p_c seconds (its way through the stages) occupies the replica for
    p_c / stages, which sets the throughput and the wait; TTFT still carries all of p_c.
    ``coupled_ranks`` replicas step together (attention DP over one EP group, not aligned):
    each step waits for the one that prefills most."""
    busy_s = tuple(p / stages for p in prefill_s_by_class)
    q_mean = mix.mean(busy_s)
    prompts = expected_max_poisson(coupled_ranks, batch / mix.mean_output_tokens)
    tpot = decode_step_s + q_mean * prompts
    rate = batch / (mix.mean_output_tokens * tpot)  # per replica
    busy = q_mean * prompts / tpot  # f: the step's share held by a prefill (its own or another's)
    # the next prompt waits for the prompts ahead and for the decode micro-batch the first
    # stage is working on (a vacation of one stage step, d / stages)
    wait = rate * mix.mean(tuple(q * q for q in busy_s)) / (2.0 * (1.0 - busy)) \
        + decode_step_s / stages / 2.0
    ttft = tuple(wait + p for p in prefill_s_by_class)
    return LoadPoint(batch, decode_step_s, tpot, ttft, mix.mean(ttft), rate * replicas,
                     rate * replicas * mix.mean_output_tokens, prefill_time_fraction=busy)


def expected_max_poisson(count: int, mean: float) -> float:
    """E[max of ``count`` independent Poisson(``mean``) counts]: sum over k of
    P(max > k) = 1 - F(k)^count; ``mean`` itself for one."""
    if count <= 1 or mean <= 0.0:
        return mean
    if mean > _NORMAL_FROM:
        # Poisson(mean) is near normal here (within ~1% of the exact sum up to 10^5 ranks):
        # mean + z_count sqrt(mean), z_count the
        # expected maximum of count standard normals (Blom); the exact sum would take an array
        # of ~mean terms (a batch of 10^6 one-token answers)
        z = NormalDist().inv_cdf((count - 0.375) / (count + 0.25))
        return min(count * mean, mean + z * math.sqrt(mean))
    # cached on 9 significant digits: rounding to 9 decimals moved a tiny mean (a rank that
    # prefills once in 10^8 steps) by up to 1%, past count x mean
    return _expected_max_poisson(count, float(f"{mean:.9g}"))


_NORMAL_FROM = 200.0  # prompts per rank and step above which the normal form is used


@functools.lru_cache(maxsize=4096)
def _expected_max_poisson(count: int, mean: float) -> float:
    # beyond mean + 12 sd + 30 every F(k)^count is 1 to double precision for any count a
    # design holds (1 - F < 1e-30)
    top = int(mean + 12.0 * math.sqrt(mean) + 30.0)
    cdf = gammaincc(np.arange(1, top + 1, dtype=float), mean)  # P(N <= k) = Q(k + 1, mean)
    return float(np.sum(-np.expm1(count * np.log(np.maximum(cdf, 1e-300)))))


@dataclass(frozen=True)
class PrefillPool:
    """The prefill pool of a disaggregated deployment, which does not depend on the decode
    batch: its step with a prompt of each class (and P - 1 mean others), its mean step, and
    the hand-over of each class's step to the decode pool."""

    replicas: int
    prompts_per_step: int
    step_s_by_class: tuple[float, ...]  # through every pipeline stage
    mean_step_s: float  # through every pipeline stage
    transfer_s_by_class: tuple[float, ...]
    stages: int = 1  # pipeline stages: a new step enters every mean_step_s / stages

    @property
    def interval_s(self) -> float:
        """Time between two steps entering a replica (one stage step)."""
        return self.mean_step_s / self.stages

    @property
    def requests_per_s(self) -> float:
        return self.replicas * self.prompts_per_step / self.interval_s


def disaggregated_load(mix: MixShape, batch: int, decode_step_s: float, decode_replicas: int,
                       prefill: PrefillPool) -> LoadPoint:
    """The deployment with its decode pool at batch ``batch`` (module docstring)."""
    prefill_rate = prefill.requests_per_s
    decode_rate = decode_replicas * batch / (mix.mean_output_tokens * decode_step_s)
    rate = min(prefill_rate, decode_rate)
    wait = rate / prefill_rate * prefill.interval_s / 2.0
    ttft = tuple(wait + s + t for s, t in zip(prefill.step_s_by_class, prefill.transfer_s_by_class))
    return LoadPoint(batch, decode_step_s, decode_step_s, ttft, mix.mean(ttft), rate,
                     rate * mix.mean_output_tokens, prefill_requests_per_s=prefill_rate,
                     decode_requests_per_s=decode_rate)
