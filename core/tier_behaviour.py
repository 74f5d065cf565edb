"""The facts of each scale-out tier the load-balancing model needs, read off the flat design.

Per tier (never per link): the uplinks and downlinks of one switch (array sums over bundles),
the load-balancing mode the switches and the NICs can run together, the flow control, the leaf
buffer per port. ``core/topology.py`` puts them on the FabricView's levels
(``core.fabric.TierBehaviour``); ``core/analysis/load_balance.py`` turns them into fractions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.catalog_fabric import LOAD_BALANCING_MODES, SWITCH_ONLY_MODES, nic_modes, switch_modes
from core.diagnostics import Diagnostic
from core.flatten import FlatDesign


@dataclass(frozen=True)
class FabricFacts:
    mode: str
    modes_available: tuple[str, ...]
    flow_control: str
    selective_retransmit: bool
    leaf_buffer_mb_per_port: float
    nic_gbyte_s: float
    paths: tuple[int, ...]              # per tier rank 1..R: uplinks of one switch (0 if none)
    sources: tuple[int, ...]            # per tier rank: downlinks into one switch
    flows_per_source: tuple[float, ...]  # per tier rank: NICs' worth behind one downlink
    uplink_gbit_s: tuple[float, ...]     # per tier rank: mean speed of one uplink
    diagnostics: tuple[Diagnostic, ...] = ()


def fabric_facts(flat: FlatDesign, ranks: np.ndarray, step: np.ndarray, lo: np.ndarray,
                 hi: np.ndarray, max_rank: int, server, a) -> FabricFacts | None:
    """The tiers' facts, or None without scale-out tiers. ``step`` marks the bundles between
    adjacent tiers, ``lo`` / ``hi`` their ends' ranks (0 = compute)."""
    if max_rank < 1:
        return None
    catalog = flat.catalog
    links = flat.cables[step].astype(float)
    up_links = np.bincount(lo[step], weights=links, minlength=max_rank + 1)
    up_gbit_s = np.bincount(lo[step], weights=flat.capacity_gbit_s[step], minlength=max_rank + 1)
    down_gbit_s = np.bincount(hi[step], weights=flat.capacity_gbit_s[step], minlength=max_rank + 1)
    down_links = np.bincount(hi[step], weights=links, minlength=max_rank + 1)
    switch = (flat.kind == "switch") & (ranks >= 1)
    units = np.bincount(ranks[switch], weights=flat.multiplicity[switch].astype(float),
                        minlength=max_rank + 1)
    nic = catalog.get(server.nic) if server.nic and server.nic in catalog else None
    nic_speed = float(nic.port_gbit_s) if nic is not None else float(
        np.max(flat.speed_gbit_s[step & (lo == 0)], initial=0.0))
    paths, sources, behind, speeds = [], [], [], []
    carried = 1.0
    for r in range(1, max_rank + 1):
        n = max(units[r], 1.0)
        paths.append(int(round(up_links[r] / n)))
        sources.append(int(round(down_links[r] / n)))
        # NICs' worth of flows on one downlink: its speed over a NIC's (a 200G port of a
        # dual-plane 400G NIC carries half of it), times the oversubscription below
        down_speed = down_gbit_s[r] / down_links[r] if down_links[r] > 0 else 0.0
        behind.append(carried * down_speed / nic_speed if nic_speed > 0 else carried)
        speeds.append(float(up_gbit_s[r] / up_links[r]) if up_links[r] > 0 else 0.0)
        if up_gbit_s[r] > 0:
            carried *= down_gbit_s[r] / up_gbit_s[r]
    # the distinct switch models (a handful), not the switch groups
    switch_specs = [flat.specs[row] for row in np.unique(flat.spec_row[switch]).tolist()]
    leaf_specs = [flat.specs[row] for row in
                  np.unique(flat.spec_row[switch & (ranks == 1)]).tolist()]
    protocol = switch_specs[0].protocol if switch_specs else ""
    shared = set(LOAD_BALANCING_MODES)
    for spec in switch_specs:
        shared &= set(switch_modes(spec))
    from_nic = nic_modes(nic, protocol)
    if from_nic is not None:
        shared &= set(from_nic) | set(SWITCH_ONLY_MODES)
    available = tuple(m for m in LOAD_BALANCING_MODES if m in shared) or ("ecmp",)
    diagnostics: list[Diagnostic] = []
    if a.load_balancing == "auto":
        mode = available[-1]
    else:
        mode = a.load_balancing
        if mode not in available:
            diagnostics.append(Diagnostic(
                "LOAD_BALANCING_UNSUPPORTED",
                f"network.load_balancing {mode!r} is not supported by the switches and NICs "
                f"(they support {', '.join(available)}): evaluated as a what-if", ()))
    flows = [spec.flow_control or ("credit" if spec.protocol == "infiniband" else "pfc")
             for spec in switch_specs]
    if a.flow_control != "auto":
        flow_control = a.flow_control
    elif "lossy" in flows:
        flow_control = "lossy"
    elif "pfc" in flows:
        flow_control = "pfc"
    else:
        flow_control = "credit"
    per_port = []
    for spec in leaf_specs:
        ports = spec.port_count_at(nic_speed) or max(spec.port_modes().values(), default=1)
        per_port.append(float(spec.buffer_mb or a.unknown_buffer_mb) / max(1, ports))
    return FabricFacts(
        mode=mode, modes_available=available, flow_control=flow_control,
        selective_retransmit=bool(nic.selective_retransmit) if nic is not None else False,
        leaf_buffer_mb_per_port=min(per_port, default=a.unknown_buffer_mb / 64.0),
        nic_gbyte_s=nic_speed / 8.0, paths=tuple(paths), sources=tuple(sources),
        flows_per_source=tuple(behind), uplink_gbit_s=tuple(speeds),
        diagnostics=tuple(diagnostics))
