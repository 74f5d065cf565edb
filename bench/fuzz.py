"""Fuzz the loaders: mutated project, workload and user-catalog files, loaded AND evaluated.

Run: python bench/fuzz.py --files 10000 [--seed 1] [--jobs 2] [--memory-gib 4] [--timeout-s 60]

Every case is a file made from the bundled examples (resources/examples), the workload presets
(resources/workloads) or a user catalog made from the built-in one (ids renamed ``fz-...``),
mutated structurally (changed, deleted, duplicated and unknown keys, swapped types, huge,
negative, fractional and non-finite numbers, 2**63 counts, 10**12 cables, 70 nested blocks of
two, deep nesting, very long strings, unknown ids), with edits a valid file could hold (values
in range, other catalog ids, link kinds, assumptions at their bounds, "auto" parallelism: these
reach the analyses rather than the checks), and/or at the byte level (flipped, inserted and
deleted bytes, truncation, a UTF-8 BOM, UTF-16, invalid UTF-8, 5000-digit integers,
100,000-deep nesting). A fixed list of pathological cases runs first, then a 300 MB file.

Each case runs in a worker process under a memory cap (RLIMIT_AS) and a timeout, the way the
CLI and the GUI use the engine: load (with and without the catalog, alternately), evaluate,
render the evaluation JSON and every report format, then save and reload (a file that loads
must save to a file that loads to the same design). Workers handle many cases and are only
restarted when one dies or hangs. The summary counts:

  ok            loaded, evaluated, reported and round-tripped
  rejected      refused with the project's one-line error (DesignError)
  no-location   ...of which the message names no location (file + JSON path / line / entry)
  traceback     any other exception (a crash)
  memory        MemoryError under the cap, or the worker killed
  hang          no answer within the timeout
  round-trip    a loaded design that saved to a file that does not load back equal

Failing cases, and cases slower than --slow-s, are kept in --keep (default: a fuzz-failures
folder in the temp dir) to replay with ``python bench/fuzz.py --replay FILE --kind project``.
The default memory cap is 4 GiB because a design at the engine's limits (core/limits.py: 10M
GPUs, 30M cables) needs about 2.3 GB resident.
"""

from __future__ import annotations

import argparse
import atexit
import copy
import itertools
import json
import math
import os
import random
import re
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.json"))
WORKLOADS = sorted((ROOT / "resources" / "workloads").glob("*.json"))
CATALOG_FILES = sorted((ROOT / "resources" / "catalog").glob("*.json"))
BASE_PROJECT = ROOT / "resources" / "examples" / "dgx-h100-superpod-4su.json"
USER_PREFIX = "fz-"

# A location in a rejection: a JSON path ("$.design.children[0].count", or "w.json.model.layers"
# for a workload file), a line/column or byte offset, or a catalog entry and field; or a
# problem of the whole file (its size, its kind).
LOCATION_RE = re.compile(r"\$(?=[.\[:]|\s|$)|line \d+|byte \d+|entry ['#\w]")
WHOLE_FILE_RE = re.compile(r"too large|not a regular file|no such file|is a folder")


# ------------------------------------------------------------------------------ mutation
class Raw:
    """A JSON token Python's json cannot write (1e999, a 5000-digit integer): pasted verbatim."""

    def __init__(self, text: str):
        self.text = text


RAW_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999", "9" * 5000,
              "-" + "9" * 5000, "1" + "0" * 4299, "1.0e" + "9" * 20, "0e0", "-0"]
INTERESTING = [0, -1, 1, 2, 3, 8, 0.5, -0.5, 1.5, 2.000001, -0.0, 1e-300, 1e308, 2**31, 2**53 + 1,
               2**63, 2**64, 10**12, 10**18, 10**30, -(2**63), "", " ", "0", "1e3", "auto", "NaN",
               "x" * 100_000, "../../etc", "a/b", "\u202e\u0000\udcff", None, True, False, [], {},
               [1, 2, 3], {"a": 1}, [[[]]], *[Raw(t) for t in RAW_TOKENS]]


