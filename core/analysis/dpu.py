"""DPUs that do work (article 003's five engines): their stages on the storage path, and what
each DPU model in the design does.

A compute node whose storage links leave from its DPUs (a *separate* storage fabric reached over
the DPU ports, the layout ``generate fat-tree --storage`` builds) sends every storage byte
through those DPUs. Their engines then cap that node's storage I/O like any other stage of the
path (core/analysis/storage.py): the storage engine's GB/s (its IOPS for small reads), the
network engine's line rate, and, when storage traffic is encrypted, the security engine's IPsec
rate. These are the node's own stages: the job gets its own DPUs in full.

Which engines a DPU uses: network and control always (it carries the node's north-south traffic
and manages the node), storage and compute (virtio: the volumes it presents to the host) when the
node's storage goes through it, security when that traffic is encrypted. Host CPU cores freed
count those engines only.

A node's DPU count is the catalog's ``dpus`` unless the node overrides it (``overrides:
{"dpus": 1}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from core.catalog import ComponentSpec
from core.catalog_spec import DpuSpec, NodeSpec, engines_of
from core.diagnostics import Diagnostic
from core.dpu_engines import ENGINE_TITLES, ENGINES, cores_freed_per_dpu, engine_value
from core.flatten import FlatDesign
from core.jsonable import to_jsonable

# Stages whose binding is a crypto limit rather than a plain DPU bottleneck.
_CRYPTO = "security"


@dataclass(frozen=True)
class DpuStage:
    """One DPU engine's cap on the compute nodes' storage path (all nodes on the path)."""

    name: str                 # "BlueField-3 storage engine"
    dpu_ids: tuple[str, ...]
    engine: str               # one of core.dpu_engines.ENGINES
    gbyte_s: float            # what the engine passes, all DPUs on the path
    small_reads_only: bool    # the IOPS cap: small random reads only


def dpus_per_group(flat: FlatDesign) -> tuple[np.ndarray, np.ndarray]:
    """(DPU catalog id or "" per group, DPUs per unit of the group) with node overrides."""
    ids = flat.per_group(lambda s: (s.dpu or "") if isinstance(s, NodeSpec) and s.dpus else "",
                         dtype=object)
    per_unit = flat.per_group(lambda s: float(s.dpus) if isinstance(s, NodeSpec) and s.dpu else 0.0)
    for i in [i for i, node in enumerate(flat.nodes) if "dpus" in node.overrides]:
        spec = flat.specs[flat.spec_row[i]]
        if ids[i] or (isinstance(spec, NodeSpec) and spec.dpu):
            ids[i] = spec.dpu
            per_unit[i] = float(int(flat.nodes[i].overrides["dpus"]))
    ids[per_unit <= 0] = ""
    return ids, per_unit


def storage_path_stages(flat: FlatDesign, start: np.ndarray, own_gbit_s: np.ndarray,
                        encrypt: bool, small_read_bytes: float) -> tuple[DpuStage, ...]:
    """The DPU engines' caps on a separate storage path that leaves ``start`` groups through
    their DPUs. ``own_gbit_s`` is each group's own link capacity onto the path: a group without
    DPUs (or whose DPU lists no such engine) passes at that, so it never binds the stage."""
    ids, per_unit = dpus_per_group(flat)
    dpus = flat.multiplicity * per_unit
    on_path = start & (dpus > 0)
    if not on_path.any():
        return ()
    models = sorted(set(ids[on_path].tolist()))
    engines = {m: engines_of(flat.catalog.get(m)) for m in models}
    own_gbyte_s = own_gbit_s / 8.0
    figures = [("storage engine", "storage", lambda e: e.gbyte_s, 1.0, False),
               ("network engine", "network", lambda e: e.gbit_s, 1.0 / 8.0, False),
               ("storage engine IOPS", "storage", lambda e: e.iops, small_read_bytes / 1e9, True)]
    if encrypt:
        figures.append(("security engine (IPsec)", "security", lambda e: e.ipsec_gbit_s,
                        1.0 / 8.0, False))
    stages = []
    for words, engine, figure, to_gbyte_s, small in figures:
        rate = {m: engine_value(engines[m], engine, figure) for m in models}
        listed = [m for m in models if rate[m] is not None]
        if not listed:
            continue
        per_dpu = np.array([(rate.get(m) or 0.0) * to_gbyte_s if m in listed else np.inf
                            for m in models])
        model_row = np.searchsorted(models, ids[on_path].astype(str))
        capped = np.minimum(dpus[on_path] * per_dpu[model_row], own_gbyte_s[on_path])
        others = float(own_gbyte_s[start & ~on_path].sum())
        stages.append(DpuStage(f"{' + '.join(listed)} {words}", tuple(listed), engine,
                               float(capped.sum()) + others, small))
    return tuple(stages)


@dataclass(frozen=True)
class DpuModelResult:
    """What one DPU model does in the design."""

    count: int
    engines: tuple[str, ...]             # engines its catalog entry lists
    engines_used: tuple[str, ...]
    on_storage_path: bool
    binding_engine: str | None           # the engine that limits a storage I/O class, if any
    binding_io_classes: tuple[str, ...]
    cores_freed_per_dpu: float | None    # None: the catalog gives no figure
    cores_freed_total: float | None


@dataclass(frozen=True)
class DpuResult:
    models: Mapping[str, DpuModelResult]
    encrypt_storage: bool
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def cores_freed_total(self) -> float | None:
        figures = [m.cores_freed_total for m in self.models.values() if m.cores_freed_total is not None]
        return float(sum(figures)) if figures else None

    def to_json(self) -> dict[str, Any]:
        """The evaluation JSON's ``dpus`` section."""
        return {"by_model": {k: to_jsonable(v) for k, v in self.models.items()},
                "count": sum(m.count for m in self.models.values()),
                "cores_freed_total": self.cores_freed_total,
                "encrypt_storage": self.encrypt_storage}


