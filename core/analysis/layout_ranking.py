"""Why each runner-up of the parallelism search loses to the winner.

Runners-up are the best layout of each other (tp, cp, pp, ep, expert tp) shape. Their time per
token is compared with the winner's by category (compute, recompute forced by memory, pipeline
bubble, communication) in GPU-seconds per token, so a layout that leaves GPUs idle is not
blamed on its kernels; the category that grows most is named with its numbers, or "scale" when
using fewer GPUs explains most of the gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from core.workload import Parallelism

CATEGORIES = ("compute", "memory", "bubble", "communication")  # plus "scale" (idle GPUs)
_COMM_PARTS = {
    "tp_comm": "tensor-parallel collectives",
    "cp_comm": "context-parallel K/V exchange",
    "ep_comm": "expert all-to-all",
    "pp_comm": "pipeline point-to-point",
    "dp_comm": "data-parallel gradient reduction",
}


class Ranked(NamedTuple):
    """One evaluated layout as the search ranks it (a tuple: the search makes thousands)."""

    per_token_s: float     # step time per token of the global batch (the ranking key)
    step_time_s: float
    parallelism: Parallelism
    memory_gb: float       # per GPU
    breakdown_s: dict
    bubble_fraction: float


@dataclass(frozen=True)
class Candidate:
    """One evaluated layout, with why it loses to the winner (empty for the winner). A layout
    that does not fit in memory cannot run: it has no step time, throughput or bubble."""

    parallelism: Parallelism
    step_time_s: float | None
    tokens_per_s: float | None
    memory_gb: float
    fits: bool
    bubble_fraction: float | None
    breakdown_s: dict = field(default_factory=dict)
    loses_by: str = ""           # "", "compute", "memory", "bubble", "communication"
    slower_fraction: float | None = 0.0  # time per token relative to the winner, minus 1
    reason: str = ""

    def to_json(self) -> dict:
        p = self.parallelism
        return {
            "parallelism": {"tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep,
                            "expert_tp": p.expert_tp_effective,
                            "micro_batch": p.micro_batch, "global_batch": p.global_batch,
                            "virtual_stages": p.virtual_stages, "zero_stage": p.zero_stage,
                            "recompute": p.recompute},
            "step_time_s": self.step_time_s,
            "tokens_per_s": self.tokens_per_s,
            "memory_per_gpu_gb": self.memory_gb,
            "fits_memory": self.fits,
            "bubble_fraction": self.bubble_fraction,
            "loses_by": self.loses_by,
            "slower_fraction": self.slower_fraction,
            "reason": self.reason,
        }


def explain_ranking(best: Ranked, runners: list[Ranked], fit_found: bool, seq_len: int,
                    hbm_gb: float) -> list[Candidate]:
    """The winner and each runner-up as a Candidate with why it loses (or, when nothing fits,
    by how much it overflows: then none has a step time)."""
    if not fit_found:
        return [_misfit(best, f"overflows least: {best.memory_gb:.0f} GB per GPU of {hbm_gb:.1f} GB")] + [
            _misfit(r, f"does not fit: {r.memory_gb:.0f} GB per GPU of {hbm_gb:.1f} GB")
            for r in runners]
    candidates = [_candidate(best, seq_len)]
    for r in runners:
        category, slower, text = _why(best, r, seq_len, hbm_gb)
        candidates.append(_candidate(r, seq_len, category, slower, text))
    return candidates


def _misfit(r: Ranked, reason: str) -> Candidate:
    return Candidate(r.parallelism, None, None, r.memory_gb, False, None, {}, "memory", None,
                     reason)


def _categories(breakdown: dict) -> dict[str, float]:
    return {
        "compute": breakdown.get("compute", 0.0) + breakdown.get("optimizer", 0.0)
        + breakdown.get("straggler", 0.0) + breakdown.get("other", 0.0),
        "memory": breakdown.get("recompute", 0.0),
        "bubble": breakdown.get("bubble", 0.0),
        "communication": sum(breakdown.get(k, 0.0) for k in _COMM_PARTS),
    }


def _why(best: Ranked, other: Ranked, seq_len: int, hbm_gb: float) -> tuple[str, float, str]:
    """(category, slower fraction, text) for ``other`` against ``best`` (both fit).

    Categories are compared in GPU-seconds per token (so a layout that leaves GPUs idle is not
    blamed on its kernels); "scale" when using fewer GPUs explains most of the gap.
    """
    b_tok, _, b_par, _, b_bd, b_bub = best
    o_tok, o_step, o_par, o_mem, o_bd, o_bub = other
    b_tokens = b_par.global_batch * seq_len
    o_tokens = o_par.global_batch * seq_len
    b_gpus, o_gpus = b_par.gpus, o_par.gpus
    b_cat = _categories(b_bd)
    o_cat = _categories(o_bd)
    # GPU-second per token deltas, expressed in seconds of the runner-up's step
    deltas = {
        k: (o_cat[k] * o_gpus / o_tokens - b_cat[k] * b_gpus / b_tokens) * o_tokens / o_gpus
        for k in CATEGORIES
    }
    category = max(deltas, key=lambda k: deltas[k])
    slower = o_tok / b_tok - 1.0 if b_tok > 0 else 0.0
    efficiency_loss = (o_tok * o_gpus) / (b_tok * b_gpus) - 1.0 if b_tok > 0 else 0.0
    extra = deltas[category]
    if o_gpus < 0.95 * b_gpus and (1.0 + slower) / max(1e-9, 1.0 + efficiency_loss) - 1.0 > (
        max(efficiency_loss, 0.0)
    ):
        text = (f"{100 * slower:.1f}% slower per token; scale: the batch feeds only "
                f"{o_par.dp} replicas of {o_par.tp * o_par.cp * o_par.pp} GPUs, so it uses "
                f"{o_gpus:,} GPUs against the winner's {b_gpus:,} "
                f"({100 * efficiency_loss:+.1f}% GPU-time per token)")
        return "scale", slower, text
    if category == "bubble":
        m = o_par.microbatches
        detail = (f"pp {o_par.pp} with {m} micro-batch{'es' if m != 1 else ''} per pipeline"
                  f"{f' and {o_par.virtual_stages} virtual stages' if o_par.virtual_stages > 1 else ''}"
                  f" idles {100 * o_bub:.0f}% of the step (winner {100 * b_bub:.0f}%)")
    elif category == "memory":
        detail = (f"needs {o_par.recompute} recompute to fit {hbm_gb:.1f} GB "
                  f"({o_mem:.0f} GB with it; the winner uses {b_par.recompute})")
    elif category == "communication":
        part = max(_COMM_PARTS, key=lambda k: o_bd.get(k, 0.0) / o_tokens - b_bd.get(k, 0.0) / b_tokens)
        scale = (o_tokens / b_tokens) * (b_gpus / o_gpus)
        detail = (f"{_COMM_PARTS[part]} take {o_bd.get(part, 0.0):.2f} s per step vs "
                  f"{b_bd.get(part, 0.0) * scale:.2f} s for the winner at equal work per GPU")
    else:
        scale = (o_tokens / b_tokens) * (b_gpus / o_gpus)
        experts = (f", expert tp {o_par.expert_tp_effective}"
                   if o_par.expert_tp_effective != o_par.tp else "")
        detail = (f"tp {o_par.tp}{experts}, micro-batch {o_par.micro_batch}: smaller or less "
                  f"efficient "
                  f"GEMMs per GPU (compute {o_cat['compute']:.2f} s vs "
                  f"{b_cat['compute'] * scale:.2f} s at equal work per GPU)")
    text = f"{100 * slower:.1f}% slower per token; {category}: +{max(extra, 0.0):.2f} s per step — {detail}"
    return category, slower, text


def _candidate(r: Ranked, seq_len: int, loses_by: str = "", slower: float = 0.0,
               reason: str = "") -> Candidate:
    per_token, step, par, mem, breakdown, bubble = r
    tokens_per_s = (par.global_batch * seq_len) / step if step > 0 and math.isfinite(step) else 0.0
    return Candidate(par, step, tokens_per_s, mem, True, bubble, dict(breakdown), loses_by,
                     slower, reason)
