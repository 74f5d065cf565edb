"""How much the engine holds, and the up-front check that a design stays within it.

A design is stored compactly (a block repeated N times is stored once), but the analyses expand
it into numpy arrays: one entry per device unit (server, switch, storage node...) and one per
cable. A count of 2**63, a bundle of 10**12 cables or seventy nested blocks of two would make
numpy try a multi-TiB allocation or overflow int64, so ``check_design_size`` multiplies the
design out with Python integers (exact, no overflow) and refuses it, naming its expanded size
and the limit, before anything is allocated. The loader runs it on every project and
``evaluate``/``flatten`` run it before they expand anything.

Limits (the engine on a 2-core machine, measured with ``bench/bench_core.py``-style fat trees):

* ``MAX_ACCELERATORS`` = 10,000,000 GPUs/accelerators. 10M DGX A100 GPUs on a 3-tier SN5600
  fabric (30M cables) evaluate in about 8 s with 2.2 GB peak memory.
* ``MAX_UNITS`` = 20,000,000 device units of any kind (a DGX, a switch, a storage node = 1).
* ``MAX_CABLES`` = 40,000,000 cables (link bundle counts times their blocks' repeats); at about
  75 bytes per cable in the device graph this keeps an evaluation near 3 GB.
* ``MAX_BLOCK_DEPTH`` = 64 levels of nested blocks (server, rack, SU, pod... need a handful;
  deeper trees would exhaust Python's recursion in copies and comparisons).
* ``MAX_SERVICES`` = 64 inference services on one design (core/services.py): each is served on
  a view of the fabric of its own (about 20 ms at 100,000 GPUs, bench/bench_partitions.py), so
  64 keep an evaluation near 2 s; more is a fleet, not a design.
* ``MAX_PARTITION_PATHS`` = 100,000 design paths in one partition: one per drawn component of
  a design imported device by device (100,580 components in the largest import measured).

So an evaluation at the limits needs 2-3 GB (bench/fuzz.py runs its workers under a 4 GiB
address-space cap for this reason) and 10-20 s.

Files are refused before parsing when larger than ``MAX_FILE_BYTES`` (512 MiB: a 100,000-GPU
project is 7 KiB; an inventory import with 100,580 separately drawn servers and switches and
their 1.48 million links is 236 MB and parses into about 1.3 GB, so a file at the limit stays
near 2.5 GB while loading); JSON
nested deeper than Python's parser holds (about 1,000 levels) is refused with its line and
column (core/jsonfile.py).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

from core.catalog_spec import NodeSpec
from core.design_fields import check, overrides_rule, show
from core.errors import DesignError, DesignTooLargeError

MAX_ACCELERATORS = 10_000_000
MAX_UNITS = 20_000_000
MAX_CABLES = 40_000_000
MAX_BLOCK_DEPTH = 64
MAX_SERVICES = 64
MAX_PARTITION_PATHS = 100_000
MAX_FILE_BYTES = 512 * 2**20
# A sweep's cross product: 100,000 16k-GPU designs take about 40 minutes on one core (22 ms
# each, bench/bench_sweep.py) and make a 90 MB results file held in memory until it is
# written; beyond that a spec is more likely a typo than a plan.
MAX_SWEEP_COMBINATIONS = 100_000


def _size(n: int) -> str:
    """12,345 below a billion, 9.2e18 above (an exact 19-digit number says nothing more).
    Exact integer arithmetic: products of 4000-digit counts are beyond any float."""
    if n < 10**9:
        return f"{n:,}"
    exponent = int(math.log10(n))
    mantissa = n / 10**exponent  # int / int: a float in [1, 10) however large n is
    if mantissa >= 9.95:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.1f}e{exponent}"


def check_nesting(instances: int, depth: int, where: str) -> None:
    """Refuse a block ``depth`` levels down repeated ``instances`` times in all (its count times
    its ancestors'): more repeats than the engine holds units, or deeper than it holds.
    Checked per path while walking down, so the product never grows past one step beyond."""
    if instances > MAX_UNITS:
        raise DesignTooLargeError(
            f"{where}: this block is repeated {_size(instances)} times in all (its count times its "
            f"enclosing blocks'); the engine holds at most {MAX_UNITS:,} device units "
            f"(limit in core/limits.py)")
    if depth > MAX_BLOCK_DEPTH:
        raise DesignTooLargeError(
            f"{where}: blocks nested {depth} deep; the engine holds at most {MAX_BLOCK_DEPTH} "
            f"levels (limit in core/limits.py)")


def check_design_size(design: Any, catalog: Any = None) -> None:
    """Refuse a design that multiplies out beyond the limits above (``DesignTooLargeError``).

    Counts units and cables of every node and link bundle (block counts multiplied along the
    path, exactly, with Python integers), and accelerators when ``catalog`` is given; blocks
    are checked on the way down with ``check_nesting``. A count that is not a whole number of at
    least 1, or a component's overrides holding a NaN or an out-of-range value (set by code past
    the model's checks), is refused too. One pass over the drawn
    items, without recursion, and per block in C (map, sum, max): a block imported device by
    device holds 100,000 components and 1.5 million links, and this runs before every evaluation.
    """
    totals = {"accelerators": 0, "units": 0, "cables": 0}
    # kind -> (amount, label, (block path, link index or None, child id or None))
    largest: dict[str, tuple[int, str, tuple]] = {kind: (0, "", ()) for kind in totals}
    per_unit: dict[str, int] = {}  # accelerators per unit of a catalog id

    def add(kind: str, instances: int, amounts: list[int], where: Callable[[int], str],
            item: Callable[[int], tuple]) -> None:
        """``amounts`` per item of one block, repeated ``instances`` times."""
        if not amounts:
            return
        top = max(amounts)
        totals[kind] += instances * sum(amounts)
        if instances * top > largest[kind][0]:
            index = amounts.index(top)
            largest[kind] = (instances * top, where(index), item(index))

    root_count = _count(design.root, "design root")
    check_nesting(root_count, 0, "design root")
    stack: list[tuple[Any, str, int, int]] = [(design.root, "", root_count, 0)]
    while stack:
        block, prefix, instances, depth = stack.pop()
        links = block.links
        add("cables", instances, _counts(links, lambda i: f"link {prefix}{links[i].id}"),
            lambda i: f"link {prefix}{links[i].id}", lambda i: (prefix, i, None))
        for link in filter(_OUT_OF_SERVICE, links):
            _check_out_of_service(link, instances * link.count, "cables",
                                  f"link {prefix}{link.id}" if prefix else f"link {link.id}")
        nodes = []
        for child_id, child in block.children.items():
            if hasattr(child, "children"):
                path = prefix + child_id
                amount = instances * _count(child, path)
                check_nesting(amount, depth + 1, path)
                if _OUT_OF_SERVICE(child):
                    _check_out_of_service(child, amount, "instances", path)
                stack.append((child, path + "/", amount, depth + 1))
            else:
                nodes.append(child)
        counts = _counts(nodes, lambda i: prefix + nodes[i].id)
        for node in filter(_OVERRIDES, nodes):  # a frozen node's dict can still be changed in place
            check(overrides_rule, node.overrides, f"{prefix}{node.id}: overrides")
        for node in filter(_OUT_OF_SERVICE, nodes):
            _check_out_of_service(node, instances * node.count, "units", prefix + node.id)
        add("units", instances, counts, lambda i: prefix + nodes[i].id, lambda i: (prefix, None, nodes[i].id))
        if catalog is not None and nodes:
            ids = list(map(_CATALOG_ID, nodes))
            for catalog_id in set(ids).difference(per_unit):
                spec = catalog.get(catalog_id) if catalog_id in catalog else None
                per_unit[catalog_id] = spec.accelerators if isinstance(spec, NodeSpec) else 0
            add("accelerators", instances, list(map(operator.mul, counts, map(per_unit.__getitem__, ids))),
                lambda i: prefix + nodes[i].id, lambda i: (prefix, None, nodes[i].id))
    for kind, what, limit in (("accelerators", "accelerators", MAX_ACCELERATORS),
                              ("units", "device units", MAX_UNITS), ("cables", "cables", MAX_CABLES)):
        if totals[kind] > limit:
            amount, where, item = largest[kind]
            error = DesignTooLargeError(
                f"design expands to {_size(totals[kind])} {what} (largest share: {where}, "
                f"{_size(amount)}); the engine holds at most {limit:,} (limit in core/limits.py)")
            error.largest = item  # lets the loader name the JSON path of that count
            raise error


_COUNT, _CATALOG_ID = operator.attrgetter("count"), operator.attrgetter("catalog_id")


def _OUT_OF_SERVICE(item: Any) -> bool:
    return bool(getattr(item, "failed", 0) or getattr(item, "drained", 0))


def _check_out_of_service(item: Any, total: int, what: str, where: str) -> None:
    """Failed and drained units (core/degrade.py) are whole numbers, together at most the
    ``total`` the item has over every instance of its enclosing blocks."""
    for key in ("failed", "drained"):
        value = getattr(item, key)
        if type(value) is not int or value < 0:
            raise DesignError(f"{where}: {key} must be a whole number of at least 0, got {show(value)}")
    if item.failed + item.drained > total:
        raise DesignError(
            f"{where}: {item.failed} failed + {item.drained} drained but it has {total:,} {what} "
            f"in all (its count times its enclosing blocks' counts)")
_OVERRIDES = operator.attrgetter("overrides")


def _counts(items: list, where: Callable[[int], str]) -> list[int]:
    """The counts of ``items``, each checked as ``_count`` does (the label of a bad one made
    only when there is one)."""
    counts = list(map(_COUNT, items))
    if counts and (set(map(type, counts)) != {int} or min(counts) < 1):
        for index, item in enumerate(items):
            _count(item, where(index))
    return counts


def _count(item: Any, where: str) -> int:
    count = item.count
    if type(count) is not int or count < 1:
        raise DesignError(f"{where}: count must be a whole number of at least 1, got {show(count)}")
    return count
