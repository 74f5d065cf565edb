"""The floor plan's files: the cable schedule (CSV), rack elevations (CSV or SVG) and the floor
plan (SVG). Text only; the caller writes it atomically (core/atomic_write.py).

Rack numbers are those of the automatic order (from 1), the numbers a project's ``site.racks``
moves use; a location is ``hall/row/slot`` (rows from 1 over all halls, slots from 1).
"""

from __future__ import annotations

import csv
import io
from html import escape

import numpy as np

from core.cooling import COOLING_TYPES
from core.site.analysis import SiteResult
from core.site.media import MEDIA
from core.site.templates import RACK_CLASSES, unit_height_u

MEDIUM_COLOURS = {"dac": "#d95f02", "acc": "#e6ab02", "aec": "#a6761d", "aoc": "#7570b3",
                  "mmf": "#1b9e77", "smf": "#1f78b4"}
CLASS_COLOURS = {"compute": "#9ecae1", "network": "#fdd0a2", "storage": "#c7e9c0"}


def _locations(site: SiteResult) -> np.ndarray:
    lay = site.layout
    names = [h.name for h in lay.halls]
    return np.array([f"{names[h]}/row {r + 1}/slot {s + 1}" for h, r, s in zip(
        lay.rack_hall.tolist(), lay.rack_row.tolist(), lay.rack_slot.tolist())], dtype=object)


def cable_schedule_csv(site: SiteResult, flat, graph) -> str:
    """One row per identical bundle: the cables of one drawn link between the same two racks,
    of one medium and length (to 0.1 m); devices and ports as ranges (``path[first-last]``,
    ports numbered per device over all its cables in the design's link order)."""
    c = site.cables
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["from_rack", "from_location", "from_device", "from_port", "to_rack",
                "to_location", "to_device", "to_port", "link", "kind", "speed_gbit_s", "medium",
                "length_m", "count"])
    if c is None or not c.count:
        return out.getvalue()
    # the ends as wired on the floor (a pooled leaf tier's dealt by row, core/site/pooled.py)
    src = graph.src if c.unit_a is None else c.unit_a
    dst = graph.dst if c.unit_b is None else c.unit_b
    # every device's ports numbered over its cables, A ends then B ends, in edge order
    ends = np.concatenate([src, dst])
    order = np.argsort(ends, kind="stable")
    device_start = np.searchsorted(ends[order], ends[order])
    port = np.empty(len(ends), dtype=np.int64)
    port[order] = np.arange(len(ends)) - device_start + 1
    port_a, port_b = port[:len(src)], port[len(src):]
    unit_group = graph.unit_group
    local = np.arange(graph.units) - graph.offsets[unit_group]
    decimetres = np.round(c.length_m * 10).astype(np.int64)
    keys = np.lexsort((decimetres, c.medium, c.rack_b, c.rack_a, c.bundle))
    k = np.stack([c.bundle[keys], c.rack_a[keys], c.rack_b[keys], c.medium[keys],
                  decimetres[keys]])
    starts = np.flatnonzero(np.concatenate([[True], (k[:, 1:] != k[:, :-1]).any(axis=0)]))
    del k
    counts = np.diff(np.concatenate([starts, [len(keys)]]))
    first = keys[starts]

    def spans(values: np.ndarray) -> list[str]:
        """"first-last" (from 1) of ``values`` over every row's cables, all rows at once."""
        ordered = values[keys]
        lo = np.minimum.reduceat(ordered, starts) + 1
        hi = np.maximum.reduceat(ordered, starts) + 1
        return [str(a) if a == b else f"{a}-{b}" for a, b in zip(lo.tolist(), hi.tolist())]

    # what a bundle's rows share, once per bundle
    bundles = flat.bundles
    path_a = [flat.paths[b.a] for b in bundles]
    path_b = [flat.paths[b.b] for b in bundles]
    link = [f"{b.owner_path + '/' if b.owner_path else ''}{b.link_id}" for b in bundles]
    kind = [b.kind for b in bundles]
    speed = [f"{b.speed_gbit_s:g}" for b in bundles]
    locations = _locations(site)
    rack_a, rack_b = c.rack_a[first], c.rack_b[first]
    rows = zip(
        (rack_a + 1).tolist(), locations[rack_a].tolist(), c.bundle[first].tolist(),
        spans(local[src]), spans(port_a - 1), (rack_b + 1).tolist(), locations[rack_b].tolist(),
        spans(local[dst]), spans(port_b - 1), c.medium[first].tolist(),
        (decimetres[first] / 10).tolist(), counts.tolist())
    w.writerows((ra, la, f"{path_a[b]}[{da}]", pa, rb, lb, f"{path_b[b]}[{db}]", pb, link[b],
                 kind[b], speed[b], MEDIA[m], f"{length:.1f}", n)
                for ra, la, b, da, pa, rb, lb, db, pb, m, length, n in rows)
    return out.getvalue()


