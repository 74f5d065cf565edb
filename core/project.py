"""Project files: JSON with a format id and version, validated on load, saved atomically.

Errors name the JSON path of the problem (``$.design.children[2].count: ...``). A file written
by a newer version is refused. Every field is checked with the rules the model itself uses
(core/design_fields.py), and a design that multiplies out beyond what the engine holds is
refused before anything is expanded (core/limits.py). ``save_project`` runs the same checks on
what it is about to write, so it never writes a file that ``load_project`` refuses. Saving
writes a temporary file in the same folder, flushes and fsyncs it, then renames it over the
target, so a failed save leaves the old file intact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.assumptions import Assumptions, assumptions_from_dict, assumptions_to_dict
from core.atomic_write import atomic_write_bytes, atomic_write_text  # noqa: F401 - callers import them from here
from core.catalog import Catalog
from core.design_fields import (
    BLOCK_RULES,
    FAILURE_FIELDS,
    LINK_RULES,
    NODE_RULES,
    Rule,
    check,
    check_metadata,
    check_text,
    show,
    show_key,
)
from core.errors import (
    DesignError,
    DesignTooLargeError,
    ProjectFileError,
    WorkloadError,
)
from core.gc_pause import gc_paused
from core.jsonfile import read_json
from core.limits import check_design_size, check_nesting
from core.model import Block, Design, Link, Node
from core.site_spec import site_from_dict, site_to_dict
from core.inference_workload import any_workload_from_dict, any_workload_to_dict, inference_workload_from_dict
from core.services import (Partition, Service, check_names, partition_to_dict, service_to_dict,
                           services_rule)

FORMAT_ID = "cluster-designer.project"
FORMAT_VERSION = 1


def _fail(path: str, message: str) -> None:
    raise ProjectFileError(f"{path}: {message}")


def _object(raw: Any, path: str, keys: set[str], required: tuple[str, ...]) -> None:
    if not isinstance(raw, dict):
        _fail(path, f"expected an object, got {show(raw)}")
    if not keys.issuperset(raw):
        unknown = next(key for key in raw if key not in keys)
        _fail(f"{path}.{show_key(unknown)}", "unknown key")
    for key in required:
        if key not in raw:
            _fail(f"{path}.{key}", "missing")


def _build(cls: type, raw: dict, rules: dict[str, Rule], path: str, others: tuple[str, ...]) -> Any:
    """``cls`` from ``raw`` without its ``others`` keys (raw holds only known keys by now). The
    model checks its fields as it is built; when it refuses, the same rules run again here to
    name the JSON path of the bad value."""
    kwargs = dict(raw)
    for key in others:
        kwargs.pop(key, None)
    try:
        return cls(**kwargs)
    except DesignError:
        for key, value in kwargs.items():
            check(rules[key], value, f"{path}.{key}", ProjectFileError)
        raise


_NODE_KEYS = {"type", *NODE_RULES}
_BLOCK_KEYS = {"type", *BLOCK_RULES, "children", "links"}
_LINK_KEYS = set(LINK_RULES)
_LINK_REQUIRED = {"id", "a", "b"}


def _node_from(raw: Any, path: str, catalog: Catalog | None) -> Node:
    _object(raw, path, _NODE_KEYS, ("id", "catalog_id"))
    node = _build(Node, raw, NODE_RULES, path, ("type",))
    if catalog is not None and node.catalog_id not in catalog:
        _fail(f"{path}.catalog_id", f"unknown component id {show(node.catalog_id)}")
    return node


def _link_from(raw: Any, path: str) -> Link:
    _object(raw, path, _LINK_KEYS, ("id", "a", "b"))
    return _build(Link, raw, LINK_RULES, path, ())


def _plain_link(raw: Any) -> Link | None:
    """The link ``raw`` describes when it has every required key and no unknown one and its
    values pass the model's checks; None otherwise."""
    if type(raw) is not dict or not _LINK_KEYS.issuperset(raw) or not _LINK_REQUIRED.issubset(raw):
        return None
    try:
        return Link(**raw)
    except DesignError:
        return None


