"""Power: device -> server -> critical IT -> facility, and the energy, cost and CO2e of a run.

Reference: ../shared/reference/reliability-power.md §8 (power), §9 (energy method), §11 (defaults)
and hardware.md §2, §3, §6, §8.

* **Provisioned IT power** (``it_kw``) is nameplate: compute nodes at ``max_power_kw``, switches
  and storage at ``max_power_w``, optics/active cables and stand-alone NICs/DPUs at ``power_w``.
  Items with ``powered=False`` (NICs, DPUs, scale-up switches and server-side optics inside a
  host's budget) are not counted again (hardware.md §6).
* **Expected draw** (``typical_kw``) uses each item's typical figure (``typical_power_kw`` /
  ``typical_power_w``); compute, switches and storage without one draw ``typical_fraction`` of
  nameplate (§8.2: 0.75-0.85 x nameplate in training; §11: 0.8). Optics, cables, NICs and DPUs
  have a single, nearly load-independent figure (``power_w``) that is used as is.
* **Cooling** (docs/reference/cooling.md): every compute rack is air, rear-door, cold-plate or
  immersion cooled (its catalog entry's ``cooling``, or the one its design component or an
  enclosing block sets). Each type
  has a rack-kW limit (``RACK_OVER_COOLING_LIMIT`` above it) and a PUE; without a set ``pue``
  the facility's PUE is the compute-kW-weighted mix of the types' PUEs. A server rack holds
  ``per_rack`` nodes (the last one what is left), a super-node spreads over its ``racks``.
* **Facility** = IT x PUE. Energy uses expected draw (§8.2: "nameplate for capacity planning and
  expected for energy"), cost and CO2e use facility energy (§9 steps 3-4).
* **A job on part of the cluster** is charged its share of the compute (job GPUs / design GPUs,
  applied to compute nodes and to stand-alone NICs/DPUs/accelerators) plus the *whole* network
  (switches, optics, cables) and the whole storage: those are shared, stay powered whatever runs
  on them, and the job cannot run without them. This is the conservative choice for a cost
  estimate; a job filling the cluster is charged everything either way.

All loops are over inventory items (one per catalog id and role), never over devices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from core.cooling import COOLING_TYPES, cooling_type
from core.diagnostics import Diagnostic
from core.jsonable import to_jsonable
from core.inventory import Inventory, InventoryItem

# Stable order of the by_kind_kw keys (only kinds with powered items appear).
KIND_ORDER = (
    "compute", "accelerator", "switch", "nic", "dpu", "transceiver", "cable", "storage",
    "appliance",
)
# by_kind keys that make up the network (switches, optics, active cables).
NETWORK_KINDS = ("switch", "transceiver", "cable")
# Kinds shared by every job (charged in full to a job on part of the cluster).
SHARED_KINDS = ("switch", "transceiver", "cable", "storage", "appliance")


# Bounds of the assumptions below (core/settings.py reads them from the field metadata). A PUE
# is facility / IT power, so 1 or more; 3.0 leaves room well past the worst figure of
# hardware.md §8 (air-cooled colocation up to 1.8; Uptime average 1.56) and catches "14" for 1.4.
_PUE = {"min": 1.0, "max": 3.0}
_PER_RACK = {"min": 1, "unit": "per rack"}
_RACK_KW = {"min": 0.0, "unit": "kW"}


@dataclass(frozen=True)
class PowerAssumptions:
    # PUE. None: from the compute racks' cooling (compute-kW-weighted mix of the PUE of each
    # cooling type below). Engine defaults of hardware.md §8 / reliability-power.md §8.4 (E):
    # air-cooled 1.4, direct liquid cooling 1.15 (hyperscale 1.1; range 1.08-1.6; Uptime
    # average 1.56). docs/reference/cooling.md has the sources of every cooling default.
    pue: float | None = field(default=None, metadata=_PUE)
    pue_air: float = field(default=1.4, metadata=_PUE)
    # PUE of cold-plate (direct-to-chip) liquid cooling; "liquid" in older files and catalogs.
    pue_liquid: float = field(default=1.15, metadata=_PUE)
    # PUE of rear-door heat exchangers: air-cooled servers, room fans and chillers partly
    # replaced by a water coil on each rack door (cooling.md §2: ~1.3).
    pue_rear_door: float = field(default=1.3, metadata=_PUE)
    # PUE of immersion cooling (cooling.md §4: 1.02-1.1; Sugon's scaleX640 phase-change
    # immersion 1.04).
    pue_immersion: float = field(default=1.05, metadata=_PUE)
    # Expected/nameplate for compute, switches and storage without a typical figure
    # (reliability-power.md §8.2: 0.75-0.85, Latif et al. / Newkirk et al.; §11 default 0.8).
    typical_fraction: float = field(
        default=0.8, metadata={"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"})
    # Electricity price, USD per kWh of facility energy. USER INPUT (§9: "price and intensity
    # are user inputs"); 0.08 is about the US industrial-sector average of 2023-2024 (EIA,
    # Electric Power Monthly, table 5.3: ~8 cents/kWh). The cost analysis uses the same price.
    electricity_usd_per_kwh: float = field(default=0.08, metadata={"min": 0.0, "unit": "USD / kWh"})
    # Grid carbon intensity, t CO2e per MWh of facility energy. USER INPUT; 0.4 is an assumed
    # round figure near the GPT-3 anchor of §9 (Patterson et al.: 552 t / 1,287 MWh = 0.43);
    # the French-grid BLOOM anchor is 0.057.
    grid_t_co2_per_mwh: float = field(default=0.4, metadata={"min": 0.0, "unit": "t CO₂ / MWh"})
    # Rack packing of network and storage gear, for max_rack_kw (E: estimates; cable density
    # rather than rack units limits network racks to a few 64-port switches each).
    switches_per_rack: int = field(default=8, metadata=_PER_RACK)
    storage_per_rack: int = field(default=8, metadata=_PER_RACK)
    # Air-cooled rack density above which a warning is raised (E: SuperPOD H100 RA runs
    # 4 x DGX H100 = 40.8 kW air-cooled racks, hardware.md §3; beyond ~50 kW needs liquid).
    air_rack_limit_kw: float = field(default=50.0, metadata=_RACK_KW)
    # What a rear-door heat exchanger removes per rack (cooling.md §2: door families of 14-35,
    # 35-55 and 55-75 kW; overviews 20-80 kW).
    rear_door_rack_limit_kw: float = field(default=75.0, metadata=_RACK_KW)
    # What cold-plate liquid cooling removes per rack (cooling.md §3: GB300 NVL72 142 kW,
    # Vera Rubin NVL144 ~183 kW E; 200 kW rack designs).
    liquid_rack_limit_kw: float = field(default=200.0, metadata=_RACK_KW)
    # What an immersion tank removes per rack position (cooling.md §4: 50-250 kW per tank).
    immersion_rack_limit_kw: float = field(default=250.0, metadata=_RACK_KW)

    def cooling_pue(self, cooling: str) -> float:
        """The PUE of a cooling type of core/cooling.py."""
        return {"air": self.pue_air, "rear-door": self.pue_rear_door,
                "cold-plate": self.pue_liquid, "immersion": self.pue_immersion}[cooling]

    def rack_limit_kw(self, cooling: str) -> float:
        """The kW a rack of a cooling type of core/cooling.py can shed."""
        return {"air": self.air_rack_limit_kw, "rear-door": self.rear_door_rack_limit_kw,
                "cold-plate": self.liquid_rack_limit_kw,
                "immersion": self.immersion_rack_limit_kw}[cooling]


@dataclass(frozen=True)
class CoolingRacks:
    """The compute racks of one cooling type (network and storage racks are not counted)."""

    racks: int              # racks holding compute nodes (a super-node: its own racks)
    it_kw: float            # their nameplate IT: nodes plus the drawn scale-up switches among them
    max_rack_kw: float      # the densest of them
    rack_limit_kw: float    # what this cooling removes per rack (assumption)
    pue: float              # this cooling's PUE (assumption; a set ``pue`` overrides the mix)
    over_limit_racks: int   # racks above rack_limit_kw


@dataclass(frozen=True)
class PowerResult:
    it_kw: float                     # provisioned critical IT (nameplate)
    typical_kw: float                # expected IT draw in training
    facility_kw: float               # it_kw x pue
    pue: float
    by_kind_kw: Mapping[str, float]  # nameplate kW per kind (compute, switch, transceiver, ...)
    max_rack_kw: float
    # cooling type -> its compute racks, in COOLING_TYPES order; only types the design uses
    cooling: Mapping[str, CoolingRacks]
    network_kw: float                # switches + optics + active cables (nameplate)
    network_share: float             # network_kw / it_kw (fraction)
    compute_w_per_gpu: float         # compute nameplate / GPUs (§8.1 "per-GPU all-in")
    it_w_per_gpu: float              # all critical IT / GPUs
    gpus: int
    job_gpus: int
    # The run: None when there is none to charge (no workload, a job that cannot run on the
    # design, or one larger than it), never zero as if it had run.
    run_days: float | None
    job_it_kw: float | None          # expected draw charged to the job (see module doc)
    energy_mwh_it: float | None
    energy_mwh_facility: float | None
    energy_cost_usd: float | None
    co2_t: float | None
    gpu_hours: float | None
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)


def _item_power_w(item: InventoryItem) -> tuple[float, float | None]:
    """(nameplate W, typical W or None) of one device of ``item``."""
    kind, spec = item.kind, item.spec
    if kind in ("server", "supernode"):
        typical = item.value("typical_power_kw", spec.typical_power_kw)
        return (
            float(item.value("max_power_kw", spec.max_power_kw)) * 1000.0,
            None if typical is None else float(typical) * 1000.0,
        )
    if kind in ("switch", "storage", "appliance"):
        typical = item.value("typical_power_w", spec.typical_power_w)
        return float(item.value("max_power_w", spec.max_power_w)), None if typical is None else float(typical)
    if kind == "accelerator":
        return float(item.value("tdp_w", spec.tdp_w)), None
    # nic, dpu, transceiver, cable: one load-independent figure, used as nameplate and typical.
    power = float(item.value("power_w", spec.power_w))
    return power, power


def _by_kind_key(item: InventoryItem) -> str:
    return "compute" if item.kind in ("server", "supernode") else item.kind


def item_cooling(item: InventoryItem) -> str:
    """The cooling of a compute item's racks: the design's override, else its catalog entry's."""
    return item.cooling or cooling_type(str(item.value("cooling", item.spec.cooling)))