def rack_contents(site: SiteResult, flat) -> list[tuple[int, int, float, float, int]]:
    """(rack, group, bottom U, height U, units) runs: the groups' units by rack, merged where a
    group's consecutive units sit one above the other."""
    out = []
    for g, (racks, bottom) in site.template.units.items():
        height = unit_height_u(flat, g)
        order = np.lexsort((bottom, racks))
        r, u = racks[order], bottom[order]
        new = np.concatenate([[True], r[1:] != r[:-1]]) if len(r) else np.zeros(0, dtype=bool)
        starts = np.flatnonzero(new)
        counts = np.diff(np.concatenate([starts, [len(r)]]))
        for s, n in zip(starts.tolist(), counts.tolist()):
            out.append((int(r[s]), g, float(u[s]), height, n))
    return sorted(out)


def racks_csv(site: SiteResult, flat) -> str:
    """One row per rack and device group in it: where the rack is, what it holds, its kW."""
    t, out = site.template, io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rack", "location", "kind", "cooling", "rack_kw", "u_used", "device",
                "catalog_id", "units", "bottom_u"])
    locations = _locations(site)
    for r, g, bottom, _, n in rack_contents(site, flat):
        w.writerow([r + 1, locations[r], RACK_CLASSES[t.rack_class[r]],
                    COOLING_TYPES[t.rack_cooling[r]], f"{t.rack_w[r] / 1000:.2f}",
                    f"{t.rack_u[r]:g}", flat.paths[g], flat.nodes[g].catalog_id, n,
                    f"{bottom + 1:g}"])
    return out.getvalue()


