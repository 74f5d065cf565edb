"""Fold a device-level fabric (units and cables) into blocks repeated N times, level by level.

A set of units whose highest switch tier is ``t`` keeps its tier-``t`` switches at its own
level; without them the rest falls apart into pods (connected parts), each folded the same way
one tier down. Pods of the same make-up (the same signature: their own groups, their sub-pods'
signatures and their cables by end, speed and tier) become one block with a count. At tier 1
(leaves and hosts) a level is flat: one component per group. So a DGX SuperPOD's dump folds
into pods of scalable units of servers and leaves, with spines in the pods and cores at the
root, as the generator draws it; a last, partly filled scalable unit is a block of its own.

The unit paths of every instance of a block are the same (names follow groups and signatures),
so a link's count at a level is the cables of all instances below it, as core/flatten.py
expects: cables per instance of the block that owns the link.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from core.generators.clos import LEAF_SPINE_M, NODE_LEAF_M, SPINE_CORE_M

Group = tuple[str, str, int]        # (role "host"/"switch", catalog id, tier)
TIER_NAMES = {1: "leaf", 2: "spine", 3: "core"}
# The dump has no cable lengths: the generators' lengths by tier (core/generators/clos.py), so an
# import and a generated design of the same make-up agree; the floor plan gives real ones.
_LENGTH_M = {1: NODE_LEAF_M, 2: LEAF_SPINE_M}


@dataclass
class Level:
    signature: Any
    children: list[dict[str, Any]]
    links: list[dict[str, Any]]
    path: dict[str, str]             # unit -> its path relative to this level
    pods: int = 0                    # sub-pods folded at this level
    pod_kinds: int = 0
    # (unit inside, unit outside, cable) of every cable end leaving the level's members: the
    # level above reads a pod's uplinks here instead of walking every cable of the pod again
    exits: list[tuple[str, str, tuple]] = field(default_factory=list)
    tiers: dict[str, int] = field(default_factory=dict)  # path -> tier of the units there


Adjacency = dict[str, list[tuple[str, tuple]]]  # unit -> (unit at the far end, cable) per cable


def cable_adjacency(cables: list[tuple]) -> Adjacency:
    """``cables``: (a, b, speed Gb/s, link kind, length m or None, medium or None); a length
    or medium the source does not hold is the generators' for the tier."""
    adjacency: Adjacency = defaultdict(list)
    for a, b, speed, kind, length_m, medium in cables:
        cable = (speed, kind, length_m, medium)
        adjacency[a].append((b, cable))
        adjacency[b].append((a, cable))
    return adjacency


