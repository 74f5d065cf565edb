"""The network assumptions: NCCL efficiencies, latencies, how the fabric spreads traffic
(read by core/topology.py, core/analysis/network.py and the collectives)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.catalog_fabric import FLOW_CONTROLS, LOAD_BALANCING_MODES


# Bounds of the assumptions below (core/settings.py reads them from the field metadata).
# An effective rate is more than nothing and at most the line rate; latencies and sizes are
# not negative.
_EFFICIENCY = {"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}
_LATENCY_US = {"min": 0.0, "unit": "µs"}


@dataclass(frozen=True)
class NetworkAssumptions:
    # NCCL-effective / line rate on the scale-up fabric when the catalog has no measured
    # figure: 370 / 450 GB/s on H100 NVLink4 (nccl-tests #212, topologies.md §7).
    scale_up_efficiency: float = field(default=0.82, metadata=_EFFICIENCY)
    # Per-NIC NCCL-effective / line rate when the NIC entry has no measured figure:
    # 46-48 of 50 GB/s for NDR 400G (nccl-tests #290, topologies.md §7).
    nic_efficiency: float = field(default=0.94, metadata=_EFFICIENCY)
    # One-way NIC TX+RX latency per side (SimAI NIC 500 ns; kentino 0.3-0.8 us; topologies.md §6).
    nic_latency_us: float = field(default=0.5, metadata=_LATENCY_US)
    # GPU-to-GPU one-way latency inside the scale-up domain (E: chosen so an 8-GPU tree
    # all-reduce of 8 B lands near the 12.5 us measured on 8 Hopper GPUs, topologies.md §7).
    scale_up_latency_us: float = field(default=1.0, metadata=_LATENCY_US)
    # NCCL per-step protocol latency, LL protocol (topologies.md §6).
    protocol_step_us: float = field(default=1.0, metadata=_LATENCY_US)
    # Message size for the reported large-message bus bandwidths (nccl-tests sweeps to 8-16 GB).
    busbw_message_bytes: float = field(default=8e9, metadata={"min": 0.0, "min_exclusive": True, "unit": "bytes"})
    # Hand-drawn, non-layered graphs up to this many devices get a spectral min-bisection.
    spectral_bisection_max_units: int = field(default=50_000, metadata={"min": 0, "unit": "devices"})
    # --- fabric behaviour (core/analysis/load_balance.py, docs/guide/fabrics.md) ---
    # How scale-out tiers spread flows: "auto" = the strongest mode both the switches and the
    # NICs support (catalog load_balancing), or one mode forced (a what-if).
    load_balancing: str = field(default="auto", metadata={"choices": ("auto",) + LOAD_BALANCING_MODES})
    # Queue pairs NCCL opens per connection (NCCL_IB_QPS_PER_CONNECTION, default 1, P: NCCL
    # environment docs); they add hash entropy under ecmp-qp (Meta, SIGCOMM 2024).
    qps_per_connection: int = field(default=1, metadata={"min": 1, "max": 128, "unit": "queue pairs"})
    # NCCL channels (rings / trees) per NIC on multi-node runs (E: NCCL builds 2 per NIC on
    # DGX H100, e.g. 16 channels over 8 NICs in nccl-tests logs).
    channels_per_nic: int = field(default=2, metadata={"min": 1, "max": 64, "unit": "channels"})
    # Peers one rank sends to at once in an all-to-all (E: NCCL's p2p runs a few peers per
    # round on each channel; also the incast degree at a receiver).
    alltoall_peers_in_flight: int = field(default=8, metadata={"min": 1, "max": 4096, "unit": "peers"})
    # Pieces a flowlet switch cuts a flow into at its gaps (E: RDMA elephant flows have few gaps).
    flowlet_splits: int = field(default=4, metadata={"min": 1, "max": 1024, "unit": "flowlets"})
    # "auto" = the switches' (catalog flow_control), or credit / pfc (lossless) / lossy.
    flow_control: str = field(default="auto", metadata={"choices": ("auto",) + FLOW_CONTROLS})
    # Rate of the paused part of an incast burst on a lossless hashed fabric (E: head-of-line
    # blocking behind PFC pauses / exhausted credits).
    pfc_hol_efficiency: float = field(default=0.8, metadata=_EFFICIENCY)
    # Rate of the dropped part of an incast burst with selective retransmit (E; half of it
    # with go-back-N).
    retransmit_efficiency: float = field(default=0.9, metadata=_EFFICIENCY)
    # Packet buffer of a switch whose catalog entry does not publish one (E: a shallow-buffer
    # 51.2T chip; SN5600 has 128 MB).
    unknown_buffer_mb: float = field(default=64.0, metadata={"min": 0.0, "max": 1e6, "unit": "MB"})
    # In-network reduction NCCL uses: none, sharp (InfiniBand switches), nvls (NVLink SHARP in
    # NVSwitch), both, or auto (whatever the hardware has). Off by default: the calibrated
    # validation rows ran ring all-reduce (NCCL_ALGO=Ring measurements, topologies.md §7).
    in_network_reduction: str = field(default="none", metadata={"choices": ("none", "sharp", "nvls", "both", "auto")})
    # All-reduce algorithm bandwidth with NVLS / line rate: 275 of 450 GB/s on 8 x H100
    # (busbw ~480, nccl-tests #212, S. Jeaugey, P).
    nvls_efficiency: float = field(default=0.61, metadata=_EFFICIENCY)
    # Per-NIC all-reduce rate with SHARP / the NIC's NCCL-effective rate (E: the switch
    # reduces at line rate, SHARPv3; no public nccl-tests figure found).
    sharp_efficiency: float = field(default=1.0, metadata=_EFFICIENCY)
