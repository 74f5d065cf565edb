"""Port checks of a flattened design: every node and switch cabled within its ports.

Switches asked for more ports (or faster ports) than they have, compute nodes cabled beyond
their NICs or DPUs, and mixed scale-out speeds on one switch are each a Diagnostic. The check
runs on the group/bundle arrays (one row per drawn item), so a design drawn device by device
stays linear; only the groups the arrays flag are examined one by one for their messages.
"""

from __future__ import annotations

import numpy as np

from core.catalog import COMPUTE_KINDS, ComponentSpec
from core.diagnostics import Diagnostic
from core.flatten import FlatDesign
from core.port_modes import links_per_port


def _port_device(spec: ComponentSpec, catalog, link_class: str) -> ComponentSpec | None:
    """The device whose ports a node's links of ``link_class`` take (its NIC, its DPU, or the
    node itself), None where the catalog lists none (scale-up ports have no modes)."""
    if spec.kind in COMPUTE_KINDS:
        if link_class == "scale-up":
            return None
        device_id = spec.nic if link_class == "scale-out" else spec.dpu
        return catalog.get(device_id) if device_id in catalog else None
    return spec


def _links_per_node_port(spec: ComponentSpec, catalog, link_class: str, gbit_s: float) -> int:
    """Links of ``gbit_s`` one of the node's native ports carries: a ConnectX-8 800G port split
    into 4 x 200G (4 planes) carries 4 links, so 32 links of 200G take a DGX B300's 8 ports,
    not 32 of them. 1 at the native speed, a downshift or a speed the device lists no mode for
    (that is LINK_FASTER_THAN_PORT's or nobody's business, not a port count's)."""
    device = _port_device(spec, catalog, link_class)
    if device is None or not device.port_modes():
        return 1
    return max(1, links_per_port(device, gbit_s))


def _node_ports(spec: ComponentSpec, catalog, link_class: str) -> tuple[int, float]:
    """(ports, Gb/s per port) a node offers to links of ``link_class``.

    Compute nodes give their NICs to the compute fabric ("scale-out") and their DPUs to the
    storage/front-end networks; without DPUs those networks use host ports the catalog does not
    list (DGX H100: two dual-port ConnectX-7 for storage and in-band), so they are not checked.
    """
    if spec.kind in COMPUTE_KINDS:
        if link_class == "scale-up":
            return int(spec.scale_up_ports or 0), float(spec.scale_up_port_gbit_s or 0)
        device_id, devices = (spec.nic, spec.nics) if link_class == "scale-out" else (spec.dpu, spec.dpus)
        if device_id not in catalog or not devices:
            return 0, 0.0
        device = catalog.get(device_id)
        return int(devices) * int(device.ports), float(device.port_gbit_s)
    return int(spec.ports), float(spec.port_gbit_s)


_LINK_CLASSES = ("scale-out", "scale-up", "other")
_CHECKED_NODE_KINDS = (*COMPUTE_KINDS, "storage", "nic", "dpu", "appliance")
# Candidates for a port warning are found on arrays with a looser margin than the warnings'
# own 1e-9, then checked one by one, so the array sums (added in another order) never hide one.
_CANDIDATE_MARGIN = 1e-10


