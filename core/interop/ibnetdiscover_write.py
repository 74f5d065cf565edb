"""A design's planned InfiniBand cabling written as an ``ibnetdiscover`` topology file.

The file lists what the built fabric should show, in the format ``ibnetdiscover`` prints (and
that its ``--diff`` option and ibsim read): one record per switch and per HCA, each port with
its far end and its width and speed. Every compute or storage unit is a host named after its
group; each of its scale-out cables leaves from an HCA of its own ("pod-su-nodes-00017 HCA-3").
GUIDs are made up but stable, so two exports of one design are byte for byte the same.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from core.catalog import Catalog
from core.errors import DesignError
from core.flatten import flatten, unit_graph
from core.interop.ibnetdiscover import LANE_GBIT_S
from core.model import Design

_SWITCH_GUID = 0x0002C90300000000
_CA_GUID = 0x0C42A10300000000
# Two text lines a cable and a record a unit: ten million lines is hundreds of megabytes, more
# than a topology file for a fabric tool to diff; larger designs are refused up front.
MAX_CABLES = 5_000_000


def speed_token(speed_gbit_s: float) -> str:
    """InfiniBand width and generation of a link speed: 400 -> "4xNDR", 200 -> "4xHDR"."""
    for width in (4, 2, 1, 8, 12):
        for generation, lane in LANE_GBIT_S.items():
            if generation != "FDR10" and abs(lane * width - speed_gbit_s) < 1e-6:
                return f"{width}x{generation}"
    raise DesignError(f"{speed_gbit_s:g} Gb/s is not an InfiniBand link speed")


def ibnetdiscover_text(design: Design, catalog: Catalog) -> str:
    flat = flatten(design, catalog)
    mask = flat.bundles_of_kind("scale-out", "storage")
    if int(flat.cables[mask].sum()) > MAX_CABLES:
        raise DesignError(f"{int(flat.cables[mask].sum()):,} cables: more than {MAX_CABLES:,} to write "
                          "as a topology file")
    graph = unit_graph(flat, kinds=("scale-out", "storage"))
    kinds = graph.per_unit(flat.kind)
    is_switch = kinds == "switch"
    used = np.zeros(graph.units, dtype=bool)
    used[graph.src] = used[graph.dst] = True
    names = _unit_names(flat, graph, is_switch)
    speeds = flat.speed_gbit_s[graph.edge_bundle]
    ports: dict[int, list[tuple]] = defaultdict(list)   # switch unit -> [(far kind, far id, far port, speed)]
    hcas: list[tuple[int, int, int, float]] = []         # (host unit, switch unit, switch port, speed)
    next_port = defaultdict(int)
    for a, b, speed in zip(graph.src.tolist(), graph.dst.tolist(), speeds.tolist()):
        if is_switch[a] and is_switch[b]:
            pa, pb = _take(next_port, a), _take(next_port, b)
            ports[a].append(("S", b, pb, speed))
            ports[b].append(("S", a, pa, speed))
        elif is_switch[a] != is_switch[b]:
            host, switch = (b, a) if is_switch[a] else (a, b)
            port = _take(next_port, switch)
            hcas.append((host, switch, port, speed))
            ports[switch].append(("H", len(hcas) - 1, 1, speed))
        # host to host (scale-up or back-to-back) cables are not InfiniBand fabric links
    out = ["#", f"# Topology file: planned by Cluster Designer from {design.name}", "#", ""]
    hca_of_host: dict[int, int] = defaultdict(int)
    hca_names = []
    for host, _, _, _ in hcas:
        hca_of_host[host] += 1
        hca_names.append(f"{names[host]} HCA-{hca_of_host[host]}")
    for unit in np.flatnonzero(is_switch & used).tolist():
        listed = ports[unit]
        guid = _SWITCH_GUID + unit
        out += ["vendid=0x2c9", "devid=0x0", f"sysimgguid={guid:#x}", f"switchguid={guid:#x}({guid:x})",
                f'Switch\t{max(len(listed), 1)} "S-{guid:016x}"\t\t# "{names[unit]}" base port 0 lid 0 lmc 0']
        for port, (kind, far, far_port, speed) in enumerate(listed, 1):
            if kind == "S":
                out.append(f'[{port}]\t"S-{_SWITCH_GUID + far:016x}"[{far_port}]\t\t# "{names[far]}" '
                           f"lid 0 {speed_token(speed)}")
            else:
                guid_ca = _CA_GUID + far
                out.append(f'[{port}]\t"H-{guid_ca:016x}"[1]({guid_ca:x})\t\t# "{hca_names[far]}" '
                           f"lid 0 {speed_token(speed)}")
        out.append("")
    for i, (_, switch, port, speed) in enumerate(hcas):
        guid = _CA_GUID + i
        out += ["vendid=0x2c9", "devid=0x0", f"sysimgguid={guid:#x}", f"caguid={guid:#x}",
                f'Ca\t1 "H-{guid:016x}"\t\t# "{hca_names[i]}"',
                f'[1]({guid:x})\t"S-{_SWITCH_GUID + switch:016x}"[{port}]\t\t# lid 0 lmc 0 '
                f'"{names[switch]}" lid 0 {speed_token(speed)}', ""]
    return "\n".join(out) + "\n"


def _take(next_port: dict, unit: int) -> int:
    next_port[unit] += 1
    return next_port[unit]


def _unit_names(flat, graph, is_switch) -> list[str]:
    """A host is "<group path with dashes>-<unit number>" ("su-nodes-00017"); a switch is
    described as NVIDIA's switches describe themselves, "MF0;<name>:M<model>/U1", so that its
    catalog entry is recognised when the file is imported again."""
    names: list[str] = []
    for g, path in enumerate(flat.paths):
        base = path.replace("/", "-")
        count = int(graph.offsets[g + 1] - graph.offsets[g])
        if is_switch[graph.offsets[g]] if count else False:
            model = flat.nodes[g].catalog_id
            names += [f"MF0;{base}-{i:05d}:M{model}/U1" for i in range(count)]
        else:
            names += [f"{base}-{i:05d}" for i in range(count)]
    return names
