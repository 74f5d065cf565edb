"""How a switch or NIC handles traffic: load balancing, flow control, buffer (catalog fields).

The vocabulary the catalog, the assumptions (``network.load_balancing``) and the analysis
(``core/analysis/load_balance.py``) share, and the check of the catalog fields:

* ``load_balancing`` (switch): the modes it can run, from ``LOAD_BALANCING_MODES``:
  ``ecmp`` (static hash of the 5-tuple), ``ecmp-qp`` (the hash also sees the RoCE queue pair,
  so a connection spread over several queue pairs takes several paths), ``flowlet`` (a flow
  re-hashed at gaps in its packets), ``adaptive`` (per-packet adaptive routing or spraying,
  with the NIC putting packets back in order), ``scheduled`` (a cell fabric whose
  receiver grants every transfer, Jericho3-AI class).
* ``load_balancing_by_protocol`` (NIC, DPU): the modes the NIC takes part in, per protocol it
  speaks (a ConnectX-7 reorders sprayed packets on InfiniBand, not on Ethernet).
* ``flow_control`` (switch): ``credit`` (InfiniBand-style link credits: lossless, no pause
  storms), ``pfc`` (priority flow control: lossless, pauses spread back), ``lossy`` (drops;
  recovery is the NIC's).
* ``selective_retransmit`` (NIC): resends only the lost packets (Ultra Ethernet class), so a
  lossy fabric costs little.
* ``buffer_mb`` (switch): packet buffer of one switch, shared by its ports.
* ``fabric_source``: where these come from, with evidence tags (P/S/D/E).
"""

from __future__ import annotations

from typing import Any

from core.design_fields import show

# Weakest first: "auto" picks the last one both the switches and the NICs support.
LOAD_BALANCING_MODES = ("ecmp", "ecmp-qp", "flowlet", "adaptive", "scheduled")
FLOW_CONTROLS = ("credit", "pfc", "lossy")
# Modes the switches run on their own: the NIC only needs to send ordinary flows.
SWITCH_ONLY_MODES = ("ecmp", "flowlet", "scheduled")


def _modes_problem(value: Any) -> str | None:
    if not isinstance(value, list) or not value:
        return f"expected a non-empty list of {', '.join(LOAD_BALANCING_MODES)}, got {show(value)}"
    for mode in value:
        if mode not in LOAD_BALANCING_MODES:
            return (f"unknown load-balancing mode {show(mode)}: one of "
                    f"{', '.join(LOAD_BALANCING_MODES)}")
    return None


def fabric_problem(kind: str, values: dict[str, Any], max_number: float) -> tuple[str, str] | None:
    """(field, message) of the first bad fabric-behaviour field of a catalog entry, or None."""
    if kind == "switch":
        if values.get("load_balancing") is not None:
            problem = _modes_problem(values["load_balancing"])
            if problem:
                return "load_balancing", problem
        flow = values.get("flow_control")
        if flow is not None and flow not in FLOW_CONTROLS:
            return "flow_control", f"must be one of {', '.join(FLOW_CONTROLS)}, got {show(flow)}"
        buffer_mb = values.get("buffer_mb")
        if buffer_mb is not None and not 0 < buffer_mb <= max_number:
            return "buffer_mb", f"must be a positive number of MB, got {show(buffer_mb)}"
    if kind in ("nic", "dpu"):
        by_protocol = values.get("load_balancing_by_protocol")
        if by_protocol is not None:
            for protocol, modes in by_protocol.items():
                if protocol not in values.get("protocols", []):
                    return ("load_balancing_by_protocol",
                            f"protocol {show(protocol)} is not one of the NIC's protocols "
                            f"({', '.join(values.get('protocols', [])) or 'none'})")
                problem = _modes_problem(modes)
                if problem:
                    return f"load_balancing_by_protocol.{protocol}", problem
    return None


def switch_modes(spec) -> tuple[str, ...]:
    """Modes a switch entry can run; an entry without the field (an old user catalog) runs
    static ECMP, or static routing with adaptive routing on InfiniBand (every Quantum switch
    has it)."""
    modes = spec.load_balancing
    if modes:
        return tuple(modes)
    return ("ecmp", "adaptive") if spec.protocol == "infiniband" else ("ecmp",)


def nic_modes(spec, protocol: str) -> tuple[str, ...] | None:
    """Modes a NIC takes part in on ``protocol``; None when its entry does not say (then the
    switches decide alone)."""
    if spec is None:
        return None
    by_protocol = spec.load_balancing_by_protocol
    if not by_protocol or protocol not in by_protocol:
        return None
    return tuple(by_protocol[protocol])
