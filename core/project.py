"""Project files: JSON with a format id and version, validated on load, saved atomically.

Errors name the JSON path of the problem (``$.design.children[2].count: ...``). A file written
by a newer version is refused. Saving writes a temporary file in the same folder, flushes and
fsyncs it, then renames it over the target, so a failed save leaves the old file intact.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from core.assumptions import Assumptions, assumptions_from_dict, assumptions_to_dict
from core.atomic_write import atomic_write_bytes, atomic_write_text  # noqa: F401 - callers import them from here
from core.catalog import Catalog
from core.errors import DesignError, ProjectFileError, WorkloadError
from core.jsonfile import read_json
from core.model import LINK_KINDS, MEDIA, Block, Design, Link, Node, check_id
from core.workload import workload_from_dict, workload_to_dict

FORMAT_ID = "cluster-designer.project"
FORMAT_VERSION = 1


def _fail(path: str, message: str) -> None:
    raise ProjectFileError(f"{path}: {message}")


def _expect(raw: dict, key: str, kind, path: str, default: Any = ..., positive: bool = False):
    if key not in raw:
        if default is ...:
            _fail(f"{path}.{key}", "missing")
        return default
    value = raw[key]
    ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok:
        name = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
                list: "a list", dict: "an object"}[kind]
        _fail(f"{path}.{key}", f"expected {name}, got {value!r}")
    if positive and value < 1:
        _fail(f"{path}.{key}", f"must be at least 1, got {value}")
    return float(value) if kind is float else value


def _check_keys(raw: dict, allowed: set[str], path: str) -> None:
    for key in raw:
        if key not in allowed:
            _fail(f"{path}.{key}", "unknown key")


_NODE_KEYS = {"type", "id", "catalog_id", "count", "name", "x", "y", "tier", "overrides"}
_BLOCK_KEYS = {"type", "id", "name", "count", "x", "y", "collapsed", "role", "children", "links"}
_LINK_KEYS = {"id", "a", "b", "kind", "speed_gbit_s", "count", "length_m", "medium"}


def _node_from(raw: Any, path: str, catalog: Catalog | None) -> Node:
    if not isinstance(raw, dict):
        _fail(path, "expected an object")
    _check_keys(raw, _NODE_KEYS, path)
    node = Node(
        id=_expect(raw, "id", str, path),
        catalog_id=_expect(raw, "catalog_id", str, path),
        count=_expect(raw, "count", int, path, 1, positive=True),
        name=_expect(raw, "name", str, path, ""),
        x=_expect(raw, "x", float, path, 0.0),
        y=_expect(raw, "y", float, path, 0.0),
        tier=_expect(raw, "tier", str, path, ""),
        overrides=_expect(raw, "overrides", dict, path, {}),
    )
    for key, value in node.overrides.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            _fail(f"{path}.overrides.{key}", f"expected a non-negative number, got {value!r}")
    if catalog is not None and node.catalog_id not in catalog:
        _fail(f"{path}.catalog_id", f"unknown component id {node.catalog_id!r}")
    return node


def _link_from(raw: Any, path: str) -> Link:
    if not isinstance(raw, dict):
        _fail(path, "expected an object")
    _check_keys(raw, _LINK_KEYS, path)
    link = Link(
        id=_expect(raw, "id", str, path),
        a=_expect(raw, "a", str, path),
        b=_expect(raw, "b", str, path),
        kind=_expect(raw, "kind", str, path, "scale-out"),
        speed_gbit_s=_expect(raw, "speed_gbit_s", float, path, 400.0),
        count=_expect(raw, "count", int, path, 1, positive=True),
        length_m=_expect(raw, "length_m", float, path, 10.0),
        medium=_expect(raw, "medium", str, path, "fiber"),
    )
    if link.kind not in LINK_KINDS:
        _fail(f"{path}.kind", f"{link.kind!r} is not one of {', '.join(LINK_KINDS)}")
    if link.medium not in MEDIA:
        _fail(f"{path}.medium", f"{link.medium!r} is not fiber or copper")
    if link.speed_gbit_s <= 0:
        _fail(f"{path}.speed_gbit_s", "must be positive")
    if link.length_m < 0:
        _fail(f"{path}.length_m", "must not be negative")
    return link


def _block_from(raw: Any, path: str, catalog: Catalog | None) -> Block:
    if not isinstance(raw, dict):
        _fail(path, "expected an object")
    _check_keys(raw, _BLOCK_KEYS, path)
    block = Block(
        id=_expect(raw, "id", str, path, "root"),
        name=_expect(raw, "name", str, path, ""),
        count=_expect(raw, "count", int, path, 1, positive=True),
        x=_expect(raw, "x", float, path, 0.0),
        y=_expect(raw, "y", float, path, 0.0),
        collapsed=_expect(raw, "collapsed", bool, path, True),
        role=_expect(raw, "role", str, path, ""),
    )
    for i, child in enumerate(_expect(raw, "children", list, path, [])):
        child_path = f"{path}.children[{i}]"
        if not isinstance(child, dict):
            _fail(child_path, "expected an object")
        kind = child.get("type", "component")
        if kind == "block":
            item: Node | Block = _block_from(child, child_path, catalog)
        elif kind == "component":
            item = _node_from(child, child_path, catalog)
        else:
            _fail(f"{child_path}.type", f"{kind!r} is not 'component' or 'block'")
        try:
            check_id(item.id)
        except DesignError as exc:
            _fail(f"{child_path}.id", str(exc))
        if item.id in block.children:
            _fail(f"{child_path}.id", f"duplicate id {item.id!r}")
        block.children[item.id] = item
    seen: set[str] = set()
    for i, raw_link in enumerate(_expect(raw, "links", list, path, [])):
        link_path = f"{path}.links[{i}]"
        link = _link_from(raw_link, link_path)
        if link.id in seen:
            _fail(f"{link_path}.id", f"duplicate link id {link.id!r}")
        seen.add(link.id)
        for end in ("a", "b"):
            target: Any = block
            for part in getattr(link, end).split("/"):
                if not isinstance(target, Block) or part not in target.children:
                    _fail(f"{link_path}.{end}", f"no component {getattr(link, end)!r} in this block")
                target = target.children[part]
            if not isinstance(target, Node):
                _fail(f"{link_path}.{end}", f"{getattr(link, end)!r} is a block, not a component")
        block.links.append(link)
    return block


def design_from_dict(raw: Any, catalog: Catalog | None = None, source: str = "$") -> Design:
    if not isinstance(raw, dict):
        _fail(source, "expected a JSON object")
    fmt = raw.get("format")
    if fmt != FORMAT_ID:
        _fail("$.format", f"not a Cluster Designer project (format {fmt!r}, expected {FORMAT_ID!r})")
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        _fail("$.version", f"expected an integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise ProjectFileError(
            f"this project was saved by a newer Cluster Designer (file format {version}; "
            f"this version reads up to {FORMAT_VERSION}); please update the application"
        )
    _check_keys(raw, {"format", "version", "name", "design", "workload", "assumptions", "metadata"}, "$")
    name = _expect(raw, "name", str, "$", "Untitled")
    root = _block_from(_expect(raw, "design", dict, "$"), "$.design", catalog)
    workload = None
    if raw.get("workload") is not None:
        try:
            workload = workload_from_dict(raw["workload"], "$.workload")
        except WorkloadError as exc:
            raise ProjectFileError(str(exc)) from None
    # No stored assumptions means "all defaults", which a design represents as None.
    assumptions = assumptions_from_dict(raw["assumptions"], "$.assumptions") if raw.get("assumptions") else None
    metadata = _expect(raw, "metadata", dict, "$", {})
    return Design(name, root, workload, assumptions, metadata)


def _node_to_dict(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "component", "id": node.id, "catalog_id": node.catalog_id}
    if node.count != 1:
        out["count"] = node.count
    for key in ("name", "tier"):
        if getattr(node, key):
            out[key] = getattr(node, key)
    out["x"], out["y"] = round(node.x, 2), round(node.y, 2)
    if node.overrides:
        out["overrides"] = dict(node.overrides)
    return out


def _block_to_dict(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "block", "id": block.id}
    if block.name:
        out["name"] = block.name
    if block.count != 1:
        out["count"] = block.count
    if block.role:
        out["role"] = block.role
    out["x"], out["y"] = round(block.x, 2), round(block.y, 2)
    if not block.collapsed:
        out["collapsed"] = False
    out["children"] = [
        _block_to_dict(c) if isinstance(c, Block) else _node_to_dict(c) for c in block.children.values()
    ]
    out["links"] = [
        {"id": l.id, "a": l.a, "b": l.b, "kind": l.kind, "speed_gbit_s": l.speed_gbit_s,
         "count": l.count, "length_m": l.length_m, "medium": l.medium}
        for l in block.links
    ]
    return out


def design_to_dict(design: Design) -> dict[str, Any]:
    return {
        "format": FORMAT_ID,
        "version": FORMAT_VERSION,
        "name": design.name,
        "design": _block_to_dict(design.root),
        "workload": workload_to_dict(design.workload) if design.workload is not None else None,
        "assumptions": assumptions_to_dict(design.assumptions or Assumptions()),
        "metadata": design.metadata,
    }


def load_project(path: str | Path, catalog: Catalog | None = None) -> Design:
    path = Path(path)
    raw = read_json(path, ProjectFileError, "project")
    try:
        return design_from_dict(raw, catalog)
    except ProjectFileError as exc:
        raise ProjectFileError(f"{path.name}: {exc}") from None


def save_project(design: Design, path: str | Path) -> None:
    text = json.dumps(design_to_dict(design), indent=1, allow_nan=False)
    atomic_write_text(path, text + "\n")