def port_diagnostics(flat: FlatDesign) -> list[Diagnostic]:
    """Port warnings: switches asked for more ports (or speeds) than they have, nodes cabled
    beyond their NICs, mixed scale-out speeds."""
    n = len(flat.multiplicity)
    class_of_kind = np.array([_LINK_CLASSES.index(kind) if kind in _LINK_CLASSES[:2] else 2
                              for kind in flat.kind_names], dtype=np.int64)
    link_class = class_of_kind[flat.kind_code] if len(class_of_kind) else flat.kind_code
    speeds, speed_code = flat.speed_values, flat.speed_code
    ports = np.array([[spec.port_count_at(float(v)) if spec.kind == "switch" else 0
                       for v in speeds] for spec in flat.specs], dtype=float)
    checked = flat.per_group(lambda spec: spec.kind in _CHECKED_NODE_KINDS, dtype=bool)
    node_ports = np.array([[_node_ports(spec, flat.catalog, c) if spec.kind in _CHECKED_NODE_KINDS
                            else (0, 0.0) for c in _LINK_CLASSES] for spec in flat.specs],
                          dtype=float).reshape(-1, 3, 2)
    # links per native node port by (spec, link class, speed): a split port is one port
    node_split = np.array([[[_links_per_node_port(spec, flat.catalog, c, float(v))
                             if spec.kind in _CHECKED_NODE_KINDS else 1 for v in speeds]
                            for c in _LINK_CLASSES] for spec in flat.specs],
                          dtype=float).reshape(len(flat.specs), 3, len(speeds))
    switch = flat.kind == "switch"
    fraction = np.zeros(n)        # share of its ports every switch uses (supported speeds)
    cables = np.zeros(n * 3)      # cables per unit of every (group, link class)
    candidate = np.zeros(n, dtype=bool)
    for group in (flat.bundle_a, flat.bundle_b):
        per_unit = flat.cables / flat.multiplicity[group]
        row = flat.spec_row[group]
        at_speed = ports[row, speed_code] if len(group) else np.zeros(0)
        on_switch = switch[group]
        candidate[group[on_switch & (at_speed == 0)]] = True
        usable = on_switch & (at_speed > 0)
        fraction += np.bincount(group[usable], weights=per_unit[usable] / at_speed[usable],
                                minlength=n)
        split = node_split[row, link_class, speed_code] if len(group) else np.ones(0)
        cables += np.bincount(group * 3 + link_class, weights=per_unit / split, minlength=n * 3)
        port_total, port_speed = node_ports[row, link_class, 0], node_ports[row, link_class, 1]
        on_node = checked[group]
        candidate[group[on_node & (port_total == 0) & (link_class == 1)
                        & flat.is_compute[group]]] = True
        candidate[group[on_node & (port_total > 0)
                        & (flat.speed_gbit_s > port_speed + _CANDIDATE_MARGIN)]] = True
    candidate |= switch & (fraction > 1 + _CANDIDATE_MARGIN)
    total_ports = node_ports[flat.spec_row, :, 0].ravel()
    over = np.flatnonzero((total_ports > 0) & (cables > total_ports + _CANDIDATE_MARGIN)) // 3
    candidate[over[checked[over]]] = True

    out = _port_warnings(flat, candidate) if candidate.any() else []
    data_fabric = flat.per_group(lambda spec: spec.kind in (*COMPUTE_KINDS, "switch"), dtype=bool)
    # appliances (a UFM on NDR 200G) may run slower without mixing the data fabric
    fabric_links = (flat.bundles_of_kind("scale-out") & data_fabric[flat.bundle_a]
                    & data_fabric[flat.bundle_b])
    mixed = speeds[np.bincount(speed_code[fabric_links], minlength=len(speeds)) > 0].tolist()
    if len(mixed) > 1:
        out.append(Diagnostic(
            "MIXED_LINK_SPEEDS",
            "scale-out links run at mixed speeds: " + ", ".join(f"{s:g}G" for s in sorted(mixed)),
            ()))
    return out


