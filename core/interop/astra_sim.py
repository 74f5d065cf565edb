"""A design as the inputs ASTRA-sim reads: the analytical network backend's network.yml and the
system layer's system.json (plus the remote-memory file its command line asks for).

ASTRA-sim (github.com/astra-sim/astra-sim) simulates a training step packet by packet, or
chunk by chunk, from Chakra execution traces. Its analytical backend describes the network as
dimensions: each a building block (Ring, FullyConnected or Switch) of ``npus_count`` NPUs with
a link bandwidth (GB/s, its GB being 2^30 bytes) and a per-hop latency (ns); the NPUs are the product of the counts, and
NPU ids run fastest through the first dimension. Our topology analysis (core/topology.py) gives
the same shape: nested GPU domains (the scale-up domain, then what each switch tier joins) with
numbering that keeps consecutive GPUs in the innermost domains. So level ``i`` becomes dimension
``i`` with ``domain_i / domain_(i-1)`` NPUs.

What is kept and what is approximated (also written into the export's README.md):

* the per-GPU line bandwidth of every level, oversubscription below it divided out (ASTRA-sim
  models the collective algorithm itself, so NCCL's efficiency is not applied a second time),
  written in ASTRA-sim's GB/s of 2^30 bytes (NetworkFunction.cpp bw_GBps_to_Bpns): a 400 Gb/s NIC's
  50 GB/s is 46.57 there, so a message takes the same time in both;
* a switched level's one-way GPU-to-GPU latency split over its two hops (GPU -> switch ->
  GPU, ASTRA-sim's Switch block); a full-mesh scale-up (xGMI) is FullyConnected, one hop, its
  per-GPU bandwidth shared by the n - 1 links;
* ASTRA-sim's dimensions are regular: a level that joins a non-whole number of inner domains
  (100,000 GPUs over 4,096-GPU pods) keeps the whole ones (24 pods: 98,304 GPUs simulated),
  and a level that joins no more GPUs than the one below it adds no dimension;
* not modelled there: in-network reduction (SHARP, NVLS), hashing and load balancing across
  equal-cost paths, and GPUs the fabric does not reach.

Formats checked against ASTRA-sim's own parsers (tests/test_interop_astra_sim.py cites them).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from core.assumptions import Assumptions
from core.catalog import Catalog
from core.errors import DesignError
from core.fabric import UNCONNECTED, FabricView, NetworkLevel
from core.flatten import flatten
from core.model import Design
from core.topology import analyze_topology

FILES = ("network.yml", "system.json", "remote_memory.json", "README.md")
# A full-mesh scale-up (every GPU cabled to every other, no switch) is named so in the catalog.
_MESH_WORDS = ("full mesh", "all-to-all")
# Collective algorithms ASTRA-sim's system layer knows (CollectiveImplLookup.cc): ring on a
# switched dimension, as NCCL's ring (the calibrated rows ran NCCL_ALGO=Ring); direct where
# every GPU has its own link to every other, and for all-to-all everywhere.
_SWITCHED = {"all-reduce": "ring", "all-gather": "ring", "reduce-scatter": "ring", "all-to-all": "direct"}
_MESH = {"all-reduce": "direct", "all-gather": "direct", "reduce-scatter": "direct", "all-to-all": "direct"}
# ASTRA-sim's own example system inputs (examples/system/native_collectives/*.json) for what
# the design does not decide: the scheduling of chunks, the NPU's endpoint delay in cycles.
_SCHEDULING = {"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
               "preferred-dataset-splits": 4, "collective-optimization": "localBWAware", "boost-mode": 0}


@dataclass(frozen=True)
class AstraDimension:
    level: str                # our level: scale-up, leaf, spine, core...
    topology: str             # Ring | FullyConnected | Switch
    npus: int
    bandwidth_gbyte_s: float  # per link, GB/s of 10^9 bytes (ours)
    latency_ns: float         # per hop

    @property
    def astra_bandwidth(self) -> float:
        """The bandwidth as network.yml holds it: ASTRA-sim's GB/s are of 2^30 bytes."""
        return self.bandwidth_gbyte_s * 1e9 / 2**30

    @property
    def collectives(self) -> dict[str, str]:
        return _MESH if self.topology == "FullyConnected" else _SWITCHED


