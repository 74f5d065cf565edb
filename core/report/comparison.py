"""Comparison reports: Markdown, HTML and CSV of a ``core.compare.Comparison`` (the JSON is
``core.compare.comparison_to_json``). Markdown and HTML are for people: one row per metric, one
column per design with its delta against the first in the cell. CSV is for spreadsheets: one row
per metric, raw numbers, a value column per design and delta/relative/better columns per design
after the first.
"""

from __future__ import annotations

import csv
import html
import io

from core.compare import (BETTER, DIFFERENT, EQUAL, NOT_AVAILABLE, WORSE, Comparison, Delta,
                          Metric, format_percent, format_value)
from core.errors import DesignError
from core.report.validity import validity_word

COMPARISON_FORMATS = ("md", "html", "csv")
_MARKS = {BETTER: "better", WORSE: "worse", EQUAL: "equal", DIFFERENT: "different",
          NOT_AVAILABLE: "n/a"}
_DIRECTION_WORDS = {"higher": "higher is better", "lower": "lower is better", "neither": "neither"}


def _delta_text(metric: Metric, d: Delta) -> str:
    """"+94.2 Tb/s (+23%, better)"; "n/a" when either value is missing."""
    if d.better == NOT_AVAILABLE:
        return "n/a"
    if d.better == EQUAL:
        return "equal"
    sign = "+" if d.absolute > 0 else "-"
    absolute = format_value(abs(d.absolute), metric.unit)
    if metric.unit == "fraction":  # a change of a fraction reads as percentage points
        absolute = f"{abs(d.absolute) * 100:.2f} pt"
    relative = f"{sign}{format_percent(d.relative)}, " if d.relative is not None else ""
    return f"{sign}{absolute} ({relative}{_MARKS[d.better]})"


def _cells(comparison: Comparison, index: int) -> list[str]:
    metric, row = comparison.metrics[index], comparison.values[index]
    cells = [format_value(row[0], metric.unit)]
    for j in range(1, len(row)):
        d = comparison.deltas[j - 1][index]
        shown = format_value(row[j], metric.unit)
        # Equal rows and rows missing here anyway show the value alone.
        quiet = d.better == EQUAL or row[j] is None
        cells.append(shown if quiet else f"{shown} [{_delta_text(metric, d)}]")
    return cells


def _sections(comparison: Comparison):
    """(section title, [metric index, ...]) in table order."""
    order: dict[str, list[int]] = {}
    for i, metric in enumerate(comparison.metrics):
        order.setdefault(metric.title, []).append(i)
    return order.items()


def comparison_markdown(comparison: Comparison) -> str:
    names = comparison.names
    out = [f"# Comparison: {' vs '.join(names)}", "",
           f"Deltas in brackets are against {names[0]}; \"equal\" rows show the value only.", ""]
    out += [f"- {sentence}" for sentence in comparison.summary]
    out += ["", "| Valid (buildable as drawn) | " + " | ".join(_md(n) for n in names) + " |",
            "|---|" + "---:|" * len(names),
            "| | " + " | ".join(validity_word(v) for v in _validity(comparison)) + " |"]
    for title, indices in _sections(comparison):
        out += ["", f"## {title}", "", "| Metric | Better | " + " | ".join(_md(n) for n in names) + " |",
                "|---|---|" + "---:|" * len(names)]
        for i in indices:
            m = comparison.metrics[i]
            out.append(f"| {m.label} | {_DIRECTION_WORDS[m.direction]} | "
                       + " | ".join(_md(c) for c in _cells(comparison, i)) + " |")
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def comparison_html(comparison: Comparison) -> str:
    e = html.escape
    names = comparison.names
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>Comparison: {e(' vs '.join(names))}</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child,th:first-child,"
        "td:nth-child(2){text-align:left}th{background:#f0f3f7}.better{color:#1b5e20}"
        ".worse{color:#b71c1c}.na{color:#777}</style></head><body>",
        f"<h1>Comparison: {e(' vs '.join(names))}</h1>",
        f"<p>Deltas are against {e(names[0])}.</p><ul>",
    ]
    parts += [f"<li>{e(sentence)}</li>" for sentence in comparison.summary]
    parts.append("</ul>")
    parts.append("<table><tr><th>Valid (buildable as drawn)</th>"
                 + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr><tr><td></td>"
                 + "".join(f"<td class='{'worse' if v is False else ''}'>{e(validity_word(v))}</td>"
                           for v in _validity(comparison)) + "</tr></table>")
    for title, indices in _sections(comparison):
        parts.append(f"<h2>{e(title)}</h2><table><tr><th>Metric</th><th>Better</th>"
                     + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>")
        for i in indices:
            m = comparison.metrics[i]
            cells = _cells(comparison, i)
            marks = [""] + [{BETTER: "better", WORSE: "worse", NOT_AVAILABLE: "na"}.get(
                comparison.deltas[j - 1][i].better, "") for j in range(1, len(names))]
            parts.append(f"<tr><td>{e(m.label)}</td><td>{e(_DIRECTION_WORDS[m.direction])}</td>"
                         + "".join(f"<td class='{k}'>{e(c)}</td>" if k else f"<td>{e(c)}</td>"
                                   for c, k in zip(cells, marks)) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def comparison_csv(comparison: Comparison) -> str:
    names = comparison.names
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["section", "key", "metric", "unit", "direction", *names]
    for name in names[1:]:
        header += [f"{name} delta", f"{name} relative", f"{name} better"]
    writer.writerow(header)
    writer.writerow(["validity", "valid", "Valid (buildable as drawn)", "", "neither",
                     *("" if v is None else str(v).lower() for v in _validity(comparison))])
    for i, m in enumerate(comparison.metrics):
        row = [m.section, m.key, m.label, m.unit, m.direction]
        row += ["" if v is None else v for v in comparison.values[i]]
        for j in range(1, len(names)):
            d = comparison.deltas[j - 1][i]
            row += ["" if d.absolute is None else d.absolute,
                    "" if d.relative is None else d.relative, d.better]
        writer.writerow(row)
    return buffer.getvalue()


def _validity(comparison: Comparison) -> tuple[bool | None, ...]:
    return comparison.valid or (None,) * len(comparison.names)


def render_comparison(comparison: Comparison, fmt: str) -> str:
    renderers = {"md": comparison_markdown, "html": comparison_html, "csv": comparison_csv}
    if fmt not in renderers:
        raise DesignError(f"unknown comparison format {fmt!r} (use json, {', '.join(COMPARISON_FORMATS)})")
    return renderers[fmt](comparison)
