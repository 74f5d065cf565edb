"""The report's Site section: the floor plan as (label, value, key) rows (core/site;
docs/guide/floor-plan.md). core/report/sections.py makes them report rows."""

from __future__ import annotations

from core.evaluate import Evaluation


def _n(value: float | None, digits: int, unit: str) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f} {unit}"


def site_rows(ev: Evaluation) -> list[tuple[str, str, str]]:
    s = ev.site
    lengths = s.cable_length_m
    media = ", ".join(f"{name} {n:,}" for name, n in s.cables_by_medium.items() if n) or "none"
    return [
        ("Placement", s.placement, "site.placement"),
        ("Halls, rows, racks", f"{s.halls:,}, {s.rows:,}, {s.racks:,}", "site.racks"),
        ("Racks by kind", ", ".join(f"{k} {n:,}" for k, n in s.racks_by_kind.items()),
         "site.racks_by_kind"),
        ("Floor area", _n(s.floor_area_m2, 0, "m2"), "site.floor_area_m2"),
        ("Densest rack, row", f"{_n(s.rack_kw_max, 1, 'kW')}, {_n(s.row_kw_max, 0, 'kW')}",
         "site.row_kw_max"),
        ("Cable length p50 / p95 / max",
         " / ".join(_n(lengths[k], 1, "m") for k in ("p50", "p95", "max")), "site.cable_length_m"),
        ("Cables by medium", media, "site.cables_by_medium"),
        ("Beyond their medium's reach", f"{s.reach_violations:,}", "site.reach_violations"),
    ]
