"""All assumptions of one project, grouped by analysis; saved with the project (changed values only).

Each group is a frozen dataclass in its own module of this package (``network``, ``power``,
``reliability``, ``performance``, ``cost``, ``storage``, ``inference``). They sit below the
analyses that read them and import none: a design (core/model.py) carries its assumptions
typed, and a project file is read without loading an analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.assumptions.cost import CostAssumptions
from core.assumptions.inference import InferenceAssumptions
from core.assumptions.network import NetworkAssumptions
from core.assumptions.performance import PerformanceAssumptions
from core.assumptions.power import PowerAssumptions
from core.assumptions.reliability import ReliabilityAssumptions
from core.assumptions.storage import StorageAssumptions
from core.settings import settings_from_dict, settings_to_dict


@dataclass(frozen=True)
class Assumptions:
    network: NetworkAssumptions = field(default_factory=NetworkAssumptions)
    power: PowerAssumptions = field(default_factory=PowerAssumptions)
    reliability: ReliabilityAssumptions = field(default_factory=ReliabilityAssumptions)
    performance: PerformanceAssumptions = field(default_factory=PerformanceAssumptions)
    cost: CostAssumptions = field(default_factory=CostAssumptions)
    storage: StorageAssumptions = field(default_factory=StorageAssumptions)
    inference: InferenceAssumptions = field(default_factory=InferenceAssumptions)


def assumptions_from_dict(raw: Any, path: str = "assumptions") -> Assumptions:
    return settings_from_dict(Assumptions, raw, path)


def assumptions_to_dict(assumptions: Assumptions, only_changed: bool = True) -> dict[str, Any]:
    return settings_to_dict(assumptions, only_changed)
