"""The typed catalog entries: one frozen dataclass per kind, with the units in the field names.

core/catalog.py checks a raw JSON entry against its kind's schema and builds the class below
for that kind (``SPEC_CLASSES``); analyses then read attributes (``switch.latency_ns``,
``server.nic``, ``dpu.engines["storage"].gbyte_s``), never string keys, so a misspelt field is
an AttributeError at the line that reads it instead of a silent ``None``. A field a kind does
not declare is not an attribute of its class: code that walks specs of every kind tests the
kind (``isinstance(spec, SwitchSpec)``) before reading a kind's field.

Optional fields without a default are ``None`` when the entry leaves them out; analyses fall
back to documented assumptions. Numbers keep the JSON's int or float, as read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import Any, Mapping

from core.errors import CatalogError

MIB = 2 ** 20
GIB = 2 ** 30


def _plain(value: Any) -> Any:
    """A field's value as JSON: records by their ``to_json``, tuples as lists."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class Price:
    """One unit's price (core/catalog_prices.py says what a valid one holds)."""

    usd: float
    year: int
    evidence: str  # "list", "street" or "estimate"
    source: str
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"usd": self.usd, "year": self.year, "evidence": self.evidence, "source": self.source}
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, kw_only=True)
class DpuEngine:
    """What one engine of a DPU does (core/dpu_engines.py): the figures its kind of engine
    gives, ``None`` where the entry leaves one out."""

    virtio_functions: int | None = None  # compute_virtio
    gbyte_s: float | None = None          # storage, both directions
    iops: float | None = None             # storage
    gbit_s: float | None = None           # network, per direction
    ipsec_gbit_s: float | None = None     # security
    tls_gbit_s: float | None = None       # security
    arm_cores: int | None = None          # control
    offload_cores_freed: float | None = None
    evidence: str | None = None
    note: str | None = None

    def figures(self) -> tuple[tuple[str, float], ...]:
        """(field, value) of every number given, in field order (for the Inspector)."""
        return tuple((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                     if f.name not in ("evidence", "note") and getattr(self, f.name) is not None)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) is not None}


@dataclass(frozen=True)
class ScaleUpSwitchSlot:
    """Scale-up switches of one model inside a compute node (a GB200 NVL72's switch trays)."""

    id: str
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "count": self.count}


@cache
def _json_fields(cls: type) -> tuple[str, ...]:
    """The fields ``to_json`` writes between the name and the source, in schema order."""
    head = ("id", "kind", "vendor", "name", "source", "confidence", "origin")
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in head)


