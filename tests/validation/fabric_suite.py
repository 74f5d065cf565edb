"""Fabric-behaviour rows (issue 23): published collective measurements against the model of
load balancing, in-network reduction and incast (core/analysis/load_balance.py).

Each row builds its design with the project's generators and evaluates it in-process
(``core.evaluate``), or, for the Meta row, asks the load-balancing model directly with the
AI Zone's facts. Policies as in cases.py: ``gated`` where the source is primary, else
``report-only``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.analysis.collectives import allreduce_busbw_gbyte_s
from core.analysis.load_balance import tier_fractions
from core.assumptions import Assumptions
from core.catalog import load_catalog
from core.evaluate import evaluate
from core.fabric import TierBehaviour
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.topology import NetworkAssumptions, analyze_topology
from core.workload import load_preset

from .suite import RowResult, _status


@dataclass(frozen=True)
class FabricCase:
    id: str
    group: str
    title: str
    published: float | None      # None: no published figure found (the row shows the model)
    published_text: str
    unit: str
    tolerance: float | None      # relative
    policy: str
    source: str
    note: str = ""


_NCCL = "nccl-tests / NCCL GitHub issues, NCCL maintainers' statements (topologies.md §7)"
CASES = (
    FabricCase("FB-1", "NCCL all-reduce, InfiniBand", "248 x DGX H200 (1,984 GPUs), QM9700, "
               "ring, 8 GB", 350.0, "~350 GB/s typical", "GB/s", 0.10, "gated",
               "nccl-tests #283 (maintainer reply, P/S)"),
    FabricCase("FB-2", "NCCL all-to-all, InfiniBand", "64 x DGX H100 (512 GPUs), QM9700, per GPU",
               47.5, "one NIC: 46-49 GB/s", "GB/s", 0.10, "gated",
               "nccl-tests #267 (S. Jeaugey: all-to-all 'cannot aggregate the bandwidth of "
               "multiple NICs ... the performance of a single NIC'), #290 (46-48 GB/s per NDR "
               "NIC), P"),
    FabricCase("FB-3", "NVLink SHARP (NVLS)", "8 x H200, all-reduce with NVLS", 475.0,
               "475 GB/s", "GB/s", 0.05, "gated", "nccl-tests #272 (topologies.md §7, P)",
               "network.nvls_efficiency (0.61) is set from nccl-tests #212's 8 x H100 figure "
               "(busbw ~480, algbw ~275, S. Jeaugey): this row checks it on another system"),
    *(FabricCase(f"FB-4.{n}", "NVLink SHARP (NVLS)", f"{n} x H100, all-reduce with NVLS",
                 value, f"{value:g} GB/s", "GB/s", 0.05, "report-only",
                 "NVIDIA/nccl #1455 (user measurement, S)")
      for n, value in ((5, 420.0), (6, 440.0), (7, 460.0))),
    FabricCase("FB-5", "SHARP (InfiniBand)", "248 x DGX H200, QM9700 SHARPv3, all-reduce busbw",
               None, "no public nccl-tests figure found", "GB/s", None, "report-only",
               "NVIDIA Quantum-2 SHARPv3 (P: reduction in the switch); the rate is E "
               "(network.sharp_efficiency 1.0)",
               "with SHARP the network moves S once instead of 2S(n-1)/n, so NVLink "
               "(~370 GB/s effective) becomes the limit; no measurement to check it against"),
    FabricCase("FB-6", "SHARP (InfiniBand)", "64 x DGX H100, QM9700 SHARP on, all-to-all per GPU",
               47.5, "unchanged: SHARP reduces, it does not move all-to-all data", "GB/s", 0.10,
               "gated", "NCCL: SHARP (CollNet) serves reductions only (NCCL docs, P); per-NIC "
               "figure as FB-2"),
    FabricCase("FB-7", "RoCE ECMP vs enhanced ECMP", "Meta AI Zone, hierarchical all-reduce: "
               "E-ECMP + 4 QPs vs 5-tuple ECMP", 1.40, "up to +40%", "ratio", 0.10,
               "report-only",
               "Meta, RDMA over Ethernet for Distributed AI Training at Meta Scale (SIGCOMM "
               "2024) and its 2024-08-05 engineering post (quoted by sysdesign-wiki, S)",
               "AI Zone facts are E: 16 NICs (2 servers) per rack switch, 16 x 400G uplinks "
               "(non-blocking), 2 NCCL channels per NIC, 4 queue pairs per connection (Meta "
               "does not publish the count)"),
    FabricCase("FB-8", "Spectrum-X vs commodity Ethernet", "4,096 x H100, SN5600 adaptive "
               "(SuperNICs) vs TH5 static ECMP, all-to-all per GPU", 1.6,
               "~1.6x (95% vs ~60% of line rate)", "ratio", 0.15, "report-only",
               "NVIDIA newsroom 2024-10-28 (xAI Colossus: 95% data throughput vs ~60% with "
               "standard Ethernet flow collisions) and Spectrum-X '1.6x' material (S, vendor "
               "claim)"),
    FabricCase("FB-9", "Alibaba HPN dual-plane", "4,096 x H100 on TH5 with ECMP, dual-plane "
               "(2 x 200G per NIC) vs single plane, Mixtral 8x22B tokens/s", 1.15,
               "~+15% training throughput (HPN vs its previous DCN+)", "ratio", None,
               "report-only", "Alibaba HPN (SIGCOMM 2024), paper notes (S)",
               "not comparable as a number: HPN's gain is a whole redesign (dual-ToR, rail "
               "optimisation, dual-plane against hash polarisation). The model hashes every "
               "tier independently, so it has no polarisation to remove: with more, thinner "
               "paths a dual plane collides more (known gap)"),
)


def _design(catalog, gpus: int, server: str, switch: str, planes: int = 1):
    return generate_fat_tree(FatTreeOptions(gpus, server, switch, planes=planes), catalog)


def _evaluate(catalog, design, **network) -> dict:
    design.assumptions = Assumptions(network=NetworkAssumptions(**network))
    return evaluate(design, catalog)


def _meta_ratio() -> float:
    """E-ECMP with 4 QPs over 5-tuple ECMP, hierarchical all-reduce on the AI Zone's facts."""
    base = TierBehaviour("ecmp", 16, 16, 1.0, 1.0, 16, 24_576, 8, "pfc", False, 4.0, 50.0, 6.0,
                         qps_per_connection=4)
    ecmp = tier_fractions(base).by_pattern["hierarchical"]
    eecmp = tier_fractions(replace(base, mode="ecmp-qp")).by_pattern["hierarchical"]
    return eecmp / ecmp


