"""A discovered fabric (devices and cables) folded into a compact design.

``ibnetdiscover`` lists every HCA, switch and cable; a design stores repeated structure once.
The folding:

1. **Hosts.** HCAs are grouped into hosts by node description ("node018 HCA-1" and
   "node018 HCA-2" are one host, "node018"); each host takes a catalog server id from the
   mapping (or ``--server``); a mapping entry with a null id leaves such hosts out (login or
   management nodes).
2. **Tiers.** A switch cabled to a host is a leaf; every other switch's tier is one more than its
   distance from the nearest leaf (spine, core, tier4...).
3. **Pods.** Without the top tier the fabric falls apart into pods (scalable units): each a set of
   hosts with the switches below the top tier that serve them. Pods with the same make-up (how
   many units of each catalog id and tier, how many cables of each speed between each pair of
   them and up to the top tier) become one block repeated N times.
4. **Bundles.** Cables between two groups at one speed become one link bundle with its count.

Counts, speeds and catalog ids are kept exactly; which unit of a group a cable lands on is not:
the design spreads a bundle's cables evenly (core/flatten.py), as a generated design does, so a
10,000-server dump evaluates like a generated cluster of the same make-up.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from core.catalog import COMPUTE_KINDS, Catalog
from core.errors import DesignError
from core.generators.clos import LEAF_SPINE_M, NODE_LEAF_M, SPINE_CORE_M
from core.interop.fabric_map import FabricMap
from core.interop.ibnetdiscover import FabricDump
from core.model import Design
from core.project import FORMAT_ID, FORMAT_VERSION, design_from_dict

TIER_NAMES = {1: "leaf", 2: "spine", 3: "core"}
# The dump has no cable lengths: the generators' lengths by tier (core/generators/clos.py), so an
# import and a generated design of the same make-up agree; the floor plan gives real ones.
_LENGTH_M = {1: NODE_LEAF_M, 2: LEAF_SPINE_M}
_UPPER_LENGTH_M = SPINE_CORE_M
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

    def text(self) -> str:
        out = (f"{self.hosts:,} hosts, {self.switches:,} switches and {self.cables:,} cables folded "
               f"into {self.pods:,} pod{'s' * (self.pods != 1)} of {self.pod_kinds} "
               f"kind{'s' * (self.pod_kinds != 1)}")
        if self.hosts_left_out_count:
            names = ", ".join(self.hosts_left_out)
            more = self.hosts_left_out_count - len(self.hosts_left_out)
            out += f"; left out {self.hosts_left_out_count} hosts ({names}{f' and {more} more' * (more > 0)})"
        return out


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
    units, unit_of_node, left_out = _units(dump, catalog, mapping)
    edges = _unit_edges(dump, unit_of_node)
    tiers = _tiers(units, edges, dump.source)
    for unit, tier in tiers.items():
        units[unit] = (units[unit][0], tier)
    top = max(tiers.values(), default=0)
    pods = _pods(units, edges, top)
    name = name or f"Imported from {dump.source}"
    signatures = _signatures(pods, units, edges) if top >= 2 else []
    raw = {"format": FORMAT_ID, "version": FORMAT_VERSION, "name": name,
           "design": _design_dict(units, edges, pods, signatures, top, name),
           "metadata": {"imported_from": dump.source}}
    design = design_from_dict(raw, catalog, source=dump.source)
    kinds = len(set(signatures)) if signatures else 1
    summary = ImportSummary(
        hosts=sum(1 for key, _ in units.values() if key[0] == "host"),
        hosts_left_out=tuple(sorted(left_out)[:5]), hosts_left_out_count=len(left_out),
        switches=sum(1 for key, _ in units.values() if key[0] == "switch"),
        cables=len(edges), pods=len(pods), pod_kinds=kinds)
    return design, summary


# --- units: hosts and switches with their catalog ids ---------------------------------------

def _units(dump: FabricDump, catalog: Catalog, mapping: FabricMap):
    """unit name -> ((role, catalog id), tier); node GUID -> unit name (None: left out)."""
    units: dict[str, tuple[tuple[str, str], int]] = {}
    unit_of_node: dict[int, str | None] = {}
    left_out: set[str] = set()
    unmapped_hosts: list[str] = []
    unmapped_switches: Counter[str] = Counter()
    host_ids: dict[str, str | None] = {}
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
            host = host_name(node.description, node.guid, descriptions[node.description.strip()] > 1)
            if host not in host_ids:
                host_ids[host] = mapping.host_for(host)
            catalog_id = host_ids[host]
            if catalog_id is mapping.UNMAPPED:
                unmapped_hosts.append(host)
                continue
            if catalog_id is None:
                left_out.add(host)
                unit_of_node[node.guid] = None
                continue
            units[f"H-{host}"] = (("host", catalog_id), 0)
            unit_of_node[node.guid] = f"H-{host}"
        else:
            raise DesignError(f"{dump.source}: line {node.line}: routers are not imported")
    if unmapped_switches:
        what, n = unmapped_switches.most_common(1)[0]
        raise DesignError(f"{dump.source}: {sum(unmapped_switches.values()):,} switches have no catalog id "
                          f"({n:,} described {what!r}): pass --switch ID or map them in --map FILE")
    if unmapped_hosts:
        raise DesignError(f"{dump.source}: {len(set(unmapped_hosts)):,} hosts have no catalog server "
                          f"(e.g. {unmapped_hosts[0]!r}): pass --server ID or map them in --map FILE")
    _check_kinds(units, catalog, dump.source)
    return units, unit_of_node, left_out


def _check_kinds(units: dict, catalog: Catalog, source: str) -> None:
    for (role, catalog_id) in {key for key, _ in units.values()}:
        spec = catalog.get(catalog_id)
        if role == "switch" and spec.kind != "switch":
            raise DesignError(f"{source}: switches are mapped to {catalog_id!r}, a {spec.kind}")
        if role == "host" and spec.kind not in COMPUTE_KINDS and spec.kind != "storage":
            raise DesignError(f"{source}: hosts are mapped to {catalog_id!r}, a {spec.kind}; "
                              "map them to a server or storage")


def _unit_edges(dump: FabricDump, unit_of_node: dict) -> list[tuple[str, str, float]]:
    edges = []
    for guid_a, _, guid_b, _, speed in dump.cables:
        a, b = unit_of_node.get(guid_a), unit_of_node.get(guid_b)
        if a is None or b is None:
            continue  # a left-out host's cable
        if a == b:
            continue  # two HCAs of one host cabled back to back: not a fabric link
        edges.append((a, b, speed))
    return edges


# --- tiers and pods ----------------------------------------------------------------------------

def _tiers(units: dict, edges: list, source: str) -> dict[str, int]:
    """0 for hosts; a switch's tier is 1 + its distance from the nearest leaf."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b, _ in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    tiers = {u: 0 for u, (key, _) in units.items() if key[0] == "host"}
    frontier = {n for h in tiers for n in neighbours[h] if units[n][0][0] == "switch"}
    tier = 1
    while frontier:
        for unit in frontier:
            tiers[unit] = tier
        frontier = {n for u in frontier for n in neighbours[u] if n not in tiers}
        tier += 1
    stray = [u for u in units if u not in tiers]
    if stray:
        raise DesignError(f"{source}: {len(stray):,} switches reach no host (e.g. {stray[0]}): "
                          "the dump holds more than one fabric, or only part of one")
    return tiers


