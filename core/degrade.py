"""The degraded design: what is left when some units are failed or drained.

Components, blocks and link bundles carry ``failed`` and ``drained`` unit counts (core/model.py;
``PATH[:N]`` in core/failure_paths.py). Both take the units out of service the same way; they
differ only in how the evaluation reports them. ``degraded_design`` returns an ordinary design
without those units, which every analysis then evaluates as it would any design.

**Which units.** N units of an item are counted over every instance of its enclosing blocks and
taken from the first instances, in the order a block's instances are numbered (the outermost
block's first instance, its first inner instance, ...): ``pod/spine:4`` in 16 pods of 4 spines
takes all 4 spines of pod 0; ``pod/spine:6`` takes pod 0's 4 and 2 of pod 1's; ``pod:1`` takes
pod 0 whole; a link's N cables likewise.

**Without expanding the repetition.** A repeated block whose instances are not all alike is
split into runs of identical instances: ``pod`` x16 with pod 0 degraded becomes ``pod.degraded``
x1 and ``pod`` x15 (the intact run keeps the id). Each failure cuts the run at most twice (the
wholly lost instances, one partly lost instance), so the degraded design has a few more drawn
items than the intact one, whatever the repeat counts: a 1,000,000-GPU design with one failed
switch evaluates as fast as the intact one.

**Links.** A bundle spreads its cables evenly over the units of both ends (core/flatten.py), so
the cables left between what remains of end A and of end B are the bundle's cables times the
share of A's units left times the share of B's, rounded to the nearest cable (exact whenever the
shares divide the bundle, as in generated fabrics): a failed spine of S takes 1/S of the
leaf-spine cables, a failed leaf takes its rail from each of its servers. A bundle whose end is
split with its block is split the same way, one bundle per run.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction

from core.model import Block, Design, Link, Node, unique_id

# (path relative to a block, link id or ""): a component, a block (its instances) or a link
Key = tuple[str, str]

_OUT = operator.attrgetter("failed", "drained")


def _lost(item: Node | Block | Link) -> int:
    failed, drained = _OUT(item)
    return failed + drained


def out_of_service(design: Design) -> list[tuple[str, str, int, int]]:
    """Every item with units out of service: (path, link id or "", failed, drained), in
    drawing order (components and blocks by path, links by their owning block)."""
    found: list[tuple[str, str, int, int]] = []
    stack: list[tuple[Block, str]] = [(design.root, "")]
    if _lost(design.root):
        found.append(("", "", design.root.failed, design.root.drained))
    while stack:
        block, prefix = stack.pop()
        found.extend((prefix.rstrip("/"), link.id, link.failed, link.drained)
                     for link in filter(_lost, block.links))
        for child_id, child in block.children.items():
            if _lost(child):
                found.append((prefix + child_id, "", child.failed, child.drained))
            if isinstance(child, Block):
                stack.append((child, prefix + child_id + "/"))
    return found


_RUN_SUFFIX = re.compile(r"\.degraded(?:-\d+)?(?=/|$)")


def original_path(path: str) -> str:
    """The path in the design of an item of its degraded design (runs of a block are named
    ``<id>.degraded``, ``<id>.degraded-2``...; ids never hold a '/', so the suffix is exact)."""
    return _RUN_SUFFIX.sub("", path)


def degraded_design(design: Design) -> Design:
    """``design`` without its failed and drained units (the design itself when none are)."""
    lost: dict[Key, int] = {}
    own = 0
    for path, link_id, failed, drained in out_of_service(design):
        if not path and not link_id:
            own = failed + drained  # instances of the root itself (a file may say so)
        else:
            lost[(path, link_id)] = failed + drained
    if not lost and not own:
        return design
    top = design.root
    runs = [(_Rebuilt.of(top, per_instance, lost).block if per_instance else _cleared(top, lost), instances)
            for per_instance, instances in _runs(top, own, lost)]
    if len(runs) == 1 and runs[0][1] == top.count:
        root = replace_block(runs[0][0], count=top.count)
    else:  # the root's own instances differ: each run becomes a child of a new top level
        root = Block(top.id, top.name, collapsed=top.collapsed, role=top.role)
        for block, count in runs:
            block_id = unique_id(root, block.id)
            root.children[block_id] = replace_block(block, id=block_id, count=count)
    # partitions keep the design's paths: core/partitions.py matches runs by original_path
    return Design(design.name, root, design.workload, design.assumptions, design.metadata,
                  design.workload_partition, design.services)


# --- runs of identical instances ----------------------------------------------------------
def _units_per_instance(block: Block, key: Key) -> int:
    """Units of ``key`` (relative to ``block``) in one instance of ``block``."""
    path, link_id = key
    units = 1
    item: Node | Block = block
    for part in path.split("/") if path else []:
        item = item.children[part]  # type: ignore[union-attr]
        units *= item.count
    if link_id:
        units *= item.link(link_id).count  # type: ignore[union-attr]
    return units


def _runs(block: Block, own: int, lost: dict[Key, int]) -> list[tuple[dict[Key, int], int]]:
    """``block``'s ``block.count`` instances as runs of identical ones left in service:
    (units of each item out of service in one instance of the run, instances), given ``own``
    instances of the block and ``lost[key]`` units of each item below it out of service, all
    counted over the ``block.count`` instances from the first one."""
    count = block.count
    units = {key: _units_per_instance(block, key) for key in lost}
    cuts = {0, count, min(own, count)}
    for key, n in lost.items():
        whole, part = divmod(n, units[key])
        cuts.add(min(whole, count))
        if part:
            cuts.add(min(whole + 1, count))
    bounds = sorted(cuts)
    return [({key: min(units[key], n - start * units[key])
              for key, n in lost.items() if n > start * units[key]}, end - start)
            for start, end in zip(bounds, bounds[1:]) if start >= own]


def replace_block(block: Block, **changes) -> Block:
    """A new Block like ``block`` with ``changes`` (children and links containers shared) and no
    failure marks: every other field is copied, so none (cooling...) is lost on the way."""
    return replace(block, **{"failed": 0, "drained": 0, **changes})


@dataclass
class _Rebuilt:
    """One instance of a block with ``lost[key]`` units of the items below it out of service:
    the new block and, for every original link end, where its units went."""

    original: Block
    block: Block
    # child id -> its runs: (new id, instances, rebuilt content or None when intact)
    child_runs: dict[str, list[tuple[str, int, "_Rebuilt | None"]]] = field(default_factory=dict)
    # component id -> share of its units left
    node_share: dict[str, Fraction] = field(default_factory=dict)

    @classmethod
    def of(cls, block: Block, lost: dict[Key, int], marked: dict[Key, int]) -> "_Rebuilt":
        """One instance of ``block`` after ``lost``; ``marked`` holds every item below it
        that carries failed/drained fields (the rebuilt design carries none: its instances
        that lose nothing still hold the marks of the units other instances lose)."""
        children: dict[str, Node | Block] = {}
        rebuilt = cls(block, block)
        taken = set(block.children)
        for child_id, child in block.children.items():
            here = lost.get((child_id, ""), 0)
            if isinstance(child, Node):
                if here:
                    rebuilt.node_share[child_id] = Fraction(child.count - here, child.count)
                    if here < child.count:
                        children[child_id] = replace(child, count=child.count - here, failed=0, drained=0)
                else:
                    children[child_id] = replace(child, failed=0, drained=0) if _lost(child) else child
                continue
            inner, inner_marked = _below(lost, child_id), _below(marked, child_id)
            if not here and not inner:
                children[child_id] = _cleared(child, inner_marked)
                continue
            runs = []
            pieces = [(_Rebuilt.of(child, per_instance, inner_marked) if per_instance else None, instances)
                      for per_instance, instances in _runs(child, here, inner)]
            # the intact run (the last one) keeps the id, as does the last run when none is intact
            intact = next((i for i in range(len(pieces) - 1, -1, -1) if pieces[i][0] is None),
                          len(pieces) - 1)
            for index, (sub, instances) in enumerate(pieces):
                new_id = child_id if index == intact else _fresh(taken, f"{child_id}.degraded")
                name = child.name if sub is None else f"{child.label} (degraded)"
                content = _cleared(child, inner_marked) if sub is None else sub.block
                children[new_id] = replace_block(content, id=new_id, count=instances, name=name,
                                                 x=child.x, y=child.y)
                runs.append((new_id, instances, sub))
            rebuilt.child_runs[child_id] = runs
        links = _links(block, lost, rebuilt)
        rebuilt.block = replace_block(block, children=children, links=links)
        return rebuilt

    def ends(self, end: str) -> list[tuple[str, Fraction]]:
        """Where the units of link end ``end`` (a path relative to this block) went: (new path,
        share of the end's units there)."""
        head, _, rest = end.partition("/")
        if not rest:
            share = self.node_share.get(head, Fraction(1))
            return [(head, share)] if share else []
        runs = self.child_runs.get(head)
        if runs is None:
            return [(end, Fraction(1))]
        total = self.original.children[head].count
        out = []
        for new_id, instances, sub in runs:
            inner = [(rest, Fraction(1))] if sub is None else sub.ends(rest)
            out += [(f"{new_id}/{path}", Fraction(instances, total) * share) for path, share in inner]
        return out

    def changed(self, end: str) -> bool:
        head = end.partition("/")[0]
        return head in self.child_runs or head in self.node_share


def _cleared(block: Block, marked: dict[Key, int]) -> Block:
    """``block`` with nothing out of service (a run whose instances lose nothing): itself when
    nothing below it is marked and it is not either, otherwise a copy without the marks."""
    if marked:
        return _Rebuilt.of(block, {}, marked).block
    return replace_block(block) if _lost(block) else block


def _below(lost: dict[Key, int], child_id: str) -> dict[Key, int]:
    """The losses under child block ``child_id``, with paths relative to it."""
    prefix = child_id + "/"
    out: dict[Key, int] = {}
    for (path, link_id), n in lost.items():
        if link_id and path == child_id:
            out[("", link_id)] = n
        elif path.startswith(prefix):
            out[(path[len(prefix):], link_id)] = n
    return out


def _fresh(taken: set[str], base: str) -> str:
    new_id, n = base, 2
    while new_id in taken:
        new_id, n = f"{base}-{n}", n + 1
    taken.add(new_id)
    return new_id


def _links(block: Block, lost: dict[Key, int], rebuilt: _Rebuilt) -> list[Link]:
    """``block``'s links after the losses: a bundle between what is left of its ends, split with
    them, its cables by the shares left (see the module docstring)."""
    out: list[Link] = []
    taken = {link.id for link in block.links}
    for link in block.links:
        cables = link.count - lost.get(("", link.id), 0)
        if cables == link.count and not rebuilt.changed(link.a) and not rebuilt.changed(link.b):
            out.append(replace(link, failed=0, drained=0) if _lost(link) else link)
            continue
        first = True
        for a, share_a in rebuilt.ends(link.a):
            for b, share_b in rebuilt.ends(link.b):
                left = _round(cables * share_a * share_b)
                if left < 1:
                    continue
                link_id = link.id if first else _fresh(taken, f"{link.id}.degraded")
                first = False
                out.append(replace(link, id=link_id, a=a, b=b, count=left, failed=0, drained=0))
    return out


def _round(value: Fraction) -> int:
    """Nearest whole number, halves up."""
    return int(value + Fraction(1, 2))