def _port_warnings(flat: FlatDesign, candidate: np.ndarray) -> list[Diagnostic]:
    """The port warnings of the candidate groups, in the order their bundles list them."""
    # group -> link class -> speed -> cables per unit, summed in bundle order
    usage: dict[int, dict[str, dict[float, float]]] = {}
    bundles_at: dict[tuple[int, float], list[int]] = {}  # (group, speed) -> its bundles
    ends = np.stack([flat.bundle_a, flat.bundle_b], axis=1).ravel()
    picked = np.flatnonzero(candidate[ends])
    bundle = picked // 2
    per_unit = (flat.cables[bundle] / flat.multiplicity[ends[picked]]).tolist()
    for end, k, kind, speed, cables in zip(ends[picked].tolist(), bundle.tolist(),
                                           flat.kind_code[bundle].tolist(),
                                           flat.speed_gbit_s[bundle].tolist(), per_unit):
        link_class = flat.kind_names[kind] if flat.kind_names[kind] in _LINK_CLASSES[:2] else "other"
        by_speed = usage.setdefault(end, {}).setdefault(link_class, {})
        by_speed[speed] = by_speed.get(speed, 0.0) + cables
        bundles_at.setdefault((end, speed), []).append(k)
    out: list[Diagnostic] = []
    catalog = flat.catalog
    for i, by_class in usage.items():
        path = flat.paths[i]
        spec = flat.specs[flat.spec_row[i]]
        if spec.kind == "switch":
            by_speed: dict[float, float] = {}
            for per_class in by_class.values():
                for speed, cables in per_class.items():
                    by_speed[speed] = by_speed.get(speed, 0.0) + cables
            fraction = 0.0
            for speed, cables in by_speed.items():
                ports = spec.port_count_at(speed)
                if ports == 0:
                    out.append(_unsupported_speed(flat, i, spec, speed, bundles_at[i, speed]))
                    continue
                fraction += cables / ports
            if fraction > 1 + 1e-9:
                used = ", ".join(f"{c:g} x {s:g}G" for s, c in by_speed.items())
                out.append(Diagnostic(
                    "SWITCH_PORTS_EXCEEDED",
                    f"{path} ({spec.id}): {used} links per switch use {fraction:.0%} of its ports",
                    (path,)))
            continue
        for link_class, by_speed in by_class.items():
            ports, port_speed = _node_ports(spec, catalog, link_class)
            if not ports and link_class == "scale-up" and spec.kind in COMPUTE_KINDS:
                out.append(Diagnostic(
                    "NO_SCALE_UP_PORTS",
                    f"{path} ({spec.id}) lists no scale-up ports that leave the node; its "
                    f"drawn scale-up links are modelled as drawn", (path,)))
                continue
            if not ports:
                continue
            cables = sum(by_speed.values())
            taken = sum(c / _links_per_node_port(spec, catalog, link_class, s)
                        for s, c in by_speed.items())
            if taken > ports + 1e-9:
                split = " (split ports counted once)" if taken < cables - 1e-9 else ""
                out.append(Diagnostic(
                    "NODE_PORTS_EXCEEDED",
                    f"{path} ({spec.id}): {cables:g} {link_class} links per unit take "
                    f"{taken:g} ports{split} but it has only {ports}", (path,)))
            fast = [s for s in by_speed if s > port_speed + 1e-9]
            if fast:
                out.append(Diagnostic(
                    "LINK_FASTER_THAN_PORT",
                    f"{path} ({spec.id}): {max(fast):g} Gb/s links exceed its {port_speed:g} Gb/s ports",
                    (path,)))
    return out


def _unsupported_speed(flat: FlatDesign, group: int, spec: ComponentSpec, speed: float,
                       bundles: list[int]) -> Diagnostic:
    """A switch asked for a speed none of its port modes runs, naming the links that ask."""
    path = flat.paths[group]
    named = [f"{flat.paths[flat.bundle_a[k]]} - {flat.paths[flat.bundle_b[k]]}" for k in bundles]
    links = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    offered = ", ".join(f"{count} x {float(s):g}G" for s, count in spec.ports_by_gbit_s.items())
    ends = dict.fromkeys([path, *(flat.paths[e] for k in bundles
                                  for e in (flat.bundle_a[k], flat.bundle_b[k]))])
    return Diagnostic(
        "PORT_SPEED_UNSUPPORTED",
        f"{path} ({spec.id}) has no {speed:g} Gb/s ports for the link{'s' * (len(named) > 1)} "
        f"{links}: its ports run {offered} (a slower link needs a breakout or downshift mode "
        f"the catalog lists)", tuple(ends))
