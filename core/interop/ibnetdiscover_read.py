"""Read an ibnetdiscover dump file: the quick way through a well-formed dump (records found by
regular expressions over the whole text, their port lines parsed with numpy over their bytes in
core/interop/ibnetdiscover_ports.py, their cables paired with numpy), else line by line
(core/interop/ibnetdiscover.py).

A 100,000-device dump is 1.2 million lines; read one by one (core/interop/ibnetdiscover.py)
they take seconds of Python. Here the work per line is done inside ``re`` and numpy. This path
only takes dumps it can read exactly as the line-by-line reader would: it gives up (returns None)
at anything else (a line of another shape, an indented or CRLF line, a port listed twice, a
cable whose ends disagree, ...), and the line-by-line reader then reads the dump and, where it
is malformed, says where. So both give the same nodes in the same order, the same cables in the
same order, and the same errors.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import itemgetter

import numpy as np

from pathlib import Path

from core.errors import DesignError
from core.gc_pause import gc_paused
from core.interop.ibnetdiscover import (LANE_GBIT_S, MAX_NODES, NODE_KIND, DumpNode, FabricDump,
                                        first_quoted, parse_ibnetdiscover)
from core.interop.ibnetdiscover_ports import PortLines, parse_port_lines

# A dump up to this size is read whole for the quick path (a 100,000-device dump is 64 MB and
# peaks at 0.5 GB there);
# a larger one is read line by line, never in memory whole.
QUICK_MAX_BYTES = 128 << 20

# A record: its node line, with the description (the first quoted text of its comment), and the
# port lines right under it. Both patterns open with a newline, so ``re`` scans for that
# character instead of trying every position.
_RECORD = re.compile(r'\n(Switch|Ca|Rt)[ \t]+(\d+)[ \t]+"([SHR])-([0-9a-fA-F]+)"'
                     r'(?:[ \t]*#[^"\n]*(?:"([^"\n]*)"[^\n]*)?)?[ \t]*(?=\n|\Z)((?:\n\[[^\n]*)*)')
# Each line between records is blank, a comment, a key=value line or a Chassis line. Every
# alternative ends at the line's end, so no shorter run can make a line match, and the runs
# are possessive (never given back): 4x quicker over the 8 MB of them in a large dump.
_BETWEEN = re.compile(r'(?:\n[ \t]*+(?:#[^\n]*+|[A-Za-z_]++=\S*+[ \t]*+(?=\n|\Z)|(?:Non-)?Chassis[^\n]*+)?)*+')
_WORD = {"Switch": "switch", "Ca": "ca", "Rt": "router"}
_WORD_LETTER = {("Switch", "S"), ("Ca", "H"), ("Rt", "R")}


# the width and speed tokens a port line ends with: "4xNDR" -> 400 Gb/s
_SPEED = {f"{width}x{generation}": width * lane for generation, lane in LANE_GBIT_S.items()
          for width in (1, 2, 4, 8, 12)}


def read_ibnetdiscover(path: str | Path) -> FabricDump:
    """The fabric in the dump at ``path``; a located ``DesignError`` when it is not one."""
    path = Path(path)
    try:
        with gc_paused():  # millions of small tuples, none of them in a cycle
            return _read(path)
    except OSError as exc:
        raise DesignError(f"{path}: cannot read the dump ({exc.strerror or exc})") from None


def _read(path: Path) -> FabricDump:
    if path.stat().st_size <= QUICK_MAX_BYTES:
        text = path.read_text(encoding="utf-8", errors="replace")
        dump = parse_fast(text, path.name)
        return dump if dump is not None else parse_ibnetdiscover(text.split("\n"), path.name)
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        return parse_ibnetdiscover(handle, path.name)


def parse_fast(text: str, source: str) -> FabricDump | None:
    """The dump in ``text``, or None when it is not plainly well formed."""
    if "\r" in text:
        return None
    text = "\n" + text
    records = list(_RECORD.finditer(text))
    if not records or len(records) > MAX_NODES:
        return None
    words, counts, letters, hexes, quoted, blocks = _columns(list(map(re.Match.groups, records)), 6)
    starts = list(map(re.Match.start, records))
    gaps = list(map(text.__getitem__, map(slice, map(re.Match.end, records), starts[1:] + [len(text)])))
    if (_BETWEEN.fullmatch(text, 0, starts[0]) is None or _BETWEEN.fullmatch("".join(gaps)) is None
            or not set(zip(words, letters)) <= _WORD_LETTER):
        return None  # a line of another shape, or a Switch line naming a CA id...
    port_counts = list(map(int, counts))
    guids = list(map(int, hexes, repeat(16)))
    if min(port_counts) < 1 or len(set(guids)) != len(guids) or max(guids) >> 64:
        return None  # a node without ports, listed twice, or with a GUID of more than 64 bits
    in_block = np.array(list(map(str.count, blocks, repeat("\n"))), dtype=np.int64)
    has_ports = bool(in_block.any())
    ports = parse_port_lines("".join(blocks), _SPEED) if has_ports else None
    if has_ports and ports is None:
        return None  # a port line of another shape
    # every record's line: the one before it, its ports and the lines between them
    steps = 1 + in_block + np.array(list(map(str.count, gaps, repeat("\n"))), dtype=np.int64)
    record_lines = (text.count("\n", 0, starts[0]) + 1 + np.concatenate([[0], np.cumsum(steps)[:-1]])).tolist()
    descriptions = [q.strip() if q else "" for q in quoted]
    owners = np.repeat(np.arange(len(records), dtype=np.int64), in_block)
    return _assemble(source, words, port_counts, guids, descriptions, record_lines, ports, owners)


def _columns(rows: list[tuple], width: int) -> list[list]:
    # one column at a time: zip(*rows) of 600,000 rows is slower than six passes
    return [list(map(itemgetter(c), rows)) for c in range(width)]


def _assemble(source, words, port_counts, guids, descriptions, record_lines, ports, owner) -> FabricDump | None:
    dump = FabricDump(source)
    if ports is None:
        dump.nodes = dict(zip(guids, map(DumpNode, guids, map(_WORD.get, words), descriptions,
                                         port_counts, record_lines)))
        return dump
    local, far_port = ports.local, ports.far_port
    counts = np.array(port_counts, dtype=np.int64)
    if np.any(local < 1) or np.any(local > counts[owner]):
        return None
    # every node: those with records, then those only seen as a far end (in order of first sight)
    far, far_only = _far_ends(guids, ports.far_guid)
    if len(guids) + len(far_only) > MAX_NODES:
        return None
    # a port's line: its record's line + its place in the record
    start = np.concatenate([[0], np.flatnonzero(owner[1:] != owner[:-1]) + 1])
    place = np.arange(len(owner)) - np.repeat(start, np.diff(np.concatenate([start, [len(owner)]])))
    port_line = np.array(record_lines, dtype=np.int64)[owner] + 1 + place
    width = int(max(local.max(), far_port.max())) + 1
    end_id = owner * width + local
    far_id = far * width + far_port
    order = np.argsort(end_id)
    ends = end_id[order]
    if np.any(end_id == far_id) or np.any(ends[1:] == ends[:-1]):
        return None  # a port cabled to itself, or listed twice
    at = np.minimum(np.searchsorted(ends, far_id), len(order) - 1)
    back = np.where(ends[at] == far_id, order[at], -1)
    has_back = back >= 0
    if np.any(far_id[back[has_back]] != end_id[has_back]):
        return None  # a port cabled to two ports
    _nodes(dump, words, port_counts, guids, descriptions, record_lines, far_only, far, ports,
           port_line, len(guids) + len(far_only))
    guid_of = np.array(guids + far_only, dtype=np.uint64)
    g_end, g_far = guid_of[owner], guid_of[far]
    speed = ports.speed
    # each cable once: from the end whose (guid, port) is the smaller when both ends list it
    later = has_back & ((g_far < g_end) | ((g_far == g_end) & (far_port < local)))
    speed = np.where(has_back, np.minimum(speed, speed[np.maximum(back, 0)]), speed)
    keep = ~later
    dump.cables = list(zip(g_end[keep].tolist(), local[keep].tolist(), g_far[keep].tolist(),
                           far_port[keep].tolist(), speed[keep].tolist()))
    return dump


def _far_ends(guids: list[int], far_guid: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Each port's far node as an index into the nodes with records (``guids``) followed by
    those seen only as a far end (returned too, in the order the ports first name them)."""
    known = np.array(guids, dtype=np.uint64)
    order = np.argsort(known)
    at = np.minimum(np.searchsorted(known[order], far_guid), len(known) - 1)
    found = known[order][at] == far_guid
    far = np.where(found, order[at], -1)
    missing = np.flatnonzero(~found)
    if len(missing) == 0:
        return far, []
    unknown, first, which = np.unique(far_guid[missing], return_index=True, return_inverse=True)
    by_sight = np.argsort(first)
    rank = np.empty(len(unknown), dtype=np.int64)
    rank[by_sight] = np.arange(len(unknown))
    far[missing] = len(guids) + rank[which.ravel()]
    return far, unknown[by_sight].tolist()