def _pods(units: dict, edges: list, top: int) -> list[list[str]]:
    """Connected parts of the fabric below its top switch tier (one part when it has one tier)."""
    if top < 2:
        return [list(units)]
    parent = {u: u for u, (_, tier) in units.items() if tier < top}

    def find(u: str) -> str:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for a, b, _ in edges:
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
    members: dict[str, list[str]] = defaultdict(list)
    for unit in parent:
        members[find(unit)].append(unit)
    return sorted(members.values(), key=lambda pod: min(pod))


def _group(units: dict, unit: str) -> tuple[str, str, int]:
    (role, catalog_id), tier = units[unit]
    return role, catalog_id, tier


def _signatures(pods: list[list[str]], units: dict, edges: list) -> list:
    """Each pod's make-up: its units by group, and its cables by group pair, speed and whether
    both ends are inside it. One pass over the cables for all pods."""
    pod_of = {u: i for i, pod in enumerate(pods) for u in pod}
    bundles: list[Counter] = [Counter() for _ in pods]
    for a, b, speed in edges:
        pa, pb = pod_of.get(a), pod_of.get(b)
        key_ends = tuple(sorted((_group(units, a), _group(units, b))))
        if pa is not None:
            bundles[pa][(key_ends, speed, pa == pb)] += 1
        if pb is not None and pb != pa:
            bundles[pb][(key_ends, speed, False)] += 1
    return [(frozenset(Counter(_group(units, u) for u in pod).items()), frozenset(b.items()))
            for pod, b in zip(pods, bundles)]


# --- the design --------------------------------------------------------------------------------

def _node_id(group: tuple[str, str, int], groups: list) -> str:
    role, catalog_id, tier = group
    base = "nodes" if role == "host" else TIER_NAMES.get(tier, f"tier{tier}")
    same = [g for g in groups if (g[0] == "host") == (role == "host") and g[2] == tier]
    return base if len(same) == 1 else f"{base}-{catalog_id}"


