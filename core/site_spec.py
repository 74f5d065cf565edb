"""The site a design is placed on, as a project file holds it (optional key ``"site"``).

Everything has a default, so a project without the key (every project written before the floor
plan existed) is placed automatically and loads unchanged. A user's edits are:

* ``halls``: the data halls to fill, in order, each with its power and cooling capacity, floor
  size and row pitch (none given: as many default halls as the design needs);
* ``racks``: moves of single racks, ``{"17": {"row": 3, "slot": 12}}``: rack 17 of the automatic
  order (numbered from 1, as the floor plan and the exports show it) goes to slot 12 of row 3
  (both from 1, rows counted over all halls). Numbers follow the design: a rack moved in a
  design that is then regenerated may name a different rack;
* the layout figures below (rack size, racks per row, CDU capacity, routing slack...).

Defaults are estimates (E) unless a source is given; docs/guide/floor-plan.md explains each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from core.errors import DesignError


@dataclass(frozen=True)
class Hall:
    name: str
    power_kw: float          # IT power the hall's electrical plant delivers
    cooling_kw: float        # heat its cooling plant removes (air and liquid together)
    width_m: float           # along the rows
    depth_m: float           # across the rows
    row_pitch_m: float       # row to row: rack depth plus one aisle (hot or cold)


@dataclass(frozen=True)
class RackMove:
    rack: int                # number in the automatic order, from 1
    row: int                 # row over all halls, from 1
    slot: int                # position in the row, from 1


# (field, minimum, exclusive minimum) of the figures a "site" key may set.
_FIGURES = {
    # 600 mm wide racks (EIA 19" in a 600 mm cabinet; NVL72 MGX racks are 600 mm too) (E).
    "rack_width_m": 0.6,
    # Hot aisle + cold aisle pitch of 6 floor tiles of 600 mm, 1.2 m deep racks (E).
    "row_pitch_m": 3.6,
    "racks_per_row": 20,     # (E) a row of 20 racks: 12 m, two SuperPOD H100 SUs of 8+1 racks
    "rows_per_hall": 24,     # (E)
    # IT power of one default hall (E: large data halls of 20-40 MW; the source articles' 150 MW
    # site for 100,000 GPUs is several halls).
    "hall_power_kw": 30000.0,
    "hall_cooling_kw": 30000.0,
    # Liquid heat one row's in-row CDU removes (E: in-row CDUs of the 1-2 MW class; the GB200
    # SuperPOD RA's SU of 8 NVL72 racks in one row needs 1.2 MW, so one such CDU per row).
    "row_cdu_kw": 1500.0,
    "hall_gap_m": 6.0,       # corridor between halls (E)
    "end_aisle_m": 1.2,      # at each end of a row (E)
    "rack_height_u": 48,     # usable U per rack (E: 48U racks as in the SuperPOD RAs)
    "tray_above_floor_m": 2.6,  # overhead cable tray height (E: ~0.3 m above a 2.3 m rack)
    "slack_fraction": 0.10,  # extra length over the routed path (E)
    "service_loop_m": 1.0,   # fixed extra per cable: dressing and service loops at both ends (E)
    "in_rack_extra_m": 0.5,  # a cable inside one rack: its height difference plus this (E)
}
# Which length the inventory buys cables and optics for (and so cost and power price and power
# them at, and reliability counts their media's failures at): the longest placed cable of each
# bundle (the default since the floor plan's lengths were wired in, issue 26), or each link's
# drawn ``length_m`` (``"drawn"``: the figures as before the floor plan).
CABLE_LENGTHS = ("placed", "drawn")
_INTEGERS = {"racks_per_row", "rows_per_hall", "rack_height_u"}


@dataclass(frozen=True)
class SiteSpec:
    halls: tuple[Hall, ...] = ()
    moves: tuple[RackMove, ...] = ()
    rack_width_m: float = _FIGURES["rack_width_m"]
    row_pitch_m: float = _FIGURES["row_pitch_m"]
    racks_per_row: int = _FIGURES["racks_per_row"]
    rows_per_hall: int = _FIGURES["rows_per_hall"]
    hall_power_kw: float = _FIGURES["hall_power_kw"]
    hall_cooling_kw: float = _FIGURES["hall_cooling_kw"]
    row_cdu_kw: float = _FIGURES["row_cdu_kw"]
    hall_gap_m: float = _FIGURES["hall_gap_m"]
    end_aisle_m: float = _FIGURES["end_aisle_m"]
    rack_height_u: int = _FIGURES["rack_height_u"]
    tray_above_floor_m: float = _FIGURES["tray_above_floor_m"]
    slack_fraction: float = _FIGURES["slack_fraction"]
    service_loop_m: float = _FIGURES["service_loop_m"]
    in_rack_extra_m: float = _FIGURES["in_rack_extra_m"]
    cable_lengths: str = "placed"

    @property
    def placed_lengths(self) -> bool:
        """True when cost, power and reliability follow the placed cable lengths (the default)."""
        return self.cable_lengths == "placed"

    @property
    def drawn(self) -> bool:
        """True when the user placed something (halls or moved racks): ``placement`` "drawn"."""
        return bool(self.halls or self.moves)

    def default_hall(self, number: int) -> Hall:
        width = self.racks_per_row * self.rack_width_m + 2 * self.end_aisle_m
        return Hall(f"hall {number}", self.hall_power_kw, self.hall_cooling_kw, width,
                    self.rows_per_hall * self.row_pitch_m, self.row_pitch_m)

    def hall_rows(self, hall: Hall) -> int:
        return max(1, int(math.floor(hall.depth_m / hall.row_pitch_m + 1e-9)))

    def hall_racks_per_row(self, hall: Hall) -> int:
        usable = hall.width_m - 2 * self.end_aisle_m
        return max(1, int(math.floor(usable / self.rack_width_m + 1e-9)))


def _fail(path: str, message: str) -> None:
    raise DesignError(f"{path}: {message}")


def _number(raw: Any, path: str, integer: bool = False, minimum: float = 0.0,
            exclusive: bool = True) -> float:
    ok = type(raw) is int or (type(raw) is float and not integer and math.isfinite(raw))
    if not ok:
        _fail(path, f"expected {'an integer' if integer else 'a number'}, got {raw!r}")
    if raw < minimum or (exclusive and raw == minimum):
        _fail(path, f"expected a value {'above' if exclusive else 'of at least'} {minimum:g}, got {raw!r}")
    return int(raw) if integer else float(raw)


_HALL_KEYS = ("name", "power_kw", "cooling_kw", "width_m", "depth_m", "row_pitch_m")


def site_from_dict(raw: Any, path: str = "$.site") -> SiteSpec:
    """The site of a project file; a one-line error naming the JSON path on bad input."""
    if not isinstance(raw, dict):
        _fail(path, f"expected an object, got {raw!r}")
    unknown = sorted(set(raw) - {"halls", "racks", "cable_lengths", *_FIGURES})
    if unknown:
        _fail(f"{path}.{unknown[0]}", "unknown key (expected halls, racks, cable_lengths or one of "
              + ", ".join(_FIGURES) + ")")
    lengths = raw.get("cable_lengths", "placed")
    if lengths not in CABLE_LENGTHS:
        _fail(f"{path}.cable_lengths", f"expected one of {', '.join(CABLE_LENGTHS)}, got {lengths!r}")
    values: dict[str, Any] = {}
    for name in _FIGURES:
        if name in raw:
            minimum = 0.0
            exclusive = name not in ("slack_fraction", "service_loop_m", "hall_gap_m", "in_rack_extra_m",
                                     "end_aisle_m")
            values[name] = _number(raw[name], f"{path}.{name}", name in _INTEGERS, minimum,
                                   exclusive)
    spec = SiteSpec(**values, cable_lengths=lengths)
    halls = raw.get("halls", [])
    if not isinstance(halls, list):
        _fail(f"{path}.halls", f"expected a list, got {halls!r}")
    out_halls = []
    for i, hall in enumerate(halls):
        where = f"{path}.halls[{i}]"
        if not isinstance(hall, dict):
            _fail(where, f"expected an object, got {hall!r}")
        bad = sorted(set(hall) - set(_HALL_KEYS))
        if bad:
            _fail(f"{where}.{bad[0]}", "unknown key (expected " + ", ".join(_HALL_KEYS) + ")")
        default = spec.default_hall(i + 1)
        name = hall.get("name", default.name)
        if not isinstance(name, str) or not name.strip():
            _fail(f"{where}.name", f"expected a non-empty string, got {name!r}")
        numbers = {key: _number(hall[key], f"{where}.{key}") if key in hall else getattr(default, key)
                   for key in _HALL_KEYS[1:]}
        out_halls.append(Hall(name, **numbers))
    racks = raw.get("racks", {})
    if not isinstance(racks, dict):
        _fail(f"{path}.racks", f"expected an object of rack number: {{row, slot}}, got {racks!r}")
    moves = []
    for key, move in racks.items():
        where = f"{path}.racks.{key}"
        if not key.isdigit() or int(key) < 1:
            _fail(where, "a rack is named by its number, from 1")
        if not isinstance(move, dict) or set(move) != {"row", "slot"}:
            _fail(where, f"expected {{\"row\": R, \"slot\": S}}, got {move!r}")
        moves.append(RackMove(int(key), int(_number(move["row"], f"{where}.row", True, 1, False)),
                              int(_number(move["slot"], f"{where}.slot", True, 1, False))))
    return replace(spec, halls=tuple(out_halls), moves=tuple(sorted(moves, key=lambda m: m.rack)))


def site_to_dict(spec: SiteSpec) -> dict[str, Any]:
    """What a project file holds: only what differs from the defaults."""
    out: dict[str, Any] = {}
    default = SiteSpec()
    for f in fields(SiteSpec):
        if f.name in ("halls", "moves"):
            continue  # written below, in their file form
        value = getattr(spec, f.name)
        if value != getattr(default, f.name):
            out[f.name] = value
    if spec.halls:
        out["halls"] = [{key: getattr(hall, key) for key in _HALL_KEYS} for hall in spec.halls]
    if spec.moves:
        out["racks"] = {str(m.rack): {"row": m.row, "slot": m.slot} for m in spec.moves}
    return out


def with_move(spec: SiteSpec, rack: int, row: int, slot: int) -> SiteSpec:
    """``spec`` with rack ``rack`` moved to (row, slot), replacing an earlier move of it."""
    moves = [m for m in spec.moves if m.rack != rack] + [RackMove(rack, row, slot)]
    return replace(spec, moves=tuple(sorted(moves, key=lambda m: m.rack)))