def _checked_link(raw: Any, path: str, block: Block, seen: set[str]) -> Link:
    """The link ``raw`` at ``path`` in ``block``, or the error naming where it is wrong."""
    link = _link_from(raw, path)
    if link.id in seen:
        _fail(f"{path}.id", f"duplicate link id {show(link.id)}")
    for end in ("a", "b"):
        target: Any = block
        for part in getattr(link, end).split("/"):
            if not isinstance(target, Block) or part not in target.children:
                _fail(f"{path}.{end}", f"no component {show(getattr(link, end))} in this block")
            target = target.children[part]
        if not isinstance(target, Node):
            _fail(f"{path}.{end}", f"{show(getattr(link, end))} is a block, not a component")
    return link


def _list(raw: dict, key: str, path: str) -> list:
    value = raw.get(key, [])
    if not isinstance(value, list):
        _fail(f"{path}.{key}", f"expected a list, got {show(value)}")
    return value


def _block_from(raw: Any, path: str, catalog: Catalog | None, instances: int = 1, depth: int = 0) -> Block:
    """The block at ``path``, repeated ``instances`` times by its ancestors, ``depth`` levels down.

    Repeats and depth are checked before the children are read, so a file of seventy nested
    blocks of two is refused at the block that passes the limit, not after building them all.
    """
    _object(raw, path, _BLOCK_KEYS, ())
    block = _build(Block, {"id": "root", **raw}, BLOCK_RULES, path, ("type", "children", "links"))
    instances *= block.count
    try:
        check_nesting(instances, depth, f"{path}.count")
    except DesignTooLargeError as exc:
        raise ProjectFileError(str(exc)) from None
    for i, child in enumerate(_list(raw, "children", path)):
        child_path = f"{path}.children[{i}]"
        if not isinstance(child, dict):
            _fail(child_path, f"expected an object, got {show(child)}")
        kind = child.get("type", "component")
        if kind == "block":
            item: Node | Block = _block_from(child, child_path, catalog, instances, depth + 1)
        elif kind == "component":
            item = _node_from(child, child_path, catalog)
        else:
            _fail(f"{child_path}.type", f"{show(kind)} is not 'component' or 'block'")
        if item.id in block.children:
            _fail(f"{child_path}.id", f"duplicate id {show(item.id)}")
        block.children[item.id] = item
    seen: set[str] = set()
    children = block.children
    for i, raw_link in enumerate(_list(raw, "links", path)):
        # A block imported device by device holds 1.5 million links: the common case (a whole,
        # valid link between two of the block's own components) costs the constructor's checks
        # and two lookups; anything else takes the slow path, which names where the problem is.
        link = _plain_link(raw_link)
        if (link is None or link.id in seen
                or type(children.get(link.a)) is not Node or type(children.get(link.b)) is not Node):
            link = _checked_link(raw_link, f"{path}.links[{i}]", block, seen)
        seen.add(link.id)
        block.links.append(link)
    return block


def design_from_dict(raw: Any, catalog: Catalog | None = None, source: str = "$") -> Design:
    if not isinstance(raw, dict):
        _fail(source, f"expected a JSON object, got {show(raw)}")
    fmt = raw.get("format")
    if fmt != FORMAT_ID:
        _fail("$.format", f"not a Cluster Designer project (format {show(fmt)}, expected {FORMAT_ID!r})")
    version = raw.get("version")
    if type(version) is not int or version < 1:
        _fail("$.version", f"expected an integer of at least 1, got {show(version)}")
    if version > FORMAT_VERSION:
        _fail("$.version", f"this project was saved by a newer Cluster Designer (file format {show(version)}; "
              f"this version reads up to {FORMAT_VERSION}); please update the application")
    _object(raw, "$", {"format", "version", "name", "design", "workload", "assumptions", "metadata",
                       "workload_partition", "services", "site"}, ("design",))
    name = check_text(raw.get("name", "Untitled"), "$.name", ProjectFileError)
    root = _block_from(raw["design"], "$.design", catalog)
    workload = None
    if raw.get("workload") is not None:
        try:
            workload = any_workload_from_dict(raw["workload"], "$.workload")
        except WorkloadError as exc:
            raise ProjectFileError(str(exc)) from None
    # No stored assumptions means "all defaults", which a design represents as None.
    stored = raw.get("assumptions")
    assumptions = None if stored is None or stored == {} else assumptions_from_dict(stored, "$.assumptions")
    metadata = check_metadata(raw.get("metadata", {}), "$.metadata", ProjectFileError)
    # Several workloads on one design (core/services.py): absent in older files, which load as before.
    partition = (_partition_from(raw["workload_partition"], "$.workload_partition")
                 if raw.get("workload_partition") is not None else None)
    services = _services_from(raw.get("services", []), "$.services", partition)
    design = Design(name, root, workload, assumptions, metadata, partition, services,
                    _site_from(raw.get("site")))
    try:
        check_design_size(design, catalog)
    except DesignTooLargeError as exc:
        raise ProjectFileError(f"{_count_path(root, exc.largest)}: {exc}") from None
    except DesignError as exc:  # more units failed or drained than the item has (named by path)
        raise ProjectFileError(f"$.design: {exc}") from None
    return design


