"""What limits serving, in words: the part of a phase that takes the most of a request's GPU
time, the next ones, and the what-if that helps most within the SLOs. The serving counterpart
of the training bottleneck's texts (core/analysis/bottleneck.py); built from
``InferenceBottleneck`` (core/analysis/inference_bottleneck.py) as plain text, so the GUI panel
only lays it out and a report can print it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.inference_bottleneck import InferenceBottleneck, InferenceLimiter

# non-breaking hyphens: in a narrow dock a sentence wraps between words, not inside "compute-bound"
# (a KV cache read back from host memory or a remote prefix cache can bind a phase too)
BOUND_TEXT = {"compute": "compute\u2011bound", "memory": "HBM\u2011bound", "communication": "communication\u2011bound",
              "host_link": "host\u2011link\u2011bound", "storage": "storage\u2011bound"}
# where a KV fetch comes from, by the workload's KV-cache placement
FETCHED_FROM = {"host": "host memory", "remote": "the remote prefix cache"}
OTHERS_SHOWN = 2  # limiters named after the binding one
NO_HELP = "no single change tried raises output tokens/s by 1% within the SLOs"


@dataclass(frozen=True)
class ServingExplanation:
    """``binding``: "decode is HBM‑bound (weights 83%, KV cache 17% of the bytes)";
    ``share``: "62% of the decode step, and decode takes 80% of a request's GPU time";
    ``others``: the next limiters with their share of the GPU time; ``help``: the what-if that
    helps most and by how much, or that none does."""

    binding: str
    share: str
    others: tuple[str, ...]
    help: str


def gain_text(gain: float | None) -> str:
    """A what-if's change in output tokens/s: "+12%", or "cannot run"."""
    return "cannot run" if gain is None else f"{100 * gain:+.0f}%"


def binding_text(limiter: InferenceLimiter, kv_share: float | None, placement: str | None) -> str:
    """"decode is HBM‑bound (weights 83%, KV cache 17% of the bytes)" and the like."""
    phase, part = limiter.phase, limiter.key.removeprefix(f"{limiter.phase}_")
    if part == "memory":
        split = (f" (weights {1 - kv_share:.0%}, KV cache {kv_share:.0%} of the bytes)"
                 if phase == "decode" and kv_share is not None else "")
        return f"{phase} is {BOUND_TEXT['memory']}{split}"
    if part == "kv_fetch":
        return f"{phase} waits for the KV cache from {FETCHED_FROM.get(placement, 'host memory or storage')}"
    if part == "communication":
        return f"{phase} is {BOUND_TEXT['communication']} (TP all‑reduces, EP dispatch and combine)"
    if part == "fixed":
        return f"{phase} is held by its layers' fixed costs (kernel launches, tails, syncs)"
    return f"{phase} is {BOUND_TEXT['compute']}"


def explain_serving(bottleneck: InferenceBottleneck, placement: str | None = None) -> ServingExplanation | None:
    """What limits one served deployment (None: nothing to say). ``placement``: the KV cache's
    ("host", "remote"), naming what a KV fetch waits for."""
    limiters = bottleneck.limiters
    if not limiters:
        return None
    top = limiters[0]
    phase_share = top.gpu_time_share / top.share if top.share > 0 else 0.0
    share = (f"{top.share:.0%} of the {top.phase} step, and {top.phase} takes {phase_share:.0%} of a "
             "request's GPU time")
    others = tuple(f"{x.name} ({x.gpu_time_share:.0%})" for x in limiters[1:1 + OTHERS_SHOWN])
    best = bottleneck.best
    if best is None:
        help_text = NO_HELP
    else:
        help_text = (f"{best.description}: {gain_text(best.gain)} output tokens/s "
                     f"({bottleneck.output_tokens_per_s_per_gpu:,.0f} → {best.output_tokens_per_s_per_gpu:,.0f} "
                     "per GPU), meets the SLOs")
    return ServingExplanation(binding_text(top, bottleneck.kv_share_of_decode_bytes, placement), share, others,
                              help_text)
