"""How much of a tier's line rate a collective gets: load balancing and last-hop congestion.

One pure function per question, on the facts of one level (``core.fabric.TierBehaviour``,
built by core/topology.py from the catalog and ``network.*`` assumptions). Everything is per
level, never per link, so a 1,000,000-GPU fabric costs what a 1,000-GPU one does.

**Load balancing: balls into bins.** A switch of the tier below spreads the flows that leave it
over its ``paths`` equal-cost uplinks. With hashing (``ecmp``, ``ecmp-qp``, ``flowlet``) each
flow lands on a path at random; a synchronous collective waits for its most loaded link. With
``m`` flows on ``n`` paths (mean ``lam = m / n``) the expected maximum load is, in the Poisson
approximation (Mitzenmacher & Upfal, Probability and Computing §5.4; the balls-into-bins
argument of the Ethereal paper, arXiv 2407.00550),

    E[max] = sum_{k >= 0} (1 - P(Poisson(lam) <= k) ** n)

and the level runs at ``min(1, max(lam, kappa) / E[max])`` of its line rate, where ``kappa`` is
how many of the pattern's flows one uplink carries at full speed (the flows a NIC runs at once
times the uplink's speed over the NIC's): below that load a collision costs nothing, above the
mean load ``lam`` the tier's oversubscription (already in its per-GPU rate) is the cost. The flows are those of the collective's pattern
(``flows_per_nic``): NCCL's channels per NIC, the queue pairs per connection when the hash sees
them (``ecmp-qp``; Meta, SIGCOMM 2024), and how many of a rank's connections leave the domain
below: a rail-aligned ring leaves it once per channel, a hierarchical all-reduce's outer phase
and pipeline sends every time, an all-to-all towards as many peers as it has in flight.
``flowlet`` re-hashes each flow at its gaps (``flowlet_splits`` pieces, E). ``adaptive``
(per-packet adaptive routing or spraying, the NIC reordering) and ``scheduled`` (a cell fabric
whose receivers grant every transfer) spread by the packet: fraction 1, i.e. the NCCL-effective
rate the rest of the engine is calibrated on (InfiniBand with adaptive routing).

**Congestion at the last hop (all-to-all).** An all-to-all makes each receiver's leaf port the
target of ``k`` senders at once (incast). Absorbing it needs ``(k - 1)`` bandwidth-delay
products of buffer per port; the share of the burst the buffer holds passes at line rate, the
rest is paused (lossless: ``credit`` or ``pfc``; pauses block other flows behind them, the
``pfc_hol_efficiency`` E) or dropped (``lossy``: resent, at ``retransmit_efficiency`` with
selective retransmit, half that with go-back-N, E). Adaptive routing (with its congestion
control) and scheduled fabrics are taken at their calibrated rate.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy import special

from core.fabric import TierBehaviour

PATTERNS = ("ring", "tree", "hierarchical", "alltoall", "p2p")
HASHED = ("ecmp", "ecmp-qp", "flowlet")


class TierFractions(NamedTuple):
    """Fraction of line rate per pattern on one level, and its two parts."""

    by_pattern: dict[str, float]
    load_balance: dict[str, float]   # the balls-into-bins part
    incast: float                    # all-to-all's last-hop part
    flows: dict[str, float]          # flows per uplink set (balls), per pattern


@functools.lru_cache(maxsize=65536)
def expected_max_load(balls: float, bins: int) -> float:
    """E[most loaded bin] for ``balls`` thrown at random into ``bins`` (Poisson approximation)."""
    if bins <= 1 or balls <= 0:
        return max(0.0, float(balls))
    lam = balls / bins
    top = int(lam + 12.0 * math.sqrt(lam) + 30)
    k = np.arange(top + 1)
    # P[Poisson(lam) <= k], as scipy.stats.poisson.cdf computes it, from scipy.special: the
    # window imports this module at start, and scipy.stats costs most of a second to import.
    below = special.pdtr(k, lam) ** bins
    return float(np.sum(1.0 - below))


def concurrent_flows(b: TierBehaviour, pattern: str) -> float:
    """Flows one NIC runs at once in ``pattern`` (each at the NIC's rate / this)."""
    qps = b.qps_per_connection if b.mode == "ecmp-qp" else 1
    if pattern == "alltoall":
        return float(qps * b.alltoall_peers_in_flight)
    return float(b.channels_per_nic * qps)


def flows_per_nic(b: TierBehaviour, pattern: str) -> float:
    """Connections per NIC that leave the domain below this level, with the entropy the
    hash sees (channels x queue pairs when it sees queue pairs)."""
    qps = b.qps_per_connection if b.mode == "ecmp-qp" else 1
    channels = b.channels_per_nic
    # ring members of one rail inside the domain below (rail-aligned rings, one per node)
    inside = max(1.0, b.lower_domain_gpus / max(1, b.gpus_per_server))
    if pattern == "ring":
        return channels * qps / inside
    if pattern == "tree":
        # a contiguous block of k nodes of NCCL's double binary tree is left by ~1 + log2 k
        # edges per tree (E)
        return channels * qps * 2.0 * (1.0 + math.log2(inside)) / inside
    if pattern == "alltoall":
        peers = max(1.0, (b.domain_gpus - b.lower_domain_gpus) / max(1, b.gpus_per_server))
        return qps * min(float(b.alltoall_peers_in_flight), peers)
    return channels * qps  # hierarchical outer phase, pipeline send/receive


def load_balance_fraction(b: TierBehaviour, pattern: str) -> tuple[float, float]:
    """(fraction of line rate, flows hashed onto one switch's uplinks) for ``pattern``."""
    balls = flows_per_nic(b, pattern) * b.sources * b.flows_per_source
    if b.mode not in HASHED or b.paths <= 1:
        return 1.0, balls
    per_link = concurrent_flows(b, pattern) * b.path_speed_ratio
    if b.mode == "flowlet":
        # each piece is hashed on its own: more, smaller balls
        balls *= b.flowlet_splits
        per_link *= b.flowlet_splits
    lam = balls / b.paths
    worst = expected_max_load(balls, b.paths)
    return (float(min(1.0, max(lam, per_link) / worst)) if worst > 0 else 1.0), float(balls)


def incast_buffer_need_mb(b: TierBehaviour) -> float:
    """Buffer one receiver's port needs to absorb an all-to-all's incast, MB."""
    senders = max(1.0, min(float(b.alltoall_peers_in_flight),
                           (b.domain_gpus - 1) / max(1, b.gpus_per_server)))
    bdp_mb = b.nic_gbyte_s * b.rtt_us * 1e-3
    return (senders - 1.0) * bdp_mb


def incast_fraction(b: TierBehaviour) -> float:
    """Share of line rate all-to-all keeps at the receivers' last hop."""
    if b.mode in ("adaptive", "scheduled"):
        return 1.0
    need = incast_buffer_need_mb(b)
    absorbed = 1.0 if need <= 0 else min(1.0, b.buffer_mb_per_port / need)
    if b.flow_control in ("credit", "pfc"):
        spill = b.pfc_hol_efficiency
    elif b.selective_retransmit:
        spill = b.retransmit_efficiency
    else:
        spill = b.retransmit_efficiency / 2.0  # go-back-N resends the window
    return float(absorbed + (1.0 - absorbed) * spill)


@functools.lru_cache(maxsize=4096)
def tier_fractions(b: TierBehaviour) -> TierFractions:
    """Fraction of line rate of every pattern on one level (cached: a level's facts are few)."""
    incast = incast_fraction(b)
    load: dict[str, float] = {}
    flows: dict[str, float] = {}
    for pattern in PATTERNS:
        load[pattern], flows[pattern] = load_balance_fraction(b, pattern)
    by_pattern = {p: load[p] * (incast if p == "alltoall" else 1.0) for p in PATTERNS}
    return TierFractions(by_pattern, load, incast, flows)


def pattern_fraction(b: TierBehaviour | None, pattern: str) -> float:
    """The fraction a collective of ``pattern`` gets on a level (1 without behaviour facts)."""
    if b is None:
        return 1.0
    return tier_fractions(b).by_pattern[pattern]
