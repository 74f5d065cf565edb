"""What the analyses share about one MoE layer: the expert FFN size and the routing skew the
busiest expert-parallel rank sees.

Skew: a workload's ``model.moe.imbalance`` (else the stack's ``ep_imbalance``) is the busiest
rank's routed tokens over the mean. A capacity factor caps it: an expert takes at most that
multiple of its balanced share and drops the rest (GShard, Lepikhin et al. 2020 §2.2; Switch
Transformer, Fedus et al. 2021 §2.2, P), so the busiest rank never computes, stores or
receives more than capacity x the mean. It only matters across ranks (``ep`` > 1): on one GPU
every expert's tokens are computed one after another whatever their split.
"""

from __future__ import annotations

from core.assumptions.performance import PerformanceAssumptions
from core.workload import ModelSpec, Parallelism


def expert_ffn(model: ModelSpec) -> int:
    """FFN width of one routed (or shared) expert."""
    return model.moe.expert_ffn_hidden or model.ffn_hidden


def expert_skew(model: ModelSpec, par: Parallelism, a: PerformanceAssumptions) -> float:
    """Routed tokens of the busiest expert-parallel rank over the mean (1 without EP)."""
    if par.ep <= 1 or not model.moe.enabled:
        return 1.0
    skew = model.moe.imbalance or a.ep_imbalance
    if model.moe.capacity_factor > 0:
        skew = min(skew, max(1.0, model.moe.capacity_factor))
    return skew