class _RackTally:
    """The compute racks of one cooling type, added item by item."""

    def __init__(self, limit_w: float):
        self.limit_w = limit_w
        self.racks = 0
        self.it_w = 0.0
        self.max_rack_w = 0.0
        self.over_racks = 0
        self.over_limit: list[tuple[str, tuple[str, ...]]] = []  # (what, design paths)

    def add(self, item: InventoryItem, node_w: float) -> float:
        """Count ``item``'s racks (``node_w`` per node, scale-up switches included); returns
        its densest rack's W. A super-node fills ``racks`` racks evenly; servers fill racks of
        ``per_rack``, the last one holding what is left. Racks are packed over all of the
        item's units, as before cooling types: a design drawn server by server (an import)
        must give the numbers of the same design drawn as repeated blocks, and which drawn
        servers share a rack is not in the model."""
        if item.kind == "supernode":
            per_node = max(1, int(item.value("racks", item.spec.racks) or 1))
            rack_ws = [(item.count * per_node, node_w / per_node)]
        else:
            per_rack = max(1, int(item.value("per_rack", item.spec.per_rack) or 1))
            full, rest = divmod(item.count, per_rack)
            rack_ws = [(full, per_rack * node_w), (1 if rest else 0, rest * node_w)]
        rack_ws = [(n, w) for n, w in rack_ws if n]
        densest_w = max((w for _, w in rack_ws), default=0.0)
        self.racks += sum(n for n, _ in rack_ws)
        self.it_w += item.count * node_w
        self.max_rack_w = max(self.max_rack_w, densest_w)
        over = sum(n for n, w in rack_ws if w > self.limit_w)
        if over:
            self.over_racks += over
            cooling = item_cooling(item)
            self.over_limit.append((
                f"{item.catalog_id} racks of {densest_w / 1000.0:.1f} kW on {cooling} cooling "
                f"(limit {self.limit_w / 1000.0:g} kW)", item.paths))
        return densest_w

    def result(self, pue: float) -> CoolingRacks:
        return CoolingRacks(self.racks, self.it_w / 1000.0, self.max_rack_w / 1000.0,
                            self.limit_w / 1000.0, pue, self.over_racks)


