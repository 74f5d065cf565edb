"""Which of a layout's collectives hashing slows, and the fabric variants that would help.

For the bottleneck (core/analysis/bottleneck.py): the tiers each parallel dimension's traffic
crosses, where a hashed load-balancing mode (ECMP, ECMP with queue pairs, flowlets) leaves the
collective's pattern under ``COLLISION_FRACTION`` of line rate; and the FabricView with adaptive
routing, with more queue pairs, or with the in-network reduction its switches have switched on,
for the bottleneck to re-evaluate (nothing extrapolated).
"""

from __future__ import annotations

from dataclasses import replace

from core.analysis import collectives as coll
from core.analysis.collectives import group_span
from core.analysis.load_balance import HASHED, tier_fractions
from core.fabric import FabricView
from core.topology import NetworkAssumptions
from core.workload import Parallelism

# Below this fraction of line rate a tier's collisions are named as the cause...
COLLISION_FRACTION = 0.8
# ... when they make the collective itself this much slower (the tier binds, not the NIC).
COLLISION_SLOWDOWN = 1.05
# Message size the check times the collective at (large: bandwidth-bound, as the step is).
_CHECK_BYTES = 256e6
# Queue pairs per connection the "more queue pairs" what-if uses (E: Meta's E-ECMP spreads a
# connection over several; 4 is a common NCCL_IB_QPS_PER_CONNECTION setting).
MORE_QPS = 4

# breakdown part -> the collective pattern its traffic follows
_PATTERN = {"ep_comm": "alltoall", "dp_comm": "hierarchical", "pp_comm": "p2p",
            "tp_comm": "hierarchical", "cp_comm": "hierarchical"}


def _levels_crossed(fabric: FabricView, par: Parallelism, key: str) -> list[int]:
    if key == "ep_comm" and par.ep > 1:
        return list(group_span(fabric, par.ep, par.tp * par.cp).levels)
    if key == "dp_comm":
        return list(group_span(fabric, par.dp * par.cp, par.tp).levels)
    if key == "pp_comm" and par.pp > 1:
        return [fabric.level_for_span(par.tp * par.cp * par.dp + 1)]
    if key == "tp_comm":
        return list(group_span(fabric, par.tp, 1).levels)
    if key == "cp_comm" and par.cp > 1:
        return list(group_span(fabric, par.cp, par.tp).levels)
    return []


def _collective_s(fabric: FabricView, par: Parallelism, key: str) -> float:
    """Time of one large collective of the ``key`` traffic on ``fabric``."""
    if key == "ep_comm":
        return coll.alltoall_time_s(fabric, _CHECK_BYTES, par.ep, par.tp * par.cp)
    if key == "dp_comm":
        return coll.allreduce_time_s(fabric, _CHECK_BYTES, par.dp * par.cp, par.tp)
    if key == "pp_comm":
        return coll.p2p_time_s(fabric, _CHECK_BYTES, par.tp * par.cp * par.dp)
    if key == "tp_comm":
        return coll.reduce_scatter_time_s(fabric, _CHECK_BYTES, par.tp, 1)
    return coll.allgather_time_s(fabric, _CHECK_BYTES, par.cp, par.tp)


def collision_tiers(fabric: FabricView, par: Parallelism, key: str) -> list[tuple[str, float]]:
    """(tier, fraction of line rate) of the hashed tiers that slow the ``key`` traffic: those
    whose pattern runs below ``COLLISION_FRACTION`` of line rate there, when spreading it
    perfectly would make the collective ``COLLISION_SLOWDOWN`` faster (else the NICs or
    another tier bind, and the collisions cost nothing)."""
    pattern = _PATTERN.get(key)
    if pattern is None:
        return []
    out = []
    for index in _levels_crossed(fabric, par, key):
        level = fabric.levels[index]
        b = level.behaviour
        if b is None or b.mode not in HASHED or b.paths <= 1:
            continue
        fraction = tier_fractions(b).load_balance[pattern]
        if fraction < COLLISION_FRACTION:
            out.append((level.name, fraction))
    if out:
        hashed = _collective_s(fabric, par, key)
        spread = _collective_s(with_load_balancing(fabric, "adaptive"), par, key)
        if not spread > 0 or hashed < COLLISION_SLOWDOWN * spread:
            return []
    return out


def with_load_balancing(fabric: FabricView, mode: str, qps: int | None = None) -> FabricView:
    """The fabric with every scale-out tier running ``mode`` (and ``qps`` queue pairs)."""
    levels = []
    for level in fabric.levels:
        b = level.behaviour
        if b is not None:
            b = replace(b, mode=mode, qps_per_connection=qps or b.qps_per_connection)
            level = replace(level, behaviour=b)
        levels.append(level)
    return replace(fabric, levels=tuple(levels))


def with_in_network_reduction(fabric: FabricView) -> tuple[FabricView, str] | None:
    """The fabric reducing in every switch that can (NVLS in the scale-up domain, SHARP on the
    scale-out tiers), at the default assumptions' rates; None when nothing more can."""
    a = NetworkAssumptions()
    levels, added = [], []
    for index, level in enumerate(fabric.levels):
        if level.in_network_reduction and level.in_network_gbyte_s <= 0:
            scale_up = index < fabric.first_scale_out
            rate = (level.per_gpu_gbyte_s * a.nvls_efficiency if scale_up
                    else level.effective_gbyte_s * a.sharp_efficiency)
            level = replace(level, in_network_gbyte_s=rate)
            added.append("NVLink SHARP" if scale_up else "SHARP")
        levels.append(level)
    if not added:
        return None
    names = " and ".join(dict.fromkeys(added))
    return replace(fabric, levels=tuple(levels)), names