def _partition_from(raw: Any, path: str) -> Partition:
    _object(raw, path, {"name", "blocks", "gpus"}, ())
    blocks = raw.get("blocks", [])
    if not isinstance(blocks, list):
        _fail(f"{path}.blocks", f"expected a list of design paths, got {show(blocks)}")
    try:
        return Partition(raw.get("name", ""), tuple(blocks), raw.get("gpus"))
    except DesignError as exc:  # "partition.blocks[0]: ..." -> "$.services[0].partition.blocks[0]: ..."
        raise ProjectFileError(path + str(exc).removeprefix("partition")) from None


def _services_from(raw: Any, path: str, main: Partition | None) -> tuple[Service, ...]:
    """The services of a file's ``services`` list (core/services.py)."""
    if not isinstance(raw, list):
        _fail(path, f"expected a list of services, got {show(raw)}")
    services = []
    for index, item in enumerate(raw):
        where = f"{path}[{index}]"
        _object(item, where, {"name", "partition", "workload"}, ("name", "partition", "workload"))
        name = check_text(item["name"], f"{where}.name", ProjectFileError)
        if not name:
            _fail(f"{where}.name", "a service needs a name")
        partition = _partition_from(item["partition"], f"{where}.partition")
        workload = item["workload"]
        if not isinstance(workload, dict) or workload.get("kind") != "inference":
            _fail(f"{where}.workload.kind", "a service serves an inference workload (\"kind\": \"inference\")")
        try:
            services.append(Service(name, partition, inference_workload_from_dict(workload, f"{where}.workload")))
        except WorkloadError as exc:
            raise ProjectFileError(str(exc)) from None
    services = check(services_rule, services, path, ProjectFileError)
    check(lambda value: check_names(main, value), services, path, ProjectFileError)
    return services


def _count_path(root: Block, item: tuple) -> str:
    """The JSON path of the count of ``item`` (see DesignTooLargeError.largest) in a file."""
    if not item:
        return "$.design"
    prefix, link_index, child_id = item
    path, block = "$.design", root
    for part in prefix.strip("/").split("/") if prefix else []:
        path += f".children[{list(block.children).index(part)}]"
        block = block.children[part]
    if link_index is not None:
        return f"{path}.links[{link_index}].count"
    return f"{path}.children[{list(block.children).index(child_id)}].count"


def _node_to_dict(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "component", "id": node.id, "catalog_id": node.catalog_id}
    if node.count != 1:
        out["count"] = node.count
    for key in ("name", "tier", "cooling"):
        if getattr(node, key):
            out[key] = getattr(node, key)
    out["x"], out["y"] = node.x, node.y
    if node.overrides:
        out["overrides"] = dict(node.overrides)
    _failure_to_dict(node, out)
    return out


def _link_to_dict(l: Link) -> dict[str, Any]:
    out = {"id": l.id, "a": l.a, "b": l.b, "kind": l.kind, "speed_gbit_s": l.speed_gbit_s,
           "count": l.count, "length_m": l.length_m, "medium": l.medium}
    return _failure_to_dict(l, out) if l.failed or l.drained else out


def _failure_to_dict(item: Node | Block | Link, out: dict[str, Any]) -> dict[str, Any]:
    """The failure what-if fields, written only when set: a design without failures saves as
    before, and older versions read it."""
    for key in FAILURE_FIELDS:
        if getattr(item, key):
            out[key] = getattr(item, key)
    return out


