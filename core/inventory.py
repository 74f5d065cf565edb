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
