"""Flattening into arrays: the rows, the device graph, the optics per device, bad links."""

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from core.errors import DesignError
from core.flatten import flatten, unit_graph
from core.generators import FatTreeOptions, generate_fat_tree
from core.inventory import build_inventory
from core.optics import choose_cable, end_options, pick_fiber
from core.model import Block, Design, Link, Node
from core.port_modes import links_per_port
from core.topology import analyze_topology


def test_a_link_without_cables_is_a_one_line_error(catalog):
    root = Block("root")
    root.children["servers"] = Node("servers", "DGX-H100", 4)
    pod = Block("pod", count=2, children={"leaf": Node("leaf", "QM9700", 1),
                                          "spine": Node("spine", "QM9700", 1)})
    with pytest.raises(DesignError, match=r"^link 'up' field count: must be at least 1, got 0$"):
        Link("up", "leaf", "spine", count=0)
    pod.links.append(Link("up", "leaf", "spine", count=4))
    object.__setattr__(pod.links[0], "count", 0)  # forced past the frozen model: flatten still refuses it
    root.children["pod"] = pod
    with pytest.raises(DesignError, match=r"^link pod/up: count must be a whole number of at least 1, got 0$"):
        flatten(Design("d", root), catalog)
    pod.links[0] = Link("up", "leaf", "spines", count=4)
    with pytest.raises(DesignError, match=r"^link up in pod: no component at 'spines'$"):
        flatten(Design("d", root), catalog)


def test_rows_as_objects_match_the_arrays(catalog):
    flat = flatten(generate_fat_tree(FatTreeOptions(4096, "DGX-H100", "QM9700"), catalog), catalog)
    assert [g.path for g in flat.groups] == list(flat.paths)
    assert [g.multiplicity for g in flat.groups] == flat.multiplicity.tolist()
    assert [(b.a, b.b, b.cables) for b in flat.bundles] == list(
        zip(flat.bundle_a.tolist(), flat.bundle_b.tolist(), flat.cables.tolist()))
    assert flat.groups[flat.index["pod/su/leaf"]].multiplicity == 128
    assert flat.gpus == 4096