def _component(node_id: str, group: tuple[str, str, int], count: int, y: float, x: float) -> dict[str, Any]:
    role, catalog_id, tier = group
    out: dict[str, Any] = {"type": "component", "id": node_id, "catalog_id": catalog_id,
                           "count": count, "x": x, "y": y}
    if role == "switch":
        out["tier"] = TIER_NAMES.get(tier, f"tier{tier}")
        out["name"] = out["tier"].capitalize()
    else:
        out["name"] = "Hosts"
    return out


def _link(number: int, a: str, b: str, speed: float, count: int, tier: int) -> dict[str, Any]:
    return {"id": f"l{number}", "a": a, "b": b, "kind": "scale-out", "speed_gbit_s": speed,
            "count": count, "length_m": _LENGTH_M.get(tier, _UPPER_LENGTH_M), "medium": "fiber"}


def _design_dict(units: dict, edges: list, pods: list, signatures: list, top: int,
                 name: str) -> dict[str, Any]:
    in_pod = top >= 2
    by_signature: dict[Any, list[list[str]]] = defaultdict(list)
    for pod, signature in zip(pods, signatures):
        by_signature[signature].append(pod)
    kinds = sorted(by_signature.values(), key=lambda same: (-len(same), min(same[0])))
    root_children: list[dict] = []
    root_links: list[dict] = []
    pod_of_unit: dict[str, tuple[str, str]] = {}   # unit -> (block id, node id) of a pod's first
    for k, same in enumerate(kinds):
        block_id = "su" if len(kinds) == 1 else f"su{k + 1}"
        first = same[0]
        groups = sorted({_group(units, u) for u in first}, key=lambda g: (g[2], g[0], g[1]))
        ids = {g: _node_id(g, groups) for g in groups}
        counts = Counter(_group(units, u) for u in first)
        children = [_component(ids[g], g, counts[g], y=160.0 * (1 - g[2]), x=0.0)
                    for g in groups]
        links = _pod_links(first, units, edges, ids)
        root_children.append({"type": "block", "id": block_id, "name": f"Pod ({len(same)}x)"
                              if len(kinds) > 1 else "Scalable unit", "count": len(same), "role": "su",
                              "x": 400.0 * k, "y": 200.0, "children": children, "links": links})
        for pod in same:
            for u in pod:
                pod_of_unit[u] = (block_id, ids[_group(units, u)])
    # the top tier (or everything, for a one-tier fabric) at the root
    top_units = [u for u, (_, tier) in units.items() if not in_pod or tier == top]
    top_groups = sorted({_group(units, u) for u in top_units}, key=lambda g: (g[2], g[0], g[1]))
    top_ids = {g: _node_id(g, top_groups) for g in top_groups}
    top_counts = Counter(_group(units, u) for u in top_units)
    for i, g in enumerate(top_groups):
        root_children.append(_component(top_ids[g], g, top_counts[g],
                                        y=0.0 if g[0] == "switch" else 200.0, x=300.0 * i))
    bundles: Counter = Counter()
    for a, b, speed in edges:
        ends = []
        for u in (a, b):
            if u in pod_of_unit:
                block_id, node_id = pod_of_unit[u]
                ends.append((f"{block_id}/{node_id}", units[u][1]))
            else:
                ends.append((top_ids[_group(units, u)], units[u][1]))
        if in_pod and a in pod_of_unit and b in pod_of_unit:
            continue  # inside a pod: the block's own links
        (pa, ta), (pb, tb) = sorted(ends, key=lambda e: (e[1], e[0]))
        bundles[(pa, pb, speed, max(ta, tb))] += 1
    for n, ((pa, pb, speed, tier), count) in enumerate(sorted(bundles.items()), 1):
        root_links.append(_link(n, pa, pb, speed, count, tier))
    return {"type": "block", "id": "root", "name": name, "x": 0.0, "y": 0.0,
            "children": root_children, "links": root_links}


def _pod_links(pod: list[str], units: dict, edges: list, ids: dict) -> list[dict]:
    inside = set(pod)
    bundles: Counter = Counter()
    for a, b, speed in edges:
        if a in inside and b in inside:
            ga, gb = sorted((_group(units, a), _group(units, b)), key=lambda g: (g[2], g[0], g[1]))
            bundles[(ids[ga], ids[gb], speed, max(ga[2], gb[2]))] += 1
    return [_link(n, a, b, speed, count, tier)
            for n, ((a, b, speed, tier), count) in enumerate(sorted(bundles.items()), 1)]
