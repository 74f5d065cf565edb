"""Read an InfiniBand fabric dump written by ``ibnetdiscover`` (infiniband-diags).

The format (ibnetdiscover(8)): one record per node, opened by key=value lines (``vendid=``,
``devid=``, ``sysimgguid=``, ``switchguid=``/``caguid=``/``rtguid=``) and a node line
``Switch 36 "S-<guid>"  # "<description>" ...`` or ``Ca 1 "H-<guid>"  # "<description>"``,
followed by one line per connected port:

    [13]    "S-ec0d9a0300ec81e0"[19]      # "SwitchIB Mellanox Technologies" lid 21 4xEDR   (switch)
    [1](506b4b030043f9e2)   "S-ec0d9a0300f548c0"[25]   # lid 34 lmc 0 "SwitchIB ..." lid 29 4xEDR (CA)

Every cable is listed from both of its ends; it is kept once, keyed by its unordered pair of
(node GUID, port). The link's speed is its width times its lane rate (``4xNDR`` = 400 Gb/s).
Read line by line, every problem reported as ``FILE:LINE: what``: the reference reader, which
core/interop/ibnetdiscover_read.py (reading a dump file) uses for whatever its quick path does
not take.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from core.errors import DesignError

# Gb/s per lane of each InfiniBand generation (IBTA: SDR 2.5, DDR 5, QDR 10, FDR10 10,
# FDR 14.0625, EDR 25.78125 signalling; the nominal data rates are what a port is sold at).
LANE_GBIT_S = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0,
               "HDR": 50.0, "NDR": 100.0, "XDR": 200.0}
# A dump larger than this many nodes is refused before it fills memory: ten times the largest
# fabric the engine designs (core/limits.py sizes designs, this sizes the device list).
MAX_NODES = 5_000_000

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*(?:#\s*(.*))?$')
_PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                   r'(?:\(([0-9a-fA-F]+)\))?\s*(?:#\s*(.*))?$')
_SPEED = re.compile(r'\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b')
_QUOTED = re.compile(r'"([^"]*)"')
_KEY_VALUE = re.compile(r'^[A-Za-z_]+=\S*$')
NODE_KIND = {"S": "switch", "H": "ca", "R": "router"}


@dataclass
class DumpNode:
    guid: int
    kind: str            # "switch", "ca" or "router"
    description: str
    ports: int           # port count from its node line (0 when only seen from the far end)
    line: int            # where it is first seen


@dataclass
class FabricDump:
    """Nodes by GUID and every cable once: (guid_a, port_a, guid_b, port_b, speed_gbit_s)."""

    source: str
    nodes: dict[int, DumpNode] = field(default_factory=dict)
    cables: list[tuple[int, int, int, int, float]] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[DumpNode]:
        return [n for n in self.nodes.values() if n.kind == kind]


def parse_ibnetdiscover(lines: Iterable[str], source: str = "dump") -> FabricDump:
    dump = FabricDump(source)
    nodes = dump.nodes
    current: DumpNode | None = None
    seen: dict[tuple[int, int], tuple[int, int, float]] = {}  # (guid, port) -> far end, speed
    # Port lines are most of a dump (two per cable): they take the first test and are read
    # inline, with the names they use bound locally; everything else goes the general way.
    port_match, speed_of = _PORT.match, _SPEED_OF_TOKEN
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            current = None  # a blank line ends a node's record
            continue
        if line[0] == "[" and current is not None:
            port = port_match(line)
            if port is not None:
                local_port, _, letter, guid_hex, far_port, _, comment = port.groups()
                local, far = int(local_port), int(far_port)
                if not 0 < local <= current.ports:
                    raise DesignError(f"{source}:{number}: port [{local}] of a {current.ports}-port "
                                      f"{current.kind}")
                speed = speed_of.get(comment.rsplit(None, 1)[-1] if comment else "")
                if speed is None:
                    speed = _speed(comment, f"{source}:{number}")
                guid = int(guid_hex, 16)
                if guid not in nodes:
                    _far_node(dump, guid, letter, comment, source, number)
                end = (current.guid, local)
                earlier = seen.get(end)
                if (guid, far) == end or (earlier is not None and earlier[:2] != (guid, far)):
                    _bad_port(current, local, guid, far, source, number)
                seen[end] = (guid, far, speed)
                continue
        if line.startswith("#") or _KEY_VALUE.match(line) or _is_chassis(line):
            continue
        where = f"{source}:{number}"
        node = _NODE.match(line)
        if node:
            current = _node(dump, node, number, where)
            continue
        if _PORT.match(line) is None:
            raise DesignError(f"{where}: not an ibnetdiscover line: {_clip(line)}")
        raise DesignError(f"{where}: a port line before any Switch or Ca line")
    if not nodes:
        raise DesignError(f"{source}: no Switch or Ca records: not an ibnetdiscover dump")
    _pair_up(dump, seen)
    return dump


def _is_chassis(line: str) -> bool:
    return line.startswith("Chassis") or line.startswith("Non-Chassis")


def _node(dump: FabricDump, match: re.Match, number: int, where: str) -> DumpNode:
    word, ports, letter, guid_hex, comment = match.groups()
    kind = {"Switch": "switch", "Ca": "ca", "Rt": "router"}[word]
    if NODE_KIND[letter] != kind:
        raise DesignError(f"{where}: a {word} line names a {NODE_KIND[letter]} id {letter}-{guid_hex}")
    guid = int(guid_hex, 16)
    description = first_quoted(comment)
    known = dump.nodes.get(guid)
    if known is not None and known.ports:
        raise DesignError(f"{where}: {letter}-{guid_hex} is listed twice (first on line {known.line})")
    if known is None:
        if len(dump.nodes) >= MAX_NODES:
            raise DesignError(f"{where}: more than {MAX_NODES:,} nodes: too large a dump to import")
        known = dump.nodes[guid] = DumpNode(guid, kind, description, int(ports), number)
    else:  # seen from a far end first: its own record has the last word
        known.kind, known.ports, known.line = kind, int(ports), number
        known.description = description or known.description
    if known.ports < 1:
        raise DesignError(f"{where}: {word} {letter}-{guid_hex} has {ports} ports")
    return known


def _far_node(dump: FabricDump, guid: int, letter: str, comment: str | None, source: str,
              number: int) -> None:
    """A node first seen as a port's far end. The far end's description is the comment's quoted
    text (a switch port names the device it reaches; a CA port line names its own lid first,
    then the switch)."""
    if len(dump.nodes) >= MAX_NODES:
        raise DesignError(f"{source}:{number}: more than {MAX_NODES:,} nodes: too large a dump to import")
    dump.nodes[guid] = DumpNode(guid, NODE_KIND[letter], first_quoted(comment), 0, number)


def _bad_port(current: DumpNode, local: int, guid: int, far: int, source: str, number: int) -> None:
    if (guid, far) == (current.guid, local):
        raise DesignError(f"{source}:{number}: port [{local}] is cabled to itself")
    raise DesignError(f"{source}:{number}: port [{local}] of {current.description or hex(current.guid)} "
                      "is cabled twice")


def _pair_up(dump: FabricDump, seen: dict) -> None:
    """Every cable once: both ends list it; a cable seen from one end only still counts."""
    cables = dump.cables
    get = seen.get
    for (guid, port), (far_guid, far_port, speed) in seen.items():
        back = get((far_guid, far_port))
        if back is not None and (back[0], back[1]) != (guid, port):
            node = dump.nodes[far_guid]
            raise DesignError(f"{dump.source}: port [{far_port}] of "
                              f"{node.description or hex(far_guid)} is cabled to two ports")
        if back is not None:
            if (far_guid, far_port) < (guid, port):
                continue  # kept from the other end
            # the two ends may print different widths (a link trained down on one side's
            # report): the link runs at the lower
            speed = min(speed, back[2])
        cables.append((guid, port, far_guid, far_port, speed))


_SPEED_OF_TOKEN: dict[str, float] = {}


def _speed(comment: str | None, where: str) -> float:
    # The width and speed end the line ("... lid 29 4xEDR"): a dict look-up on the last word
    # serves almost every line; the search covers lines with something after it.
    last = comment.rsplit(None, 1)[-1] if comment else ""
    known = _SPEED_OF_TOKEN.get(last)
    if known is not None:
        return known
    found = _SPEED.findall(comment or "")
    if not found:
        raise DesignError(f"{where}: the link has no width and speed (such as 4xNDR) at the end")
    width, generation = found[-1]
    speed = int(width) * LANE_GBIT_S[generation]
    if last == f"{width}x{generation}":
        _SPEED_OF_TOKEN[last] = speed
    return speed


def first_quoted(comment: str | None) -> str:
    found = _QUOTED.search(comment or "")
    return found.group(1).strip() if found else ""


def _clip(line: str, limit: int = 60) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")