def wiring_by_the_rule(flat) -> tuple[list[int], list[int]]:
    """Every cable's unit ends, straight from the rule in core/flatten.py's docstring."""
    offsets = [0]
    for multiplicity in flat.multiplicity.tolist():
        offsets.append(offsets[-1] + multiplicity)
    src: list[int] = []
    dst: list[int] = []
    for bundle in flat.bundles:
        instances = bundle.owner_instances
        per_instance = bundle.cables // instances
        a_units = max(1, flat.groups[bundle.a].multiplicity // instances)
        b_units = max(1, flat.groups[bundle.b].multiplicity // instances)
        share = max(1, -(-per_instance // a_units))
        for i in range(instances):
            for j in range(per_instance):
                src.append(offsets[bundle.a] + i * a_units + min(j // share, a_units - 1))
                dst.append(offsets[bundle.b] + i * b_units + j % b_units)
    return src, dst


@settings(max_examples=40)
@given(servers=st.integers(1, 9), leaves=st.integers(1, 5), blocks=st.integers(1, 4),
       inner_a=st.integers(1, 4), inner_b=st.integers(1, 6),
       cables=st.lists(st.integers(1, 40), min_size=4, max_size=4))
def test_device_graph_follows_the_wiring_rule(catalog, servers, leaves, blocks, inner_a, inner_b,
                                              cables):
    # bundles at two levels, cable counts that do and do not divide the units evenly
    inner = Block("pod", count=blocks, children={"x": Node("x", "QM9700", inner_a),
                                                 "y": Node("y", "QM9700", inner_b)})
    inner.links += [Link("xy", "x", "y", count=cables[0]), Link("yx", "y", "x", count=cables[1])]
    root = Block("root", children={"s": Node("s", "DGX-H100", servers),
                                   "l": Node("l", "QM9700", leaves), "pod": inner})
    root.links += [Link("sl", "s", "l", count=cables[2]), Link("sy", "s", "pod/y", count=cables[3])]
    flat = flatten(Design("d", root), catalog)
    graph = unit_graph(flat)
    assert (graph.src.tolist(), graph.dst.tolist()) == wiring_by_the_rule(flat)


def bundle_optics(flat, k: int):
    """One bundle's (fibre type, option at A, option at B), chosen bundle by bundle: each end's
    module of every fibre type (core/optics.py), the type both ends share."""
    scale_out = flat.kind_names[flat.kind_code[k]] == "scale-out"
    speed, length = float(flat.speed_gbit_s[k]), float(flat.length_m[k])
    a, b = (end_options(flat.catalog, flat.specs[flat.spec_row[end]], scale_out, speed, length)
            for end in (flat.bundle_a[k], flat.bundle_b[k]))
    kind = pick_fiber(a, b)
    return kind, a[kind], b[kind]


def modules_counted_device_by_device(flat) -> int:
    """Optics the slow way: walk every cable of the device graph, ceil per device and module.
    A link on a breakout port takes 1/fanout of a port of the cage's module."""
    graph = unit_graph(flat)
    fiber = set(np.flatnonzero(flat.bundles_of_medium("fiber")).tolist())
    choice = {k: bundle_optics(flat, k) for k in fiber}

    def module_at(unit: int, k: int):
        option = choice[k][1] if graph.unit_group[unit] == flat.bundle_a[k] else choice[k][2]
        return option.module, option.fanout

    ports: dict[tuple[int, str], Fraction] = {}
    lanes: dict[str, int] = {}
    for src, dst, k in zip(graph.src.tolist(), graph.dst.tolist(), graph.edge_bundle.tolist()):
        if k not in fiber:
            continue
        for unit in (src, dst):
            module, fanout = module_at(unit, k)
            if module is None:
                continue
            lanes[module.id] = int(module.lanes)
            ports[unit, module.id] = ports.get((unit, module.id), 0) + Fraction(1, fanout)
    return sum(math.ceil(count / lanes[module]) for (_, module), count in ports.items())


def cables_counted_device_by_device(flat) -> int:
    """Cables the slow way: a straight cable per link, except at a switch's breakout ports
    where a unit's links share splitters, ``fanout`` links each, whichever bundles they belong
    to (both ends splitting: splitters at each end)."""
    graph = unit_graph(flat)
    fiber = set(np.flatnonzero(flat.bundles_of_medium("fiber")).tolist())

    choice = {k: bundle_optics(flat, k) for k in fiber}

    def fanout_at(unit: int, k: int) -> int:
        spec = flat.specs[flat.spec_row[graph.unit_group[unit]]]
        if k not in fiber:  # copper: a splitter DAC on a switch's breakout port
            split = links_per_port(spec, float(flat.speed_gbit_s[k])) if spec.kind == "switch" else 1
            return max(1, split)
        return (choice[k][1] if graph.unit_group[unit] == flat.bundle_a[k] else choice[k][2]).fanout

    straight = 0
    legs: dict[tuple[int, str], list[int]] = {}  # (unit, splitter id) -> [links, fanout]
    for src, dst, k in zip(graph.src.tolist(), graph.dst.tolist(), graph.edge_bundle.tolist()):
        fans = [(unit, fanout_at(unit, k)) for unit in (src, dst)]
        if all(f == 1 for _, f in fans):
            straight += 1
        for unit, f in fans:
            if f > 1:
                cable = choose_cable(flat.catalog, flat.medium_names[flat.medium_code[k]],
                                     float(flat.length_m[k]), f,
                                     choice[k][0] if k in choice else None)
                legs.setdefault((unit, cable.id), [0, f])[0] += 1
    return straight + sum(-(-links // f) for links, f in legs.values())


@settings(max_examples=25)
@given(
    servers=st.integers(1, 300),
    server=st.sampled_from(["DGX-H100", "DGX-A100", "MI300X-Platform", "HLS-3"]),
    switch=st.sampled_from(["QM9700", "SN5600"]),
    oversubscription=st.sampled_from([1, 2.5, 3]),
    storage_nodes=st.sampled_from([0, 3, 7]),
)
def test_optics_are_what_every_device_holds(catalog, servers, server, switch, oversubscription,
                                            storage_nodes):
    # partial scalable units and odd storage counts spread cables unevenly over some groups
    try:
        design = generate_fat_tree(FatTreeOptions(
            servers * 8, server, switch, oversubscription=oversubscription,
            storage="AI400X2" if storage_nodes else None, storage_nodes=storage_nodes), catalog)
    except DesignError:
        return  # a size the generator refuses
    flat = flatten(design, catalog)
    inventory, _ = build_inventory(flat, analyze_topology(flat).tiers)
    assert inventory.count("transceiver") == modules_counted_device_by_device(flat)
    assert inventory.count("cable") == cables_counted_device_by_device(flat)