def racks_svg(site: SiteResult, flat) -> str:
    """One elevation per distinct rack content, with how many racks look like it."""
    contents: dict[int, list] = {}
    for r, g, bottom, height, n in rack_contents(site, flat):
        contents.setdefault(r, []).append((flat.nodes[g].catalog_id, flat.paths[g], bottom,
                                           height, n))
    kinds: dict[tuple, list[int]] = {}
    for r, items in contents.items():
        kinds.setdefault(tuple((cid, b, h, n) for cid, _, b, h, n in items), []).append(r)
    height_u = site.spec.rack_height_u
    px_u, width, gap = 9, 170, 40
    shown = sorted(kinds.items(), key=lambda kv: kv[1][0])[:40]
    total_w = max(1, len(shown)) * (width + gap) + gap
    total_h = height_u * px_u + 90
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
             f'font-family="sans-serif" font-size="10">',
             f'<rect width="{total_w}" height="{total_h}" fill="white"/>']
    for i, (_, racks) in enumerate(shown):
        x = gap + i * (width + gap)
        r = racks[0]
        t = site.template
        parts.append(f'<text x="{x}" y="16" font-size="12">rack {r + 1} '
                     f'({RACK_CLASSES[t.rack_class[r]]}) x {len(racks)}</text>')
        parts.append(f'<text x="{x}" y="30">{t.rack_w[r] / 1000:.1f} kW, '
                     f'{COOLING_TYPES[t.rack_cooling[r]]}</text>')
        top = 40
        parts.append(f'<rect x="{x}" y="{top}" width="{width}" height="{height_u * px_u}" '
                     f'fill="#f4f4f4" stroke="#333"/>')
        for cid, path, bottom, height, n in contents[r]:
            for j in range(n):
                u0 = bottom + j * height
                y = top + (height_u - u0 - height) * px_u
                parts.append(f'<rect x="{x + 4}" y="{y:.1f}" width="{width - 8}" '
                             f'height="{max(height * px_u - 1, 2):.1f}" fill="'
                             f'{CLASS_COLOURS[RACK_CLASSES[t.rack_class[r]]]}" stroke="#555">'
                             f'<title>{escape(path)}</title></rect>')
                if height * px_u >= 9:
                    parts.append(f'<text x="{x + 8}" y="{y + min(height * px_u - 2, 11):.1f}">'
                                 f'{escape(cid)}</text>')
    if len(kinds) > len(shown):
        parts.append(f'<text x="{gap}" y="{total_h - 10}">and {len(kinds) - len(shown)} more '
                     'kinds of rack (racks.csv lists every rack)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def floor_svg(site: SiteResult, colour_by: str = "kw") -> str:
    """Halls, rows and racks from above, racks coloured by kW (or cooling), and the cables
    between racks drawn per (row, row, medium) with a width that grows with their number."""
    lay, t, spec, c = site.layout, site.template, site.spec, site.cables
    halls_used = site.halls or 1
    widths = np.array([h.width_m for h in lay.halls[:halls_used]])
    depths = np.array([h.depth_m for h in lay.halls[:halls_used]])
    extent_m = max((lay.hall_x_m[:halls_used] + widths).max(), (lay.hall_y_m[:halls_used] + depths).max())
    scale = min(20.0, 4000.0 / max(extent_m, 1.0))  # px per metre: a big campus still fits
    total_w = max(900.0, (lay.hall_x_m[:halls_used] + widths).max() * scale + 40)
    total_h = (lay.hall_y_m[:halls_used] + depths).max() * scale + 100
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" '
             f'height="{total_h:.0f}" font-family="sans-serif" font-size="11">',
             f'<rect width="{total_w:.0f}" height="{total_h:.0f}" fill="white"/>']
    ox, oy = 20, 40
    for i, hall in enumerate(lay.halls[:halls_used]):
        x = ox + lay.hall_x_m[i] * scale
        y = oy + lay.hall_y_m[i] * scale
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{hall.width_m * scale:.1f}" '
                     f'height="{hall.depth_m * scale:.1f}" fill="#fafafa" stroke="#222"/>')
        kw = site.hall_kw[i] if i < len(site.hall_kw) else 0.0
        parts.append(f'<text x="{x:.1f}" y="{y - 8:.1f}">{escape(hall.name)}: {kw:,.0f} kW of '
                     f'{hall.power_kw:,.0f}</text>')
    kw = t.rack_w / 1000.0
    top = max(float(kw.max(initial=0.0)), 1e-9)
    cooling_colours = {"air": "#9ecae1", "rear-door": "#6baed6", "cold-plate": "#3182bd",
                       "immersion": "#08519c"}
    rack_depth = min(1.2, spec.row_pitch_m / 2)
    for r in range(t.racks):
        if colour_by == "cooling":
            fill = cooling_colours[COOLING_TYPES[t.rack_cooling[r]]]
        else:
            level = kw[r] / top
            fill = f"rgb({int(255 * level)},{int(200 * (1 - level)) + 40},{int(120 * (1 - level))})"
        x = ox + (lay.x_m[r] - spec.rack_width_m / 2) * scale
        y = oy + (lay.y_m[r] - rack_depth / 2) * scale
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{spec.rack_width_m * scale - 1:.1f}" '
                     f'height="{rack_depth * scale:.1f}" fill="{fill}" stroke="#333" '
                     f'stroke-width="0.5"><title>rack {r + 1}: {RACK_CLASSES[t.rack_class[r]]}, '
                     f'{kw[r]:.1f} kW</title></rect>')
    if c is not None and c.count:
        between = c.rack_a != c.rack_b
        ra, rb = c.rack_a[between], c.rack_b[between]
        key = np.stack([lay.rack_row[ra], lay.rack_row[rb], c.medium[between]])
        pairs, counts = np.unique(key, axis=1, return_counts=True)
        row_x = np.bincount(lay.rack_row, weights=lay.x_m) / np.maximum(np.bincount(lay.rack_row), 1)
        row_y = np.bincount(lay.rack_row, weights=lay.y_m) / np.maximum(np.bincount(lay.rack_row), 1)
        most = counts.max(initial=1)
        for (a, b, m), n in zip(pairs.T.tolist(), counts.tolist()):
            x1, y1 = ox + row_x[a] * scale, oy + row_y[a] * scale
            x2, y2 = ox + row_x[b] * scale, oy + row_y[b] * scale
            width = 0.5 + 3.5 * np.log1p(n) / np.log1p(most)
            colour = MEDIUM_COLOURS[MEDIA[m]]
            if a == b:
                continue
            parts.append(f'<path d="M{x1:.1f},{y1:.1f} L{x1:.1f},{y2:.1f} L{x2:.1f},{y2:.1f}" '
                         f'fill="none" stroke="{colour}" stroke-opacity="0.5" '
                         f'stroke-width="{width:.2f}"><title>{n} {MEDIA[m]} cables, row {a + 1} '
                         f'to row {b + 1}</title></path>')
    legend = "  ".join(f"{m}" for m in MEDIA)
    parts.append(f'<text x="{ox}" y="{total_h - 12:.0f}">{site.racks} racks in {site.rows} rows, '
                 f'{site.halls} hall(s); cables between rows by medium: {legend}</text>')
    x = ox + 520
    for m in MEDIA:
        parts.append(f'<rect x="{x}" y="{total_h - 22:.0f}" width="10" height="10" '
                     f'fill="{MEDIUM_COLOURS[m]}"/><text x="{x + 13}" y="{total_h - 13:.0f}">{m}</text>')
        x += 50
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