def _nodes(dump, words, port_counts, guids, descriptions, record_lines, far_only, far,
           ports: PortLines, port_line, n: int) -> None:
    """Nodes in order of first appearance (their record, or a port naming them), as the
    line-by-line reader enters them; a record's description, else that of the port that named
    the node before its record."""
    first_ref = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    first_at = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((port_line, far))
    lead = np.concatenate([[True], far[order][1:] != far[order][:-1]])
    first_ref[far[order][lead]] = port_line[order][lead]
    first_at[far[order][lead]] = order[lead]
    records = len(guids)
    lines = np.array(record_lines, dtype=np.int64)
    appears = first_ref.copy()
    appears[:records] = np.minimum(lines, first_ref[:records])
    described = list(descriptions)
    for k in np.flatnonzero((first_ref[:records] < lines)
                            & np.array([not d for d in descriptions])).tolist():
        described[k] = first_quoted(ports.comment(int(first_at[k])))
    nodes = list(map(DumpNode, guids, map(_WORD.get, words), described, port_counts, record_lines))
    for k, guid in enumerate(far_only, records):
        j = int(first_at[k])
        nodes.append(DumpNode(guid, NODE_KIND[chr(ports.letter[j])], first_quoted(ports.comment(j)), 0,
                              int(first_ref[k])))
    every = guids + far_only
    dump.nodes = {every[k]: nodes[k] for k in np.argsort(appears, kind="stable").tolist()}
