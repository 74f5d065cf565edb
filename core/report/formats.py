"""The report formats: Markdown, HTML and CSV of the table model (sections.py), and the bill
of materials as CSV. The CLI (``evaluate --format``) and the GUI's summary export both call
``render_report``, so they show the same numbers.
"""

from __future__ import annotations

import csv
import html
import io

from core.errors import DesignError
from core.evaluate import Evaluation
from core.report.sections import assumption_lines, bom_rows, report_sections
from core.report.validity import validity_headline, validity_reasons

FORMATS = ("md", "html", "csv", "bom")


def to_markdown(ev: Evaluation) -> str:
    out = [f"# {ev.design_name}", ""]
    headline = validity_headline(ev)
    if headline:  # first, before any figure
        out += [f"> **{headline}**", ">"]
        out += [f"> - {reason}" for reason in validity_reasons(ev)]
        out.append("")
    for title, rows in report_sections(ev):
        out += [f"## {title}", "", "| Metric | Value |", "|---|---|"]
        out += [f"| {row.label.strip()} | {row.value} |" for row in rows]
        out.append("")
    if ev.warnings:
        out += ["## Warnings", ""]
        out += [f"- {w.severity}: **{w.code}**: {w.message}" for w in ev.warnings]
        out.append("")
    out += ["## Bill of materials", "", "| Kind | Id | Name | Role | Qty | Unit price (USD) | "
            "Extended price (USD) | Note |", "|---|---|---|---|---:|---:|---:|---|"]
    out += [f"| {k} | {i} | {n} | {r} | {q:,} | {_usd(unit)} | {_usd(ext)} | {note} |"
            for k, i, n, r, q, note, unit, ext in bom_rows(ev)]
    out += ["", "## Assumptions", "", "| Assumption | Value |", "|---|---|"]
    out += [f"| {k} | `{v}` |" for k, v in assumption_lines(ev)]
    return "\n".join(out) + "\n"


def to_html(ev: Evaluation) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{e(ev.design_name)}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
        "table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:4px 10px;text-align:left}"
        "th{background:#f0f3f7}.error{color:#b71c1c}.warning{color:#9a5b00}"
        ".info{color:#37474f}.invalid{border:2px solid #b71c1c;background:#fdecea;"
        "color:#b71c1c;padding:0.6em 1em;margin-bottom:1.5em}</style></head><body>",
        f"<h1>{e(ev.design_name)}</h1>",
    ]
    headline = validity_headline(ev)
    if headline:  # first, before any figure
        parts.append(f"<div class='invalid' role='alert'><b>{e(headline)}</b><ul>"
                     + "".join(f"<li>{e(r)}</li>" for r in validity_reasons(ev)) + "</ul></div>")
    for title, rows in report_sections(ev):
        parts.append(f"<h2>{e(title)}</h2><table><tr><th>Metric</th><th>Value</th></tr>")
        parts += [f"<tr><td>{e(r.label.strip())}</td><td>{e(r.value)}</td></tr>" for r in rows]
        parts.append("</table>")
    if ev.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts += [f"<li class='{w.severity}'>{w.severity}: <b>{e(w.code)}</b>: {e(w.message)}</li>"
                  for w in ev.warnings]
        parts.append("</ul>")
    parts.append("<h2>Bill of materials</h2><table><tr><th>Kind</th><th>Id</th><th>Name</th>"
                 "<th>Role</th><th>Qty</th><th>Unit price (USD)</th><th>Extended price (USD)</th>"
                 "<th>Note</th></tr>")
    parts += [f"<tr><td>{e(k)}</td><td>{e(i)}</td><td>{e(n)}</td><td>{e(r)}</td><td>{q:,}</td>"
              f"<td>{_usd(unit)}</td><td>{_usd(ext)}</td><td>{e(note)}</td></tr>"
              for k, i, n, r, q, note, unit, ext in bom_rows(ev)]
    parts.append("</table><h2>Assumptions</h2><table><tr><th>Assumption</th><th>Value</th></tr>")
    parts += [f"<tr><td>{e(k)}</td><td><code>{e(v)}</code></td></tr>" for k, v in assumption_lines(ev)]
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


def to_csv(ev: Evaluation) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["section", "key", "metric", "value"])
    writer.writerow(["Validity", "valid", "Valid (buildable as drawn)", str(ev.valid).lower()])
    for title, rows in report_sections(ev):
        for row in rows:
            writer.writerow([title, row.key, row.label.strip(), row.value])
    for w in ev.warnings:  # the metric column of a warning is its severity
        writer.writerow(["Warnings", w.code, w.severity, w.message])
    for key, value in assumption_lines(ev):
        writer.writerow(["Assumptions", f"assumptions.{key}", key, value])
    return buffer.getvalue()


def bom_csv(ev: Evaluation) -> str:
    """The bill of materials; the price columns come last (the first six are older) and hold
    plain numbers in USD to the cent, empty where the note says there is no price of its own."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["kind", "catalog_id", "name", "role", "quantity", "note", "unit_price_usd",
                     "extended_price_usd"])
    writer.writerows((*row[:6], _cents(row[6]), _cents(row[7])) for row in bom_rows(ev))
    return buffer.getvalue()


def _cents(usd: float | None) -> str:
    return "" if usd is None else f"{usd:.2f}"


def _usd(usd: float | None) -> str:
    return "" if usd is None else f"{usd:,.0f}"


def render_report(ev: Evaluation, fmt: str) -> str:
    renderers = {"md": to_markdown, "html": to_html, "csv": to_csv, "bom": bom_csv}
    if fmt not in renderers:
        raise DesignError(f"unknown report format {fmt!r} (use {', '.join(FORMATS)})")
    return renderers[fmt](ev)