def _predict(case: FabricCase, catalog) -> float | None:
    if case.id in ("FB-1", "FB-5"):
        design = _design(catalog, 1984, "DGX-H200", "QM9700")
        extra = {"in_network_reduction": "sharp"} if case.id == "FB-5" else {}
        return _evaluate(catalog, design, **extra).bandwidth.allreduce_busbw_gbyte_s
    if case.id in ("FB-2", "FB-6"):
        design = _design(catalog, 512, "DGX-H100", "QM9700")
        extra = {"in_network_reduction": "sharp"} if case.id == "FB-6" else {}
        return _evaluate(catalog, design, **extra).bandwidth.alltoall_per_gpu_gbyte_s
    if case.id == "FB-3" or case.id.startswith("FB-4"):
        server = "DGX-H200" if case.id == "FB-3" else "DGX-H100"
        n = 8 if case.id == "FB-3" else int(case.id.split(".")[1])
        design = _design(catalog, 16, server, "QM9700")
        fabric = analyze_topology(flatten(design, catalog),
                                  NetworkAssumptions(in_network_reduction="nvls")).fabric
        return allreduce_busbw_gbyte_s(fabric, 8e9, n)
    if case.id == "FB-7":
        return _meta_ratio()
    if case.id == "FB-8":
        spectrum = _evaluate(catalog, _design(catalog, 4096, "DGX-H100", "SN5600"),
                             load_balancing="adaptive")
        commodity = _evaluate(catalog, _design(catalog, 4096, "DGX-H100", "TH5"),
                              load_balancing="ecmp")
        return (spectrum.bandwidth.alltoall_per_gpu_gbyte_s
                / commodity.bandwidth.alltoall_per_gpu_gbyte_s)
    if case.id == "FB-9":
        rates = []
        for planes in (2, 1):
            design = _design(catalog, 4096, "DGX-H100", "TH5", planes)
            design.workload = load_preset("mixtral-8x22b")
            result = _evaluate(catalog, design, load_balancing="ecmp").performance
            rates.append(result.tokens_per_s if result is not None and result.runs else None)
        return rates[0] / rates[1] if None not in rates else None
    raise KeyError(case.id)


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}x" if unit == "ratio" else f"{value:,.1f} {unit}"


def run_fabric() -> list[RowResult]:
    catalog = load_catalog(include_user=False)
    rows = []
    for case in CASES:
        predicted = _predict(case, catalog)
        error = (predicted / case.published - 1.0
                 if predicted is not None and case.published else None)
        within = None if error is None or case.tolerance is None else abs(error) <= case.tolerance
        rows.append(RowResult(
            "fabric", case.id, case.group, case.title, case.published_text,
            _fmt(predicted, case.unit), f"{error:+.1%}" if error is not None else "—",
            error, case.tolerance,
            f"±{case.tolerance:.0%}" if case.tolerance is not None else "—", case.policy,
            _status(case.policy, within), case.note, case.source,
            {"predicted": predicted}))
    return rows