class Folder:
    def __init__(self, groups: dict[str, Group], adjacency: Adjacency):
        self.groups = groups
        self.adjacency = adjacency

    def fold(self, members: list[str]) -> Level:
        top = max(self.groups[u][2] for u in members)
        return self._flat(members) if top < 2 else self._tiered(members, top)

    # --- one level ----------------------------------------------------------------------------
    def _flat(self, members: list[str]) -> Level:
        counts = Counter(self.groups[u] for u in members)
        ids = _ids(counts)
        path = {u: ids[self.groups[u]] for u in members}
        children = [_component(ids[g], g, n, i) for i, (g, n) in enumerate(sorted(counts.items(), key=_group_order))]
        tiers = {ids[g]: g[2] for g in counts}
        inside = set(members)
        ends: Counter = Counter()   # (path, path, cable) -> cables: bundled once per kind below
        exits = []
        for a in members:
            at = path[a]
            for b, cable in self.adjacency[a]:
                if b not in inside:
                    exits.append((a, b, cable))
                elif a < b:  # each cable once, from its smaller end
                    ends[(at, path[b], cable)] += 1
        links = _bundled(ends, tiers)
        signature = (1, frozenset(counts.items()), frozenset(_link_counts(links)))
        return Level(signature, children, links, path, exits=exits, tiers=tiers)

    def _tiered(self, members: list[str], top: int) -> Level:
        own = [u for u in members if self.groups[u][2] == top]
        own_counts = Counter(self.groups[u] for u in own)
        ids = _ids(own_counts)
        path = {u: ids[self.groups[u]] for u in own}
        tiers = {ids[g]: g[2] for g in own_counts}
        pods = [self.fold(pod) for pod in self._pods(set(members) - set(own))]
        kinds: dict[Any, list[Level]] = defaultdict(list)
        for pod in pods:
            kinds[(pod.signature, self._uplinks(pod))].append(pod)
        ordered = sorted(kinds.values(), key=lambda same: (-len(same), -len(same[0].path), min(same[0].path)))
        base = "su" if top == 2 else "pod"
        children = [_component(ids[g], g, n, i)
                    for i, (g, n) in enumerate(sorted(own_counts.items(), key=_group_order))]
        for k, same in enumerate(ordered):
            block_id = base if k == 0 else f"{base}-{k}"
            first = same[0]
            children.append({"type": "block", "id": block_id, "count": len(same),
                             "name": "Scalable unit" if base == "su" else "Pod",
                             "role": base, "x": 260.0 * k, "y": 200.0,
                             "children": first.children, "links": first.links})
            tiers.update((f"{block_id}/{p}", t) for p, t in first.tiers.items())
            for pod in same:
                path.update((u, f"{block_id}/{p}") for u, p in pod.path.items())
        # The level's own links: every cable of its top-tier units (a pod is a connected part
        # without them, so no cable joins two pods; those inside a pod are the pod's block's)
        inside = set(members)
        own_set = set(own)
        ends: Counter = Counter()
        exits = [exit for pod in pods for exit in pod.exits if exit[1] not in inside]
        for a in own:
            at = path[a]
            for b, cable in self.adjacency[a]:
                if b not in inside:
                    exits.append((a, b, cable))
                elif b not in own_set or a < b:  # a cable between two own units once
                    ends[(at, path[b], cable)] += 1
        links = _bundled(ends, tiers)
        signature = (top, frozenset(own_counts.items()),
                     frozenset(Counter(kind for kind, same in kinds.items() for _ in same).items()),
                     frozenset(_link_counts(links)))
        return Level(signature, children, links, path, len(pods), len(kinds), exits, tiers)

    def _uplinks(self, pod: Level) -> frozenset:
        """A pod's cables out of it, by inner path, far group and speed: two pods of the same
        make-up whose uplinks differ (one trained down to a lower speed) are not one block."""
        out = Counter((pod.path[unit], self.groups[other], cable) for unit, other, cable in pod.exits)
        return frozenset(out.items())

    def _pods(self, members: set[str]) -> list[list[str]]:
        """Connected parts of ``members`` (cables to units outside them do not join parts)."""
        seen: set[str] = set()
        parts = []
        for start in sorted(members):
            if start in seen:
                continue
            seen.add(start)
            part, stack = [], [start]
            while stack:
                unit = stack.pop()
                part.append(unit)
                for other, _cable in self.adjacency[unit]:
                    if other in members and other not in seen:
                        seen.add(other)
                        stack.append(other)
            parts.append(part)
        return parts

def _bundled(ends: Counter, tiers: dict[str, int]) -> list[dict[str, Any]]:
    """Cables counted by (end path, end path, cable) as the level's links: one bundle per end
    paths, speed, kind, length and medium."""
    bundles: Counter = Counter()
    for (pa, pb, (speed, kind, length_m, medium)), count in ends.items():
        ta, tb = tiers[pa], tiers[pb]
        # The lower tier is end A, as the generators draw links: core/flatten.py gives each A
        # unit an equal run of the cables spread over the B units, so a spine group as end A
        # reaches every core, a core group as end A only a few spines.
        pair = (pa, pb) if (ta, pa) <= (tb, pb) else (pb, pa)
        length_m = _LENGTH_M.get(max(ta, tb), SPINE_CORE_M) if length_m is None else length_m
        bundles[(pair, speed, kind, length_m, medium or "fiber")] += count
    return [{"id": f"l{n}", "a": a, "b": b, "kind": kind, "speed_gbit_s": speed, "count": count,
             "length_m": length_m, "medium": medium}
            for n, (((a, b), speed, kind, length_m, medium), count) in enumerate(sorted(bundles.items()), 1)]


def _link_counts(links: list[dict]) -> list[tuple]:
    return [((link["a"], link["b"], link["speed_gbit_s"]), link["count"]) for link in links]


def _group_order(item: tuple[Group, int]):
    (role, catalog_id, tier), _ = item
    return tier, role, catalog_id


def _ids(counts: Counter) -> dict[Group, str]:
    """Node ids of a level's groups: "nodes", "leaf", "spine"...; with the catalog id when one
    level holds several groups of the same role and tier."""
    ids = {}
    for role, catalog_id, tier in counts:
        base = "nodes" if role == "host" else TIER_NAMES.get(tier, f"tier{tier}")
        same = sum(1 for g in counts if (g[0], g[2]) == (role, tier))
        ids[(role, catalog_id, tier)] = base if same == 1 else f"{base}-{catalog_id}"
    return ids


def _component(node_id: str, group: Group, count: int, index: int) -> dict[str, Any]:
    role, catalog_id, tier = group
    out: dict[str, Any] = {"type": "component", "id": node_id, "catalog_id": catalog_id, "count": count,
                           "x": 260.0 * index, "y": 160.0 if role == "host" else 0.0}
    if role == "switch":
        out["tier"] = TIER_NAMES.get(tier, f"tier{tier}")
        out["name"] = out["tier"].capitalize()
    else:
        out["name"] = "Hosts"
    return out
