"""``export PROJECT -o FILE`` for the floor plan: which file a name asks for, written atomically.

No Qt: the floor plan's files are text (core/site/export.py)."""

from __future__ import annotations

from pathlib import Path

from core.errors import DesignError
from core.project import atomic_write_text
from core.site.export import cable_schedule_csv, floor_svg, racks_csv, racks_svg
from core.site.place import place

SITE_EXPORTS = ("cables", "racks", "floor")
_EXTENSIONS = {"cables": (".csv",), "racks": (".csv", ".svg"), "floor": (".svg",)}


def site_export_for(path: Path) -> str | None:
    """The floor-plan file a name asks for, or None (the diagram): *.csv is the cable schedule
    (rack*.csv the elevations); floor*.svg the floor plan; rack*.svg the elevations."""
    ext, stem = path.suffix.lower(), path.stem.lower()
    if ext == ".csv":
        return "racks" if stem.startswith("rack") else "cables"
    if ext == ".svg" and stem.startswith("floor"):
        return "floor"
    if ext == ".svg" and stem.startswith("rack"):
        return "racks"
    return None


def export_site(design, path: Path, what: str) -> None:
    ext = path.suffix.lower()
    if ext not in _EXTENSIONS[what]:
        raise DesignError(f"{path.name}: the {what} export is written as "
                          + " or ".join(_EXTENSIONS[what]))
    site, flat, graph = place(design)
    if what == "cables":
        text = cable_schedule_csv(site, flat, graph)
    elif what == "racks":
        text = racks_csv(site, flat) if ext == ".csv" else racks_svg(site, flat)
    else:
        text = floor_svg(site)
    atomic_write_text(path, text)