def analyze_power(
    inventory: Inventory,
    run_days: float | None,
    job_gpus: int | None,
    assumptions: PowerAssumptions = PowerAssumptions(),
) -> PowerResult:
    """Power and energy of ``inventory``; energy for a job of ``job_gpus`` over ``run_days``.

    ``run_days`` is wall-clock (already divided by ETTR if the caller wants failures included);
    None (no run: no workload, or a job that cannot run) leaves the run's energy, cost, CO2e
    and GPU-hours None. ``job_gpus`` None means the whole design; a job larger than the design
    gets no run figures either (JOB_EXCEEDS_DESIGN).
    """
    a = assumptions
    diagnostics: list[Diagnostic] = []
    kind_w: dict[str, float] = {}
    typical_shared_w = 0.0
    typical_compute_w = 0.0
    pue_weight = 0.0  # sum of compute W x its PUE
    compute_w = 0.0
    max_rack_w = 0.0
    racks: dict[str, _RackTally] = {}
    switch_count = 0
    switch_w_each = 0.0  # largest switch nameplate
    storage_rack_w = 0.0
    # Drawn scale-up switches (NVLink switch trays) sit in the racks of the nodes they join:
    # their power is spread over the compute nodes rather than counted as network racks.
    powered = [item for item in inventory.items if item.count > 0 and item.powered]
    scale_up_w = sum(item.count * _item_power_w(item)[0] for item in powered
                     if item.kind == "switch" and item.role == "scale-up")
    compute_units = sum(item.count for item in powered if _by_kind_key(item) == "compute")
    scale_up_w_per_node = scale_up_w / compute_units if compute_units else 0.0

    for item in powered:
        max_w, typical_w = _item_power_w(item)
        if typical_w is None:
            typical_w = max_w * a.typical_fraction
        key = _by_kind_key(item)
        kind_w[key] = kind_w.get(key, 0.0) + item.count * max_w
        if key in SHARED_KINDS:
            typical_shared_w += item.count * typical_w
        else:
            typical_compute_w += item.count * typical_w

        if key == "compute":
            compute_w += item.count * max_w
            cooling = item_cooling(item)
            pue_weight += item.count * max_w * a.cooling_pue(cooling)
            tally = racks.setdefault(cooling, _RackTally(a.rack_limit_kw(cooling) * 1000.0))
            rack_w = tally.add(item, max_w + scale_up_w_per_node)
            max_rack_w = max(max_rack_w, rack_w)
        elif item.kind == "switch" and item.role != "scale-up":
            switch_count += item.count
            switch_w_each = max(switch_w_each, max_w)
        elif item.kind == "storage":
            storage_rack_w = max(
                storage_rack_w, min(item.count, max(1, a.storage_per_rack)) * max_w
            )

    # Network racks: switches plus their share of the switch-side optics.
    if switch_count:
        optics_per_switch_w = (kind_w.get("transceiver", 0.0) + kind_w.get("cable", 0.0)) / switch_count
        per_rack = min(switch_count, max(1, a.switches_per_rack))
        max_rack_w = max(max_rack_w, per_rack * (switch_w_each + optics_per_switch_w))
    max_rack_w = max(max_rack_w, storage_rack_w)

    it_w = sum(kind_w.values())
    if a.pue is not None:
        pue = float(a.pue)
    elif compute_w > 0:
        pue = pue_weight / compute_w
    else:
        pue = a.pue_air
    if pue < 1.0:
        diagnostics.append(Diagnostic(
            "PUE_BELOW_ONE", f"PUE {pue:.2f} is below 1, which is physically impossible"))

    cooling = {kind: racks[kind].result(a.cooling_pue(kind)) for kind in COOLING_TYPES
               if kind in racks}
    over = [problem for kind in cooling for problem in racks[kind].over_limit]
    if over:
        racks_over = sum(result.over_limit_racks for result in cooling.values())
        diagnostics.append(Diagnostic(
            "RACK_OVER_COOLING_LIMIT",
            f"{racks_over:,} compute "
            + ("rack draws more than its" if racks_over == 1 else "racks draw more than their")
            + " cooling removes: " + "; ".join(text for text, _ in over)
            + "; plan denser cooling or fewer nodes per rack",
            tuple(dict.fromkeys(path for _, paths in over for path in paths)),
        ))

    gpus = inventory.gpus
    job = gpus if job_gpus is None else max(0, int(job_gpus))
    job_it_w: float | None = None
    if job > gpus:
        diagnostics.append(Diagnostic(
            "JOB_EXCEEDS_DESIGN",
            f"the job needs {job:,} GPUs but the design has {gpus:,}: the run's energy is not "
            f"computed"))
    else:
        share = job / gpus if gpus else 1.0
        job_it_w = typical_compute_w * share + typical_shared_w

    days = None
    if run_days is not None and math.isfinite(run_days) and job_it_w is not None:
        days = max(0.0, float(run_days))
    energy_it_mwh = job_it_w / 1e6 * days * 24.0 if days is not None else None
    energy_fac_mwh = energy_it_mwh * pue if energy_it_mwh is not None else None
    network_w = sum(kind_w.get(k, 0.0) for k in NETWORK_KINDS)

    by_kind = {k: kind_w[k] / 1000.0 for k in KIND_ORDER if k in kind_w}
    for k in sorted(kind_w):  # any kind not in KIND_ORDER, after the known ones
        if k not in by_kind:
            by_kind[k] = kind_w[k] / 1000.0

    return PowerResult(
        it_kw=it_w / 1000.0,
        typical_kw=(typical_compute_w + typical_shared_w) / 1000.0,
        facility_kw=it_w / 1000.0 * pue,
        pue=pue,
        by_kind_kw=by_kind,
        max_rack_kw=max_rack_w / 1000.0,
        cooling=cooling,
        network_kw=network_w / 1000.0,
        network_share=network_w / it_w if it_w > 0 else 0.0,
        compute_w_per_gpu=kind_w.get("compute", 0.0) / gpus if gpus else 0.0,
        it_w_per_gpu=it_w / gpus if gpus else 0.0,
        gpus=gpus,
        job_gpus=job,
        run_days=days,
        job_it_kw=job_it_w / 1000.0 if job_it_w is not None else None,
        energy_mwh_it=energy_it_mwh,
        energy_mwh_facility=energy_fac_mwh,
        energy_cost_usd=(energy_fac_mwh * 1000.0 * a.electricity_usd_per_kwh
                         if energy_fac_mwh is not None else None),
        co2_t=energy_fac_mwh * a.grid_t_co2_per_mwh if energy_fac_mwh is not None else None,
        gpu_hours=job * days * 24.0 if days is not None else None,
        diagnostics=tuple(diagnostics),
    )
