"""What a design contains, counted: the input of the power, reliability and BOM analyses.

One ``InventoryItem`` per (catalog id, role, overrides) with a total count; never one object per
device. Items inside a host's power budget (NICs, DPUs, scale-up switches, server-side optics)
carry ``powered=False`` so power is not counted twice (hardware.md §6: "The NIC-side module is
inside the server's power budget; do not count it twice").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from core.catalog import ComponentSpec

# Roles an item can play. Switch roles follow the scale-out tier names of the evaluation JSON.
ROLES = (
    "compute",      # servers and super-nodes
    "accelerator",  # the GPUs inside compute nodes
    "leaf", "spine", "core",  # scale-out switches by tier (extra tiers may add names)
    "scale-up",     # NVSwitch / NVLink switch / UB switch chips
    "nic", "dpu",
    "storage",
    "transceiver",
    "cable",
    "switch",       # a switch whose tier could not be determined
    "appliance",    # fabric managers and other management appliances
)


@dataclass(frozen=True)
class InventoryItem:
    catalog_id: str
    kind: str
    role: str
    count: int
    spec: ComponentSpec
    powered: bool = True
    overrides: Mapping[str, float] = field(default_factory=dict)
    paths: tuple[str, ...] = ()  # design paths of the nodes this item came from

    def value(self, key: str, default: float | None = None) -> float | None:
        """An override if the user set one, else the catalog value, else ``default``."""
        if key in self.overrides:
            return self.overrides[key]
        return self.spec.get(key, default)


@dataclass(frozen=True)
class Inventory:
    items: tuple[InventoryItem, ...]

    def by_role(self, *roles: str) -> list[InventoryItem]:
        return [item for item in self.items if item.role in roles]

    def count(self, *roles: str) -> int:
        return sum(item.count for item in self.items if item.role in roles)

    @property
    def gpus(self) -> int:
        return self.count("accelerator")

    @property
    def compute_nodes(self) -> int:
        return self.count("compute")


def _pick(candidates: list[ComponentSpec], length_m: float) -> ComponentSpec | None:
    """The shortest-reach entry that still covers ``length_m`` (else the longest reach)."""
    if not candidates:
        return None
    fitting = [c for c in candidates if float(c["reach_m"]) >= length_m]
    if fitting:
        return min(fitting, key=lambda c: float(c["reach_m"]))
    return max(candidates, key=lambda c: float(c["reach_m"]))


def choose_transceiver(catalog, speed_gbit_s: float, length_m: float) -> ComponentSpec | None:
    """A twin-port module (2 x speed, as in OSFP cages of QM9700 and DGX H100) if one reaches,
    else a single-port module; None if the catalog has neither at this speed."""
    twins = [t for t in catalog.by_kind("transceiver")
             if int(t["lanes"]) == 2 and abs(float(t["gbit_s"]) - 2 * speed_gbit_s) < 1e-6]
    singles = [t for t in catalog.by_kind("transceiver")
               if int(t["lanes"]) == 1 and abs(float(t["gbit_s"]) - speed_gbit_s) < 1e-6]
    twin = _pick(twins, length_m)
    if twin is not None and float(twin["reach_m"]) >= length_m:
        return twin
    single = _pick(singles, length_m)
    if single is not None and float(single["reach_m"]) >= length_m:
        return single
    return twin or single


def choose_cable(catalog, medium: str, length_m: float) -> ComponentSpec | None:
    return _pick([c for c in catalog.by_kind("cable") if c["medium"] == medium], length_m)


def build_inventory(flat, tiers: Mapping[int, str]) -> tuple[Inventory, list]:
    """Count everything in a flattened design; returns (inventory, diagnostics)."""
    from core.catalog import COMPUTE_KINDS  # noqa: PLC0415 - avoid a cycle at import time
    from core.diagnostics import Diagnostic  # noqa: PLC0415

    catalog = flat.catalog
    counts: dict[tuple, list] = {}
    diagnostics: list = []

    def add(spec: ComponentSpec, role: str, count: int, powered: bool, overrides=None, path: str = ""):
        key = (spec.id, role, powered, tuple(sorted((overrides or {}).items())))
        entry = counts.setdefault(key, [spec, 0, overrides or {}, []])
        entry[1] += count
        if path and path not in entry[3]:
            entry[3].append(path)

    for i, group in enumerate(flat.groups):
        spec, units, node = group.spec, group.multiplicity, group.node
        if spec.kind in COMPUTE_KINDS:
            add(spec, "compute", units, True, node.overrides, group.path)
            add(catalog.get(spec["accelerator"]), "accelerator", units * int(spec["accelerators"]),
                False, path=group.path)
            if spec.get("nic") and spec.get("nics"):
                add(catalog.get(spec["nic"]), "nic", units * int(spec["nics"]), False, path=group.path)
            if spec.get("dpu") and spec.get("dpus"):
                add(catalog.get(spec["dpu"]), "dpu", units * int(spec["dpus"]), False, path=group.path)
            for item in spec.get("scale_up_switches") or []:
                add(catalog.get(item["id"]), "scale-up", units * int(item["count"]), False, path=group.path)
        elif spec.kind == "switch":
            add(spec, tiers.get(i, "switch"), units, True, node.overrides, group.path)
        elif spec.kind == "accelerator":
            add(spec, "accelerator", units, True, node.overrides, group.path)
        else:
            add(spec, spec.kind, units, True, node.overrides, group.path)

    for bundle in flat.bundles:
        cable = choose_cable(catalog, bundle.medium, bundle.length_m)
        ends = (flat.groups[bundle.a], flat.groups[bundle.b])
        paths = f"{ends[0].path} - {ends[1].path}"
        if cable is None:
            diagnostics.append(Diagnostic("NO_CABLE", f"no {bundle.medium} cable in the catalog for {paths}",
                                          (ends[0].path, ends[1].path)))
        else:
            if float(cable["reach_m"]) < bundle.length_m:
                diagnostics.append(Diagnostic(
                    "LINK_TOO_LONG",
                    f"{paths}: {bundle.length_m:g} m exceeds the {cable['reach_m']:g} m reach of {cable.id}",
                    (ends[0].path, ends[1].path)))
            add(cable, "cable", bundle.cables, True, path=paths)
        if bundle.medium != "fiber":
            continue
        module = choose_transceiver(catalog, bundle.speed_gbit_s, bundle.length_m)
        if module is None:
            diagnostics.append(Diagnostic(
                "NO_TRANSCEIVER", f"no {bundle.speed_gbit_s:g} Gb/s transceiver in the catalog for {paths}",
                (ends[0].path, ends[1].path)))
            continue
        lanes = int(module["lanes"])
        for end in ends:
            # Optics in a compute node's cages draw from the node's own power budget.
            powered = end.spec.kind not in COMPUTE_KINDS
            add(module, "transceiver", -(-bundle.cables // lanes), powered, path=end.path)

    items = tuple(
        InventoryItem(spec.id, spec.kind, role, count, spec, powered, overrides, tuple(paths))
        for (_, role, powered, _), (spec, count, overrides, paths) in counts.items()
    )
    return Inventory(items), diagnostics