@dataclass(frozen=True)
class AstraExport:
    dimensions: tuple[AstraDimension, ...]
    design_gpus: int
    notes: tuple[str, ...]    # what was approximated, one sentence each

    @property
    def npus(self) -> int:
        return math.prod(d.npus for d in self.dimensions)


def astra_dimensions(fabric: FabricView) -> AstraExport:
    """The fabric's levels as ASTRA-sim dimensions, with a note for every level bent to fit."""
    dims: list[AstraDimension] = []
    notes: list[str] = []
    inner = 1
    mesh = any(word in fabric.accelerator.scale_up_tech.lower() for word in _MESH_WORDS)
    for index, level in enumerate(fabric.levels):
        if level.name == UNCONNECTED:
            notes.append(f"{fabric.gpus - inner:,} GPUs the fabric does not reach are left out")
            break
        ratio = level.domain_gpus / inner
        npus = int(ratio + 1e-9)
        if npus < 2 or level.per_gpu_gbyte_s <= 0:
            if level.domain_gpus > inner:
                notes.append(f"{level.name}: joins {level.domain_gpus:,} GPUs, less than two whole "
                             f"domains of {inner:,}: no dimension of its own")
            continue
        if abs(ratio - npus) > 1e-9:
            notes.append(f"{level.name}: joins {level.domain_gpus:,} GPUs, {ratio:.2f} domains of "
                         f"{inner:,}; ASTRA-sim's dimensions are regular, so {npus} "
                         f"({npus * inner:,} GPUs)")
        dims.append(_dimension(level, npus, mesh and index < fabric.scale_up_levels))
        inner *= npus
    if not dims:
        raise DesignError("the design's GPUs share no network dimension: nothing for ASTRA-sim to simulate")
    if any(level.in_network_gbyte_s > 0 for level in fabric.levels):
        notes.append("in-network reduction (SHARP, NVLS) is not modelled: collectives run as rings")
    if any(level.behaviour is not None and level.behaviour.paths > 1 for level in fabric.levels):
        notes.append("flows hashed over equal-cost paths are not modelled: each dimension runs at line rate")
    return AstraExport(tuple(dims), fabric.gpus, tuple(notes))


def _dimension(level: NetworkLevel, npus: int, mesh: bool) -> AstraDimension:
    latency_ns = level.latency_us * 1000.0
    if mesh:  # one hop; the GPU's scale-up bandwidth spread over its n - 1 links
        return AstraDimension(level.name, "FullyConnected", npus, level.per_gpu_gbyte_s / (npus - 1), latency_ns)
    return AstraDimension(level.name, "Switch", npus, level.per_gpu_gbyte_s, latency_ns / 2.0)


def astra_sim_files(design: Design, catalog: Catalog) -> dict[str, str]:
    """The export's files by name: network.yml, system.json, remote_memory.json, README.md."""
    flat = flatten(design, catalog)
    if not flat.gpus:
        raise DesignError("the design has no GPUs: nothing for ASTRA-sim to simulate")
    assumptions = design.assumptions or Assumptions()
    fabric = analyze_topology(flat, assumptions.network).fabric
    if fabric is None:
        raise DesignError("the design has no GPUs: nothing for ASTRA-sim to simulate")
    export = astra_dimensions(fabric)
    precision = getattr(design.workload, "precision", None) or "bf16"
    accelerator = fabric.accelerator
    tflops = accelerator.tflops_dense.get(precision) or accelerator.tflops_dense.get("bf16")
    system = dict(_SCHEDULING)
    for collective in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        system[f"{collective}-implementation"] = [d.collectives[collective] for d in export.dimensions]
    # the accelerator's HBM and peak, for ASTRA-sim's roofline (off: the traces' own durations)
    system["local-mem-bw"] = float(accelerator.hbm_tbyte_s) * 1000.0
    system["roofline-enabled"] = 0
    if tflops:
        system["peak-perf"] = float(tflops)
    return {"network.yml": _network_yml(design.name, export),
            "system.json": json.dumps(system, indent=4) + "\n",
            "remote_memory.json": json.dumps({"memory-type": "NO_MEMORY_EXPANSION"}, indent=4) + "\n",
            "README.md": _readme(design.name, export, accelerator.id, precision if tflops else None)}


def _number(value: float) -> str:
    return f"{value:.10g}" if value != int(value) else f"{value:.1f}"


