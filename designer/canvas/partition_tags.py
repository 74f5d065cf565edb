"""Which partitions the cards of the block on the canvas belong to (several workloads on one
design: core/services.py), so each card can carry a small tag with the partition's name.

A card is tagged with a partition when its path is one of the partition's paths or lies inside
one (it runs that workload: "whole"), or when it holds some of them (a block with a partition
inside: "part"). Only block partitions have a place on the canvas; a GPU count is GPUs taken
anywhere outside them. The work is per partition path (at most 64 services of 100,000 paths),
never per device, and the scene does it again only when the partitions or the block shown
change (``PartitionTagger``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model import Design
from core.services import main_partition_name

# A partition's colour by its place among the design's partitions (the main workload's first,
# then the services'): the Services tab and the canvas use the same one. None of them is the
# selection's orange or a link kind's colour.
PARTITION_COLORS = ("#00897b", "#5e35b1", "#c2185b", "#3949ab", "#6d4c41", "#7cb342", "#0277bd", "#8e24aa")


@dataclass(frozen=True)
class PartitionTag:
    name: str
    color: str
    whole: bool  # the card's GPUs are the partition's; False: the card holds some of them

    @property
    def text(self) -> str:
        return self.name if self.whole else f"{self.name} (part)"

    @property
    def tooltip(self) -> str:
        if self.whole:
            return f"Partition {self.name}: its workload runs here"
        return f"Holds part of partition {self.name}"


def partition_colors(design: Design) -> dict[str, str]:
    """Partition name -> colour, for every partition of the design (GPU counts too)."""
    names = ([main_partition_name(design.workload_partition)] if design.workload_partition is not None else [])
    names += [service.partition_name for service in design.services]
    return {name: PARTITION_COLORS[i % len(PARTITION_COLORS)] for i, name in enumerate(names)}


def block_partitions(design: Design) -> list[tuple[str, tuple[str, ...]]]:
    """(name, paths) of every partition given by blocks, the main workload's first."""
    out = []
    main = design.workload_partition
    if main is not None and main.blocks:
        out.append((main_partition_name(main), main.blocks))
    out += [(s.partition_name, s.partition.blocks) for s in design.services if s.partition.blocks]
    return out


def tags_in_block(design: Design, block_path: str) -> dict[str, tuple[PartitionTag, ...]]:
    """Child id of the block at ``block_path`` -> the tags of its card (children without one
    left out)."""
    colors = partition_colors(design)
    prefix = f"{block_path}/" if block_path else ""
    found: dict[str, dict[str, bool]] = {}  # child -> partition -> whole
    everywhere: list[str] = []              # partitions the whole block lies in
    for name, paths in block_partitions(design):
        for path in paths:
            if block_path and (path == block_path or block_path.startswith(path + "/")):
                everywhere.append(name)
                break
            if not path.startswith(prefix):
                continue
            child, _, rest = path[len(prefix):].partition("/")
            marks = found.setdefault(child, {})
            marks[name] = marks.get(name, False) or not rest
    children = design.block(block_path).children
    if everywhere:
        for child in children:
            marks = found.setdefault(child, {})
            marks.update(dict.fromkeys(everywhere, True))
    order = list(colors)  # the partitions' own order, on every card
    return {child: tuple(PartitionTag(name, colors[name], marks[name]) for name in sorted(marks, key=order.index))
            for child, marks in found.items() if child in children}


class PartitionTagger:
    """``tags_in_block`` remembered for the partitions and block it was worked out for: the
    design's services and workload partition are frozen values that every edit of them
    replaces, so the same objects mean the same partitions."""

    def __init__(self) -> None:
        self._partitions: tuple = ()
        self._where: tuple = ()
        self._tags: dict[str, tuple[PartitionTag, ...]] = {}

    def tags(self, design: Design, block_path: str) -> dict[str, tuple[PartitionTag, ...]]:
        if not design.services and design.workload_partition is None:
            return {}
        partitions = (design.services, design.workload_partition)
        where = (block_path, frozenset(design.block(block_path).children))  # a child renamed, added
        if (len(self._partitions) != 2 or any(a is not b for a, b in zip(partitions, self._partitions))
                or where != self._where):
            self._tags = tags_in_block(design, block_path)
            self._partitions, self._where = partitions, where
        return self._tags