def _locations(doc) -> list[tuple[object, object]]:
    """Every (container, key) pair in ``doc``: where a mutation can act."""
    out: list[tuple[object, object]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return out


def _plausible_strings() -> list[str]:
    from core.catalog import load_catalog  # noqa: PLC0415
    from core.model import LINK_KINDS, MEDIA  # noqa: PLC0415
    from core.workload import ACTIVATIONS, PRECISIONS, RECOMPUTE  # noqa: PLC0415

    ids = [spec.id for spec in load_catalog(include_user=False)]
    return ids + [*LINK_KINDS, *MEDIA, *ACTIVATIONS, *PRECISIONS, *RECOMPUTE, "leaf", "spine", "core",
                  "auto", "rack", "su", "async", "sync"]


PLAUSIBLE_STRINGS = _plausible_strings()


def _random_value(rng: random.Random, ids: list[str]):
    """A pathological value most of the time, else one a valid file could hold (so that
    evaluation, not only validation, gets unusual input)."""
    roll = rng.random()
    if roll < 0.25:
        return rng.choice([rng.randint(1, 8), 2 ** rng.randint(0, 14), rng.randint(1, 100_000),
                           round(rng.random(), 3), round(rng.uniform(1, 1000), 1),
                           rng.choice(PLAUSIBLE_STRINGS), rng.choice([True, False])])
    if roll < 0.55:
        return rng.choice(INTERESTING)
    if roll < 0.65:
        return rng.choice([-1, 1]) * int(10 ** rng.uniform(0, 20))
    if roll < 0.75:
        return rng.choice([-1, 1]) * 10 ** rng.uniform(-10, 308)
    if roll < 0.9 and ids:
        return rng.choice(ids)
    return "".join(rng.choice("abcXYZ-_./ é€\n\"\\") for _ in range(rng.randint(0, 40)))


def _ids(doc) -> list[str]:
    return [v for c, k in _locations(doc) for v in [c[k]] if isinstance(v, str) and len(v) < 60]


def _items(block: dict, key: str) -> list[dict]:
    value = block.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _blocks(doc) -> list[dict]:
    design = doc.get("design") if isinstance(doc, dict) else None
    out, stack = [], [design]
    while stack:
        block = stack.pop()
        if not isinstance(block, dict):
            continue
        out.append(block)
        stack.extend(c for c in _items(block, "children") if c.get("type") == "block")
    return out


def _components(doc) -> list[dict]:
    return [c for b in _blocks(doc) for c in _items(b, "children")
            if c.get("type", "component") == "component"]


def _links(doc) -> list[dict]:
    return [link for b in _blocks(doc) for link in _items(b, "links")]


def _assumption_fields() -> list[tuple[str, str, object, dict]]:
    """(section, field, annotation, bounds) of every assumption."""
    import dataclasses  # noqa: PLC0415
    import typing  # noqa: PLC0415

    from core.assumptions import Assumptions  # noqa: PLC0415
    from core.settings import setting_bounds  # noqa: PLC0415

    hints = typing.get_type_hints(Assumptions)
    out = []
    for section in dataclasses.fields(Assumptions):
        cls = hints[section.name]
        field_hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            out.append((section.name, f.name, field_hints[f.name], dict(setting_bounds(cls, f.name))))
    return out


def _in_range(rng: random.Random, low: float, high: float, whole: bool):
    """A value from [low, high]: an end, just inside one, or log-uniform between."""
    low = max(low, 0.0)
    high = min(high, 1e12)
    pick = rng.random()
    if pick < 0.3:
        value = rng.choice([low, high])
    elif pick < 0.4:
        value = low + (high - low) * rng.choice([1e-9, 1e-3, 0.5, 0.999])
    else:
        value = math.exp(rng.uniform(math.log(max(low, 1e-6)), math.log(max(high, 1e-6))))
    return max(1, int(value)) if whole else value


def schema_edit(doc, rng: random.Random, kind: str, assumption_fields) -> None:
    """One edit a valid file could hold (in range, right type): drives evaluation, not validation."""
    from core.workload import INTEGER_BOUNDS, MAX_TRAINING_TOKENS  # noqa: PLC0415

    if kind == "catalog":
        entries = doc.get("components") if isinstance(doc, dict) else None
        if not isinstance(entries, list) or not entries:
            return
        entry = rng.choice(entries)
        numeric = [k for k, v in entry.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if "tflops_dense" in entry and rng.random() < 0.3:
            entry["tflops_dense"] = {p: _in_range(rng, 1e-9, 1e12, False) for p in entry["tflops_dense"]}
        elif "ports_by_gbit_s" in entry and rng.random() < 0.3:
            entry["ports_by_gbit_s"] = {str(_in_range(rng, 1e-3, 1e6, False)): _in_range(rng, 1, 1e6, True)}
        elif numeric:
            key = rng.choice(numeric)
            entry[key] = _in_range(rng, 0, 1e6 if isinstance(entry[key], int) else 1e12, isinstance(entry[key], int))
        return
    if kind in ("project", "catalog-project") and rng.random() < 0.5:
        items = _components(doc) + _links(doc) + _blocks(doc)[1:]
        if not items:
            return
        item = rng.choice(items)
        field = rng.choice(["count", "count", "catalog_id", "kind", "speed_gbit_s", "length_m", "tier",
                            "medium", "overrides", "x", "failed", "drained"])
        item[field] = {
            "count": lambda: _in_range(rng, 1, 2_000_000, True),
            "catalog_id": lambda: rng.choice(PLAUSIBLE_STRINGS[:-20]),
            "kind": lambda: rng.choice(["scale-up", "scale-out", "storage", "frontend"]),
            "speed_gbit_s": lambda: _in_range(rng, 1e-6, 1e6, False),
            "length_m": lambda: _in_range(rng, 0, 1e6, False),
            "tier": lambda: rng.choice(["leaf", "spine", "core", "", "storage-leaf", "t9"]),
            "medium": lambda: rng.choice(["fiber", "copper"]),
            "overrides": lambda: {rng.choice(["max_power_kw", "max_power_w", "typical_power_w", "tdp_w",
                                              "power_w", "failure_rate_per_1000_days", "per_rack",
                                              "racks"]): _in_range(rng, 0, 1e12, False)},
            "x": lambda: _in_range(rng, 0, 1e9, False),
            # failure what-ifs: within the units an item has, mostly (beyond is refused)
            "failed": lambda: _in_range(rng, 0, 40, True),
            "drained": lambda: _in_range(rng, 0, 40, True),
        }[field]()
    elif kind == "project" and rng.random() < 0.5:
        section, name, annotation, bounds = rng.choice(assumption_fields)
        if "choices" in bounds:
            value = rng.choice(bounds["choices"])
        elif annotation is bool:
            value = rng.random() < 0.5
        else:
            whole = annotation is int
            low = bounds.get("min", 0.0) + (1e-9 if bounds.get("min_exclusive") else 0.0)
            high = bounds.get("max", 1e12) - (1e-9 if bounds.get("max_exclusive") else 0.0)
            number = _in_range(rng, low, high, whole)
            text = str(annotation)
            value = ([number] * rng.randint(1, 6) if "tuple" in text or "list" in text else
                     {rng.choice(PLAUSIBLE_STRINGS[:40]): number} if "dict" in text else number)
            if "dict" in text and "list" in text:
                value = {rng.choice(PLAUSIBLE_STRINGS[:40]): [number] * rng.randint(1, 6)}
        assumptions = doc.setdefault("assumptions", {})
        if isinstance(assumptions, dict) and isinstance(assumptions.setdefault(section, {}), dict):
            assumptions[section][name] = value
    elif kind == "project" and rng.random() < 0.25:
        _service_edit(doc, rng)
    else:
        workload = doc.get("workload") if "format" in doc else doc
        if isinstance(workload, dict) and workload.get("kind") == "inference":
            _inference_edit(workload, rng)
            return
        if isinstance(workload, dict) and rng.random() < 0.15:
            workload["parallelism"] = "auto"  # the search, on whatever model the file holds
            return
        target = _workload_target(doc, rng)
        if not target:
            return
        container, key = target
        if key in INTEGER_BOUNDS:
            low, high = INTEGER_BOUNDS[key]
            container[key] = _in_range(rng, low, high, True) if rng.random() < 0.7 else \
                rng.choice([1, 2, 3, 4, 8, 16, 64, 128])
        elif key == "training_tokens":
            container[key] = _in_range(rng, 1, MAX_TRAINING_TOKENS, False)
        else:
            container[key] = rng.choice(PLAUSIBLE_STRINGS[-25:] + [True, False])


def _layout(rng: random.Random) -> dict:
    """A serving phase layout a file could hold (the checks decide whether it divides)."""
    return {key: rng.choice([1, 1, 2, 4, 8, 16, 64, 256]) for key in ("tp", "pp", "ep", "dp")} | \
        {"batch": rng.choice([1, 8, 64, 512, 4096, 1_000_000])}


def _inference_edit(workload: dict, rng: random.Random) -> None:
    """One edit of an inference workload a file could hold: the deployment (a layout, the two
    pools of a disaggregated one, or "auto"), the request mix, the SLOs, a precision or where
    the KV cache lives; these reach the serving roofline, the search and the what-ifs."""
    from core.inference_workload import KV_PLACEMENTS, PRECISION_BYTES  # noqa: PLC0415

    roll = rng.random()
    if roll < 0.15:
        workload["deployment"] = "auto"
    elif roll < 0.35:
        workload["deployment"] = rng.choice([{"mode": "aggregated", **_layout(rng)},
                                             {"mode": "disaggregated", "prefill": _layout(rng),
                                              "decode": _layout(rng)}])
    elif roll < 0.5:
        classes = [{"input_tokens": rng.choice([1, 128, 4096, 65536]),
                    "output_tokens": rng.choice([1, 64, 1024, 32768]), "share": 0.0}
                   for _ in range(rng.randint(1, 16))]
        for item in classes:
            item["share"] = 1.0 / len(classes)
        workload["requests"] = {"mix": classes}
    elif roll < 0.65:
        workload["slo"] = {"ttft_ms": _in_range(rng, 1e-3, 1e6, False), "tpot_ms": _in_range(rng, 1e-3, 1e4, False)}
    elif roll < 0.8:
        workload[rng.choice(["precision", "kv_cache_precision"])] = rng.choice(list(PRECISION_BYTES))
    else:
        placement = rng.choice(KV_PLACEMENTS)
        workload["kv_cache"] = {"placement": placement, **(
            {"host_gb_per_gpu": _in_range(rng, 1e-3, 1e5, False)} if placement == "host" else
            {"prefix_hit_rate": rng.random()} if placement == "remote" else {})}


def _service_edit(doc: dict, rng: random.Random) -> None:
    """A service (an inference preset on a block path of the design or a GPU count) added to a
    project, or the main workload given a partition: several workloads on one design."""
    blocks = [path for path, _ in _block_paths(doc.get("design"))]
    partition = ({"blocks": rng.sample(blocks, min(len(blocks), rng.randint(1, 2)))}
                 if blocks and rng.random() < 0.6 else {"gpus": rng.choice([1, 8, 72, 576, 100_000])})
    if rng.random() < 0.3:
        doc["workload_partition"] = {"name": "main", **partition}
        return
    preset = json.loads(rng.choice([w for w in WORKLOADS if "serve" in w.name]).read_text(encoding="utf-8"))
    services = doc.setdefault("services", [])
    if isinstance(services, list):
        services.append({"name": f"s{len(services)}", "partition": partition, "workload": preset})


def _block_paths(block, prefix: str = ""):
    """(path, block) of every block below a project's design dict."""
    if not isinstance(block, dict):
        return
    for child in block.get("children", []) if isinstance(block.get("children"), list) else []:
        if isinstance(child, dict) and child.get("type") == "block" and isinstance(child.get("id"), str):
            path = f"{prefix}{child['id']}"
            yield path, child
            yield from _block_paths(child, path + "/")


WORKLOAD_FIELDS = {
    "model": ["layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq_len",
              "activation", "causal"],
    "moe": ["experts", "top_k", "shared_experts", "expert_ffn_hidden", "dense_layers"],
    "parallelism": ["tp", "pp", "dp", "cp", "ep", "micro_batch", "global_batch", "virtual_stages",
                    "zero_stage", "recompute"],
    "": ["name", "precision", "optimizer", "training_tokens"],
}


def _workload_target(doc, rng: random.Random) -> tuple[dict, str] | None:
    """A (dict, key) inside the workload of a project or workload document."""
    workload = doc.get("workload") if "format" in doc else doc
    if not isinstance(workload, dict):
        return None
    section = rng.choice(list(WORKLOAD_FIELDS))
    target = workload
    if section == "moe":
        target = workload.get("model", {}).setdefault("moe", {}) if isinstance(workload.get("model"), dict) else None
    elif section:
        target = workload.get(section)
    if not isinstance(target, dict):
        return None
    return target, rng.choice(WORKLOAD_FIELDS[section])


def _nest(doc, depth: int, count: int) -> None:
    """Wrap the design's children in ``depth`` nested blocks of ``count`` (links move along)."""
    design = doc.get("design")
    if not isinstance(design, dict):
        return
    inner = {"type": "block", "id": "n0", "count": count,
             "children": design.get("children", []), "links": design.get("links", [])}
    for level in range(1, depth):
        inner = {"type": "block", "id": f"n{level}", "count": count, "children": [inner]}
    design["children"], design["links"] = [inner], []


def structured(doc, rng: random.Random, kind: str, assumption_fields: list[tuple[str, str]]):
    """1-3 random edits of the parsed document (it is changed in place and returned)."""
    if rng.random() < 0.4:
        for _ in range(rng.choice([1, 1, 2, 3])):
            schema_edit(doc, rng, kind, assumption_fields)
        return doc
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.random()
        locations = _locations(doc)
        if not locations:
            return doc
        container, key = rng.choice(locations)
        if op < 0.30:
            container[key] = _random_value(rng, _ids(doc))
        elif op < 0.38:
            del container[key]
        elif op < 0.44:
            value = container[key]
            if isinstance(container, list):
                container.insert(key, copy.deepcopy(value))
            else:
                container[key + "_x" if isinstance(key, str) else key] = copy.deepcopy(value)
        elif op < 0.48:
            if isinstance(container, dict):
                container["unknown_" + str(rng.randint(0, 9))] = _random_value(rng, [])
        elif op < 0.55:
            value = container[key]
            text = value.text if isinstance(value, Raw) else serialise(value).decode("utf-8", "replace")
            container[key] = rng.choice([text[:50], [value], {"v": value}])
        elif op < 0.66:
            value = container[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                container[key] = rng.choice([value * 10 ** rng.randint(1, 15), -value, value + 0.5,
                                             float(value), value * 1.0000001, value // 3 or 7])
        elif op < 0.74 and kind in ("project", "catalog-project"):
            items = _components(doc) + _links(doc) + _blocks(doc)[1:]
            if items:
                item = rng.choice(items)
                field = rng.choice(["count", "count", "x", "y", "speed_gbit_s", "length_m", "id",
                                    "catalog_id", "a", "b", "kind", "medium", "tier", "overrides",
                                    "failed", "drained"])
                if field == "overrides":
                    item["overrides"] = {rng.choice(["max_power_kw", "failure_rate_per_1000_days",
                                                     "per_rack", "racks", "power_w", "bogus"]):
                                         _random_value(rng, [])}
                else:
                    item[field] = _random_value(rng, _ids(doc))
        elif op < 0.80 and kind == "project":
            section, name, _, _ = rng.choice(assumption_fields)
            assumptions = doc.setdefault("assumptions", {})
            if isinstance(assumptions, dict):
                target = assumptions.setdefault(section, {})
                if isinstance(target, dict):
                    target[name] = rng.choice([_random_value(rng, []), [_random_value(rng, [])],
                                               {"H100-SXM5-80GB": _random_value(rng, [])},
                                               [0.5] * rng.choice([0, 1, 3, 100_000])])
        elif op < 0.88 and isinstance(doc, dict):
            target = _workload_target(doc, rng)
            if target:
                target[0][target[1]] = _random_value(rng, [])
        elif op < 0.91 and kind == "project":
            _nest(doc, rng.choice([2, 5, 40, 70, 200]), rng.choice([1, 2, 3]))
        elif op < 0.94 and kind in ("project", "catalog-project"):
            items = _components(doc) + _blocks(doc)[1:]
            links = _links(doc)
            if rng.random() < 0.5 and items:
                rng.choice(items)["count"] = rng.choice([2**63, 2**62, 10**7, 10**9, 10**15, 123_457])
            elif links:
                rng.choice(links)["count"] = rng.choice([10**12, 10**8, 4 * 10**7, 2**63])
        elif op < 0.97 and isinstance(doc, dict):
            # wide or deep structures: many copies of a child, deeply nested metadata
            blocks = _blocks(doc)
            if blocks and rng.random() < 0.5 and isinstance(blocks[0].get("children"), list) \
                    and blocks[0]["children"]:
                child = blocks[0]["children"][0]
                copies = rng.choice([100, 2_000])
                for i in range(copies):
                    clone = copy.deepcopy(child)
                    if isinstance(clone, dict):
                        clone["id"] = f"copy{i}"
                    blocks[0]["children"].append(clone)
            else:
                depth = rng.choice([20, 300, 900, 5_000])
                doc[rng.choice(["metadata", "name", "model", "assumptions"])] = {
                    "deep": Raw("[" * depth + "1" + "]" * depth)}
        else:
            container[key] = "long " * rng.choice([10_000, 1_000_000])
    return doc


def serialise(doc) -> bytes:
    raws: list[str] = []

    def default(value):
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"@@RAW{len(raws) - 1}@@"
        raise TypeError(type(value))

    text = json.dumps(doc, default=default, allow_nan=True)  # no indent: the C encoder
    for i, raw in enumerate(raws):
        text = text.replace(f'"@@RAW{i}@@"', raw)
    return text.encode("utf-8", "surrogatepass")


def byte_level(data: bytes, rng: random.Random) -> bytes:
    """1-3 random byte edits."""
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        n = len(data)
        pos = rng.randint(0, n)
        if op < 0.20 and n:
            buf = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                buf[rng.randrange(n)] ^= 1 << rng.randrange(8)
            data = bytes(buf)
        elif op < 0.32:
            data = data[:pos] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[pos:]
        elif op < 0.42:
            data = data[:pos] + data[pos + rng.randint(1, 200):]
        elif op < 0.50:
            data = data[:pos]
        elif op < 0.56:
            data = b"\xef\xbb\xbf" + data
        elif op < 0.62:
            text = data.decode("utf-8", "replace")
            data = text.encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
        elif op < 0.68:
            data = data[:pos] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00",
                                            b"\xe9", b"\xf0\x9f"]) + data[pos:]
        elif op < 0.78:
            digits = re.search(rb"\d+", data[pos:])
            if digits:
                start = pos + digits.start()
                data = data[:start] + rng.choice([b"9" * 5000, b"1" + b"0" * 4400, b"9" * 4299])\
                    + data[pos + digits.end():]
        elif op < 0.88:
            depth = rng.choice([1_000, 100_000])
            opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
            data = data[:pos] + opener * depth + b"1" + closer * depth + data[pos:]
        elif op < 0.94 and n:
            start = rng.randrange(n)
            chunk = data[start:start + rng.randint(1, 400)]
            data = data[:pos] + chunk * rng.randint(1, 50) + data[pos:]
        else:
            data = data.replace(b": ", b": -", 1) if rng.random() < 0.5 else data.replace(b"1", b"1.5", 1)
    return data


def user_catalog_seed() -> tuple[dict, dict]:
    """A user catalog copied from the built-in one with every id renamed, and a project using it."""
    entries = []
    for path in CATALOG_FILES:
        raw = json.loads(path.read_text())
        entries.extend(raw["components"] if isinstance(raw, dict) else raw)
    for entry in entries:
        entry["id"] = USER_PREFIX + entry["id"]
        for key in ("accelerator", "nic", "dpu"):
            if isinstance(entry.get(key), str):
                entry[key] = USER_PREFIX + entry[key]
        for item in entry.get("scale_up_switches", []):
            item["id"] = USER_PREFIX + item["id"]
    project = json.loads(BASE_PROJECT.read_text())
    for component in _components(project):
        component["catalog_id"] = USER_PREFIX + component["catalog_id"]
    return {"components": entries}, project


def pathological_cases() -> list[tuple[str, str, bytes]]:
    """(name, kind, bytes): the cases the issue names, always run first."""
    base = json.loads(BASE_PROJECT.read_text())
    wl = json.loads((ROOT / "resources" / "workloads" / "gpt3-175b.json").read_text())
    text = serialise(base)
    cases: list[tuple[str, str, bytes]] = []

    def project(name: str, edit) -> None:
        doc = copy.deepcopy(base)
        edit(doc)
        cases.append((name, "project", serialise(doc)))

    project("count 2**63", lambda d: _components(d)[0].update(count=2**63))
    project("count 2**64 on a block", lambda d: _blocks(d)[1].update(count=2**64))
    project("10**12 cables", lambda d: _links(d)[0].update(count=10**12))
    project("70 nested blocks of two", lambda d: _nest(d, 70, 2))
    project("40 nested blocks of two", lambda d: _nest(d, 40, 2))
    project("fractional count", lambda d: _components(d)[0].update(count=2.5))
    project("count 32.0", lambda d: _components(d)[0].update(count=32.0))
    project("zero speed", lambda d: _links(d)[0].update(speed_gbit_s=0))
    for token in ("NaN", "Infinity", "-Infinity", "1e999", "9" * 5000):
        for where, edit in (
            ("x", lambda d, t=token: _components(d)[0].update(x=Raw(t))),
            ("speed", lambda d, t=token: _links(d)[0].update(speed_gbit_s=Raw(t))),
            ("length", lambda d, t=token: _links(d)[0].update(length_m=Raw(t))),
            ("override", lambda d, t=token: _components(d)[0].update(overrides={"max_power_kw": Raw(t)})),
            ("assumption", lambda d, t=token: d.update(assumptions={"power": {"pue": Raw(t)}})),
            ("rate override", lambda d, t=token: d.update(
                assumptions={"reliability": {"rate_overrides": {"B200": Raw(t)}}})),
            ("tokens", lambda d, t=token: d["workload"].update(training_tokens=Raw(t))),
            ("layers", lambda d, t=token: d["workload"]["model"].update(layers=Raw(t))),
            ("metadata", lambda d, t=token: d.update(metadata={"v": Raw(t)})),
        ):
            project(f"{token[:10]} in {where}", edit)
    project("layers 96.0", lambda d: d["workload"]["model"].update(layers=96.0))
    project("global batch 10**30", lambda d: d["workload"]["parallelism"].update(global_batch=10**30))
    project("metadata 900 deep", lambda d: d.update(metadata=Raw("[" * 900 + "]" * 900)))
    cases.append(("100k-deep nesting", "project", b"[" * 100_000 + b"]" * 100_000))
    cases.append(("100k-deep object nesting", "project", b'{"a":' * 100_000 + b"1" + b"}" * 100_000))
    cases.append(("5000-digit integer", "project", text.replace(b'"count": 4', b'"count": ' + b"9" * 5000, 1)))
    cases.append(("UTF-8 BOM", "project", b"\xef\xbb\xbf" + text))
    cases.append(("UTF-16", "project", text.decode().encode("utf-16")))
    cases.append(("UTF-16-LE no BOM", "project", text.decode().encode("utf-16-le")))
    cases.append(("UTF-32", "project", text.decode().encode("utf-32")))
    cases.append(("invalid UTF-8", "project", text[:100] + b"\xff\xfe" + text[100:]))
    cases.append(("empty file", "project", b""))
    cases.append(("null", "project", b"null"))
    cases.append(("list", "project", b"[]"))
    cases.append(("workload 5000-digit layers", "workload",
                  json.dumps(wl).replace('"layers": 96', '"layers": ' + "9" * 5000).encode()))
    cases.append(("workload NaN tokens", "workload",
                  json.dumps(wl).replace('"training_tokens": 300000000000.0', '"training_tokens": NaN').encode()))
    cases.append(("workload UTF-16", "workload", json.dumps(wl).encode("utf-16")))
    return cases


def generate(n: int, seed: int):
    """Yield (name, kind, bytes): the pathological cases, then random mutations up to ``n``."""
    rng = random.Random(seed)
    fields = _assumption_fields()
    # base documents as text: parsing a fresh copy is far cheaper than copy.deepcopy
    projects = [(p.name, p.read_text()) for p in EXAMPLES]
    workloads = [(p.name, p.read_text()) for p in WORKLOADS]
    catalog = json.dumps(user_catalog_seed()[0])
    fixed = pathological_cases()
    for case in fixed[:n]:
        yield case
    for i in range(len(fixed), n):
        roll = rng.random()
        if roll < 0.7:
            kind, (name, doc) = "project", rng.choice(projects)
        elif roll < 0.85:
            kind, (name, doc) = "workload", rng.choice(workloads)
        else:
            kind, name, doc = "catalog", "user-catalog", catalog
        how = rng.random()  # structured edits, byte edits, or both
        if how < 0.8 or kind == "catalog":
            data = serialise(structured(json.loads(doc), rng, kind, fields))
        else:
            data = doc.encode()
        if how >= 0.7:
            data = byte_level(data, rng)
        yield f"{i}:{name}", kind, data


# --------------------------------------------------------------------------------- worker
def _design_paths(design) -> set[str]:
    paths = {p for p, _ in design.root.iter_nodes()} | {p for p, _ in design.root.iter_blocks()}
    return paths | {link.id for _, b in [("", design.root), *design.root.iter_blocks()] for link in b.links}


def run_case(kind: str, path: Path, index: int, state: dict) -> dict:
    """Load and evaluate one file the way the CLI and GUI do; classify what happened."""
    import numpy as np  # noqa: PLC0415

    from core.catalog import load_catalog  # noqa: PLC0415
    from core.errors import DesignError  # noqa: PLC0415
    from core.evaluate import evaluate, evaluation_to_json  # noqa: PLC0415
    from core.project import load_project, save_project  # noqa: PLC0415
    from core.report import FORMATS, render_report  # noqa: PLC0415
    from core.workload import load_workload  # noqa: PLC0415

    stage = "load"
    design = None
    try:
        with np.errstate(all="ignore"):  # numpy warnings are not failures; exceptions are
            catalog = state["catalog"]
            workload = None
            if kind == "project":
                # odd cases load like the CLI (no catalog at load), even ones like the GUI
                design = load_project(path, catalog if index % 2 == 0 else None)
            elif kind == "workload":
                workload = load_workload(path)
                design = load_project(BASE_PROJECT, catalog)
            else:
                catalog = load_catalog([path], include_user=False)
                design = load_project(state["catalog_project"], catalog)
            stage = "evaluate"
            ev = evaluate(design, catalog, workload)
            stage = "report"
            json.dumps(evaluation_to_json(ev), allow_nan=False)
            for fmt in FORMATS:
                render_report(ev, fmt)
            if kind == "project":
                stage = "save"
                copy_path = path.with_suffix(".saved.json")
                save_project(design, copy_path)
                again = load_project(copy_path, catalog)
                copy_path.unlink()
                if not again.content_equal(design):
                    return {"outcome": "round-trip", "stage": stage,
                            "message": "saved file loads back different"}
        return {"outcome": "ok", "stage": stage}
    except DesignError as exc:
        message = str(exc)
        if stage == "save":
            return {"outcome": "round-trip", "stage": stage, "message": message}
        located = (path.name in message or kind == "catalog") and bool(
            LOCATION_RE.search(message) or WHOLE_FILE_RE.search(message)
            or re.search(re.escape(path.name) + r"\.\S", message))
        if stage != "load":
            located = located or any(p in message for p in _design_paths(design))
        if "\n" in message:
            located = False
        return {"outcome": "rejected", "stage": stage, "message": message[:300], "located": located}
    except MemoryError:
        return {"outcome": "memory", "stage": stage, "message": traceback.format_exc()[-1500:]}
    except Exception:  # noqa: BLE001 - classifying every crash is the point
        return {"outcome": "traceback", "stage": stage, "message": traceback.format_exc()[-3000:]}


def worker(memory_bytes: int, folder: Path) -> None:
    """Read 'index<TAB>kind<TAB>path' lines; answer one JSON line each. ``folder`` (the
    parent's, removed by it) holds this worker's own files."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    sys.setrecursionlimit(1000)
    from core.catalog import load_catalog  # noqa: PLC0415

    _, project = user_catalog_seed()
    catalog_project = folder / "catalog-project.json"
    catalog_project.write_text(json.dumps(project))
    state = {"catalog": load_catalog(include_user=False), "catalog_project": catalog_project}
    warm_up = folder / "warm-up.json"
    warm_up.write_bytes(BASE_PROJECT.read_bytes())
    run_case("project", warm_up, 0, state)  # imports and caches: not part of any case's time
    out = sys.stdout
    for line in sys.stdin:
        index, kind, path = line.rstrip("\n").split("\t")
        start = time.perf_counter()
        result = run_case(kind, Path(path), int(index), state)
        result["seconds"] = time.perf_counter() - start
        result["index"] = int(index)
        result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out.write(json.dumps(result) + "\n")
        out.flush()
        if result["outcome"] == "memory":
            return  # the heap may be in a bad state; the parent starts a fresh worker


class Worker:
    def __init__(self, memory_bytes: int, work: Path):
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONHASHSEED="0")
        env.pop("CLUSTER_DESIGNER_USER_CATALOG", None)
        folder = Path(tempfile.mkdtemp(prefix="worker-", dir=work))
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--memory-bytes", str(memory_bytes),
             "--folder", str(folder)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)
        self.buffer = b""
        self.case: tuple | None = None
        self.deadline = 0.0

    def send(self, case: tuple, timeout_s: float) -> None:
        self.case = case
        self.deadline = time.monotonic() + timeout_s
        index, _, kind, path = case
        self.proc.stdin.write(f"{index}\t{kind}\t{path}\n".encode())
        self.proc.stdin.flush()

    def read(self) -> list[dict] | None:
        """Complete answers available now; None when the worker exited."""
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line]

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


# --------------------------------------------------------------------------------- parent
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--memory-gib", type=float, default=4.0)
    parser.add_argument("--timeout-s", type=float, default=60.0)
    parser.add_argument("--slow-s", type=float, default=5.0, help="keep cases slower than this")
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "fuzz-failures")
    parser.add_argument("--replay", type=Path, help="run one saved file in this process")
    parser.add_argument("--kind", default="project", choices=("project", "workload", "catalog"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-bytes", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.memory_bytes, args.folder)
        return 0
    if args.replay:
        return replay(args.replay, args.kind)
    return fuzz(args)


def replay(path: Path, kind: str) -> int:
    from core.catalog import load_catalog  # noqa: PLC0415

    _, project = user_catalog_seed()
    with tempfile.TemporaryDirectory() as tmp:
        catalog_project = Path(tmp) / "catalog-project.json"
        catalog_project.write_text(json.dumps(project))
        state = {"catalog": load_catalog(include_user=False), "catalog_project": catalog_project}
        for index in (0, 1):
            print(json.dumps(run_case(kind, path, index, state), indent=1))
    return 0


def fuzz(args) -> int:
    memory_bytes = int(args.memory_gib * 2**30)
    args.keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="fuzz-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)  # also after Ctrl+C
    # a sparse file far above the size limit: refused by its size, never read
    huge = work / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(300 * 2**20)
    cases = itertools.chain([(-1, "300 MB file", "project", huge)], (
        (i, name, kind, data) for i, (name, kind, data) in enumerate(generate(args.files - 1, args.seed))))
    counts: Counter = Counter()
    by_kind: Counter = Counter()
    examples: dict[str, list[str]] = {}
    slowest: list[tuple[float, str]] = []
    start = time.monotonic()
    workers = [Worker(memory_bytes, work) for _ in range(args.jobs)]
    names: dict[int, tuple[str, str, Path]] = {}
    peak = [0.0]  # largest worker resident memory seen, MB
    done = 0

    def record(index: int, result: dict) -> None:
        nonlocal done
        done += 1
        name, kind, path = names.pop(index)
        outcome = result["outcome"]
        if outcome == "rejected" and not result.get("located", True):
            outcome = "no-location"
        counts[outcome] += 1
        by_kind[(kind, outcome)] += 1
        seconds = result.get("seconds", args.timeout_s)
        peak[0] = max(peak[0], result.get("max_rss_mb", 0.0))
        slowest.append((seconds, name))
        slowest.sort(reverse=True)
        del slowest[5:]
        fine = outcome in ("ok", "rejected")
        if path == huge:
            return
        if fine and seconds < args.slow_s:
            path.unlink()
            return
        kept = args.keep / f"{'slow' if fine else outcome}-{kind}-{index}.json"
        path.replace(kept)
        if fine:
            examples.setdefault("slow", []).append(f"{name} ({kind}) {seconds:.1f} s -> {kept}")
            return
        examples.setdefault(outcome, []).append(
            f"{name} ({kind}, {result.get('stage')}) -> {kept}\n    "
            + (result.get("message") or "").strip().replace("\n", "\n    ")[-1200:])

    def feed(w: Worker) -> bool:
        case = next(cases, None)
        if case is None:
            w.case = None
            return False
        index, name, kind, data = case
        if isinstance(data, Path):
            path = data
        else:
            path = work / f"case-{index}.json"
            path.write_bytes(data)
        names[index] = (name, kind, path)
        w.send((index, name, kind, path), args.timeout_s)
        return True

    for w in workers:
        feed(w)
    while any(w.case is not None for w in workers):
        active = [w for w in workers if w.case is not None]
        timeout = max(0.0, min(w.deadline for w in active) - time.monotonic())
        ready, _, _ = select.select([w.proc.stdout for w in active], [], [], timeout)
        for i, w in enumerate(workers):
            if w.case is None:
                continue
            if w.proc.stdout in ready:
                results = w.read()
                if results is None:  # died: killed by the kernel or a crash in C
                    record(w.case[0], {"outcome": "memory", "stage": "?",
                                       "message": f"worker exited with {w.proc.wait()}"})
                    workers[i] = w = Worker(memory_bytes, work)
                    feed(w)
                    continue
                for result in results:
                    record(result["index"], result)
                    if result["outcome"] == "memory":
                        w.kill()
                        workers[i] = w = Worker(memory_bytes, work)
                    feed(w)
            elif time.monotonic() > w.deadline and not select.select([w.proc.stdout], [], [], 0)[0]:
                # (an answer that came while this process was busy is read on the next pass)
                w.kill()
                record(w.case[0], {"outcome": "hang", "stage": "?", "seconds": args.timeout_s,
                                   "message": f"no answer in {args.timeout_s:g} s"})
                workers[i] = w = Worker(memory_bytes, work)
                feed(w)
        if done and done % 1000 == 0:
            print(f"... {done} files, {time.monotonic() - start:.0f} s", file=sys.stderr)
    for w in workers:
        w.proc.stdin.close()
        w.proc.wait()
    elapsed = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"python bench/fuzz.py --files {args.files} --seed {args.seed} --jobs {args.jobs} "
          f"--memory-gib {args.memory_gib:g} --timeout-s {args.timeout_s:g}")
    print(f"{done} files in {elapsed:.0f} s ({usage.ru_utime + usage.ru_stime:.0f} s of worker CPU; "
          f"{time.process_time():.0f} s generating; largest worker {peak[0]:,.0f} MB resident)")
    for outcome in ("ok", "rejected", "no-location", "traceback", "memory", "hang", "round-trip"):
        per_kind = ", ".join(f"{k} {by_kind[(k, outcome)]}" for k in ("project", "workload", "catalog")
                             if by_kind[(k, outcome)])
        print(f"  {outcome:<12} {counts[outcome]:>6}" + (f"   ({per_kind})" if per_kind else ""))
    print("slowest: " + ", ".join(f"{name} {seconds:.2f} s" for seconds, name in slowest))
    for outcome, lines in examples.items():
        print(f"\n{outcome}: {len(lines)} (first 5)")
        for line in lines[:5]:
            print("  " + line)
    failures = sum(counts[o] for o in ("no-location", "traceback", "memory", "hang", "round-trip"))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
