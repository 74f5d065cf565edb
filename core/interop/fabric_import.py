"""A discovered fabric (devices and cables) folded into a compact design.

``ibnetdiscover`` lists every HCA, switch and cable; a design stores repeated structure once.
The folding:

1. **Hosts.** HCAs are grouped into hosts by node description ("node018 HCA-1" and
   "node018 HCA-2" are one host, "node018"); each host takes a catalog server id from the
   mapping (or ``--server``); a mapping entry with a null id leaves such hosts out (login or
   management nodes).
2. **Tiers.** A switch cabled to a host is a leaf; every other switch's tier is one more than its
   distance from the nearest leaf (spine, core, tier4...).
3. **Pods, level by level** (core/interop/fold.py). Without its top tier the fabric falls apart
   into pods, and each pod without its own top tier into smaller ones, down to scalable units of
   leaves and hosts. Pods of the same make-up become one block repeated N times.
4. **Bundles.** Cables between two groups at one speed become one link bundle with its count.

Counts, speeds and catalog ids are kept exactly; which unit of a group a cable lands on is not:
the design spreads a bundle's cables evenly (core/flatten.py), as a generated design does, so a
10,000-server dump evaluates like a generated cluster of the same make-up.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.catalog import COMPUTE_KINDS, Catalog
from core.errors import DesignError
from core.gc_pause import gc_paused
from core.interop.fabric_map import FabricMap
from core.interop.fold import Adjacency, Folder, cable_adjacency
from core.interop.ibnetdiscover import FabricDump
from core.model import Design
from core.project import FORMAT_ID, FORMAT_VERSION, design_from_dict

_HCA_SUFFIX = re.compile(r"\s+(?:HCA-\d+|mlx\d+_\d+|hfi\d+_\d+|bnxt_re\d+|irdma\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class ImportSummary:
    hosts: int
    hosts_left_out: tuple[str, ...]       # host names (the first few) of hosts mapped to null
    hosts_left_out_count: int
    switches: int
    cables: int
    pods: int
    pod_kinds: int
    racks: int = 0                        # racks placed from the source (Nautobot)
    notes: tuple[str, ...] = ()           # what the source held that the design could not keep

    def text(self) -> str:
        out = (f"{self.hosts:,} hosts, {self.switches:,} switches and {self.cables:,} cables folded "
               f"into {self.pods:,} pod{'s' * (self.pods != 1)} of {self.pod_kinds} "
               f"kind{'s' * (self.pod_kinds != 1)}")
        if self.hosts_left_out_count:
            names = ", ".join(self.hosts_left_out)
            more = self.hosts_left_out_count - len(self.hosts_left_out)
            out += f"; left out {self.hosts_left_out_count} hosts ({names}{f' and {more} more' * (more > 0)})"
        if self.racks:
            out += f"; {self.racks:,} racks placed on the floor plan"
        return "; ".join([out, *self.notes])


def host_name(description: str, guid: int, shared: bool = False) -> str:
    """The host an HCA belongs to: its description without the HCA's own name ("node018 HCA-1"
    is on "node018"). An HCA whose description names no HCA and is shared with other HCAs still
    carries the firmware's default ("MT23108 InfiniHost Mellanox Technologies"): it names no
    host, so the HCA is a host of its own, named by its GUID."""
    text = description.strip()
    name = _HCA_SUFFIX.sub("", text)
    if not name or (name == text and shared):
        return f"hca-{guid:016x}"
    return name


def design_from_fabric(dump: FabricDump, catalog: Catalog, mapping: FabricMap,
                       name: str = "") -> tuple[Design, ImportSummary]:
    with gc_paused():  # a unit and an edge tuple per HCA and cable; none are in a cycle
        units, unit_of_node, left_out = _units(dump, catalog, mapping)
        return design_from_devices({u: key for u, (key, _) in units.items()}, _unit_edges(dump, unit_of_node),
                                   catalog, dump.source, name, left_out)


def design_from_devices(devices: dict[str, tuple[str, str]], cables: list[tuple], catalog: Catalog,
                        source: str, name: str = "", left_out=()) -> tuple[Design, ImportSummary]:
    """A folded design from devices (name -> (role "host"/"switch", catalog id)) and cables
    (a, b, speed Gb/s, link kind, length m or None, medium or None): what every import shares."""
    _check_kinds(devices, catalog, source)
    with gc_paused():  # the fold builds a tuple per cable end; none are in a cycle
        adjacency = cable_adjacency(cables)
        tiers = _tiers(devices, adjacency, source)
        groups = {u: (role, catalog_id, tiers[u]) for u, (role, catalog_id) in devices.items()}
        root = Folder(groups, adjacency).fold(list(devices))
    name = name or f"Imported from {source}"
    raw = {"format": FORMAT_ID, "version": FORMAT_VERSION, "name": name,
           "design": {"type": "block", "id": "root", "name": name, "x": 0.0, "y": 0.0,
                      "children": root.children, "links": root.links},
           "metadata": {"imported_from": source}}
    design = design_from_dict(raw, catalog, source=source)
    summary = ImportSummary(
        hosts=sum(1 for role, _, _ in groups.values() if role == "host"),
        hosts_left_out=tuple(sorted(left_out)[:5]), hosts_left_out_count=len(left_out),
        switches=sum(1 for role, _, _ in groups.values() if role == "switch"),
        cables=len(cables), pods=max(root.pods, 1), pod_kinds=max(root.pod_kinds, 1))
    return design, summary


# --- units: hosts and switches with their catalog ids ---------------------------------------

def _units(dump: FabricDump, catalog: Catalog, mapping: FabricMap):
    """unit name -> ((role, catalog id), tier); node GUID -> unit name (None: left out)."""
    units: dict[str, tuple[tuple[str, str], int]] = {}
    unit_of_node: dict[int, str | None] = {}
    left_out: set[str] = set()
    unmapped_hosts: list[str] = []
    unmapped_switches: Counter[str] = Counter()
    host_units: dict[str, object] = {}  # host -> its unit name, None (left out) or UNMAPPED
    unseen = object()
    descriptions = Counter(n.description.strip() for n in dump.nodes.values() if n.kind == "ca")
    for node in dump.nodes.values():
        if node.kind == "switch":
            catalog_id = mapping.switch_for(node.description, catalog)
            if catalog_id is None:
                unmapped_switches[node.description or "(no description)"] += 1
                continue
            unit = f"S-{node.guid:016x}"
            units[unit] = (("switch", catalog_id), 0)
            unit_of_node[node.guid] = unit
        elif node.kind == "ca":
            text = node.description.strip()
            host = host_name(text, node.guid, descriptions[text] > 1)
            unit = host_units.get(host, unseen)
            if unit is unseen:  # the host's first HCA: its catalog id, once for all its HCAs
                catalog_id = mapping.host_for(host)
                if catalog_id is mapping.UNMAPPED or catalog_id is None:
                    unit = catalog_id
                    if catalog_id is None:
                        left_out.add(host)
                else:
                    unit = f"H-{host}"
                    units[unit] = (("host", catalog_id), 0)
                host_units[host] = unit
            if unit is mapping.UNMAPPED:
                unmapped_hosts.append(host)
                continue
            unit_of_node[node.guid] = unit
        else:
            raise DesignError(f"{dump.source}: line {node.line}: routers are not imported")
    if unmapped_switches:
        what, n = unmapped_switches.most_common(1)[0]
        raise DesignError(f"{dump.source}: {sum(unmapped_switches.values()):,} switches have no catalog id "
                          f"({n:,} described {what!r}): choose their catalog switch (--switch ID) or map them "
                          "in a mapping file (--map FILE)")
    if unmapped_hosts:
        raise DesignError(f"{dump.source}: {len(set(unmapped_hosts)):,} hosts have no catalog server "
                          f"(e.g. {unmapped_hosts[0]!r}): choose their catalog server (--server ID) or map "
                          "them in a mapping file (--map FILE)")
    return units, unit_of_node, left_out


def _check_kinds(devices: dict, catalog: Catalog, source: str) -> None:
    for (role, catalog_id) in set(devices.values()):
        spec = catalog.get(catalog_id)
        if role == "switch" and spec.kind != "switch":
            raise DesignError(f"{source}: switches are mapped to {catalog_id!r}, a {spec.kind}")
        if role == "host" and spec.kind not in COMPUTE_KINDS and spec.kind != "storage":
            raise DesignError(f"{source}: hosts are mapped to {catalog_id!r}, a {spec.kind}; "
                              "map them to a server or storage")


def _unit_edges(dump: FabricDump, unit_of_node: dict) -> list[tuple]:
    """The dump's cables between kept units, as design_from_devices takes them: a dump holds
    no length or medium (None: the generators' by tier)."""
    edges = []
    for guid_a, _, guid_b, _, speed in dump.cables:
        a, b = unit_of_node.get(guid_a), unit_of_node.get(guid_b)
        if a is None or b is None:
            continue  # a left-out host's cable
        if a == b:
            continue  # two HCAs of one host cabled back to back: not a fabric link
        edges.append((a, b, speed, "scale-out", None, None))
    return edges


# --- tiers ---------------------------------------------------------------------------------

def _tiers(units: dict, adjacency: Adjacency, source: str) -> dict[str, int]:
    """0 for hosts; a switch's tier is 1 + its distance from the nearest leaf."""
    tiers = {u: 0 for u, (role, _) in units.items() if role == "host"}
    frontier = {n for h in tiers for n, _ in adjacency.get(h, ()) if units[n][0] == "switch"}
    tier = 1
    while frontier:
        for unit in frontier:
            tiers[unit] = tier
        frontier = {n for u in frontier for n, _ in adjacency.get(u, ()) if n not in tiers}
        tier += 1
    stray = [u for u in units if u not in tiers]
    if stray:
        raise DesignError(f"{source}: {len(stray):,} switches reach no host (e.g. {stray[0]}): "
                          "the dump holds more than one fabric, or only part of one")
    return tiers
