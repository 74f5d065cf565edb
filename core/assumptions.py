"""All assumptions of one project, grouped by analysis; saved with the project (changed values only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.analysis.cost import CostAssumptions
from core.analysis.inference_assumptions import InferenceAssumptions
from core.analysis.performance_assumptions import PerformanceAssumptions
from core.analysis.power import PowerAssumptions
from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.analysis.storage import StorageAssumptions
from core.settings import settings_from_dict, settings_to_dict
from core.topology import NetworkAssumptions


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
