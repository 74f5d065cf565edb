"""Edits of the design as a whole: its name, workload, services, assumptions, and its whole
content at once (a generator run)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import DesignError
from core.model import Block, Design
from core.operations.base import Operation


def _swap(design: Design, name: str, value: Any) -> Any:
    """Set a design-level field (checked by the design's rules) and return its old value."""
    old = getattr(design, name)
    setattr(design, name, value)
    return old


@dataclass
class SetDesignName(Operation):
    """Rename the design (reports and exports are titled with its name)."""

    block_path = ""
    name: str
    change_kind = "properties"
    text = "Rename design"

    def apply(self, design: Design) -> Operation:
        return SetDesignName(_swap(design, "name", self.name))


@dataclass
class SetWorkload(Operation):
    block_path = ""
    workload: Any
    change_kind = "workload"
    text = "Change workload"

    def apply(self, design: Design) -> Operation:
        return SetWorkload(_swap(design, "workload", self.workload))


@dataclass
class SetWorkloadPartition(Operation):
    """Put the main workload on a partition (core/services.py), or on every GPU the services
    leave (None)."""

    block_path = ""
    partition: Any  # core.services.Partition | None
    change_kind = "workload"
    text = "Change workload partition"

    def apply(self, design: Design) -> Operation:
        return SetWorkloadPartition(_swap(design, "workload_partition", self.partition))


@dataclass
class SetServices(Operation):
    """Replace every service at once (a generator run, a pasted list)."""

    block_path = ""
    services: tuple  # of core.services.Service
    change_kind = "workload"
    text = "Change services"

    def apply(self, design: Design) -> Operation:
        return SetServices(_swap(design, "services", tuple(self.services)))


def _service_index(design: Design, name: str) -> int:
    for index, service in enumerate(design.services):
        if service.name == name:
            return index
    raise DesignError(f"no service {name!r} (services: {', '.join(s.name for s in design.services) or 'none'})")


@dataclass
class AddService(Operation):
    """Add an inference service, at ``index`` among the services (None: last)."""

    service: Any  # core.services.Service
    index: int | None = None
    block_path = ""
    change_kind = "workload"
    text = "Add service"

    def apply(self, design: Design) -> Operation:
        services = list(design.services)
        services.insert(len(services) if self.index is None else self.index, self.service)
        design.services = tuple(services)  # the design's rules refuse a name already taken
        return RemoveService(self.service.name)


@dataclass
class RemoveService(Operation):
    name: str
    block_path = ""
    change_kind = "workload"
    text = "Remove service"

    def apply(self, design: Design) -> Operation:
        index = _service_index(design, self.name)
        removed = _swap(design, "services", design.services[:index] + design.services[index + 1:])[index]
        return AddService(removed, index)


@dataclass
class ChangeService(Operation):
    """Replace service ``name`` in its place by ``service`` (which may rename it, move it to
    another partition or change its workload)."""

    name: str
    service: Any  # core.services.Service
    block_path = ""
    change_kind = "workload"
    text = "Change service"

    def apply(self, design: Design) -> Operation:
        index = _service_index(design, self.name)
        old = _swap(design, "services", design.services[:index] + (self.service,) + design.services[index + 1:])
        return ChangeService(self.service.name, old[index])


@dataclass
class SetAssumptions(Operation):
    block_path = ""
    assumptions: Any
    change_kind = "assumptions"
    text = "Change assumptions"

    def apply(self, design: Design) -> Operation:
        return SetAssumptions(_swap(design, "assumptions", self.assumptions))


@dataclass
class ReplaceRoot(Operation):
    """Swap the whole design content (a generator run is one undoable step)."""

    block_path = ""
    root: Block
    name: str
    metadata: dict[str, Any]
    text = "New from template"

    def apply(self, design: Design) -> Operation:
        old = ReplaceRoot(design.root, design.name, design.metadata)
        design.root, design.name, design.metadata = self.root, self.name, self.metadata
        return old