def _block_to_dict(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "block", "id": block.id}
    if block.name:
        out["name"] = block.name
    if block.count != 1:
        out["count"] = block.count
    if block.role:
        out["role"] = block.role
    if block.cooling:
        out["cooling"] = block.cooling
    out["x"], out["y"] = block.x, block.y
    if not block.collapsed:
        out["collapsed"] = False
    _failure_to_dict(block, out)
    out["children"] = [
        _block_to_dict(c) if isinstance(c, Block) else _node_to_dict(c) for c in block.children.values()
    ]
    out["links"] = [_link_to_dict(l) for l in block.links]
    return out


def design_to_dict(design: Design) -> dict[str, Any]:
    out = {
        "format": FORMAT_ID,
        "version": FORMAT_VERSION,
        "name": design.name,
        "design": _block_to_dict(design.root),
        "workload": any_workload_to_dict(design.workload) if design.workload is not None else None,
        "assumptions": assumptions_to_dict(design.assumptions or Assumptions()),
        "metadata": design.metadata,
    }
    # written only when set: a design with one workload saves as before
    if design.workload_partition is not None:
        out["workload_partition"] = partition_to_dict(design.workload_partition)
    if design.services:
        out["services"] = [service_to_dict(service) for service in design.services]
    if design.site is not None:  # the floor plan's edits (core/site/spec.py), only when made
        out["site"] = site_to_dict(design.site)
    return out


def _site_from(raw: Any) -> Any:
    """The optional "site" key (absent in older files: placed automatically)."""
    if raw is None:
        return None
    try:
        return site_from_dict(raw, "$.site")
    except DesignError as exc:
        raise ProjectFileError(str(exc)) from None


def load_project(path: str | Path, catalog: Catalog | None = None) -> Design:
    """The design in ``path``; every problem is a one-line ProjectFileError "<file>: <where>: ...".

    With a ``catalog``, unknown component ids and the accelerator limit are checked too
    (without one, ``evaluate`` checks them against its catalog)."""
    path = Path(path)
    with gc_paused():
        raw = read_json(path, ProjectFileError, "project")
        try:
            return design_from_dict(raw, catalog)
        except ProjectFileError as exc:
            raise ProjectFileError(f"{path.name}: {exc}") from None


def save_project(design: Design, path: str | Path) -> None:
    """Write ``design`` to ``path`` atomically, after the loader's own checks of what is written
    (so a design changed past the model's checks is refused here, not by the next load)."""
    with gc_paused():
        data = design_to_dict(design)
        try:
            design_from_dict(data)
        except ProjectFileError as exc:
            raise ProjectFileError(f"cannot save {Path(path).name}: {exc}") from None
        text = project_text(data)
    atomic_write_text(path, text)


# One component or link per line: a file of 1.5 million links reads and diffs line by line, and
# each line is encoded by the json module's C encoder (json.dumps with ``indent`` falls back to
# pure Python: 18 s instead of 3 s for a 100,580-component import).
_ONE_LINE = json.JSONEncoder(separators=(", ", ": "), allow_nan=False).encode
_ITEM_LISTS = ("children", "links")


def project_text(data: dict[str, Any]) -> str:
    """``data`` (``design_to_dict``'s form) as the text of a project file: indented by one space
    per level, like ``json.dumps(indent=1)``, except that every component and link (an item of a
    ``children`` or ``links`` list holding no list itself) takes one line."""
    out: list[str] = []
    _write(data, 0, False, out)
    out.append("\n")
    return "".join(out)


def _write(value: Any, depth: int, one_line_items: bool, out: list[str]) -> None:
    if isinstance(value, dict) and value:
        inner = "\n" + " " * (depth + 1)
        out.append("{")
        for n, (key, item) in enumerate(value.items()):
            out.append(("," if n else "") + inner + _ONE_LINE(str(key)) + ": ")
            _write(item, depth + 1, key in _ITEM_LISTS, out)
        out.append("\n" + " " * depth + "}")
    elif isinstance(value, list) and value:
        inner = "\n" + " " * (depth + 1)
        out.append("[")
        for n, item in enumerate(value):
            out.append(("," if n else "") + inner)
            if one_line_items and isinstance(item, dict) and not any(isinstance(v, list) for v in item.values()):
                out.append(_ONE_LINE(item))
            else:
                _write(item, depth + 1, False, out)
        out.append("\n" + " " * depth + "]")
    else:
        out.append(_ONE_LINE(value))
