"""The design model: components, links and nested blocks with repetition stored once.

A ``Block`` holds child components (``Node``) and child blocks, and the ``Link`` bundles among
them. A block with ``count = 64`` is one template instantiated 64 times; a node with
``count = 32`` is 32 identical units. A link lives in the block that contains both of its
endpoints; its ``count`` is the number of cables per instance of that block, spread evenly over
the endpoint units (see core/flatten.py for the exact wiring rule).

Paths name nodes from the root: ``"pod/su/leaf"``. Link endpoints are paths relative to the
block that owns the link.

Every edit goes through an operation of core/operations.py whose ``apply`` returns its inverse.
Observers subscribed to the design receive a ``Change`` after every applied operation.

Nodes and links are frozen: an edit puts a changed copy where one was (``dataclasses.replace``,
which checks the fields again), so neither an operation nor a script can leave a NaN, a
fractional count or a zero speed in one. Blocks check each field as it is set, and they and
their ``children``/``links`` containers do change in place, so ``Design.snapshot`` copies the
blocks and containers and shares the nodes and links: an immutable snapshot of a
design drawn device by device (100,000 nodes, 1.5 million links) costs pointer copies, not a
deep copy of every object.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from core.assumptions import Assumptions
from core.design_fields import LINK_KINDS, MEDIA  # noqa: F401 - the GUI imports them from here
from core.design_fields import (BLOCK_RULES, LINK_RULES, NODE_RULES, check,
                                check_fields, check_metadata, check_text, link_fields_ok,
                                node_fields_ok, show)
from core.errors import DesignError
from core.settings import settings_from_dict, settings_to_dict
from core.site_spec import SiteSpec
from core.inference_workload import check_any_workload
from core.services import Partition, Service, check_names, services_rule, workload_partition_rule


@dataclass(frozen=True)
class Node:
    """A component placement: ``count`` identical units of catalog entry ``catalog_id``."""

    id: str
    catalog_id: str
    count: int = 1
    name: str = ""
    x: float = 0.0
    y: float = 0.0
    tier: str = ""  # scale-out switch tier ("leaf", "spine", "core"); "" = infer from links
    overrides: dict[str, float] = field(default_factory=dict)
    # units out of service over all instances of the enclosing blocks, the first ones first
    # (core/degrade.py): broken, or drained on purpose (maintenance)
    failed: int = 0
    drained: int = 0
    cooling: str = ""  # "" = the catalog entry's; else one of core.cooling.COOLING_TYPES

    def __post_init__(self) -> None:
        if not node_fields_ok(self.__dict__):
            check_fields(self, NODE_RULES, lambda: f"component {show(self.id)}", sep=" field ")

    @property
    def label(self) -> str:
        return self.name or self.id


@dataclass(frozen=True)
class Link:
    """A bundle of ``count`` cables per instance of the owning block."""

    id: str
    a: str
    b: str
    kind: str = "scale-out"
    speed_gbit_s: float = 400.0
    count: int = 1
    length_m: float = 10.0
    medium: str = "fiber"
    failed: int = 0   # cables out of service over all instances of the owning block
    drained: int = 0

    def __post_init__(self) -> None:
        if not link_fields_ok(self.__dict__):
            check_fields(self, LINK_RULES, lambda: f"link {show(self.id)}", sep=" field ")


# Block roles the analyses read: a block of independent Clos planes repeated N times, or of one
# switch per rail (core/generators/planes.py makes them; core/analysis/planes.py finds them).
PLANE_ROLE = "plane"
RAIL_ROLE = "rail"


@dataclass
class Block:
    id: str
    name: str = ""
    count: int = 1
    children: dict[str, "Node | Block"] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    collapsed: bool = True
    role: str = ""  # free label: "rack", "su", "pod", "island"... (PLANE_ROLE, RAIL_ROLE: see below)
    failed: int = 0   # instances out of service, counted over the enclosing blocks' instances
    drained: int = 0
    # The cooling of the racks of every component inside that sets none of its own ("" = each
    # component's catalog entry's, or an enclosing block's); one of core.cooling.COOLING_TYPES.
    cooling: str = ""

    def __setattr__(self, name: str, value: Any) -> None:
        # Its own fields, when built and whenever set (blocks are few, and operations change
        # them in place); children and links are checked as they join (AddNode, AddLink) and
        # when saved. A detached Block is also used as a scratch id set (designer/edits.py).
        rule = BLOCK_RULES.get(name)
        if rule is not None:
            value = check(rule, value, f"block {show(self.__dict__.get('id', value))} field {name}")
        object.__setattr__(self, name, value)

    @property
    def label(self) -> str:
        return self.name or self.id

    def iter_nodes(self, prefix: str = "") -> Iterator[tuple[str, Node]]:
        """Every component below this block, with its path relative to this block."""
        for child_id, child in self.children.items():
            path = f"{prefix}{child_id}"
            if isinstance(child, Block):
                yield from child.iter_nodes(path + "/")
            else:
                yield path, child

    def iter_blocks(self, prefix: str = "") -> Iterator[tuple[str, "Block"]]:
        for child_id, child in self.children.items():
            if isinstance(child, Block):
                path = f"{prefix}{child_id}"
                yield path, child
                yield from child.iter_blocks(path + "/")

    def link(self, link_id: str) -> Link:
        for link in self.links:
            if link.id == link_id:
                return link
        raise DesignError(f"no link {link_id!r} in block {self.id!r}")


def _check_assumptions(value: Any) -> Assumptions | None:
    """None (defaults) or an Assumptions whose every value passes the file checks."""
    if value is None:
        return None
    if not isinstance(value, Assumptions):
        raise DesignError(f"assumptions: expected an Assumptions object, got {show(value)}")
    # the values that differ from the defaults: what a file would hold (defaults are valid)
    settings_from_dict(type(value), settings_to_dict(value, only_changed=True), "assumptions")
    return value


def _check_root(value: Any) -> Block:
    if not isinstance(value, Block):
        raise DesignError(f"design root: expected a Block, got {show(value)}")
    return value


# The design-level fields and their checks; every assignment goes through them (a Design is
# assigned rarely: building, loading, a workload/assumptions change, a generator run).
_DESIGN_RULES: dict[str, Callable[[Any], Any]] = {
    "name": lambda value: check_text(value, "design name"),
    "root": _check_root,
    "workload": check_any_workload,
    "assumptions": _check_assumptions,
    "metadata": lambda value: check_metadata(value, "metadata"),
    "workload_partition": lambda value: check(workload_partition_rule, value, "workload_partition"),
    "services": lambda value: check(services_rule, value, "services"),
    "site": lambda value: _check_site(value),
}


def _check_site(value: Any) -> Any:
    """None (placed automatically) or a core.site_spec.SiteSpec (the floor plan's edits)."""
    if value is not None and not isinstance(value, SiteSpec):
        raise DesignError(f"site: expected a SiteSpec, got {show(value)}")
    return value


@dataclass
class Design:
    name: str
    root: Block
    workload: Any = None          # core.workload.Workload | core.inference_workload.InferenceWorkload | None
    assumptions: Assumptions | None = None  # None: every default
    metadata: dict[str, Any] = field(default_factory=dict)
    # where the main workload runs (None: every GPU the services leave; core/services.py)
    workload_partition: Partition | None = None
    services: tuple[Service, ...] = ()  # inference services, each on a partition of its own
    # where the racks go (core/site_spec.py: SiteSpec; None: placed automatically)
    site: SiteSpec | None = None
    _observers: list[Callable[["Change"], None]] = field(default_factory=list, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        rule = _DESIGN_RULES.get(name)
        value = value if rule is None else rule(value)
        if name in ("workload_partition", "services"):  # partition names unique across both
            main = value if name == "workload_partition" else self.__dict__.get("workload_partition")
            services = value if name == "services" else self.__dict__.get("services", ())
            check(lambda both: check_names(*both), (main, services), "services")
        object.__setattr__(self, name, value)

    # --- lookup -------------------------------------------------------------------------
    def resolve(self, path: str) -> "Node | Block":
        """The node or block at ``path`` (``""`` is the root)."""
        item: Node | Block = self.root
        if not path:
            return item
        for part in path.split("/"):
            if not isinstance(item, Block) or part not in item.children:
                raise DesignError(f"no component or block at {path!r}")
            item = item.children[part]
        return item

    def block(self, path: str) -> Block:
        item = self.resolve(path)
        if not isinstance(item, Block):
            raise DesignError(f"{path!r} is a component, not a block")
        return item

    def node(self, path: str) -> Node:
        item = self.resolve(path)
        if not isinstance(item, Node):
            raise DesignError(f"{path!r} is a block, not a component")
        return item

    # --- observation --------------------------------------------------------------------
    def subscribe(self, callback: Callable[["Change"], None]) -> None:
        self._observers.append(callback)

    def unsubscribe(self, callback: Callable[["Change"], None]) -> None:
        if callback in self._observers:
            self._observers.remove(callback)

    def notify(self, change: "Change") -> None:
        for callback in list(self._observers):
            callback(change)

    def apply(self, operation: Any) -> Any:
        """Apply ``operation`` (an ``Operation`` of core/operations.py, which builds on this
        module); return its inverse."""
        inverse = operation.apply(self)
        self.notify(Change(operation.change_kind, operation.block_path))
        return inverse

    def snapshot(self) -> "Design":
        """A copy without observers that no later operation on this design changes (for
        evaluation off the GUI thread): new blocks and containers sharing the nodes and links,
        which operations replace rather than change (see the module docstring). The workload
        and assumptions, partitions and services are frozen dataclasses, shared too."""
        return Design(self.name, _copy_blocks(self.root), self.workload, self.assumptions,
                      copy.deepcopy(self.metadata), self.workload_partition, self.services,
                      self.site)

    def content_equal(self, other: "Design") -> bool:
        return (
            self.name == other.name
            and self.root == other.root
            and self.workload == other.workload
            and _same_assumptions(self.assumptions, other.assumptions)
            and self.metadata == other.metadata
            and self.workload_partition == other.workload_partition
            and self.services == other.services
            and self.site == other.site
        )


def _same_assumptions(a: Assumptions | None, b: Assumptions | None) -> bool:
    """None means "all defaults", so it equals an assumptions object holding only defaults
    (a file stores only changed values: such an object saves as nothing and loads as None)."""
    if a is None or b is None:
        given = b if a is None else a
        return given is None or given == type(given)()
    return a == b


@dataclass(frozen=True)
class Change:
    kind: str         # "structure", "links", "properties", "geometry", "workload", "assumptions"
    block_path: str   # the block whose content changed


def _copy_blocks(block: Block) -> Block:
    """``block`` and every block below it as new objects with new containers; the nodes and
    links in them are shared."""
    children = {key: _copy_blocks(child) if isinstance(child, Block) else child
                for key, child in block.children.items()}
    return dataclasses.replace(block, children=children, links=list(block.links))


def unique_id(block: Block, base: str) -> str:
    """``base`` or ``base-2``, ``base-3``... whichever is free among ``block``'s children."""
    base = re.sub(r"[^A-Za-z0-9_.\-]", "-", base) or "item"
    if base not in block.children:
        return base
    n = 2
    while f"{base}-{n}" in block.children:
        n += 1
    return f"{base}-{n}"


def unique_link_id(block: Block, base: str = "link") -> str:
    taken = {link.id for link in block.links}
    n = len(block.links) + 1
    while f"{base}{n}" in taken:
        n += 1
    return f"{base}{n}"