@dataclass(frozen=True, kw_only=True)
class ComponentSpec:
    """The fields every catalog entry has, whatever its kind."""

    id: str
    kind: str
    vendor: str
    name: str
    source: str
    confidence: str
    notes: str = ""
    price: Price | None = None  # None: unpriced, never free
    failure_rate_per_1000_days: float | None = None
    failure_rate_source: str = ""
    # First shipment, or announcement for an ``announced`` part
    year: int | None = None
    status: str | None = None  # "shipping" or "announced"
    origin: str = ""  # the file it came from, for messages

    def port_modes(self) -> Mapping[str, int]:
        """Port speed (Gb/s, as written) -> ports, for every mode of a switch or NIC (and the
        one mode of a storage node or appliance); empty for kinds without ports."""
        return {}

    def port_count_at(self, gbit_s: float) -> int:
        """Ports offered at ``gbit_s`` (breakout-aware), 0 if that speed is not offered."""
        for speed, count in self.port_modes().items():
            if abs(float(speed) - gbit_s) < 1e-6:
                return int(count)
        return 0

    @property
    def native_port_gbit_s(self) -> float:
        """Fastest port speed of a switch or NIC (its native radix speed)."""
        return max(float(s) for s in self.port_modes())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "vendor": self.vendor,
                               "name": self.name}
        for name in _json_fields(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[name] = _plain(value)
        out["source"] = self.source
        out["confidence"] = self.confidence
        return out


def _native_mode(port_gbit_s: float | None, ports: int | None) -> Mapping[str, int]:
    return {str(port_gbit_s): ports} if port_gbit_s and ports else {}


@dataclass(frozen=True, kw_only=True)
class AcceleratorSpec(ComponentSpec):
    tflops_dense: Mapping[str, float]  # precision -> dense TFLOP/s
    hbm_gb: float
    hbm_tbyte_s: float
    tdp_w: float
    scale_up_gbyte_s_per_dir: float
    scale_up_tech: str = ""
    scale_up_links: int | None = None
    scale_up_effective_gbyte_s: float | None = None
    # GB/s per direction between one GPU and its host's memory (PCIe, NVLink-C2C)
    host_link_gbyte_s: float | None = None
    # memory.total as the driver reports it (nvidia-smi), MiB: what a job can address
    hbm_reported_mib: float | None = None

    @property
    def hbm_capacity_gb(self) -> float:
        """The memory a job can fill, GB = 1e9 bytes (the unit of every memory figure the
        analyses compute): the driver's reported total where the catalog has it (H100 80GB:
        81,559 MiB = 85.52 GB), else the spec sheet's figure read as GiB, the unit vendors
        size HBM in (an "80GB" H100 is five 16 GiB stacks; an A100 80GB reports 81,920 MiB).
        Comparing decimal-GB needs with the spec sheet's number understated every GPU by 7%."""
        if self.hbm_reported_mib is not None:
            return float(self.hbm_reported_mib) * MIB / 1e9
        return float(self.hbm_gb) * GIB / 1e9

    def peak_tflops(self, precision: str) -> float:
        value = self.tflops_dense.get(precision)
        if value:
            return float(value)
        raise CatalogError(f"{self.id}: no dense {precision} TFLOPs in the catalog")


@dataclass(frozen=True, kw_only=True)
class NodeSpec(ComponentSpec):
    """A server (kind ``server``); a super-node adds its racks and tiers."""

    accelerator: str
    accelerators: int
    scale_up_domain: int  # filled in: the node's accelerators when the entry leaves it out
    scale_up_switches: tuple[ScaleUpSwitchSlot, ...] = ()
    scale_up_ports: int = 0  # scale-up ports that leave the node for drawn scale-up switches
    scale_up_port_gbit_s: float | None = None
    nic: str | None = None
    nics: int = 0
    nic_ports_per_cage: int = 1  # NIC ports one module cage of the node holds
    dpu: str | None = None
    dpus: int = 0
    max_power_kw: float
    typical_power_kw: float | None = None
    rack_units: int | None = None
    per_rack: int = 1
    cooling: str = "air"
    cpus: int = 0


@dataclass(frozen=True, kw_only=True)
class SupernodeSpec(NodeSpec):
    racks: int = 1
    scale_up_tiers: int = 1


@dataclass(frozen=True, kw_only=True)
class SwitchSpec(ComponentSpec):
    role: str  # "scale-out" or "scale-up"
    protocol: str
    ports_by_gbit_s: Mapping[str, int]
    capacity_tbit_s: float | None = None
    latency_ns: float
    max_power_w: float
    typical_power_w: float | None = None
    rack_units: int | None = None
    chassis: bool = False
    in_network_reduction: bool = False
    ports_per_cage: int = 2  # native ports one module cage holds
    co_packaged_optics: bool = False
    load_balancing: tuple[str, ...] | None = None  # core/catalog_fabric.py
    flow_control: str | None = None
    buffer_mb: float | None = None
    fabric_source: str = ""

    def port_modes(self) -> Mapping[str, int]:
        return self.ports_by_gbit_s


@dataclass(frozen=True, kw_only=True)
class NicSpec(ComponentSpec):
    ports: int
    port_gbit_s: float
    power_w: float
    effective_gbyte_s: float | None = None
    protocols: tuple[str, ...] = ()
    ports_by_gbit_s: Mapping[str, int] | None = None  # None: the one mode {port_gbit_s: ports}
    load_balancing_by_protocol: Mapping[str, tuple[str, ...]] | None = None
    selective_retransmit: bool = False
    fabric_source: str = ""

    def port_modes(self) -> Mapping[str, int]:
        return self.ports_by_gbit_s or _native_mode(self.port_gbit_s, self.ports)


@dataclass(frozen=True, kw_only=True)
class DpuSpec(NicSpec):
    engines: Mapping[str, DpuEngine] | None = None  # engine name -> what it does
    # Host CPU cores one DPU frees when used, for the whole DPU (else per engine)
    offload_cores_freed: float | None = None


@dataclass(frozen=True, kw_only=True)
class TransceiverSpec(ComponentSpec):
    gbit_s: float
    lanes: int = 1
    reach_m: float
    power_w: float
    medium: str
    fiber: str | None = None  # None: matches either fibre type


@dataclass(frozen=True, kw_only=True)
class CableSpec(ComponentSpec):
    medium: str
    fiber: str | None = None
    reach_m: float
    ns_per_m: float
    power_w: float = 0.0
    fanout: int = 1  # ends one cable fans out to: 2 for a 1:2 splitter


@dataclass(frozen=True, kw_only=True)
class StorageSpec(ComponentSpec):
    read_gbyte_s: float
    write_gbyte_s: float
    capacity_tb: float | None = None
    ports: int
    port_gbit_s: float
    max_power_w: float
    typical_power_w: float | None = None
    rack_units: int | None = None

    def port_modes(self) -> Mapping[str, int]:
        return _native_mode(self.port_gbit_s, self.ports)


@dataclass(frozen=True, kw_only=True)
class ApplianceSpec(ComponentSpec):
    role: str = "fabric-manager"
    ports: int
    port_gbit_s: float
    max_power_w: float
    typical_power_w: float | None = None
    rack_units: int | None = None

    def port_modes(self) -> Mapping[str, int]:
        return _native_mode(self.port_gbit_s, self.ports)


SPEC_CLASSES: dict[str, type[ComponentSpec]] = {
    "accelerator": AcceleratorSpec,
    "server": NodeSpec,
    "supernode": SupernodeSpec,
    "switch": SwitchSpec,
    "nic": NicSpec,
    "dpu": DpuSpec,
    "transceiver": TransceiverSpec,
    "cable": CableSpec,
    "storage": StorageSpec,
    "appliance": ApplianceSpec,
}


# Kinds whose entry gives a nameplate power in W and may give its rack units: the boxes of a
# network or storage rack.
BOX_SPECS = (SwitchSpec, StorageSpec, ApplianceSpec)
# Kinds that may give their height in rack units.
RACKED_SPECS = (NodeSpec, *BOX_SPECS)


def engines_of(spec: ComponentSpec) -> Mapping[str, DpuEngine]:
    """The engines a DPU lists; none for a plain NIC (a server's ``dpu`` may name one)."""
    return (spec.engines or {}) if isinstance(spec, DpuSpec) else {}


def power_field(spec: ComponentSpec) -> tuple[str, str, float] | None:
    """(field, unit, value) of the power figure a user may override on a node of ``spec``'s
    kind (the Inspector's "Power" row); None for an appliance."""
    if isinstance(spec, NodeSpec):
        return "max_power_kw", "kW", spec.max_power_kw
    if isinstance(spec, (SwitchSpec, StorageSpec)):
        return "max_power_w", "W", spec.max_power_w
    if isinstance(spec, AcceleratorSpec):
        return "tdp_w", "W", spec.tdp_w
    if isinstance(spec, (NicSpec, TransceiverSpec, CableSpec)):
        return "power_w", "W", spec.power_w
    return None


def build_spec(values: dict[str, Any], origin: str) -> ComponentSpec:
    """The typed spec of checked ``values``: every field its kind declares, defaults filled in
    (``values`` is taken over)."""
    if values["price"] is not None:
        values["price"] = Price(**values["price"])
    kind = values["kind"]
    if kind in ("server", "supernode"):
        values["scale_up_switches"] = tuple(ScaleUpSwitchSlot(**item)
                                            for item in values["scale_up_switches"])
    elif kind == "switch" and values["load_balancing"] is not None:
        values["load_balancing"] = tuple(values["load_balancing"])
    elif kind in ("nic", "dpu"):
        values["protocols"] = tuple(values["protocols"])
        if values["load_balancing_by_protocol"] is not None:
            values["load_balancing_by_protocol"] = {
                protocol: tuple(modes)
                for protocol, modes in values["load_balancing_by_protocol"].items()}
        if kind == "dpu" and values["engines"] is not None:
            values["engines"] = {name: DpuEngine(**engine)
                                 for name, engine in values["engines"].items()}
    # ``values`` holds exactly the class's fields (tests/test_catalog.py checks the schema and
    # the classes declare the same ones), so the instance is filled in one step: a frozen
    # dataclass's __init__ sets its ~30 fields one object.__setattr__ at a time, which made
    # loading the catalog 15% slower than the untyped specs it replaces.
    spec = object.__new__(SPEC_CLASSES[kind])
    spec.__dict__.update(values, origin=origin)
    return spec
