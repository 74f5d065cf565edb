"""The optics and fibre at both ends of a link: one module per cage, one fibre type end to end.

**Per cage.** A module fills a cage: a switch's (its native port speed x ``ports_per_cage``:
a QM9700 cage is a twin-port 2 x 400G OSFP, an SN5600 or Tomahawk 6 cage one 800G / 1.6T port)
or a compute node's NIC cage (the NIC's native speed x the server's ``nic_ports_per_cage``: a
DGX H100 routes two single-port ConnectX-7 to each of its 4 twin-port OSFP cages, a DGX B300
has one OSFP cage per 800G ConnectX-8). The module's ports run at the link speed or split into
k links of it (a breakout: 4 planes of 200G on a ConnectX-8 take one 800G module, not four
200G modules). Where the fewest splits win, then the shortest reach that covers the run.

**One fibre type.** SR optics (VCSEL, 850 nm) run on multimode fibre, DR/FR/LR optics on
single-mode (IEEE 802.3 400GBASE-SR4 / DR4 clauses; NVIDIA LinkX cable guides, P): a module
of one type cannot face one of the other, nor the fibre between them. Each link end is offered
its best module of each fibre type; the link takes multimode where both ends have it (the
cheaper optics within 50 m), else single-mode, and its fibre cable of that type. Ends with no
common type are an OPTICS_MEDIUM_MISMATCH error. A co-packaged-optics switch takes single-mode
fibre itself (Quantum-X / Spectrum-X Photonics, P); copper cannot reach it. A catalog entry
without ``fiber`` (an older user catalog) is taken to match either type.

Everything here works on one distinct (end, speed, length) at a time; core/inventory.py maps
the results back to the bundles with arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.catalog import COMPUTE_KINDS, ComponentSpec
from core.catalog_media import FIBER_KINDS
from core.port_modes import links_per_port

MULTIMODE, SINGLE_MODE = FIBER_TYPES = FIBER_KINDS  # the preference order: multimode where it reaches


def fiber_types(spec: ComponentSpec) -> tuple[str, ...]:
    """The fibre types a module or cable takes (both when its entry does not say)."""
    kind = spec.fiber
    return FIBER_TYPES if kind is None else (kind,)


@dataclass(frozen=True)
class EndOption:
    """What one link end takes on one fibre type: a module (None: the switch's co-packaged
    optics, nothing to count) and the links one of its ports (or cable end) fans out to."""

    module: ComponentSpec | None
    fanout: int = 1
    reaches: bool = True  # False: the longest module of its type, still short of the run


def _pick(candidates: list[tuple[ComponentSpec, int]], length_m: float) -> EndOption | None:
    """The fewest splits, then the shortest reach covering ``length_m``; else the longest
    reach (counted, marked as not reaching: the run's cable then reports LINK_TOO_LONG)."""
    fitting = [c for c in candidates if float(c[0].reach_m) >= length_m]
    if fitting:
        return EndOption(*min(fitting, key=lambda c: (c[1], float(c[0].reach_m), c[0].id)))
    if candidates:
        module, fanout = max(candidates, key=lambda c: (float(c[0].reach_m), -c[1], c[0].id))
        return EndOption(module, fanout, reaches=False)
    return None


def _cage_candidates(catalog, cage_gbit_s: float, speed_gbit_s: float, max_fanout: int,
                     module_ports: int | None = None):
    """(module, fan-out) of every module that fills a cage of ``cage_gbit_s`` with ports
    that run at ``speed_gbit_s`` or split into at most ``max_fanout`` links of it (and, for a
    NIC cage, has ``module_ports`` ports: a ConnectX-8's flat-top cage takes single-port
    modules only, NVIDIA LinkX XDR list, P)."""
    out = []
    if speed_gbit_s <= 0:  # a link forced past the model's checks to 0 Gb/s takes no module
        return out
    for module in catalog.by_kind("transceiver"):
        if abs(float(module.gbit_s) - cage_gbit_s) > 1e-6:
            continue
        if module_ports is not None and int(module.lanes) != module_ports:
            continue
        port_gbit_s = float(module.gbit_s) / int(module.lanes)
        fanout = round(port_gbit_s / speed_gbit_s)
        if 1 <= fanout <= max_fanout and abs(fanout * speed_gbit_s - port_gbit_s) < 1e-6:
            out.append((module, fanout))
    return out


def _speed_candidates(catalog, speed_gbit_s: float):
    """Modules by link speed alone, for ends whose cage the catalog does not describe (storage
    and appliances): a twin-port module of 2 x speed or a single-port one, straight."""
    return [(m, 1) for m in catalog.by_kind("transceiver")
            if (int(m.lanes) == 2 and abs(float(m.gbit_s) - 2 * speed_gbit_s) < 1e-6)
            or (int(m.lanes) == 1 and abs(float(m.gbit_s) - speed_gbit_s) < 1e-6)]


def _by_type(candidates, length_m: float, prefer_twin: bool = False) -> dict[str, EndOption]:
    out: dict[str, EndOption] = {}
    for kind in FIBER_TYPES:
        of_kind = [c for c in candidates if kind in fiber_types(c[0])]
        if prefer_twin:  # a twin-port module when one reaches (two ports per cage)
            twins = [c for c in of_kind if int(c[0].lanes) == 2]
            twin = _pick(twins, length_m)
            of_kind = twins if twin is not None and twin.reaches else of_kind
        picked = _pick(of_kind, length_m)
        if picked is not None:
            out[kind] = picked
    return out


def end_options(catalog, spec: ComponentSpec, scale_out: bool, speed_gbit_s: float,
                length_m: float) -> dict[str, EndOption]:
    """The module each fibre type offers at an end on ``spec`` (a switch, a compute node, a
    storage system...) for a fibre link of ``speed_gbit_s`` and ``length_m``; ``scale_out``:
    the link is on a compute node's NICs. Empty: no module in the catalog fits."""
    if spec.kind == "switch":
        split = links_per_port(spec, speed_gbit_s)
        if spec.co_packaged_optics:
            return {SINGLE_MODE: EndOption(None, max(1, split))}
        cage = spec.native_port_gbit_s * int(spec.ports_per_cage)
        return _by_type(_cage_candidates(catalog, cage, speed_gbit_s, max(1, split)), length_m)
    nic = catalog.get(spec.nic) if (spec.kind in COMPUTE_KINDS and scale_out and spec.nic
                                    and spec.nic in catalog) else None
    if nic is not None:
        per_cage = int(spec.nic_ports_per_cage)
        split = max(1, links_per_port(nic, speed_gbit_s))
        return _by_type(_cage_candidates(catalog, nic.native_port_gbit_s * per_cage,
                                         speed_gbit_s, split, per_cage), length_m)
    return _by_type(_speed_candidates(catalog, speed_gbit_s), length_m, prefer_twin=True)


def pick_fiber(a: dict[str, EndOption], b: dict[str, EndOption]) -> str | None:
    """The fibre type a link takes between ends offering ``a`` and ``b``: multimode where both
    ends' modules reach, else single-mode; a type whose modules fall short only when none
    reaches; None when they share no type (or either end has nothing)."""
    shared = [kind for kind in FIBER_TYPES if kind in a and kind in b]
    return next((kind for kind in shared if a[kind].reaches and b[kind].reaches),
                shared[0] if shared else None)


def choose_cable(catalog, medium: str, length_m: float, fanout: int = 1,
                 fiber: str | None = None) -> ComponentSpec | None:
    """The cable for a run: straight (``fanout`` 1) or a splitter fanning out to ``fanout``,
    of fibre type ``fiber`` when given; the shortest that reaches, else the longest."""
    candidates = [c for c in catalog.by_kind("cable")
                  if c.medium == medium and int(c.fanout) == fanout
                  and (fiber is None or medium != "fiber" or fiber in fiber_types(c))]
    if not candidates:
        return None
    fitting = [c for c in candidates if float(c.reach_m) >= length_m]
    if fitting:
        return min(fitting, key=lambda c: float(c.reach_m))
    return max(candidates, key=lambda c: float(c.reach_m))