def analyze_dpus(flat: FlatDesign, storage_classes: Mapping[str, Any],
                 dpu_stages: tuple[DpuStage, ...], encrypt: bool) -> DpuResult:
    """Per DPU model: how many, which engines work, which binds, host cores freed; warnings
    when a DPU engine is the bottleneck of a storage I/O class."""
    ids, per_unit = dpus_per_group(flat)
    counts: dict[str, int] = {}
    for model in sorted(set(ids.tolist()) - {""}):
        mine = ids == model
        counts[model] = int(np.dot(flat.multiplicity[mine], per_unit[mine]))
    on_path = {m for stage in dpu_stages for m in stage.dpu_ids}
    binding: dict[str, dict[str, list[str]]] = {}
    diagnostics: list[Diagnostic] = []
    by_name = {stage.name: stage for stage in dpu_stages}
    for io_class, result in storage_classes.items():
        stage = by_name.get(result.bottleneck)
        if stage is None:
            continue
        for model in stage.dpu_ids:
            binding.setdefault(model, {}).setdefault(stage.engine, []).append(io_class)
    for model, engines in binding.items():
        for engine, classes in engines.items():
            diagnostics.append(_bottleneck_warning(flat, ids, model, engine, classes,
                                                   storage_classes))
    models = {}
    for model, count in counts.items():
        spec: ComponentSpec = flat.catalog.get(model)
        listed = tuple(e for e in ENGINES if e in engines_of(spec))
        used = {"network", "control"}
        if model in on_path:
            used |= {"storage", "compute_virtio"} | ({"security"} if encrypt else set())
        engines_used = tuple(e for e in listed if e in used)
        per_dpu = cores_freed_per_dpu(spec, engines_used) if isinstance(spec, DpuSpec) else None
        binds = binding.get(model, {})
        engine = min(binds, key=ENGINES.index) if binds else None
        models[model] = DpuModelResult(
            count, listed, engines_used, model in on_path, engine,
            tuple(binds.get(engine, ())) if engine else (),
            per_dpu, per_dpu * count if per_dpu is not None else None)
        if encrypt and model in on_path and "security" not in listed:
            diagnostics.append(Diagnostic(
                "DPU_CRYPTO_LIMIT",
                f"storage traffic is to be encrypted, but {model} lists no IPsec rate "
                "(engines.security.ipsec_gbit_s): the encryption is not checked",
                _paths_with(flat, ids, model)))
    return DpuResult(models, encrypt, tuple(diagnostics))


def _bottleneck_warning(flat: FlatDesign, ids: np.ndarray, model: str, engine: str,
                        classes: list[str], storage_classes: Mapping[str, Any]) -> Diagnostic:
    first = storage_classes[classes[0]]
    stages = first.stages_gbyte_s
    others = {k: v for k, v in stages.items() if k != first.bottleneck}
    runner_up = min(others, key=others.get) if others else None
    why = (f"; without it the path would carry {others[runner_up]:,.1f} GB/s ({runner_up})"
           if runner_up else "")
    what = ", ".join(c.replace("_", " ") for c in classes)
    if engine == _CRYPTO:
        return Diagnostic(
            "DPU_CRYPTO_LIMIT",
            f"encrypting the job's storage traffic needs more than the {model} security "
            f"engine's IPsec rate: {what} limited to {first.job_gbyte_s:,.1f} GB/s{why}",
            _paths_with(flat, ids, model))
    return Diagnostic(
        "DPU_BOTTLENECK",
        f"the {model} {ENGINE_TITLES[engine].lower()} engine limits the job's {what} to "
        f"{first.job_gbyte_s:,.1f} GB/s{why}",
        _paths_with(flat, ids, model))


def _paths_with(flat: FlatDesign, ids: np.ndarray, model: str) -> tuple[str, ...]:
    """Design paths of the compute nodes that hold ``model`` DPUs (the first 50: a warning
    selects them in the GUI, it does not list a whole cluster)."""
    return flat.group_paths(np.flatnonzero(ids == model)[:50])