def _network_yml(name: str, export: AstraExport) -> str:
    dims = export.dimensions
    levels = ", ".join(d.level for d in dims)
    return (f"# ASTRA-sim analytical network: {name or 'design'} (Cluster Designer)\n"
            f"# dimensions, innermost first: {levels}\n"
            f"topology: [ {', '.join(d.topology for d in dims)} ]\n"
            f"# {export.npus:,} NPUs of the design's {export.design_gpus:,} GPUs\n"
            f"npus_count: [ {', '.join(str(d.npus) for d in dims)} ]\n"
            f"bandwidth: [ {', '.join(_number(d.astra_bandwidth) for d in dims)} ]  # GB/s (2^30 B) per link\n"
            f"latency: [ {', '.join(_number(d.latency_ns) for d in dims)} ]  # ns per hop\n")


def _readme(name: str, export: AstraExport, accelerator: str, precision: str | None) -> str:
    rows = "\n".join(f"| {i} | {d.level} | {d.topology} | {d.npus} | {_number(d.bandwidth_gbyte_s)} | "
                     f"{_number(d.astra_bandwidth)} | {_number(d.latency_ns)} |"
                     for i, d in enumerate(export.dimensions))
    notes = "\n".join(f"* {note}" for note in export.notes) or "* nothing: every level maps exactly"
    peak = (f"`peak-perf` is the {accelerator}'s dense {precision} TFLOPS and `local-mem-bw` its HBM "
            "GB/s; `roofline-enabled` is 0, so compute nodes take the traces' durations (set it "
            "to 1 to time them by the roofline)." if precision else
            f"`local-mem-bw` is the {accelerator}'s HBM GB/s; the catalog has no peak TFLOPS for it.")
    return f"""# ASTRA-sim inputs for {name or 'the design'}

Written by Cluster Designer. {export.npus:,} NPUs of the design's {export.design_gpus:,} GPUs, in
{len(export.dimensions)} dimension(s), innermost first:

| dim | level | topology | NPUs | GB/s per link (10^9 B) | as written (ASTRA-sim's GB/s, 2^30 B) | latency ns per hop |
|---|---|---|---|---|---|---|
{rows}

Mapped: each level of the design's network (the scale-up domain, then what each switch tier
joins) is a dimension; its bandwidth is the per-GPU line rate at that level with the
oversubscription below it divided out (written in ASTRA-sim's GB/s of 2^30 bytes, so a
message takes as long there as here), its latency the one-way GPU-to-GPU latency split over
the hops of the block (two through a Switch). Collectives: ring on switched dimensions, direct
on a full mesh and for all-to-all. {peak}

Approximated:

{notes}

Run with the congestion-unaware analytical backend (the congestion-aware one takes one
dimension only) and a Chakra trace of {export.npus:,} ranks:

    AstraSim_Analytical_Congestion_Unaware \\
        --workload-configuration=TRACE_PREFIX \\
        --system-configuration=system.json \\
        --remote-memory-configuration=remote_memory.json \\
        --network-configuration=network.yml
"""


def write_astra_sim(design: Design, catalog: Catalog, folder: str | Path) -> None:
    """The export's files in ``folder``, all or none: written to a sibling first and swapped in.
    An existing folder is replaced only when it holds nothing but an earlier export's files."""
    folder = Path(folder)
    files = astra_sim_files(design, catalog)
    if folder.exists():
        if not folder.is_dir():
            raise DesignError(f"{folder}: exists and is not a folder")
        strangers = sorted(p.name for p in folder.iterdir() if p.name not in FILES)
        if strangers:
            raise DesignError(f"{folder}: holds {strangers[0]!r}, not an ASTRA-sim export's; choose an "
                              "empty or new folder")
    parent = folder.parent if str(folder.parent) else Path(".")
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=parent))
    except OSError as exc:
        raise DesignError(f"{folder}: cannot write ({exc.strerror or exc})") from None
    try:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        os.chmod(staging, 0o755)
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.old.", dir=parent))
            os.replace(folder, old / folder.name)
            try:
                os.replace(staging, folder)
            except OSError:
                os.replace(old / folder.name, folder)  # the earlier export stays as it was
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, folder)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise DesignError(f"{folder}: cannot write ({exc.strerror or exc})") from None
